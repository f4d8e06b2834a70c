//! # sdrs-diff
//!
//! Gradients of whole trajectories (SDRS paper sec. III-A, IV-D) and the optimisers of
//! sec. V. Every time step solves `∇O(θ^{t+1}; θ^t, T^{t−1}, u^t, d) = 0`, so by the implicit
//! function theorem `∂θ^{t+1}/∂y = −H⁻¹ ∂²O/∂θ^{t+1}∂y` for each input `y`, with the Hessian
//! `H` and the mixed blocks of the step's [`sdrs_dynamics::Linearization`].
//!
//! - [`step_jacobian`]: one step's Jacobians with respect to `θ^t`, the previous poses, the PD
//!   targets, the generalized forces `τ` (`∂θ^{t+1}/∂τ = H⁻¹`) and the design.
//! - [`step_coordinates`]: one step as a function of the coordinate pair `(θ^{t−1}, θ^t)`, the
//!   controls and the design, with its vector-Jacobian product ([`CoordinateStep::vjp`]) for
//!   per-step automatic differentiation; [`StepBatch`] steps many environments of one model
//!   on all cores; [`identity_chart`] gives the coordinates of any state (a `Motion`'s, say).
//! - [`rollout`] / [`rollout_policy`] record a [`Trajectory`] under fixed controls or a
//!   [`Policy`] (open-loop targets or torques, sine waves, cubic splines, or your own, feedback
//!   included; a policy gives pullbacks and pushforwards, so an open-loop policy over `H`
//!   steps costs `O(H·|θ|·m)` memory); [`Recording`] chooses between keeping every step's blocks and keeping the
//!   states alone (O(H·|θ|) memory, blocks recomputed in the backward pass).
//! - [`Loss`]: losses that know their partials ([`LossGradient`]): a [`LinkPoint`] reaching a
//!   target ([`PointTarget`]; a point may be the mean of hull vertices, moving with the
//!   design), a centre of mass ([`CentreOfMass`]: one body, some links, the robot), relative
//!   motion of two bodies ([`Distance`], [`RelativePosition`]), control effort ([`Effort`]:
//!   torques and target changes), closures ([`Custom`] with partials, [`FinalValue`] by
//!   differences) and weighted sums ([`Sum`]); state losses at the end or over every step
//!   ([`When`]).
//! - [`Objective`]: one call from policy and design parameters to the loss and its gradients
//!   (rollout → loss → adjoint → start at rest → design pullback), with the trajectory.
//! - [`adjoint`]: reverse mode for a loss with final and running terms ([`LossGradient`]):
//!   `dL/d(θ^0, targets, forces, policy parameters, design)` in one backward pass.
//! - [`tangent`]: forward mode, the Jacobian of every state with respect to a few directions
//!   ([`Seeds`]) in one forward pass.
//! - [`link_point`], [`pose_adjoint`], [`pose_tangent`]: derivatives of link poses and points
//!   with respect to coordinates and attachments, for hand-written losses on positions.
//! - [`DesignMap`]: a low-dimensional design `d = d₀ + B p`, built by name (a link's
//!   attachment, some hull vertices, a link's length) or entry by entry.
//! - Optimisers: [`Adam`], [`projected_step`] (the step of SDRS eq. 15) and [`minimise`] /
//!   [`minimise_with`], the loop over parameter blocks (fixed steps as the paper, or a trust
//!   region, [`StepRule`]) with a per-iteration [`Progress`] callback.
//! - The long-range paper's control benchmarks (sec. 6, A.6): its task loss
//!   [`TargetRegion`] (`ReLU(|x_COM − x*|² − ε²)`), plain Adam descent over any
//!   [`GradientSource`] ([`descend`], [`paper_adam`] with `(β₁, β₂) = (0.3, 0.5)`), the
//!   gradient bundle of Suh et al. ([`Bundled`]), the receding-horizon driver
//!   ([`RecedingHorizon`]) and one task run under each contact model and estimator from the
//!   same initial guess ([`Method`], [`compare`]).
//!
//! ```
//! use sdrs_diff::{CubicSpline, LossGradient, Policy, Recording, adjoint, rollout_policy};
//! use sdrs_dynamics::scenes::chain;
//! use sdrs_dynamics::{Motion, Simulator, State};
//! use nalgebra::DVector;
//! let mut scene = chain(2, 0.01)?;
//! scene.settings.backward = true;
//! scene.control.kp = DVector::from_element(2, 40.0); // N·m/rad
//! let model = scene.model.clone();
//! // The first joint's target follows a cubic over 0.3 s (4 control values).
//! let policy = CubicSpline::new(scene.control.clone(), vec![0], 4, 0.3)?;
//! let c = DVector::from_vec(vec![0.0, 0.2, 0.4, 0.6]);
//! let mut sim = Simulator::new(model.clone(), scene.settings)?;
//! let start = Motion::at_rest(&model, State::zero(&model));
//! let trajectory = rollout_policy(&mut sim, &start, &policy, &c, 30, Recording::Blocks)?;
//! // d(final first angle)/dc: the last control value matters most.
//! let loss = LossGradient::final_state(&model, 30, DVector::from_vec(vec![1.0, 0.0]));
//! let g = adjoint(&mut sim, &trajectory, &loss)?;
//! assert!(g.parameters[3] > g.parameters[0].abs());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod adjoint;
mod bundle;
mod chart;
mod coordinate_step;
mod descent;
mod design;
mod error;
mod loss;
mod losses;
mod methods;
mod objective;
mod optim;
mod point;
mod policy;
mod pose;
mod receding;
mod step;
mod step_batch;
mod tangent;
mod target_region;
mod trajectory;
mod trust_region;

pub use adjoint::{LossGradient, TrajectoryGradient, adjoint};
pub use bundle::Bundled;
pub use chart::{identity_chart, identity_chart_tangent};
pub use coordinate_step::{CoordinateStep, StepCotangent, step_coordinates};
pub use descent::{
    Best, Descent, GradientSource, Iterate, Stopping, descend, descend_with, descent, paper_adam,
};
pub use design::DesignMap;
pub use error::{DiffError, Result};
pub use loss::{Custom, FinalValue, Loss, Sum};
pub use losses::{CentreOfMass, Distance, Effort, PointTarget, RelativePosition, When};
pub use methods::{
    ContactChoice, ContactModels, GradientKind, Method, MethodRun, MethodSource, compare,
};
pub use objective::{Evaluation, Objective};
pub use optim::{Adam, projected_step};
pub use point::LinkPoint;
pub use policy::{
    Channel, ControlCotangent, ControlTangent, CubicSpline, OpenLoop, Policy, PolicyDerivatives,
    PolicyGradient, PolicyInput, PolicyTangent, SharePolicy, SineWaves, TargetJacobian,
};
pub use pose::{link_point, pose_adjoint, pose_tangent};
pub use receding::{RecedingHorizon, RecedingRun};
pub use step::{StepJacobian, step_jacobian};
pub use step_batch::StepBatch;
pub use tangent::{Seeds, tangent};
pub use target_region::TargetRegion;
pub use trajectory::{RecordedPolicy, Recording, Trajectory, rollout, rollout_policy};
pub use trust_region::{Block, Evaluated, Optimum, Progress, StepRule, minimise, minimise_with};

/// The README's example, run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
