//! Mode-aware implicit differentiation of an NCP solution (NCP paper, sec. III-C, eq. 8-11,
//! appendices A and B).
//!
//! At a solution `λ*` of eq. 1 with contact velocities `σ = G λ* + g` each contact is breaking
//! (`λ = 0`), sticking (`σ = 0`) or sliding (`σ_N = 0`, `λ_T = −μ λ_N σ_T/‖σ_T‖`). Away from
//! mode boundaries the modes persist under a small change `(dG, dg)` of the problem, and
//! differentiating their equations gives a linear system for `dλ`:
//!
//! - breaking: `dλᵢ = 0` (eq. 8);
//! - sticking: `dσᵢ = 0`, with `dσ = G dλ + r`, `r = dG λ* + dg` (eq. 9);
//! - sliding: `dλᵢ = Rᵢ dλ̃ᵢ` with `Rᵢ = (λᵢ/‖λᵢ‖, e_z × s)`, `s = σ_T/‖σ_T‖` (the plane
//!   tangent to the cone, Fig. 1), and two equations (eq. 10, appendix A): `e_zᵀ dσᵢ = 0`
//!   (no normal velocity) and `pᵀ dσᵢ + (‖σ_T‖/(μ λ_N)) dλ̃ᵢ,₂ = 0` with `p = e_z × s` (the
//!   impulse turns with the slip: `λ_T = −μ λ_N s` differentiated along `p`).
//!
//! Stacking the unknowns `X` (3 per sticking, 2 per sliding contact) with `dλ = S X` gives
//! eq. 11, `A X = −B r` with `A = Pᵀ G S + D` and `B = Pᵀ`, where `P` stacks the identity for
//! sticking and `(e_z, p)` for sliding contacts and `D` holds the `‖σ_T‖/(μ λ_N)` terms. The
//! forward mode returns `dλ = −S A⁻¹ Pᵀ r` for given `(dG, dg)`; the reverse mode returns, for
//! a cotangent `w = ∂ℓ/∂λ`, `∂ℓ/∂g = y = −P A⁻ᵀ Sᵀ w` and `∂ℓ/∂G = y λ*ᵀ`.
//!
//! **Singular `A`.** A flat patch of more sticking points than the bodies have DoFs (a box
//! resting on 4 points: `G = J_c M⁻¹ J_cᵀ` is 12 x 12 of rank 6) makes `A` singular: the
//! impulses are not unique, only `J_cᵀ λ` is. Eq. 11 then has solutions whenever its right-hand
//! side lies in the range of `A` (it does for perturbations that move the patch rigidly), and
//! every solution gives the same `J_cᵀ dλ`, so the same `dv⁺`. [`ImplicitGradient::new`]
//! falls back to the minimum-norm least-squares solution (the SVD pseudo-inverse of `A`,
//! singular values below `1e-10 σ_max` dropped) and reports it with
//! [`ImplicitGradient::is_rank_deficient`].
//!
//! Components per contact are (tangent 1, tangent 2, normal), as in [`NcpProblem`].

use crate::solver::{ContactMode, NcpProblem, NcpSolution};
use nalgebra::{DMatrix, DVector, Vector3};
use thiserror::Error;

/// Why a solution cannot be differentiated.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ImplicitError {
    /// The cotangent or tangent has the wrong size.
    #[error("{what} has size {actual}, expected {expected} (three per contact)")]
    SizeMismatch {
        /// Which input.
        what: &'static str,
        /// Its size.
        actual: usize,
        /// The size it must have.
        expected: usize,
    },
    /// The reduced system of eq. 11 could not be solved even in the least-squares sense (its
    /// singular value decomposition failed: non-finite entries).
    #[error(
        "the reduced implicit system (eq. 11) of size {size} has no least-squares solution; \
         its entries must be finite"
    )]
    Singular {
        /// The system's size.
        size: usize,
    },
}

