//! Functions of the distance between two points carried by two rigid bodies — the centred
//! potential (long-range paper eq. 5 and 7) and the blending weight (eq. 4) — and the map of
//! point derivatives to the bodies' twists.

use crate::twist::{Matrix12, Vector12, rotation_curvature};
use nalgebra::{Matrix3, Point3, Vector3};

/// A scalar function of `r` with its first two derivatives.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Radial {
    /// `f(r)`.
    pub value: f64,
    /// `f'(r)`.
    pub first: f64,
    /// `f''(r)`.
    pub second: f64,
}

/// The centred potential `P_c(r) = 12 (1 + 1/√r)²` of two points `r` apart (eq. 5, 7): the
/// triangle-pair potential with each triangle collapsed to its centre.
pub fn centred(r: f64) -> Radial {
    let u = 1.0 / r.sqrt();
    let (du, ddu) = (-0.5 * u / r, 0.75 * u / (r * r));
    Radial {
        value: 12.0 * (1.0 + u) * (1.0 + u),
        first: 24.0 * (1.0 + u) * du,
        second: 24.0 * (du * du + (1.0 + u) * ddu),
    }
}

/// The blending weight `φ = Φ((r − d₁)/(d₂ − d₁))` of eq. 4 with the quintic smoothstep
/// `Φ(s) = 6s⁵ − 15s⁴ + 10s³` clamped to `[0, 1]` (C² at both ends).
pub fn blend(r: f64, d1: f64, d2: f64) -> Radial {
    let w = d2 - d1;
    let s = ((r - d1) / w).clamp(0.0, 1.0);
    if s <= 0.0 || s >= 1.0 {
        return Radial {
            value: s,
            first: 0.0,
            second: 0.0,
        };
    }
    Radial {
        value: s * s * s * (10.0 + s * (6.0 * s - 15.0)),
        first: 30.0 * s * s * (s - 1.0) * (s - 1.0) / w,
        second: 60.0 * s * (2.0 * s - 1.0) * (s - 1.0) / (w * w),
    }
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

    /// Adds `(1 − φ) near + φ far` with `φ` a function of the configuration: the product rule
    /// in value, gradient and Hessian.
    pub fn add_blend(&mut self, near: &TwistTerm, far: &TwistTerm, phi: &TwistTerm) {
        let w = phi.value;
        let dv = far.value - near.value;
        let dg = far.gradient - near.gradient;
        self.value += (1.0 - w) * near.value + w * far.value;
        self.gradient += near.gradient * (1.0 - w) + far.gradient * w + phi.gradient * dv;
        let cross = phi.gradient * dg.transpose();
        self.hessian += near.hessian * (1.0 - w)
            + far.hessian * w
            + cross
            + cross.transpose()
            + phi.hessian * dv;
    }

    /// Adds `other`.
    pub fn add(&mut self, other: &TwistTerm) {
        self.value += other.value;
        self.gradient += other.gradient;
        self.hessian += other.hessian;
    }

    /// Adds the twist gradient of a point gradient `g` at `point`: `(g, r × g)` on its body.
    pub fn add_point_gradient(&mut self, point: &BodyPoint, g: &Vector3<f64>) {
        let col = 6 * point.body;
        let r = point.offset();
        let mut v = self.gradient.fixed_rows_mut::<3>(col);
        v += g;
        let mut w = self.gradient.fixed_rows_mut::<3>(col + 3);
        w += r.cross(g);
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

/// Adds a radial function `f(|x_a − x_b|)` of two body points to `out` (its Hessian only when
/// `hessian`).
pub fn add_radial(out: &mut TwistTerm, f: &Radial, a: &BodyPoint, b: &BodyPoint, hessian: bool) {
    let d: Vector3<f64> = a.position - b.position;
    let r = d.norm();
    let e = d / r;
    let g = e * f.first;
    out.value += f.value;
    out.add_point_gradient(a, &g);
    out.add_point_gradient(b, &-g);
    if hessian {
        let radial = e * e.transpose();
        let k = radial * f.second + (Matrix3::identity() - radial) * (f.first / r);
        // J_xᵀ (±K) J_y for the four body pairs from K R_a, K R_b (R = [r]×; R K = −(K R)ᵀ).
        let (ra, rb) = (a.offset().cross_matrix(), b.offset().cross_matrix());
        let (k_ra, k_rb) = (k * ra, k * rb);
        let blocks = [
            (a, a, k, -k_ra, -k_ra.transpose(), -(ra * k_ra)),
            (b, b, k, -k_rb, -k_rb.transpose(), -(rb * k_rb)),
            (a, b, -k, k_rb, k_ra.transpose(), ra * k_rb),
            (b, a, -k, k_ra, k_rb.transpose(), rb * k_ra),
        ];
        for (x, y, vv, vw, wv, ww) in blocks {
            let (cx, cy) = (6 * x.body, 6 * y.body);
            let h = &mut out.hessian;
            let mut m = h.fixed_view_mut::<3, 3>(cx, cy);
            m += vv;
            let mut m = h.fixed_view_mut::<3, 3>(cx, cy + 3);
            m += vw;
            let mut m = h.fixed_view_mut::<3, 3>(cx + 3, cy);
            m += wv;
            let mut m = h.fixed_view_mut::<3, 3>(cx + 3, cy + 3);
            m += ww;
        }
        out.add_point_curvature(a, &g);
        out.add_point_curvature(b, &-g);
    }
}
