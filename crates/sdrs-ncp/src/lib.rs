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
//! - [`error`]: the error type [`NcpError`].

pub mod error;
pub mod solver;

pub use error::NcpError;
pub use solver::{
    ContactMode, NcpProblem, NcpSolution, Residuals, SolverSettings, SolverSettingsBuilder, solve,
};
