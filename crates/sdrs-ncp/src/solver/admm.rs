//! [`solve`]: ADMM on the second-order cones for eq. 1 with the De Saxcé correction.
//!
//! For a fixed shift `s = Γ_μ(σ)`, eq. 1 is the optimality condition of the cone-constrained
//! quadratic program `min ½ λᵀ G λ + λᵀ (g + s)` over `λ ∈ K_μ` (the friction cones of all
//! contacts). ADMM splits it as `λ = z`, `z ∈ K_μ`, with scaled dual `u` and penalty `ρ`:
//!
//! ```text
//! λ ← (G + ρ I)⁻¹ (ρ (z − u) − g − s)      (one Cholesky factor, kept while ρ is unchanged)
//! z ← Π_K(λ + u)                            (per-contact cone projection)
//! u ← u + λ − z
//! s ← Γ_μ(G z + g)                          (De Saxcé, updated every iteration)
//! ```
//!
//! as in the ADMM contact solvers the paper cites ([1, 8, 41]; Carpentier et al. 2024). At a
//! fixed point `σ + Γ_μ(σ) = −ρ u` is in `K_μ*` and orthogonal to `z`. `G` may be singular
//! (more contact rows than DoFs): `G + ρ I` is positive definite for every `ρ > 0`.
//!
//! **Convergence** is measured on the cone-feasible iterate `z` (the returned impulses):
//! - primal feasibility `‖λ − z‖∞` (how far the unconstrained iterate is from the cones);
//! - dual feasibility `max_i dist(σ̂_i, K_μi*)` with `σ̂ = G z + g + Γ_μ(G z + g)`;
//! - complementarity `max_i |z_i · σ̂_i|`;
//!
//! all three at most the tolerance. `ρ` starts at the largest eigenvalue of `G` (power
//! iteration) unless given, and with adaptation on (off by default) it is rescaled by 5 when the ADMM primal
//! residual `‖λ − z‖` and dual residual `ρ ‖z − z_prev‖` differ by more than a factor 10
//! (residual balancing, Boyd et al. 2011 sec. 3.4.1), at most every 10 iterations since each
//! change refactorises `G + ρ I`.

use super::cone::{de_saxce, project_cone, project_dual_cone};
use super::problem::{NcpProblem, block, check_finite, check_size, set_block};
use super::settings::SolverSettings;
use crate::error::NcpError;
use nalgebra::{Cholesky, DMatrix, DVector, Dyn};

/// Residual imbalance that triggers a change of `ρ`.
const BALANCE_RATIO: f64 = 10.0;
/// Factor by which `ρ` changes.
const RHO_STEP: f64 = 5.0;
/// Iterations between two changes of `ρ`.
const ADAPT_EVERY: usize = 10;
/// Power iterations for the largest eigenvalue of `G`.
const POWER_ITERATIONS: usize = 20;

/// The three convergence residuals at a solution (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Residuals {
    /// Primal feasibility `‖λ − Π_K(λ)‖∞` of the ADMM iterate.
    pub primal: f64,
    /// Dual feasibility: largest distance of `σ + Γ_μ(σ)` to the dual cone.
    pub dual: f64,
    /// Complementarity: largest `|λ_i · (σ_i + Γ_μ(σ_i))|`.
    pub complementarity: f64,
}

impl Residuals {
    /// The largest of the three.
    pub fn max(&self) -> f64 {
        self.primal.max(self.dual).max(self.complementarity)
    }
}

/// A solution of eq. 1.
#[derive(Debug, Clone, PartialEq)]
pub struct NcpSolution {
    /// The contact impulses `λ` (each contact's in its cone `K_μ`), three per contact.
    pub impulses: DVector<f64>,
    /// The contact velocities `σ = G λ + g`.
    pub velocities: DVector<f64>,
    /// The residuals at `λ`.
    pub residuals: Residuals,
    /// ADMM iterations run (0 when the warm start already solves the problem).
    pub iterations: usize,
}

