//! # sdrs-diff
//!
//! Gradients of whole trajectories (SDRS paper sec. IV-D): every time step solves
//! `∇O(θ^{t+1}; θ^t, T^{t−1}, u^t, d) = 0`, so by the implicit function theorem
//! `∂θ^{t+1}/∂y = −H⁻¹ ∂²O/∂θ^{t+1}∂y` for each input `y`, with the Hessian `H` and the mixed
//! blocks the stepper returns (`sdrs_dynamics::StepDerivatives`). [`adjoint`] runs the
//! reverse recursion over a [`Trajectory`] recorded by [`rollout`] and returns `dL/d(θ^0,
//! controls, design)` for a loss of the final state.
//!
//! Memory is O(H·n·(n + |d|)): every step's Hessian and blocks are kept. (Checkpointing, the
//! policies and forward-mode products of issue 5 are not implemented yet.)
//!
//! Optimisers: [`Adam`] and [`projected_step`], the trust-region step of SDRS eq. 15.
//!
//! ```
//! use sdrs_diff::{adjoint, rollout};
//! use sdrs_dynamics::scenes::chain;
//! use sdrs_dynamics::{Kinematics, Simulator, State};
//! use nalgebra::DVector;
//! let mut scene = chain(3, 0.01)?;
//! scene.settings.backward = true;
//! scene.control.kp = DVector::from_element(3, 20.0);
//! let model = scene.model.clone();
//! let mut sim = Simulator::new(model.clone(), scene.settings)?;
//! let start = State::zero(&model);
//! let rest = Kinematics::new(&model, &start).poses().to_vec();
//! let trajectory = rollout(&mut sim, &start, &rest, &vec![scene.control; 20])?;
//! // d(sum of final joint angles)/d(everything):
//! let g = adjoint(&model, &trajectory, &DVector::from_element(model.dof(), 1.0))?;
//! assert_eq!(g.target_position.len(), 20);
//! // The last step's targets act through −H⁻¹(−2k_p): raising them all raises the angles' sum.
//! assert!(g.target_position[19].sum() > 0.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod adjoint;
mod error;
mod optim;

pub use adjoint::{Trajectory, TrajectoryGradient, adjoint, pose_adjoint, rollout};
pub use error::{DiffError, Result};
pub use optim::{Adam, projected_step};
