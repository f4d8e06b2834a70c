//! The twist convention used by every contact derivative.
//!
//! A body's pose is `(R, t)`; a twist `ξ = (v, ω) ∈ R⁶` perturbs it to
//! `R(ξ) = Exp(ω) R`, `t(ξ) = t + v`: a world-frame translation of the body origin and a
//! world-frame rotation about the body origin. A local point `x` then moves to
//! `y(ξ) = Exp(ω) (y − t) + t + v`, with `∂y/∂v = I`, `∂y/∂ω = −[y − t]×` and second derivative
//! `∂²y/∂ω_a∂ω_b = ½ (e_a × (e_b × r) + e_b × (e_a × r))`, `r = y − t`.
//!
//! Gradients and Hessians "with respect to a pose" are those of `ξ ↦ U(pose ⊕ ξ)` at `ξ = 0`:
//! the gradient is (force, torque about the body origin) up to sign, and the Hessian is exactly
//! symmetric. A pair of bodies gives a 12-vector `(ξ_a, ξ_b)` and a 12x12 matrix.
//!
//! Rotations do not commute, so differencing the *gradient* between perturbed poses gives the
//! Hessian plus an antisymmetric term `½ g·[ξ, η]` in the rotation block; the Hessian is the
//! symmetric part of such a finite-difference matrix, which is what the tests compare.

use nalgebra::{Isometry3, Matrix3, SMatrix, SVector, Translation3, UnitQuaternion, Vector3};

/// Gradient with respect to the twists of a body pair.
pub type Vector12 = SVector<f64, 12>;
/// Hessian with respect to the twists of a body pair.
pub type Matrix12 = SMatrix<f64, 12, 12>;
/// A single body's twist.
pub type Twist = SVector<f64, 6>;

/// The pose `pose ⊕ ξ` of the convention above.
///
/// ```
/// use sdrs_contact::twist::{Twist, perturb};
/// use nalgebra::{Isometry3, Point3};
/// let pose = Isometry3::translation(1.0, 0.0, 0.0);
/// let xi = Twist::from_column_slice(&[0.0, 0.0, 0.0, 0.0, 0.0, std::f64::consts::FRAC_PI_2]);
/// let moved = perturb(&pose, &xi) * Point3::new(1.0, 0.0, 0.0);
/// // Rotation about the body origin (1, 0, 0), not the world origin.
/// assert!((moved - Point3::new(1.0, 1.0, 0.0)).norm() < 1e-12);
/// ```
pub fn perturb(pose: &Isometry3<f64>, xi: &Twist) -> Isometry3<f64> {
    let v = Vector3::new(xi[0], xi[1], xi[2]);
    let w = Vector3::new(xi[3], xi[4], xi[5]);
    Isometry3::from_parts(
        Translation3::from(pose.translation.vector + v),
        UnitQuaternion::from_scaled_axis(w) * pose.rotation,
    )
}

/// `g · ∂²y/∂ω²` for a point at offset `r` from its body origin and a force-like vector `g`:
/// `½ (r gᵀ + g rᵀ) − (g·r) I`, the second-order rotation term every pose Hessian adds to its
/// rotation block (for a sum over points, pass `Σ` of the weighted offsets).
pub(crate) fn rotation_curvature(r: &Vector3<f64>, g: &Vector3<f64>) -> Matrix3<f64> {
    (r * g.transpose() + g * r.transpose()) * 0.5 - Matrix3::identity() * g.dot(r)
}