/// Solves `problem` by ADMM, starting from the impulses `warm` (e.g. the previous step's
/// solution; projected onto the cones) or from zero.
///
/// Fails with [`NcpError::NotConverged`] when the residuals stay above the tolerance after
/// `settings.max_iterations()`, [`NcpError::NotPositiveSemidefinite`] when `G + ρ I` cannot be
/// factorised, and a size or finiteness error for a bad warm start.
///
/// ```
/// use sdrs_ncp::{ContactMode, NcpProblem, SolverSettings, solve};
/// use nalgebra::{DMatrix, DVector};
/// // A unit point mass hitting the ground at 1 m/s and sliding at 2 m/s, μ = 0.5: the
/// // normal impulse stops it (1 N s), friction takes μ of that off the slip.
/// let problem = NcpProblem::new(DMatrix::identity(3, 3), DVector::from_vec(vec![2.0, 0.0, -1.0]), vec![0.5])?;
/// let solution = solve(&problem, &SolverSettings::default(), None)?;
/// assert!((solution.impulses[2] - 1.0).abs() < 1e-7);
/// assert!((solution.impulses[0] + 0.5).abs() < 1e-7);
/// assert!((solution.velocities[0] - 1.5).abs() < 1e-7);
/// assert_eq!(solution.modes(&problem, 1e-6)[0], ContactMode::Sliding);
/// # Ok::<(), sdrs_ncp::NcpError>(())
/// ```
pub fn solve(
    problem: &NcpProblem,
    settings: &SolverSettings,
    warm: Option<&DVector<f64>>,
) -> Result<NcpSolution, NcpError> {
    let m = 3 * problem.contacts();
    let mu = problem.mu();
    let delassus = problem.delassus();
    let g = problem.free_velocity();
    let mut z = match warm {
        Some(w) => {
            check_size("warm-start impulses", w.len(), m)?;
            check_finite("warm-start impulses", w.as_slice())?;
            project_all(mu, w)
        }
        None => DVector::zeros(m),
    };
    let mut lambda = z.clone();
    let (mut sigma, mut residuals) = evaluate(problem, &z, &lambda);
    if residuals.max() <= settings.tolerance() {
        return Ok(NcpSolution {
            impulses: z,
            velocities: sigma,
            residuals,
            iterations: 0,
        });
    }
    let mut rho = settings
        .rho()
        .unwrap_or_else(|| largest_eigenvalue(delassus).max(f64::MIN_POSITIVE.sqrt()));
    let mut factor = factorise(delassus, rho)?;
    let mut shift = shift_of(mu, &sigma);
    // σ̂ = −ρ u at a fixed point: start the dual there.
    let mut u = -(&sigma + &shift) / rho;
    let mut last_change = 0;
    for iteration in 1..=settings.max_iterations() {
        let rhs = (&z - &u) * rho - g - &shift;
        lambda = factor.solve(&rhs);
        let z_previous = std::mem::replace(&mut z, project_all(mu, &(&lambda + &u)));
        u += &lambda - &z;
        (sigma, residuals) = evaluate(problem, &z, &lambda);
        if residuals.max() <= settings.tolerance() {
            return Ok(NcpSolution {
                impulses: z,
                velocities: sigma,
                residuals,
                iterations: iteration,
            });
        }
        shift = shift_of(mu, &sigma);
        if settings.adaptive_rho() && iteration - last_change >= ADAPT_EVERY {
            let primal = (&lambda - &z).norm();
            let dual = rho * (&z - &z_previous).norm();
            let scale = if primal > BALANCE_RATIO * dual {
                RHO_STEP
            } else if dual > BALANCE_RATIO * primal {
                1.0 / RHO_STEP
            } else {
                1.0
            };
            if scale != 1.0 {
                rho *= scale;
                u /= scale;
                factor = factorise(delassus, rho)?;
                last_change = iteration;
            }
        }
    }
    Err(NcpError::NotConverged {
        iterations: settings.max_iterations(),
        residual: residuals.max(),
        tolerance: settings.tolerance(),
    })
}

/// Every contact's block of `x` projected onto its cone.
fn project_all(mu: &[f64], x: &DVector<f64>) -> DVector<f64> {
    let mut out = DVector::zeros(x.len());
    for (i, &mu) in mu.iter().enumerate() {
        set_block(&mut out, i, &project_cone(mu, &block(x, i)));
    }
    out
}

/// The De Saxcé shift `Γ_μ(σ)` of every contact.
fn shift_of(mu: &[f64], sigma: &DVector<f64>) -> DVector<f64> {
    let mut out = DVector::zeros(sigma.len());
    for (i, &mu) in mu.iter().enumerate() {
        set_block(&mut out, i, &de_saxce(mu, &block(sigma, i)));
    }
    out
}

/// The contact velocity at the cone-feasible impulses `z` and the residuals there (`lambda`
/// is the unconstrained ADMM iterate).
fn evaluate(
    problem: &NcpProblem,
    z: &DVector<f64>,
    lambda: &DVector<f64>,
) -> (DVector<f64>, Residuals) {
    let sigma = problem.velocity(z);
    let mut residuals = Residuals {
        primal: (lambda - z).amax(),
        dual: 0.0,
        complementarity: 0.0,
    };
    for (i, &mu) in problem.mu().iter().enumerate() {
        let s = block(&sigma, i);
        let corrected = s + de_saxce(mu, &s);
        residuals.dual = residuals
            .dual
            .max((corrected - project_dual_cone(mu, &corrected)).norm());
        residuals.complementarity = residuals
            .complementarity
            .max(block(z, i).dot(&corrected).abs());
    }
    (sigma, residuals)
}

/// Cholesky factor of `G + ρ I`.
fn factorise(delassus: &DMatrix<f64>, rho: f64) -> Result<Cholesky<f64, Dyn>, NcpError> {
    let mut shifted = delassus.clone();
    for i in 0..shifted.nrows() {
        shifted[(i, i)] += rho;
    }
    Cholesky::new(shifted).ok_or(NcpError::NotPositiveSemidefinite { rho })
}

/// The largest eigenvalue of the symmetric PSD `G`, by power iteration from the all-ones
/// vector (an estimate: only used to scale `ρ`).
fn largest_eigenvalue(delassus: &DMatrix<f64>) -> f64 {
    let n = delassus.nrows();
    let mut x = DVector::from_element(n, 1.0 / (n as f64).sqrt());
    let mut estimate = 0.0;
    for _ in 0..POWER_ITERATIONS {
        let y = delassus * &x;
        let norm = y.norm();
        if !(norm > 0.0) {
            break;
        }
        estimate = norm;
        x = y / norm;
    }
    estimate.max(delassus.diagonal().amax())
}