/// The factorised reduced system of eq. 11 at one solution: differentiate it forwards
/// ([`ImplicitGradient::forward`]) or backwards ([`ImplicitGradient::reverse`]) any number of
/// times.
///
/// ```
/// use sdrs_ncp::{NcpProblem, SolverSettings, solve, implicit::ImplicitGradient};
/// use nalgebra::{DMatrix, DVector};
/// // A unit mass pressed on the ground (g_N = −1) with a small push (g_T = 0.1 < μ):
/// // sticking, λ = −g, so dλ/dg = −I.
/// let problem = NcpProblem::new(
///     DMatrix::identity(3, 3), DVector::from_vec(vec![0.1, 0.0, -1.0]), vec![0.5])?;
/// let solution = solve(&problem, &SolverSettings::default(), None)?;
/// let gradient = ImplicitGradient::new(&problem, &solution, 1e-6).unwrap();
/// let dg = DVector::from_vec(vec![1.0, 2.0, 3.0]);
/// let dlambda = gradient.forward(&DMatrix::zeros(3, 3), &dg).unwrap();
/// assert!((dlambda + dg).norm() < 1e-12);
/// # Ok::<(), sdrs_ncp::NcpError>(())
/// ```
#[derive(Debug, Clone)]
pub struct ImplicitGradient {
    modes: Vec<ContactMode>,
    impulses: DVector<f64>,
    /// `S` (3 n_c × k): `dλ = S X`.
    s: DMatrix<f64>,
    /// `P` (3 n_c × k): the equations are `Pᵀ dσ + D X = 0`.
    p: DMatrix<f64>,
    /// `A = Pᵀ G S + D`, factorised.
    factor: ReducedFactor,
}

/// How `A` of eq. 11 is solved.
#[derive(Debug, Clone)]
enum ReducedFactor {
    /// Regular `A`: LU factors of `A` and of `Aᵀ` (reverse mode).
    Lu {
        lu: nalgebra::LU<f64, nalgebra::Dyn, nalgebra::Dyn>,
        lu_transposed: nalgebra::LU<f64, nalgebra::Dyn, nalgebra::Dyn>,
    },
    /// Rank-deficient `A`: its pseudo-inverse (see the module docs).
    Pseudo(DMatrix<f64>),
}

impl ImplicitGradient {
    /// Identifies the modes of `solution` ([`NcpSolution::modes`] with `tolerance`) and
    /// factorises the reduced system. A sliding contact with zero friction is treated as
    /// frictionless: only its normal impulse varies.
    pub fn new(
        problem: &NcpProblem,
        solution: &NcpSolution,
        tolerance: f64,
    ) -> Result<Self, ImplicitError> {
        let n = problem.contacts();
        check_size("solution impulses", solution.impulses.len(), 3 * n)?;
        let modes = solution.modes(problem, tolerance);
        let sigma = problem.velocity(&solution.impulses);
        let mut s_cols: Vec<DVector<f64>> = Vec::new();
        let mut p_cols: Vec<DVector<f64>> = Vec::new();
        let mut d_diag: Vec<f64> = Vec::new();
        let unit = |i: usize, v: Vector3<f64>| {
            let mut c = DVector::zeros(3 * n);
            c.fixed_rows_mut::<3>(3 * i).copy_from(&v);
            c
        };
        for (i, mode) in modes.iter().enumerate() {
            let lambda: Vector3<f64> = solution.impulses.fixed_rows::<3>(3 * i).into();
            let sig: Vector3<f64> = sigma.fixed_rows::<3>(3 * i).into();
            match mode {
                ContactMode::Breaking => {}
                ContactMode::Sticking => {
                    for axis in [Vector3::x(), Vector3::y(), Vector3::z()] {
                        s_cols.push(unit(i, axis));
                        p_cols.push(unit(i, axis));
                        d_diag.push(0.0);
                    }
                }
                ContactMode::Sliding => {
                    let mu = problem.mu()[i];
                    let slip = sig.xy().norm();
                    let s = Vector3::new(sig.x / slip, sig.y / slip, 0.0);
                    let p = Vector3::z().cross(&s);
                    s_cols.push(unit(i, lambda / lambda.norm()));
                    p_cols.push(unit(i, Vector3::z()));
                    d_diag.push(0.0);
                    if mu > 0.0 {
                        s_cols.push(unit(i, p));
                        p_cols.push(unit(i, p));
                        d_diag.push(slip / (mu * lambda.z));
                    }
                }
            }
        }
        let k = s_cols.len();
        let stack = |cols: &[DVector<f64>]| {
            let mut m = DMatrix::zeros(3 * n, k);
            for (j, c) in cols.iter().enumerate() {
                m.set_column(j, c);
            }
            m
        };
        let (s, p) = (stack(&s_cols), stack(&p_cols));
        let a = p.transpose() * problem.delassus() * &s
            + DMatrix::from_diagonal(&DVector::from_vec(d_diag));
        let scale = a.amax().max(f64::MIN_POSITIVE);
        let lu_transposed = a.transpose().lu();
        let lu = a.clone().lu();
        let singular = k > 0
            && (0..k)
                .map(|j| lu.u()[(j, j)].abs())
                .fold(f64::INFINITY, f64::min)
                <= 1e-12 * scale;
        let factor = if singular || (k > 0 && !lu.is_invertible()) {
            let svd = a.svd(true, true);
            let cutoff = 1e-10 * svd.singular_values.max();
            ReducedFactor::Pseudo(
                svd.pseudo_inverse(cutoff)
                    .map_err(|_| ImplicitError::Singular { size: k })?,
            )
        } else {
            ReducedFactor::Lu { lu, lu_transposed }
        };
        Ok(Self {
            modes,
            impulses: solution.impulses.clone(),
            s,
            p,
            factor,
        })
    }

