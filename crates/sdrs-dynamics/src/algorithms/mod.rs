//! The classic rigid-body algorithms and their analytical derivatives, over sdrs's own
//! coordinates (Featherstone, *Rigid Body Dynamics Algorithms*, 2008; Carpentier & Mansard,
//! "Analytical derivatives of rigid body dynamics algorithms", RSS 2018; Pinocchio's
//! Model/Data split).
//!
//! **Coordinates.** The configuration is sdrs's [`State`](crate::State) and the generalized
//! velocity is `q̇` of its coordinates `q` (what [`Motion::velocity`](crate::Motion::velocity)
//! gives at a re-centred state). Every DoF is an elementary rotation or translation about an
//! axis of a frame (a free joint is three translations then the chart `Rx·Ry·Rz` after its
//! reference rotation, a spherical joint the chart alone), so each DoF is a 1-DoF joint with a
//! constant axis and the recursions run over the tree of elementary DoFs: the intermediate
//! DoFs of a multi-DoF joint carry massless bodies, and each link's mass sits on the last DoF
//! of its path, merged with the links fixed to it (a body costs what its moving DoFs cost).
//! Integration on the configuration manifold is [`Model::integrate`](crate::Model::integrate),
//! [`Model::difference`](crate::Model::difference) and [`Model::neutral`](crate::Model::neutral);
//! at a re-centred state their tangent vectors agree with `q̇` to first order (see
//! [`crate::manifold`]).
//!
//! **Inertia and gravity** come from each link's second moment
//! [`Model::second_moment`](crate::Model::second_moment), which is what the step's energy
//! uses, so these algorithms and the step agree; gravity is a world acceleration vector
//! argument (the step's `StepSettings::gravity` `g` is `(0, 0, −g)`).
//!
//! **Spatial algebra** in world coordinates, `(linear, angular)` (`algorithms/spatial.rs`): all per-DoF
//! quantities (screws, velocities, inertias) live in the world frame, as in Carpentier &
//! Mansard's derivatives.
//!
//! One algorithm per file, each a method of the workspace [`RigidBodyData`], which owns every
//! buffer so repeated calls do not allocate:
//! - [`frames`]: forward kinematics, link and frame placements, frame Jacobians;
//! - [`rnea`]: inverse dynamics `τ = M q̈ + C q̇ + g`;
//! - [`crba`]: the joint-space inertia `M`;
//! - [`aba`]: forward dynamics `q̈` in O(n);
//! - [`minverse`]: `M⁻¹` in O(n²);
//! - [`com`]: centre of mass and its Jacobian;
//! - [`rnea_derivatives`]: `∂τ/∂q`, `∂τ/∂q̇`, `∂τ/∂q̈ = M`;
//! - [`aba_derivatives`]: `∂q̈/∂q`, `∂q̈/∂q̇`, `∂q̈/∂τ = M⁻¹`.
//!
//! Every result is checked against Pinocchio 4.1 on UR5, Solo-12 and TALOS at random states to
//! 1e-10 and every derivative against finite differences (`tests/algorithms.rs`).
//!
//! ```
//! use sdrs_dynamics::{RigidBodyData, State, scenes::chain};
//! use nalgebra::{DVector, Vector3};
//! let model = chain(3, 0.01)?.model;
//! let mut data = RigidBodyData::new(&model);
//! let state = State::new(&model, DVector::from_vec(vec![0.4, -0.3, 1.1]))?;
//! let v = DVector::from_vec(vec![0.5, 1.0, -0.2]);
//! let g = Vector3::new(0.0, 0.0, -9.81);
//! // Free fall of the chain: no joint forces.
//! let ddq = data.aba(&model, &state, &v, &DVector::zeros(3), &g)?.clone();
//! let m = data.crba(&model, &state)?.clone();
//! let bias = data.rnea(&model, &state, &v, &DVector::zeros(3), &g)?.clone();
//! assert!((m * ddq + bias).norm() < 1e-9);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod aba;
pub mod aba_derivatives;
pub mod com;
pub mod crba;
mod data;
pub mod frames;
pub mod minverse;
pub mod rnea;
pub mod rnea_derivatives;
mod spatial;

pub use aba_derivatives::AbaDerivatives;
pub use data::RigidBodyData;
pub use frames::JacobianFrame;
pub use rnea_derivatives::RneaDerivatives;
