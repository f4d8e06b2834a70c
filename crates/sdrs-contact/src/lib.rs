//! # sdrs-contact
//!
//! Contact potentials between rigid bodies behind one trait, [`ContactModel`], so that models
//! are interchangeable per scene. Every model returns the energy of a pair of bodies and its
//! exact gradient and Hessian with respect to the two bodies' poses (twists, see [`sdrs_geometry::twist`]),
//! and the derivatives with respect to the bodies' local vertices that shape optimisation
//! needs.
//!
//! Implemented:
//! - [`PlaneBarrier`]: the SDRS separating-plane barrier between convex hulls (SDRS paper
//!   eq. 6-7, derivatives by the implicit function theorem, eq. 33-35), with the barrier
//!   function of [`barrier`].
//! - [`friction`]: the SDRS frictional damping through the plane's in-plane velocity
//!   (eq. 8-13), from a [`friction::FrictionFrame`] lagged from step t, differentiated with
//!   respect to the step-(t+1) poses, the step-t poses (through the lagged plane, normal
//!   forces, basis and positions) and the local vertices
//!   ([`friction::PlaneFriction::evaluate_lagged`]).
//! - [`PlaneBarrier::plane_sensitivity`]: how the optimal plane moves with poses and vertices.
//! - [`long_range`]: the long-range potential between triangle meshes (long-range paper
//!   sec. 4-5): exact triangle-pair plane potentials with globally supported barrier terms,
//!   blended hierarchically with a closed form over bounding-sphere trees; pose gradient and
//!   Hessian and mesh-vertex derivatives; and its friction ([`long_range::friction`], appendix A.3: plane friction on
//!   every triangle pair within the margin, with step-t derivatives).
//! - [`distance`]: closest points between mesh primitives (point-triangle, segment-segment,
//!   triangle-triangle).
//! - [`ipc`]: the IPC baseline: primitives (squared distances by Voronoi type, clamped log
//!   barrier, edge-edge mollifier) with exact derivatives matched to `ipctk`, the potential
//!   between two meshes, IPC's lagged friction, and continuous collision detection
//!   ([`ContactModel::max_step`]) for time steppers.
//! - [`LaggedFriction`]: the trait of friction models lagged by one step between mesh shapes.
//!
//! Not provided (see `docs/architecture.md`): mesh-vertex derivatives of the IPC models and
//! of long-range friction, and step-t derivatives of IPC friction (a backward pass through it
//! is refused with [`ContactError::Unsupported`]).
//!
//! ```
//! use sdrs_contact::{ContactModel, Order, PlaneBarrier};
//! use sdrs_geometry::ConvexHull;
//! use nalgebra::{Isometry3, Vector3};
//! let box_ = ConvexHull::cuboid(Vector3::new(0.2, 0.2, 0.2))?;
//! let model = PlaneBarrier::new(0.05)?;
//! let mut cache = Default::default();
//! let lifted = Isometry3::translation(0.0, 0.0, 0.43); // 3 cm above the first box
//! let out = model.evaluate(&box_, &Isometry3::identity(), &box_, &lifted, &mut cache, Order::Hessian)?;
//! let c = out.contact().unwrap();
//! // Equal and opposite forces along z.
//! assert!((c.gradient[2] + c.gradient[8]).abs() < 1e-6 * c.gradient[2].abs());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Limitations
//! - Friction is singular where the pressed points project to one point of the plane (a
//!   vertex-vertex contact): rotation is then frozen, and near such states its step-t
//!   derivatives grow without bound (see [`friction`]).
//! - The design derivatives cover the gradient and the pose-design mixed block; the
//!   design-design Hessian is not provided (the adjoint does not need it).

pub mod barrier;
pub mod batch;
pub mod distance;
pub mod error;
mod estimates;
pub mod friction;
pub mod ipc;
pub mod long_range;
pub mod model;
pub mod pair_map;
pub mod plane;

pub use error::{ContactError, Result};
pub use model::{
    ContactModel, FromMesh, LaggedFriction, Order, PairContact, PairOutcome, VertexDerivatives,
};
pub use plane::{PlaneBarrier, PlaneCache};

/// The README's example, run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
