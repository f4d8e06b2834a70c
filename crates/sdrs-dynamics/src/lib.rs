//! # sdrs-dynamics
//!
//! Reduced-coordinate articulated bodies with position-level Newton time stepping (SDRS paper
//! sec. IV-A, eq. 1-5 and 14).
//!
//! - [`model`]: a kinematic tree of [`Link`]s (listed parents first) with fixed, revolute,
//!   prismatic, universal (2-DoF), spherical and free joints, collision hulls and a mass model
//!   reduced to each link's 4x4 second moment.
//! - [`bodies`]: links joined by fixed joints are one rigid body ([`Model::body`], its
//!   constant offsets [`Model::body_offset`] and merged second moment): the step's inertia,
//!   gravity and assembly run over bodies, so a robot costs what its moving bodies cost.
//! - [`filter`]: which links may touch: links joined by fixed joints are one body, immobile
//!   links never touch, parent/child bodies are skipped on request, and per-link group/mask
//!   bits and excluded pairs (SRDF, MJCF, the user, or the automatic filter
//!   [`Model::exclude_touching`] that lists what it excluded).
//! - [`kinematics`]: forward kinematics (eq. 1, generic over the scalar so tests push
//!   hyper-dual numbers through it), link Jacobians in the twist convention of
//!   `sdrs_geometry::twist`, and the assembly of link-level gradients and Hessians into
//!   generalized coordinates including the second-order kinematic term.
//! - [`handles`]: typed [`LinkId`], [`JointId`], [`BodyId`] and [`Frame`] handles, lookup by
//!   name ([`Model::link`], [`Model::joint`], unknown names listing the closest ones) and each
//!   joint's DoF range ([`Model::dofs`]); names are unique in a model.
//! - [`manifold`]: [`Model::integrate`] and [`Model::difference`] on the configuration
//!   manifold (spherical and free joints compose rotations), and [`Model::state_from_poses`].
//! - [`motion`]: a running simulation ([`Motion`]) made from positions and velocities
//!   (generalized, or a free body's linear and angular velocity), with velocities read back.
//! - [`wrench`]: external wrenches on links as generalized forces
//!   ([`Control::add_wrench`]).
//! - [`algorithms`]: RNEA, CRBA, ABA, `M⁻¹`, frame placements and Jacobians, centre of mass,
//!   and the analytical RNEA and ABA derivatives over a reusable [`RigidBodyData`] workspace.
//! - [`energy`]: inertia and gravity from the second moments (eq. 2-4, O(1) per link).
//! - [`tendon`]: fixed tendons, lengths `c·θ` with a spring, a damper and limits in the step
//!   ([`Tendon`], [`Model::with_tendons`]).
//! - [`weld`]: welds and connections, springs holding a link's frame at another link's or the
//!   world's ([`Weld`], [`Model::with_welds`]): loop closures.
//! - [`scenes`]: ready-made scenes (box on an incline, chains, a 7-DoF arm, the paper's
//!   rotating chains) shared by tests, examples and benchmarks.
//! - [`mjcf`]: MuJoCo MJCF import (body tree, hinge/slide/ball/free joints, primitive and mesh
//!   geoms as hulls, geom-derived or explicit inertia, default classes, motor/position/velocity
//!   actuators as PD gains, joint friction and armature, fixed tendons, equality constraints),
//!   checked against MuJoCo's mass matrix, bias forces and motion.
//! - [`urdf`]: URDF import (links, inertials, joints, limits, collision geometry with convex
//!   decomposition of meshes; STL, OBJ and COLLADA meshes; `package://` URIs through search
//!   paths or the URDF's ancestor folders); every error names the file, line and element.
//! - [`srdf`]: SRDF import (disabled collision pairs applied to the model's contact filter,
//!   named configurations such as "standing" as [`State`]s, virtual and passive joints).
//! - [`stepper`]: the time step of eq. 14 by Newton's method with clamped eigenvalues and a
//!   line search that never accepts an infinite (penetrating) energy, with the SDRS plane
//!   barrier and plane friction as contact, and on request the mixed blocks
//!   `∂²O/∂θ^{t+1}∂(θ^t, ξ^{t−1}, u, d)` the backward pass needs ([`StepDerivatives`]).
//!
//! ```
//! use sdrs_dynamics::{Control, JointKind, Link, MassModel, Model, Motion, Simulator, State, StepSettings};
//! use sdrs_geometry::ConvexHull;
//! use nalgebra::{Isometry3, Vector3};
//! // A free 1 kg box dropped from rest: after 10 steps of 10 ms it has fallen ½ g t² (the
//! // implicit scheme lags by one step: exactly g Δt² Σ k for k = 1..10).
//! let cube = ConvexHull::cuboid(Vector3::repeat(0.1))?;
//! let link = Link::new("box", None, Isometry3::identity(), JointKind::Free, vec![cube], MassModel::Lumped { mass: 1.0 });
//! let model = Model::new(vec![link])?;
//! let mut sim = Simulator::new(model.clone(), StepSettings::new(0.01)?)?;
//! let mut motion = Motion::at_rest(&model, State::zero(&model));
//! for _ in 0..10 {
//!     sim.advance(&mut motion, &Control::passive(&model))?;
//! }
//! let expected = -9.81 * 0.01f64.powi(2) * 55.0;
//! assert!((motion.state.q[2] - expected).abs() < 1e-6);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Limitations (for now)
//! - Joint limits are barriers: a state exactly at a limit has infinite energy and is refused
//!   with the joint's name; [`Model::neutral`] and [`Model::clamp_inside_limits`] give
//!   configurations strictly inside.
//! - A user energy may return `+∞` to forbid a region, but without a barrier's slope the
//!   minimum then sits on that wall and Newton reports it does not converge.
//! - The step's design blocks need vertex-lumped (or explicit) masses: the vertex derivative
//!   of solid-hull inertia is not provided; user energies are not differentiated with respect
//!   to the design.

