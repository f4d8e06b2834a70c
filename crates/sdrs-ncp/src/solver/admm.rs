//! [`solve`]: ADMM on the second-order cones for eq. 1 with the De Saxcé correction, with a
//! proximal term, over-relaxation and a penalty `ρ` set and adapted from the spectrum of `G`.
//!
//! For a fixed shift `s = Γ_μ(σ)`, eq. 1 is the optimality condition of the cone-constrained
//! quadratic program `min ½ λᵀ G λ + λᵀ (g + s)` over `λ ∈ K_μ` (the friction cones of all
//! contacts). ADMM splits it as `λ = z`, `z ∈ K_μ`, with scaled dual `u`, penalty `ρ`,
//! proximal weight `η` and over-relaxation `α`:
//!
//! ```text
//! λ ← (G + (ρ + η) I)⁻¹ (η λ + ρ (z − u) − g − s)   (one Cholesky factor per ρ)
//! λ̂ ← α λ + (1 − α) z
//! z ← Π_K(λ̂ + u)                                    (per-contact cone projection)
//! u ← u + λ̂ − z
//! s ← Γ_μ(−ρ u)                                     (De Saxcé, updated every iteration)
//! ```
//!
//! as in the ADMM contact solvers the paper cites ([1, 8, 41]; Carpentier et al. 2024, the
//! solver of Simple). At a fixed point `σ + Γ_μ(σ) = −ρ u` is in `K_μ*` and orthogonal to
//! `z` (so the shift, taken from the dual estimate `−ρ u` of `σ̂`, whose tangent part is
//! `σ_T`, is `Γ_μ(σ)`); the proximal and relaxation terms vanish there. The relaxation
//! `α` is 1 (plain ADMM) by default.
//!
//! **The penalty.** ADMM's linear rate on a quadratic depends on `ρ` against the spectrum
//! `[m, L]` of the λ-step's matrix, and the classical choice is `ρ = √(L m)`. Here `L` is the
//! largest eigenvalue of `G` (power iteration) and `m = η`: contact Delassus matrices are
//! usually singular (more contact rows than DoFs), so the smallest eigenvalue of `G + η I`
//! is the proximal weight itself. The rule `ρ = √(L m) (L/m)^p` moves `ρ` geometrically
//! between `m` and `L` with the exponent `p` (0.1 to start; the paper's authors' solver
//! starts at 0.2, which converged less often on random rank-deficient problems here);
//! when adaptation is on and the primal residual `‖λ − z‖∞` exceeds the dual residual
//! `ρ ‖z − z_prev‖∞` by a factor 10 (or the reverse), `p` moves by ±0.05, i.e. `ρ` by the
//! factor `(L/m)^0.05`, at most every 5 iterations since each change refactorises, and
//! within `[m, L + η]`. When the residuals are balanced but the largest of them has not
//! halved for 50 iterations (the iteration creeps; measured on TALOS standing on both feet,
//! whose 8 foot contacts make `G` rank deficient: 4,100 iterations at `ρ = L` before, 1,034
//! with this rule), `ρ` is lowered by the same factor. The previous default, a fixed
//! `ρ = L`, is orders of magnitude too stiff for the null-space directions of a singular
//! `G`: on problems captured from the stepper it needed 387 (3 stacked boxes) to 9,953
//! (17 boxes, 68 contacts) iterations at the stepper's tolerance, against 8 and 14 with the
//! spectral rule.
//!
//! **The shift** is taken from the dual estimate `−ρ u` of `σ̂`, not from `σ(z) = G z + g`:
//! both agree at a fixed point, but with `σ(z)` a contact's slip direction can flip from one
//! iterate to the next, and the iteration cycled on Solo-12 standing (residual stuck at
//! 1e-3 for any small `ρ`, which is also why residual balancing used to stall there); the
//! dual estimate moves smoothly.
//!
//! **Convergence** is measured on the cone-feasible iterate `z` (the returned impulses):
//! - primal feasibility `‖λ − z‖∞` (how far the unconstrained iterate is from the cones);
//! - dual feasibility `max_i dist(σ̂_i, K_μi*)` with `σ̂ = G z + g + Γ_μ(G z + g)`;
//! - complementarity `max_i |z_i · σ̂_i|`;
//!
//! all three at most the tolerance, and the ADMM dual residual `ρ ‖z − z_prev‖∞` too (the
//! iterate has settled: with small impulses, such as `m g Δt` at rest, the complementarity
//! `|z_i · σ̂_i|` alone is met while the contact velocities are still far from zero). `G` may
//! be singular: `G + (ρ + η) I` is positive definite for every `ρ > 0`.

