//! Small dense linear algebra for the friction inner solve: pseudo-inverses and the exact
//! trust-region step of a 3x3 model.

use nalgebra::{Matrix3, Vector3};

/// Symmetric pseudo-inverse, treating eigenvalues below `1e-14` of the largest as zero (the
/// exactly flat directions of Lemma VIII.1 come out near 1e-30 relative).
pub(super) fn pseudo_inverse(h: &Matrix3<f64>) -> Matrix3<f64> {
    let eig = h.symmetric_eigen();
    let cutoff = 1e-14 * eig.eigenvalues.amax();
    let mut inv = Matrix3::zeros();
    for k in 0..3 {
        let l = eig.eigenvalues[k];
        if l > cutoff {
            let v = eig.eigenvectors.column(k);
            inv += v * v.transpose() / l;
        }
    }
    inv
}

/// The minimiser of `g·s + ½ sᵀHs` over `|s| ≤ radius` for a symmetric positive
/// semi-definite `H`: the Newton step if it fits, else `s(λ) = −(H + λI)⁻¹g` with `|s(λ)|` equal
/// to the radius (Moré–Sorensen, by Newton on `1/|s(λ)| − 1/radius` in the eigenbasis of `H`).
pub(super) fn trust_region_step(g: &Vector3<f64>, h: &Matrix3<f64>, radius: f64) -> Vector3<f64> {
    let eig = h.symmetric_eigen();
    let coefficients = eig.eigenvectors.transpose() * g;
    let cutoff = 1e-14 * eig.eigenvalues.amax();
    let step = |lambda: f64| -> Vector3<f64> {
        let mut s = Vector3::zeros();
        for k in 0..3 {
            let denom = eig.eigenvalues[k].max(0.0) + lambda;
            if denom > cutoff {
                s -= eig.eigenvectors.column(k) * (coefficients[k] / denom);
            }
        }
        s
    };
    let newton = step(0.0);
    if newton.norm() <= radius && eig.eigenvalues.min() > cutoff {
        return newton;
    }
    // |s(λ)| decreases in λ; find the λ where it equals the radius.
    let mut lambda = g.norm() / radius;
    for _ in 0..50 {
        let s = step(lambda);
        let norm = s.norm();
        if (norm - radius).abs() <= 1e-6 * radius {
            return s;
        }
        // d|s|/dλ = −Σ c_k² / (λ_k + λ)³ / |s|.
        let mut derivative = 0.0;
        for k in 0..3 {
            let denom = eig.eigenvalues[k].max(0.0) + lambda;
            derivative -= coefficients[k].powi(2) / denom.powi(3);
        }
        derivative /= norm;
        let phi = 1.0 / norm - 1.0 / radius;
        let dphi = -derivative / (norm * norm);
        lambda = (lambda - phi / dphi).max(0.1 * lambda);
    }
    let s = step(lambda);
    s * (radius / s.norm()).min(1.0)
}

/// `D (D H D)⁺ D`: the pseudo-inverse of a `z`-space Hessian taken in the scaled variables.
pub(super) fn scaled_inverse(h: &Matrix3<f64>, d: &Matrix3<f64>) -> Matrix3<f64> {
    d * pseudo_inverse(&(d * h * d)) * d
}
