//! Functions of the distance between two points carried by two rigid bodies — the centred
//! potential (long-range paper eq. 5 and 7) and the blending weight (eq. 4) — and the map of
//! point derivatives to the bodies' twists.

use crate::twist::{Matrix12, Vector12, rotation_curvature};
use nalgebra::{Matrix3, Point3, SMatrix, Vector3};

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

    /// `(1 − φ) self + φ other` with `φ` a function of the configuration:
    /// the product rule in value, gradient and Hessian.
    pub fn blend(&self, other: &TwistTerm, phi: &TwistTerm) -> TwistTerm {
        let w = phi.value;
        let dv = other.value - self.value;
        let dg = other.gradient - self.gradient;
        let cross = phi.gradient * dg.transpose();
        TwistTerm {
            value: (1.0 - w) * self.value + w * other.value,
            gradient: self.gradient * (1.0 - w) + other.gradient * w + phi.gradient * dv,
            hessian: self.hessian * (1.0 - w)
                + other.hessian * w
                + cross
                + cross.transpose()
                + phi.hessian * dv,
        }
    }

    /// Adds `other`.
    pub fn add(&mut self, other: &TwistTerm) {
        self.value += other.value;
        self.gradient += other.gradient;
        self.hessian += other.hessian;
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

/// Maps derivatives with respect to `N` world points (gradient `3N`, Hessian `3N x 3N`) to
/// the two bodies' twists: `Jᵀg` and `Jᵀ H J` plus each point's rotation curvature, with
/// `J = [I, −[r]×]` per point, `r` its offset from its body's origin.
pub fn to_twists<const N: usize, const M: usize>(
    points: &[BodyPoint; N],
    gradient: &SMatrix<f64, M, 1>,
    hessian: Option<&SMatrix<f64, M, M>>,
) -> (Vector12, Matrix12) {
    let mut jac = SMatrix::<f64, M, 12>::zeros();
    let mut g12 = Vector12::zeros();
    let mut h12 = Matrix12::zeros();
    for (k, p) in points.iter().enumerate() {
        let r: Vector3<f64> = p.position - p.origin;
        let g = gradient.fixed_rows::<3>(3 * k).into_owned();
        let col = 6 * p.body;
        jac.fixed_view_mut::<3, 3>(3 * k, col)
            .copy_from(&Matrix3::identity());
        jac.fixed_view_mut::<3, 3>(3 * k, col + 3)
            .copy_from(&-r.cross_matrix());
        let mut v = g12.fixed_rows_mut::<3>(col);
        v += g;
        let mut w = g12.fixed_rows_mut::<3>(col + 3);
        w += r.cross(&g);
        if hessian.is_some() {
            let mut block = h12.fixed_view_mut::<3, 3>(col + 3, col + 3);
            block += rotation_curvature(&r, &g);
        }
    }
    if let Some(h) = hessian {
        h12 += jac.transpose() * h * jac;
    }
    (g12, h12)
}

/// A radial function `f(|x_a − x_b|)` of two body points as a [`TwistTerm`].
pub fn radial_term(f: &Radial, a: &BodyPoint, b: &BodyPoint) -> TwistTerm {
    let d: Vector3<f64> = a.position - b.position;
    let r = d.norm();
    let e = d / r;
    let mut g = SMatrix::<f64, 6, 1>::zeros();
    g.fixed_rows_mut::<3>(0).copy_from(&(e * f.first));
    g.fixed_rows_mut::<3>(3).copy_from(&(-e * f.first));
    let radial = e * e.transpose();
    let k = radial * f.second + (Matrix3::identity() - radial) * (f.first / r);
    let mut h = SMatrix::<f64, 6, 6>::zeros();
    h.fixed_view_mut::<3, 3>(0, 0).copy_from(&k);
    h.fixed_view_mut::<3, 3>(3, 3).copy_from(&k);
    h.fixed_view_mut::<3, 3>(0, 3).copy_from(&-k);
    h.fixed_view_mut::<3, 3>(3, 0).copy_from(&-k);
    let (gradient, hessian) = to_twists(&[*a, *b], &g, Some(&h));
    TwistTerm {
        value: f.value,
        gradient,
        hessian,
    }
}