    /// Whether `A` of eq. 11 is singular and solved by its pseudo-inverse (see the module
    /// docs).
    pub fn is_rank_deficient(&self) -> bool {
        matches!(self.factor, ReducedFactor::Pseudo(_))
    }

    /// `A⁻¹ b` (or `A⁺ b`), column by column.
    fn solve_reduced(&self, b: &DMatrix<f64>) -> Result<DMatrix<f64>, ImplicitError> {
        let singular = ImplicitError::Singular {
            size: self.s.ncols(),
        };
        match &self.factor {
            ReducedFactor::Lu { lu, .. } => lu.solve(b).ok_or(singular),
            ReducedFactor::Pseudo(inverse) => Ok(inverse * b),
        }
    }

    /// `A⁻ᵀ b` (or `A⁺ᵀ b`).
    fn solve_reduced_transposed(&self, b: &DVector<f64>) -> Result<DVector<f64>, ImplicitError> {
        let singular = ImplicitError::Singular {
            size: self.s.ncols(),
        };
        match &self.factor {
            ReducedFactor::Lu { lu_transposed, .. } => lu_transposed.solve(b).ok_or(singular),
            ReducedFactor::Pseudo(inverse) => Ok(inverse.tr_mul(b)),
        }
    }

    /// Forward mode for many directions at once: `dλ = −S A⁻¹ Pᵀ r` for each column `r` of
    /// `residuals` (3 n_c rows), the first-order change `dG λ* + dg` of the contact velocity at
    /// fixed impulses.
    pub fn forward_residuals(
        &self,
        residuals: &DMatrix<f64>,
    ) -> Result<DMatrix<f64>, ImplicitError> {
        let m = self.impulses.len();
        check_size("residual rows", residuals.nrows(), m)?;
        if self.s.ncols() == 0 {
            return Ok(DMatrix::zeros(m, residuals.ncols()));
        }
        let x = self.solve_reduced(&-(self.p.tr_mul(residuals)))?;
        Ok(&self.s * x)
    }

    /// The contact modes the system was built for.
    pub fn modes(&self) -> &[ContactMode] {
        &self.modes
    }

    /// Forward mode: `dλ` for the directional derivatives `dG` (3 n_c square) and `dg` of the
    /// problem.
    pub fn forward(
        &self,
        d_delassus: &DMatrix<f64>,
        d_free_velocity: &DVector<f64>,
    ) -> Result<DVector<f64>, ImplicitError> {
        let m = self.impulses.len();
        check_size("dG rows", d_delassus.nrows(), m)?;
        check_size("dG columns", d_delassus.ncols(), m)?;
        check_size("dg", d_free_velocity.len(), m)?;
        if self.s.ncols() == 0 {
            return Ok(DVector::zeros(m));
        }
        let r = d_delassus * &self.impulses + d_free_velocity;
        let dlambda = self.forward_residuals(&DMatrix::from_column_slice(m, 1, r.as_slice()))?;
        Ok(dlambda.column(0).into_owned())
    }

    /// Reverse mode: for the cotangent `w = ∂ℓ/∂λ`, the gradients `(∂ℓ/∂G, ∂ℓ/∂g)`.
    pub fn reverse(
        &self,
        cotangent: &DVector<f64>,
    ) -> Result<(DMatrix<f64>, DVector<f64>), ImplicitError> {
        let m = self.impulses.len();
        check_size("cotangent", cotangent.len(), m)?;
        if self.s.ncols() == 0 {
            return Ok((DMatrix::zeros(m, m), DVector::zeros(m)));
        }
        let z = self.solve_reduced_transposed(&self.s.tr_mul(cotangent))?;
        let y = -(&self.p * z);
        let d_delassus = &y * self.impulses.transpose();
        Ok((d_delassus, y))
    }
}

fn check_size(what: &'static str, actual: usize, expected: usize) -> Result<(), ImplicitError> {
    if actual == expected {
        Ok(())
    } else {
        Err(ImplicitError::SizeMismatch {
            what,
            actual,
            expected,
        })
    }
}

#[cfg(test)]
mod tests {
    //! Forward mode against central differences of the solver in each mode, and forward
    //! against reverse mode.
    use super::*;
    use crate::solver::{SolverSettings, solve};

