//! The friction cone `K_μ = {λ : ‖λ_T‖ ≤ μ λ_N}`, its dual `K_μ* = K_{1/μ}`, Euclidean
//! projections onto both and the De Saxcé correction `Γ_μ(σ) = (0, 0, μ ‖σ_T‖)` (paper eq. 1).
//!
//! A contact's three components are ordered (tangent 1, tangent 2, normal).

use nalgebra::Vector3;

/// The projection of `x` onto `K_μ` (μ ≥ 0; for μ = 0 the cone is the normal half-line).
///
/// Outside the cone and its polar, the projection is onto the boundary ray through
/// `(μ x_T/‖x_T‖, 1)`: `n' = (μ ‖x_T‖ + x_N) / (1 + μ²)`, `t' = μ n' x_T/‖x_T‖`.
pub fn project_cone(mu: f64, x: &Vector3<f64>) -> Vector3<f64> {
    let r = x.xy().norm();
    let n = x.z;
    if r <= mu * n {
        return *x;
    }
    if mu * r + n <= 0.0 {
        return Vector3::zeros();
    }
    let normal = (mu * r + n) / (1.0 + mu * mu);
    // r > 0 here: r == 0 with n >= 0 is inside, with n < 0 in the polar.
    let t = x.xy() * (mu * normal / r);
    Vector3::new(t.x, t.y, normal)
}

/// The projection of `y` onto the dual cone `K_μ* = {σ : μ ‖σ_T‖ ≤ σ_N}` (for μ = 0 the
/// half-space `σ_N ≥ 0`).
pub fn project_dual_cone(mu: f64, y: &Vector3<f64>) -> Vector3<f64> {
    let r = y.xy().norm();
    let n = y.z;
    if mu * r <= n {
        return *y;
    }
    if r + mu * n <= 0.0 {
        return Vector3::zeros();
    }
    // The boundary ray of K_{1/μ} through (t̂, μ)/√(1 + μ²).
    let along = (r + mu * n) / (1.0 + mu * mu);
    let t = y.xy() * (along / r);
    Vector3::new(t.x, t.y, mu * along)
}

/// The De Saxcé correction `Γ_μ(σ) = (0, 0, μ ‖σ_T‖)`.
pub fn de_saxce(mu: f64, sigma: &Vector3<f64>) -> Vector3<f64> {
    Vector3::new(0.0, 0.0, mu * sigma.xy().norm())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A projection is idempotent, lands in the set and leaves a residual in the polar cone
    /// (Moreau): checked on points in every region for several μ.
    #[test]
    fn projections_satisfy_moreau() {
        let points = [
            Vector3::new(0.3, -0.2, 1.0),
            Vector3::new(2.0, 1.0, 0.5),
            Vector3::new(0.1, 0.0, -3.0),
            Vector3::new(-1.0, 0.5, -0.2),
            Vector3::new(0.0, 0.0, -1.0),
            Vector3::new(0.0, 0.0, 2.0),
        ];
        for mu in [0.0, 0.2, 1.0, 3.0] {
            for x in &points {
                let p = project_cone(mu, x);
                assert!(p.xy().norm() <= mu * p.z + 1e-12, "{p} not in K_{mu}");
                assert!((project_cone(mu, &p) - p).norm() < 1e-12);
                // x − p is in the polar −K*, orthogonal to p.
                let r = p - x;
                assert!(mu * r.xy().norm() <= r.z + 1e-12, "{r} not in K*_{mu}");
                assert!(r.dot(&p).abs() < 1e-12);
                let d = project_dual_cone(mu, x);
                assert!(mu * d.xy().norm() <= d.z + 1e-12, "{d} not in K*_{mu}");
                let rd = d - x;
                assert!(rd.xy().norm() <= mu * rd.z + 1e-12, "{rd} not in K_{mu}");
                assert!(rd.dot(&d).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn de_saxce_lifts_the_normal_by_mu_times_slip() {
        let s = de_saxce(0.5, &Vector3::new(3.0, 4.0, -1.0));
        assert_eq!(s, Vector3::new(0.0, 0.0, 2.5));
    }
}
