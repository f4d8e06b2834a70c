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
//! - [`error`]: the error type [`NcpError`].

pub mod error;
pub mod implicit;
pub mod solver;
pub mod stepper;

pub use error::NcpError;
pub use solver::{
    ContactMode, NcpProblem, NcpSolution, Residuals, SolverSettings, SolverSettingsBuilder, solve,
};
pub use stepper::settings::NcpSettings;
pub use stepper::{NcpSimulator, NcpStepReport, StepContact};
