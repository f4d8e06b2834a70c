//! Small dense linear algebra for the friction inner solve: pseudo-inverses and the exact
//! trust-region step of a 3x3 model.

use nalgebra::{Matrix3, Vector3};

/// Symmetric pseudo-inverse, treating eigenvalues below `1e-14` of the largest as zero (the
/// exactly flat directions of Lemma VIII.1 come out near 1e-30 relative).
pub(super) fn pseudo_inverse(h: &Matrix3<f64>) -> Matrix3<f64> {
    certified_inverse(h).unwrap_or_else(|| eigen_pseudo_inverse(h))
}

/// [`pseudo_inverse`] by the eigendecomposition.
fn eigen_pseudo_inverse(h: &Matrix3<f64>) -> Matrix3<f64> {
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

/// The inverse of a symmetric `h` by Cholesky when that certifies every eigenvalue above
/// `1e-12` of the largest, so that it is the pseudo-inverse of [`pseudo_inverse`] (cutoff
/// `1e-14`) up to round-off: `λ_min ≥ 1/‖h⁻¹‖_F` and `λ_max ≤ tr h`. `None` otherwise (not
/// positive definite, or too close to singular to tell), for the eigendecomposition to decide.
/// A 3x3 Cholesky is a tenth of the cost of the eigendecomposition.
fn certified_inverse(h: &Matrix3<f64>) -> Option<Matrix3<f64>> {
    let inverse = cholesky_inverse(h)?;
    let bound = inverse.norm() * h.trace();
    (bound.is_finite() && bound < 1e12).then_some(inverse)
}

/// `h⁻¹ = L⁻ᵀ L⁻¹` from the Cholesky factor `h = L Lᵀ` (lower triangle read), written out for
/// this size: the friction solve inverts a 3x3 Hessian at every step and for every
/// derivative, and nalgebra's generic factor and inverse cost several times this. `None`
/// unless every pivot is positive.
fn cholesky_inverse(h: &Matrix3<f64>) -> Option<Matrix3<f64>> {
    let pivot = |d: f64| (d > 0.0).then(|| d.sqrt());
    let l00 = pivot(h[(0, 0)])?;
    let (l10, l20) = (h[(1, 0)] / l00, h[(2, 0)] / l00);
    let l11 = pivot(h[(1, 1)] - l10 * l10)?;
    let l21 = (h[(2, 1)] - l20 * l10) / l11;
    let l22 = pivot(h[(2, 2)] - l20 * l20 - l21 * l21)?;
    // M = L⁻¹, lower triangular.
    let (m00, m11, m22) = (1.0 / l00, 1.0 / l11, 1.0 / l22);
    let m10 = -l10 * m00 * m11;
    let m21 = -l21 * m11 * m22;
    let m20 = -(l20 * m00 + l21 * m10) * m22;
    // (Mᵀ M)_ij = Σ_{k ≥ max(i, j)} M_ki M_kj.
    let (a00, a11, a22) = (
        m00 * m00 + m10 * m10 + m20 * m20,
        m11 * m11 + m21 * m21,
        m22 * m22,
    );
    let (a10, a20, a21) = (m11 * m10 + m21 * m20, m22 * m20, m22 * m21);
    Some(Matrix3::new(
        a00, a10, a20, //
        a10, a11, a21, //
        a20, a21, a22,
    ))
}

/// The minimiser of `g·s + ½ sᵀHs` over `|s| ≤ radius` for a symmetric positive
/// semi-definite `H`: the Newton step if it fits, else `s(λ) = −(H + λI)⁻¹g` with `|s(λ)|` equal
/// to the radius (Moré–Sorensen, by Newton on `1/|s(λ)| − 1/radius` in the eigenbasis of `H`).
pub(super) fn trust_region_step(g: &Vector3<f64>, h: &Matrix3<f64>, radius: f64) -> Vector3<f64> {
    if let Some(inverse) = certified_inverse(h) {
        let newton = -(inverse * g);
        if newton.norm() <= radius {
            return newton;
        }
    }
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

#[cfg(test)]
mod tests {
    use super::{certified_inverse, eigen_pseudo_inverse, pseudo_inverse, trust_region_step};
    use nalgebra::{Matrix3, Vector3};

    /// A random symmetric matrix `Σ λ_k v_k v_kᵀ` with the given eigenvalues.
    fn with_spectrum(seed: u64, eigenvalues: [f64; 3]) -> Matrix3<f64> {
        let mut state = seed;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        let q = Matrix3::from_fn(|_, _| next()).qr().q();
        q * Matrix3::from_diagonal(&Vector3::from(eigenvalues)) * q.transpose()
    }

    #[test]
    fn the_cholesky_inverse_is_the_pseudo_inverse_where_it_is_certified() {
        for seed in 0..50 {
            let h = with_spectrum(seed, [3.0, 0.5, 1e-3 * (1 + seed) as f64]);
            let fast = certified_inverse(&h).expect("well conditioned");
            let eigen = eigen_pseudo_inverse(&h);
            assert!((fast - eigen).norm() < 1e-10 * eigen.norm(), "seed {seed}");
        }
    }

    #[test]
    fn the_written_out_cholesky_inverse_is_nalgebras() {
        for seed in 0..50 {
            let h = with_spectrum(seed, [3.0, 0.5, 1e-6 * (1 + seed) as f64]);
            let ours = super::cholesky_inverse(&h).expect("positive definite");
            let theirs = h.cholesky().expect("positive definite").inverse();
            assert!(
                (ours - theirs).norm() < 1e-12 * theirs.norm(),
                "seed {seed}"
            );
            assert_eq!(ours, ours.transpose());
        }
        // Indefinite: neither factors.
        let h = with_spectrum(7, [2.0, 1.0, -1e-3]);
        assert!(super::cholesky_inverse(&h).is_none() && h.cholesky().is_none());
        assert!(super::cholesky_inverse(&-Matrix3::identity()).is_none());
    }

    #[test]
    fn flat_directions_fall_back_to_the_eigendecomposition() {
        for (seed, smallest) in [(1, 0.0), (2, 1e-30), (3, -1e-3), (4, 1e-13)] {
            let h = with_spectrum(seed, [2.0, 1.0, smallest]);
            assert!(certified_inverse(&h).is_none(), "seed {seed}");
            assert_eq!(pseudo_inverse(&h), eigen_pseudo_inverse(&h));
        }
        // The flat direction is annihilated, not inverted.
        let h = with_spectrum(5, [2.0, 1.0, 1e-30]);
        let flat = h.symmetric_eigen();
        let k = flat.eigenvalues.imin();
        let v = flat.eigenvectors.column(k);
        assert!((pseudo_inverse(&h) * v).norm() < 1e-8);
    }

    #[test]
    fn trust_region_steps_solve_the_model_inside_and_reach_the_radius_outside() {
        for seed in 0..20 {
            let h = with_spectrum(seed, [4.0, 1.0, 0.25]);
            let g = Vector3::new(1.0, -2.0, 0.5);
            let newton = trust_region_step(&g, &h, 1e3);
            assert!((h * newton + g).norm() < 1e-12, "seed {seed}");
            let radius = 0.1;
            let limited = trust_region_step(&g, &h, radius);
            assert!(
                (limited.norm() - radius).abs() <= 1e-6 * radius,
                "seed {seed}"
            );
        }
    }
}