use super::cone::{de_saxce, project_cone, project_dual_cone};
use super::problem::{NcpProblem, block, check_finite, check_size, set_block};
use super::settings::SolverSettings;
use super::spectral::{condition_bound, largest_eigenvalue, spectral_rho};
use crate::error::NcpError;
use nalgebra::{Cholesky, DMatrix, DVector, Dyn};

/// Residual imbalance that triggers a change of `ρ`.
const BALANCE_RATIO: f64 = 10.0;
/// Least number of iterations between two changes of `ρ` (each refactorises `G + ρ I`).
const ADAPT_EVERY: usize = 5;
/// Iterations without halving the largest residual after which `ρ` is raised anyway (the
/// iteration is cycling between balanced residuals).
const STALL_WINDOW: usize = 50;

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
    /// The largest of the three (NaN if any is NaN).
    pub fn max(&self) -> f64 {
        let all = [self.primal, self.dual, self.complementarity];
        if all.iter().any(|r| r.is_nan()) {
            return f64::NAN;
        }
        all.into_iter().fold(0.0, f64::max)
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
/// `settings.max_iterations()` (or, with an infinite residual, as soon as the iterates leave
/// the finite range), [`NcpError::NotPositiveSemidefinite`] when `G + (ρ + η) I` cannot be
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
            let mut z = w.clone();
            project_in_place(mu, &mut z);
            z
        }
        None => DVector::zeros(m),
    };
    let mut lambda = z.clone();
    let mut sigma = DVector::zeros(m);
    let mut residuals = evaluate(problem, &z, &lambda, &mut sigma);
    if residuals.max() <= settings.tolerance() {
        return Ok(NcpSolution {
            impulses: z,
            velocities: sigma,
            residuals,
            iterations: 0,
        });
    }
    let eta = settings.proximal();
    let largest = largest_eigenvalue(delassus);
    let kappa = condition_bound(largest, eta);
    let mut rho = settings
        .rho()
        .unwrap_or_else(|| spectral_rho(largest, eta, settings.rho_power()));
    let rho_factor = kappa.powf(settings.rho_power_step());
    // ρ stays within the spectrum [m, L + η] (the rule's p in [−½, ½]).
    let (floor, ceiling) = (
        spectral_rho(largest, eta, -0.5),
        spectral_rho(largest, eta, 0.5),
    );
    let alpha = settings.over_relaxation();
    let mut factor = factorise(delassus, rho + eta)?;
    let mut shift = DVector::zeros(m);
    shift_into(mu, &sigma, 1.0, &mut shift);
    // σ̂ = −ρ u at a fixed point: start the dual there.
    let mut u = -(&sigma + &shift) / rho;
    // Work vectors: the iteration allocates nothing.
    let (mut relaxed, mut z_previous) = (DVector::zeros(m), DVector::zeros(m));
    let mut last_change = 0;
    // The smallest largest-residual so far and when it was last halved.
    let (mut stall_best, mut stall_since) = (f64::INFINITY, 0);
    let mut worst = residuals.max();
    for iteration in 1..=settings.max_iterations() {
        // λ ← (G + (ρ + η) I)⁻¹ (η λ + ρ (z − u) − g − s), in place.
        relaxed.copy_from(&z);
        relaxed -= &u;
        lambda.axpy(rho, &relaxed, eta);
        lambda -= g;
        lambda -= &shift;
        factor.solve_mut(&mut lambda);
        if lambda.iter().any(|x| !x.is_finite()) {
            return Err(NcpError::NotConverged {
                iterations: iteration,
                residual: f64::INFINITY,
                tolerance: settings.tolerance(),
            });
        }
        relaxed.copy_from(&z);
        relaxed.axpy(alpha, &lambda, 1.0 - alpha);
        std::mem::swap(&mut z, &mut z_previous);
        z.copy_from(&relaxed);
        z += &u;
        project_in_place(mu, &mut z);
        u += &relaxed;
        u -= &z;
        residuals = evaluate(problem, &z, &lambda, &mut sigma);
        let step = rho * largest_difference(&z, &z_previous);
        if residuals.max() <= settings.tolerance() && step <= settings.tolerance() {
            return Ok(NcpSolution {
                impulses: z,
                velocities: sigma,
                residuals,
                iterations: iteration,
            });
        }
        if !residuals.max().is_finite() {
            return Err(NcpError::NotConverged {
                iterations: iteration,
                residual: f64::INFINITY,
                tolerance: settings.tolerance(),
            });
        }
        // The shift from the dual estimate σ̂ ≈ −ρ u (see the module docs).
        shift_into(mu, &u, rho, &mut shift);
        worst = residuals.max().max(step);
        if worst < 0.5 * stall_best {
            (stall_best, stall_since) = (worst, iteration);
        }
        if settings.adaptive_rho() && iteration - last_change >= ADAPT_EVERY {
            let primal = residuals.primal;
            let scale = if primal > BALANCE_RATIO * step {
                rho_factor
            } else if step > BALANCE_RATIO * primal {
                1.0 / rho_factor
            } else if iteration - stall_since >= STALL_WINDOW {
                (stall_best, stall_since) = (worst, iteration);
                1.0 / rho_factor
            } else {
                1.0
            };
            let next = (rho * scale).clamp(floor, ceiling);
            if scale != 1.0 && next != rho {
                let scale = next / rho;
                rho = next;
                u /= scale;
                factor = factorise(delassus, rho + eta)?;
                last_change = iteration;
            }
        }
    }
    Err(NcpError::NotConverged {
        iterations: settings.max_iterations(),
        residual: worst,
        tolerance: settings.tolerance(),
    })
}

