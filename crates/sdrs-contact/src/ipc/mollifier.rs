//! The edge-edge mollifier of IPC: nearly parallel edges have an ill-defined closest-point
//! type, so their barrier is multiplied by `m(x) = (2 − x/ε) x/ε` for `x < ε` (1 beyond),
//! `x = |(a1 − a0) × (b1 − b0)|²`, with `ε = 10⁻³ |a1 − a0|² |b1 − b0|²` at rest.

use super::derivatives::cross_squared;
use super::distance::{Matrix12, Vector12};
use nalgebra::Point3;

/// `ε_x = 10⁻³ |a1 − a0|² |b1 − b0|²` of edges at rest.
pub fn threshold(a: &[Point3<f64>; 2], b: &[Point3<f64>; 2]) -> f64 {
    1e-3 * (a[1] - a[0]).norm_squared() * (b[1] - b[0]).norm_squared()
}

/// `m` with its gradient and Hessian over `a0, a1, b0, b1`.
///
/// ```
/// use sdrs_contact::ipc::mollifier::{mollifier, threshold};
/// use nalgebra::Point3;
/// let a = [Point3::origin(), Point3::new(1.0, 0.0, 0.0)];
/// let crossing = [Point3::new(0.5, -0.5, 0.1), Point3::new(0.5, 0.5, 0.1)];
/// assert_eq!(mollifier(&a, &crossing, threshold(&a, &crossing)).0, 1.0);
/// let parallel = [Point3::new(0.0, 0.1, 0.1), Point3::new(1.0, 0.1, 0.1)];
/// assert_eq!(mollifier(&a, &parallel, threshold(&a, &parallel)).0, 0.0);
/// ```
pub fn mollifier(
    a: &[Point3<f64>; 2],
    b: &[Point3<f64>; 2],
    eps: f64,
) -> (f64, Vector12, Matrix12) {
    let x = cross_squared(&(a[1] - a[0]), &(b[1] - b[0]));
    match of_argument(x.value, eps) {
        None => (1.0, Vector12::zeros(), Matrix12::zeros()),
        Some((m, d1, d2)) => {
            let (g, h) = x.map(m, d1, d2).scatter([(1, 0), (3, 2)]);
            (m, g, h)
        }
    }
}

/// `m` alone (the value of [`mollifier`], to the bit).
///
/// ```
/// use sdrs_contact::ipc::mollifier::{mollifier, mollifier_value};
/// use nalgebra::Point3;
/// let a = [Point3::origin(), Point3::new(1.0, 0.0, 0.0)];
/// let b = [Point3::new(0.0, 0.1, 0.1), Point3::new(1.0, 0.12, 0.1)];
/// assert_eq!(mollifier_value(&a, &b, 1e-3), mollifier(&a, &b, 1e-3).0);
/// assert!(mollifier_value(&a, &b, 1e-3) < 1.0);
/// ```
pub fn mollifier_value(a: &[Point3<f64>; 2], b: &[Point3<f64>; 2], eps: f64) -> f64 {
    let n = (a[1] - a[0]).cross(&(b[1] - b[0]));
    of_argument(n.dot(&n), eps).map_or(1.0, |(m, _, _)| m)
}

/// `(m, m', m'')` at `x = |(a1 − a0) × (b1 − b0)|²` below the threshold `ε` (`m = r (2 − r)`,
/// `r = x/ε`: `m' = (2 − 2r)/ε`, `m'' = −2/ε²`); `None` where `m = 1`.
fn of_argument(x: f64, eps: f64) -> Option<(f64, f64, f64)> {
    (x < eps).then(|| {
        let r = x / eps;
        (r * (-r + 2.0), (2.0 - 2.0 * r) / eps, -2.0 / (eps * eps))
    })
}
