//! The twist convention used by every contact derivative and by the dynamics that maps them
//! to generalized coordinates.
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

use nalgebra::{
    Isometry3, Matrix3, Point3, SMatrix, SVector, Translation3, UnitQuaternion, Vector3,
};

/// Gradient with respect to the twists of a body pair.
pub type Vector12 = SVector<f64, 12>;
/// Hessian with respect to the twists of a body pair.
pub type Matrix12 = SMatrix<f64, 12, 12>;
/// A single body's twist.
pub type Twist = SVector<f64, 6>;

/// The pose `pose ⊕ ξ` of the convention above.
///
/// ```
/// use sdrs_geometry::twist::{Twist, perturb};
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

/// How far a turn from rotation `a` to rotation `b` moves a point at unit distance from the
/// centre of the turn: `2 sin(θ/2)`, `θ` the angle between them, from the imaginary part of
/// `a⁻¹b` (no trigonometry, and exact for small turns). Bounds of how far a rotating body's
/// points moved multiply it by the body's radius.
///
/// ```
/// use nalgebra::{UnitQuaternion, Vector3};
/// use sdrs_geometry::twist::turn_chord;
/// let a = UnitQuaternion::from_scaled_axis(Vector3::new(0.0, 0.0, 0.3));
/// let b = UnitQuaternion::from_scaled_axis(Vector3::new(0.0, 0.0, 0.8));
/// assert!((turn_chord(&a, &b) - 2.0 * (0.25f64).sin()).abs() < 1e-12);
/// assert_eq!(turn_chord(&a, &a), 0.0);
/// ```
pub fn turn_chord(a: &UnitQuaternion<f64>, b: &UnitQuaternion<f64>) -> f64 {
    2.0 * (a.quaternion().conjugate() * b.quaternion()).imag().norm()
}

/// `g · ∂²y/∂ω²` for a point at offset `r` from its body origin and a force-like vector `g`:
/// `½ (r gᵀ + g rᵀ) − (g·r) I`, the second-order rotation term every pose Hessian adds to its
/// rotation block (for a sum over points, pass `Σ` of the weighted offsets).
pub fn rotation_curvature(r: &Vector3<f64>, g: &Vector3<f64>) -> Matrix3<f64> {
    (r * g.transpose() + g * r.transpose()) * 0.5 - Matrix3::identity() * g.dot(r)
}

/// A term's value with its gradient and Hessian with respect to the twists of the two bodies
/// (see [`crate::twist`]).
#[derive(Debug, Clone, PartialEq)]
pub struct TwistTerm {
    /// The value.
    pub value: f64,
    /// Gradient (body A's twist, then B's).
    pub gradient: Vector12,
    /// Hessian.
    pub hessian: Matrix12,
}

impl TwistTerm {
    /// Zero.
    pub fn zero() -> Self {
        Self {
            value: 0.0,
            gradient: Vector12::zeros(),
            hessian: Matrix12::zeros(),
        }
    }

    /// Adds `other`.
    pub fn add(&mut self, other: &TwistTerm) {
        self.value += other.value;
        self.gradient += other.gradient;
        self.hessian += other.hessian;
    }

    /// Adds the twist gradient of a point gradient `g` at `point`: `(g, r × g)` on its body.
    pub fn add_point_gradient(&mut self, point: &BodyPoint, g: &Vector3<f64>) {
        add_point_gradient(&mut self.gradient, point, g);
    }

    /// Adds `J_xᵀ m J_y` for a point-space Hessian block `m` between points `x` and `y`, with
    /// `J = [I, −[r]×]`: `[[m, −m R_y], [R_x m, −R_x m R_y]]`, `R = [r]×`.
    pub fn add_point_block(&mut self, x: &BodyPoint, y: &BodyPoint, m: &Matrix3<f64>) {
        let (rx, ry) = (x.offset().cross_matrix(), y.offset().cross_matrix());
        let (cx, cy) = (6 * x.body, 6 * y.body);
        let m_ry = m * ry;
        let rx_m = rx * m;
        let h = &mut self.hessian;
        let mut b = h.fixed_view_mut::<3, 3>(cx, cy);
        b += m;
        let mut b = h.fixed_view_mut::<3, 3>(cx, cy + 3);
        b -= m_ry;
        let mut b = h.fixed_view_mut::<3, 3>(cx + 3, cy);
        b += rx_m;
        let mut b = h.fixed_view_mut::<3, 3>(cx + 3, cy + 3);
        b -= rx * m_ry;
    }

    /// Adds the second-order rotation term `g·∂²y/∂ω²` of a point gradient `g` at `point`.
    pub fn add_point_curvature(&mut self, point: &BodyPoint, g: &Vector3<f64>) {
        let c = 6 * point.body + 3;
        let mut b = self.hessian.fixed_view_mut::<3, 3>(c, c);
        b += rotation_curvature(&point.offset(), g);
    }
}

/// Adds the twist gradient of a point gradient `g` at `point` to `gradient`: `(g, r × g)` on
/// its body.
pub fn add_point_gradient(gradient: &mut Vector12, point: &BodyPoint, g: &Vector3<f64>) {
    let col = 6 * point.body;
    let mut v = gradient.fixed_rows_mut::<3>(col);
    v += g;
    let mut w = gradient.fixed_rows_mut::<3>(col + 3);
    w += point.offset().cross(g);
}

/// A point on one of the two bodies: its world position and its body's origin.
#[derive(Debug, Clone, Copy)]
pub struct BodyPoint {
    /// 0 for body A, 1 for body B.
    pub body: usize,
    /// World position.
    pub position: Point3<f64>,
    /// World position of the body's origin (the twist's rotation centre).
    pub origin: Point3<f64>,
}

impl BodyPoint {
    /// `r`: the offset from the body's origin.
    pub fn offset(&self) -> Vector3<f64> {
        self.position - self.origin
    }
}
