//! # sdrs-ncp
//!
//! Hard frictional contact at the velocity level, beside sdrs's position-level SDRS stepper:
//! the contact impulses solve the nonlinear complementarity problem (NCP) of Le Lidec,
//! Montaut, de Mont-Marin, Schramm and Carpentier, "Highly-Efficient Differentiable Simulation
//! for Robotics" (`../shared/papers/efficient-differentiable-simulation-ncp-implicit.txt`,
//! sec. II-B and II-C).
//!
//! - [`solver`]: eq. 1, `K_μ ∋ λ ⊥ σ + Γ_μ(σ) ∈ K_μ*` with `σ = G λ + g`, solved by ADMM on
//!   the second-order cones ([`solve`]), and the contact modes ([`ContactMode`]) the implicit
//!   differentiation (eq. 8-11) builds on.
//! - [`stepper`]: [`NcpSimulator`], the velocity-level step of eq. 2-3 (free velocity from
//!   ABA, contact patches from `sdrs_geometry::contact`, `G = J_c M⁻¹ J_cᵀ` through the
//!   Cholesky factor of `M`, the NCP, then `v⁺ = v_f + M⁻¹ J_cᵀ λ`, `q⁺ = q ⊕ Δt v⁺`).
//! - [`implicit`]: mode-aware implicit differentiation of an NCP solution (eq. 8-11);
//!   [`step_jacobian`]: the full step Jacobian `∂(q⁺, v⁺)/∂(q, v, u)` chaining it with the ABA
//!   derivatives and the contact Jacobian's (appendices C, D); [`trajectory`]: forward and
//!   reverse mode over a rollout; [`inverse`]: Gauss-Newton on them (initial-velocity
//!   estimation, contact inverse dynamics).
//! - [`error`]: the error type [`NcpError`].

//!
//! ## The idea and where each equation lives
//!
//! Instead of SDRS's smooth barrier (position level, Newton), contact here is hard: per step
//! one frictional-contact NCP in the impulses.
//!
//! - eq. 1 (Signorini + Coulomb + maximal dissipation as a cone complementarity problem with
//!   the De Saxcé correction `Γ_μ`): [`solver::problem`], [`solver::cone`], solved in
//!   [`solver::admm`]; modes in [`solver::mode`];
//! - eq. 2 (constrained dynamics `M v̇ + b − τ = J_cᵀ λ`): `M` by CRBA and the free
//!   acceleration by ABA from `sdrs_dynamics::algorithms`, `J_c` in [`stepper`];
//! - eq. 3 (symplectic Euler `v⁺ = v + Δt (v̇_f + M⁻¹ J_cᵀ λ)`, here with `λ` an impulse):
//!   [`NcpSimulator::step`].
//!
//! ## Limitations
//! - One friction coefficient for every contact; restitution 0 (impacts are inelastic).
//! - PD control is explicit (stiff gains need a small step).
//! - ADMM with the De Saxcé fixed point is not guaranteed to converge: about 1 in 150 random
//!   rank-deficient problems does not converge within 20,000 iterations; the solver then
//!   returns [`NcpError::NotConverged`]. With the spectral penalty, robot problems take tens
//!   (box towers) to a few hundred (Solo-12 standing) iterations at a 1e-12 tolerance.
//! - Derivatives hold the contact set fixed (a perturbation that creates or removes a contact
//!   is a boundary), like the paper's.

pub mod error;
pub mod implicit;
pub mod inverse;
pub mod solver;
pub mod step_jacobian;
pub mod stepper;
pub mod trajectory;

pub use error::NcpError;
pub use solver::{
    ContactMode, NcpProblem, NcpSolution, Residuals, SolverSettings, SolverSettingsBuilder, solve,
};
pub use step_jacobian::StepJacobian;
pub use stepper::record::StepRecord;
pub use stepper::settings::NcpSettings;
pub use stepper::{NcpSimulator, NcpStepReport, StepContact};
pub use trajectory::{DifferentiableRollout, RolloutGradient};

/// The README's example, run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