pub mod algorithms;
pub mod bodies;
pub mod energy;
pub mod error;
pub mod factor;
pub mod filter;
pub mod handles;
pub mod kinematics;
pub mod manifold;
pub mod mjcf;
pub mod model;
pub mod motion;
pub mod scenes;
pub mod srdf;
pub mod stepper;
pub mod tendon;
pub mod urdf;
pub mod urdf_export;
pub mod weld;
pub mod wrench;

pub use algorithms::{AbaDerivatives, JacobianFrame, RigidBodyData, RneaDerivatives};
pub use error::{DynamicsError, Result};
pub use factor::{FactorError, FactorMethod, HessianFactor, SparseRule};
pub use filter::{ExcludedPair, LinkContact};
pub use handles::{BodyId, Frame, JointId, LinkId};
pub use kinematics::{Kinematics, State, forward_kinematics};
pub use mjcf::{
    Actuator, ActuatorKind, FloorSlab, JointForces, MjcfJoint, MjcfJointKind, MjcfModel,
    MjcfOptions, Transmission, load_mjcf, mjcf_from_str,
};
pub use model::{JointKind, Link, MassModel, Model};
pub use motion::Motion;
pub use scenes::Scene;
pub use srdf::{Srdf, SrdfReport, SrdfWarning};
pub use stepper::{
    ActiveContact, ContactEnergy, ContactHook, ContactKind, ContactSettings, Control, DesignBlock,
    DesignBlocks, ExternalEnergy, FrictionSettings, Gain, IpcContact, Linearization,
    LongRangeContact, MeshContact, NewtonStart, Objective, PairTerm, PairVertex, SdrsContact,
    Simulator, StepDerivatives, StepReport, StepSettings, StepTimings,
};
pub use tendon::Tendon;
pub use urdf::{UrdfOptions, load_urdf, urdf_from_str};
pub use urdf_export::{UrdfExport, export_urdf};
pub use weld::Weld;

/// The README's example, run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
