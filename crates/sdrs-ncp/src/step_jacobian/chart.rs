//! The re-centred chart of spherical and free joints, to first order.
//!
//! A rotation block (three DoFs) is the chart `R_ref Rx(α) Ry(β) Rz(γ)`, and the step starts
//! from a re-centred state (`α = β = γ = 0`). A configuration perturbation `δ` of the block
//! moves the reference to `R_ref Exp(δ)` and the stepper reads the velocity `v` (and the
//! joint forces) in the new chart, while the ABA derivatives are taken in the old chart at
//! coordinates `δ`. The two charts' DoF screws differ: `S_old(δ) q̇ = S_new v` gives
//! `q̇ = T(δ) v` with `T(δ) = I + T₁[δ] + O(δ²)`,
//!
//! ```text
//! T₁[δ] x = (−γ x_y, γ x_x, −β x_x),
//! ```
//!
//! and chart accelerations carry the bias `b(q̇) = S⁻¹ Ṡ q̇ = (q̇_y q̇_z, −q̇_x q̇_z, q̇_x q̇_y)` at
//! the centre, which in the old chart at `δ` changes by `∂_δ b[δ] = (−β q̇_x q̇_y, 0, −β q̇_y q̇_z)`
//! (from `S_old(δ) = R_ref [e_x, Rx(α) e_y, Rx(α) Ry(β) e_z]`). Velocities transform by `T`,
//! forces by `T⁻ᵀ`, and `q̈_new = T⁻¹ (q̈_old + b_old(δ, q̇)) − b(v)`.

use nalgebra::{Matrix3, Vector3};

/// `T₁[δ] x`.
pub(super) fn t1(delta: &Vector3<f64>, x: &Vector3<f64>) -> Vector3<f64> {
    Vector3::new(-delta.z * x.y, delta.z * x.x, -delta.y * x.x)
}

/// `T₁[δ]ᵀ y`.
pub(super) fn t1_transposed(delta: &Vector3<f64>, y: &Vector3<f64>) -> Vector3<f64> {
    Vector3::new(delta.z * y.y - delta.y * y.z, -delta.z * y.x, 0.0)
}

/// The chart bias `b(v)` at the centre.
pub(super) fn bias(v: &Vector3<f64>) -> Vector3<f64> {
    Vector3::new(v.y * v.z, -v.x * v.z, v.x * v.y)
}

/// `∂b/∂v [w]`.
pub(super) fn bias_velocity_derivative(v: &Vector3<f64>, w: &Vector3<f64>) -> Vector3<f64> {
    Vector3::new(
        w.y * v.z + v.y * w.z,
        -(w.x * v.z + v.x * w.z),
        w.x * v.y + v.x * w.y,
    )
}

/// `∂_δ b_old(δ, v) [δ]` at `δ = 0`.
pub(super) fn bias_chart_derivative(delta: &Vector3<f64>, v: &Vector3<f64>) -> Vector3<f64> {
    Vector3::new(-delta.y * v.x * v.y, 0.0, -delta.y * v.y * v.z)
}

/// The right Jacobian of SO(3) at the rotation vector `phi`: `Exp(φ + dφ) ≈ Exp(φ)
/// Exp(J_r(φ) dφ)`.
pub(super) fn right_jacobian(phi: &Vector3<f64>) -> Matrix3<f64> {
    let theta = phi.norm();
    let k = phi.cross_matrix();
    let (a, b) = if theta < 1e-4 {
        // Taylor series of (1 − cos θ)/θ² and (θ − sin θ)/θ³.
        let t2 = theta * theta;
        (0.5 - t2 / 24.0, 1.0 / 6.0 - t2 / 120.0)
    } else {
        let t2 = theta * theta;
        (
            (1.0 - theta.cos()) / t2,
            (theta - theta.sin()) / (t2 * theta),
        )
    };
    Matrix3::identity() - k * a + k * k * b
}
