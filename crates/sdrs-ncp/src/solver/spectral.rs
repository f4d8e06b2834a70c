//! The spectrum estimates behind the ADMM penalty (see the [`admm`](super::admm) module
//! docs): the largest eigenvalue `L` of the Delassus matrix by power iteration, the
//! condition bound `L/m` of the regularised λ-step and the spectral rule
//! `ρ = √(L m) (L/m)^p`.

use nalgebra::{DMatrix, DVector};

/// Power iterations for the largest eigenvalue of `G`.
const POWER_ITERATIONS: usize = 20;
/// Floor of the spectrum estimates (a zero `G` has no scale of its own).
const FLOOR: f64 = 1.4916681462400413e-154; // √(f64::MIN_POSITIVE)

/// The largest eigenvalue of the symmetric PSD `G`, by power iteration from the all-ones
/// vector, at least the largest diagonal entry (an estimate: only used to scale `ρ`).
///
/// ```
/// use nalgebra::DMatrix;
/// use sdrs_ncp::solver::spectral::largest_eigenvalue;
/// let g = DMatrix::from_diagonal(&nalgebra::DVector::from_vec(vec![3.0, 1.0, 0.0]));
/// assert!((largest_eigenvalue(&g) - 3.0).abs() < 1e-9);
/// ```
pub fn largest_eigenvalue(delassus: &DMatrix<f64>) -> f64 {
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

/// The smallest eigenvalue `m` the λ-step's matrix `G + η I` is assumed to have: `η`, or
/// `ε (L + η)` without a proximal term (machine precision relative to the largest).
fn smallest(largest: f64, proximal: f64) -> f64 {
    proximal.max(f64::EPSILON * (largest + proximal)).max(FLOOR)
}

/// The condition bound `(L + η)/m` of `G + η I` (≥ 1).
///
/// ```
/// use sdrs_ncp::solver::spectral::condition_bound;
/// assert_eq!(condition_bound(99.0, 1.0), 100.0);
/// ```
pub fn condition_bound(largest: f64, proximal: f64) -> f64 {
    ((largest + proximal).max(FLOOR) / smallest(largest, proximal)).max(1.0)
}

/// The spectral penalty `ρ = √(L m) (L/m)^p` with `L + η` and `m` as above.
///
/// ```
/// use sdrs_ncp::solver::spectral::spectral_rho;
/// // L + η = 100, m = η = 1: p = 0 is the geometric mean, p = ±½ the ends of the spectrum.
/// assert!((spectral_rho(99.0, 1.0, 0.0) - 10.0).abs() < 1e-12);
/// assert!((spectral_rho(99.0, 1.0, 0.5) - 100.0).abs() < 1e-9);
/// ```
pub fn spectral_rho(largest: f64, proximal: f64, power: f64) -> f64 {
    let m = smallest(largest, proximal);
    let l = (largest + proximal).max(m);
    (l * m).sqrt() * (l / m).powf(power)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_iteration_finds_the_largest_eigenvalue() {
        let g = DMatrix::from_row_slice(3, 3, &[4.0, 1.0, 0.0, 1.0, 3.0, 0.0, 0.0, 0.0, 1.0]);
        let exact = g.clone().symmetric_eigen().eigenvalues.max();
        assert!((largest_eigenvalue(&g) - exact).abs() < 1e-6 * exact);
    }

    #[test]
    fn spectral_rho_spans_m_to_l_with_the_power() {
        let (l, eta) = (99.0, 1.0);
        assert!((spectral_rho(l, eta, 0.0) - 10.0).abs() < 1e-12);
        assert!((spectral_rho(l, eta, 0.5) - 100.0).abs() < 1e-9);
        assert!((spectral_rho(l, eta, -0.5) - 1.0).abs() < 1e-12);
        assert!((condition_bound(l, eta) - 100.0).abs() < 1e-12);
        // No proximal term and a zero matrix: still finite and positive.
        assert!(spectral_rho(0.0, 0.0, 0.2) > 0.0);
        assert!(condition_bound(0.0, 0.0).is_finite());
    }
}