/// Projects every contact's block of `x` onto its cone.
fn project_in_place(mu: &[f64], x: &mut DVector<f64>) {
    for (i, &mu) in mu.iter().enumerate() {
        let projected = project_cone(mu, &block(x, i));
        set_block(x, i, &projected);
    }
}

/// Writes the De Saxcé shift `Γ_μ(scale · x)` of every contact into `out` (`scale` may be
/// negative: `Γ` only reads the tangent norm).
fn shift_into(mu: &[f64], x: &DVector<f64>, scale: f64, out: &mut DVector<f64>) {
    for (i, &mu) in mu.iter().enumerate() {
        set_block(out, i, &(de_saxce(mu, &block(x, i)) * scale.abs()));
    }
}

/// `‖a − b‖∞` (NaN if either holds a NaN).
fn largest_difference(a: &DVector<f64>, b: &DVector<f64>) -> f64 {
    a.iter()
        .zip(b.iter())
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, |m, d| if d.is_nan() || d > m { d } else { m })
}

/// Writes the contact velocity `σ = G z + g` at the cone-feasible impulses `z` into `sigma`
/// and returns the residuals there (`lambda` is the unconstrained ADMM iterate).
fn evaluate(
    problem: &NcpProblem,
    z: &DVector<f64>,
    lambda: &DVector<f64>,
    sigma: &mut DVector<f64>,
) -> Residuals {
    sigma.copy_from(problem.free_velocity());
    sigma.gemv(1.0, problem.delassus(), z, 1.0);
    let mut residuals = Residuals {
        primal: largest_difference(lambda, z),
        dual: 0.0,
        complementarity: 0.0,
    };
    for (i, &mu) in problem.mu().iter().enumerate() {
        let s = block(sigma, i);
        let corrected = s + de_saxce(mu, &s);
        residuals.dual = residuals
            .dual
            .max((corrected - project_dual_cone(mu, &corrected)).norm());
        residuals.complementarity = residuals
            .complementarity
            .max(block(z, i).dot(&corrected).abs());
    }
    residuals
}

/// Cholesky factor of `G + shift I`.
fn factorise(delassus: &DMatrix<f64>, shift: f64) -> Result<Cholesky<f64, Dyn>, NcpError> {
    let mut shifted = delassus.clone();
    for i in 0..shifted.nrows() {
        shifted[(i, i)] += shift;
    }
    Cholesky::new(shifted).ok_or(NcpError::NotPositiveSemidefinite { rho: shift })
}