    /// A deterministic pseudo-random number in (−1, 1).
    fn noise(k: usize) -> f64 {
        ((k as f64 * 12.9898 + 4.1414).sin() * 43758.5453).fract()
    }

    /// An SPD Delassus matrix: `scale · I` plus a small symmetric coupling.
    fn delassus(n: usize, coupling: f64) -> DMatrix<f64> {
        let m = 3 * n;
        let b = DMatrix::from_fn(m, m, |i, j| coupling * noise(7 * i + 31 * j + 1));
        DMatrix::identity(m, m) * 1.5 + &b * b.transpose()
    }

    fn solved(problem: &NcpProblem) -> NcpSolution {
        let settings = SolverSettings::builder()
            .tolerance(1e-12)
            .max_iterations(200_000)
            .build()
            .unwrap();
        solve(problem, &settings, None).unwrap()
    }

    /// Checks the forward mode against central differences along a few directions, and
    /// `⟨w, J v⟩` both ways; returns the modes.
    fn check(g: DMatrix<f64>, free: Vec<f64>, mu: Vec<f64>) -> Vec<ContactMode> {
        let m = free.len();
        let free = DVector::from_vec(free);
        let problem = NcpProblem::new(g.clone(), free.clone(), mu.clone()).unwrap();
        let solution = solved(&problem);
        let gradient = ImplicitGradient::new(&problem, &solution, 1e-6).unwrap();
        let eps = 1e-6;
        for trial in 0..3 {
            let e = DMatrix::from_fn(m, m, |i, j| noise(100 * trial + 13 * i + 5 * j + 3));
            let dg_mat = (&e + e.transpose()) * 0.05;
            let dg = DVector::from_fn(m, |i, _| noise(1000 * trial + 17 * i + 2));
            let at = |sign: f64| {
                let p = NcpProblem::new(
                    &g + &dg_mat * (sign * eps),
                    &free + &dg * (sign * eps),
                    mu.clone(),
                )
                .unwrap();
                solved(&p).impulses
            };
            let fd = (at(1.0) - at(-1.0)) / (2.0 * eps);
            let an = gradient.forward(&dg_mat, &dg).unwrap();
            assert!(
                (&fd - &an).norm() < 1e-5 * (1.0 + an.norm()),
                "trial {trial}: fd {fd} vs implicit {an}"
            );
            let w = DVector::from_fn(m, |i, _| noise(77 * trial + 3 * i + 11));
            let (gw_mat, gw) = gradient.reverse(&w).unwrap();
            let lhs = w.dot(&an);
            let rhs = gw_mat.dot(&dg_mat) + gw.dot(&dg);
            assert!(
                (lhs - rhs).abs() < 1e-10 * (1.0 + lhs.abs()),
                "{lhs} vs {rhs}"
            );
        }
        gradient.modes().to_vec()
    }

    #[test]
    fn single_sticking_contact() {
        let modes = check(delassus(1, 0.3), vec![0.1, -0.05, -1.0], vec![0.8]);
        assert_eq!(modes, [ContactMode::Sticking]);
    }

    #[test]
    fn single_sliding_contact() {
        let modes = check(delassus(1, 0.3), vec![2.0, 0.5, -1.0], vec![0.3]);
        assert_eq!(modes, [ContactMode::Sliding]);
    }

    #[test]
    fn single_breaking_contact() {
        let modes = check(delassus(1, 0.3), vec![0.3, 0.1, 0.5], vec![0.5]);
        assert_eq!(modes, [ContactMode::Breaking]);
    }

    #[test]
    fn mixed_contacts() {
        let free = vec![
            0.05, 0.02, -1.0, 1.5, -1.0, -0.8, 0.2, 0.1, 0.6, -0.3, 0.1, -0.5,
        ];
        let modes = check(delassus(4, 0.15), free, vec![0.9, 0.2, 0.5, 0.7]);
        assert!(modes.contains(&ContactMode::Sticking), "{modes:?}");
        assert!(modes.contains(&ContactMode::Sliding), "{modes:?}");
        assert!(modes.contains(&ContactMode::Breaking), "{modes:?}");
    }

    #[test]
    fn wrong_sizes_are_errors() {
        let problem = NcpProblem::new(
            DMatrix::identity(3, 3),
            DVector::from_vec(vec![0.0, 0.0, -1.0]),
            vec![0.5],
        )
        .unwrap();
        let gradient = ImplicitGradient::new(&problem, &solved(&problem), 1e-6).unwrap();
        assert!(gradient.reverse(&DVector::zeros(2)).is_err());
        assert!(
            gradient
                .forward(&DMatrix::zeros(3, 3), &DVector::zeros(4))
                .is_err()
        );
    }
}
