//! The frictional-contact NCP of the paper's eq. 1 and its ADMM solver.
//!
//! `K_μ ∋ λ ⊥ σ + Γ_μ(σ) ∈ K_μ*`, `σ = G λ + g`: Signorini's condition, Coulomb's cone and
//! maximal dissipation in one cone complementarity problem, made exact by the De Saxcé
//! correction `Γ_μ(σ) = (0, 0, μ ‖σ_T‖)` (paper sec. II-B).
//!
//! - [`cone`]: the cones, their projections and the De Saxcé correction;
//! - [`problem`]: [`NcpProblem`] (`G`, `g`, `μ`, checked);
//! - [`settings`]: [`SolverSettings`] and its checked builder;
//! - [`admm`]: [`solve`], [`NcpSolution`], [`Residuals`];
//! - [`spectral`]: the spectrum estimates that set the ADMM penalty;
//! - [`mode`]: [`ContactMode`] classified from a solution.

pub mod admm;
pub mod cone;
pub mod mode;
pub mod problem;
pub mod settings;
pub mod spectral;

pub use admm::{NcpSolution, Residuals, solve};
pub use mode::ContactMode;
pub use problem::NcpProblem;
pub use settings::{SolverSettings, SolverSettingsBuilder};
