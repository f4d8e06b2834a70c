//! Hand-expanded gradients and Hessians of IPC's squared distances and of the mollifier's
//! argument.
//!
//! Each function of a primitive pair's four points `X₀ … X₃` is written in a few local
//! difference vectors `x_k = X[plus_k] − X[minus_k]` (e.g. `p − t₀, t₁ − t₀, t₂ − t₀` for a
//! point and a plane), differentiated there in closed form, and scattered to the pair's 12
//! coordinates (each local block lands with sign `±` on the blocks of its two points). The
//! building blocks:
//!
//! - `|r|²`: gradient `2r`, Hessian `2I`;
//! - `q = |v × w|²` with `n = v × w`: `∂q/∂v = 2 w × n`, `∂q/∂w = 2 n × v`,
//!   `∂²q/∂v² = 2(|w|² I − w wᵀ)`, `∂²q/∂w² = 2(|v|² I − v vᵀ)`,
//!   `∂²q/∂v∂w = 2([w]×[v]× − [n]×)`;
//! - the triple product `s = u · (v × w)`: `∇s = (v × w, w × u, u × v)`, with the constant
//!   Hessian blocks `∂²s/∂u∂v = −[w]×`, `∂²s/∂u∂w = [v]×`, `∂²s/∂v∂w = −[u]×`;
//!
//! combined by the chain rule of a function of two such values (`s²/q` for the point–plane
//! and line–line distances, `|a × b|²/|b − a|²` for the point–line distance). The values are
//! computed by the same floating-point operations as the textbook formulas (the `*_value`
//! functions, which evaluations that need no derivatives call alone), so only the
//! derivatives' round-off differs from a dual-number evaluation (the tests compare both, and
//! finite differences).

use super::distance::{Matrix12, Vector12};
use nalgebra::{Matrix3, Vector3};
use std::ops::{AddAssign, SubAssign};

/// A value with its gradient and Hessian over `L` local 3-vectors (`hess[a][b]` is
/// `∂²/∂x_a ∂x_bᵀ`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Local<const L: usize> {
    pub(super) value: f64,
    grad: [Vector3<f64>; L],
    hess: [[Matrix3<f64>; L]; L],
}

impl<const L: usize> Local<L> {
    fn zero() -> Self {
        Self {
            value: 0.0,
            grad: [Vector3::zeros(); L],
            hess: [[Matrix3::zeros(); L]; L],
        }
    }

    /// `f(self, other)` from `f`'s partial derivatives `[f_a, f_b]` and `[f_aa, f_ab, f_bb]`.
    fn combine(&self, other: &Self, value: f64, d1: [f64; 2], d2: [f64; 3]) -> Self {
        let mut out = Self::zero();
        out.value = value;
        for i in 0..L {
            out.grad[i] = self.grad[i] * d1[0] + other.grad[i] * d1[1];
            for j in 0..L {
                let (ai, bi) = (self.grad[i], other.grad[i]);
                let (aj, bj) = (self.grad[j], other.grad[j]);
                out.hess[i][j] = ai * aj.transpose() * d2[0]
                    + (ai * bj.transpose() + bi * aj.transpose()) * d2[1]
                    + bi * bj.transpose() * d2[2]
                    + self.hess[i][j] * d1[0]
                    + other.hess[i][j] * d1[1];
            }
        }
        out
    }

    /// `f(self)` from `f`, `f'` and `f''`.
    pub(super) fn map(&self, value: f64, d1: f64, d2: f64) -> Self {
        let mut out = Self::zero();
        out.value = value;
        for i in 0..L {
            out.grad[i] = self.grad[i] * d1;
            for j in 0..L {
                out.hess[i][j] =
                    self.grad[i] * self.grad[j].transpose() * d2 + self.hess[i][j] * d1;
            }
        }
        out
    }

    /// The gradient and Hessian over the pair's 12 coordinates, local vector `k` being
    /// `X[vars[k].0] − X[vars[k].1]`.
    pub(super) fn scatter(&self, vars: [(usize, usize); L]) -> (Vector12, Matrix12) {
        let mut g = Vector12::zeros();
        let mut h = Matrix12::zeros();
        for (a, &(pa, ma)) in vars.iter().enumerate() {
            g.fixed_rows_mut::<3>(3 * pa).add_assign(&self.grad[a]);
            g.fixed_rows_mut::<3>(3 * ma).sub_assign(&self.grad[a]);
            for (b, &(pb, mb)) in vars.iter().enumerate() {
                let block = &self.hess[a][b];
                h.fixed_view_mut::<3, 3>(3 * pa, 3 * pb).add_assign(block);
                h.fixed_view_mut::<3, 3>(3 * pa, 3 * mb).sub_assign(block);
                h.fixed_view_mut::<3, 3>(3 * ma, 3 * pb).sub_assign(block);
                h.fixed_view_mut::<3, 3>(3 * ma, 3 * mb).add_assign(block);
            }
        }
        (g, h)
    }
}

/// `(u · (v × w))² / |v × w|²`, the value of [`triple_squared_over_cross`].
pub(super) fn triple_squared_over_cross_value(
    u: &Vector3<f64>,
    v: &Vector3<f64>,
    w: &Vector3<f64>,
) -> f64 {
    let n = v.cross(w);
    let s = u.dot(&n);
    s * s / n.dot(&n)
}

/// `|(e₀ − p) × (e₁ − p)|² / |e₁ − e₀|²`, the value of [`point_line`].
pub(super) fn point_line_value(p: &Vector3<f64>, e0: &Vector3<f64>, e1: &Vector3<f64>) -> f64 {
    let c = (e0 - p).cross(&(e1 - p));
    let e = e1 - e0;
    c.dot(&c) / e.dot(&e)
}

/// `|r|²` over `r`.
pub(super) fn norm_squared(r: &Vector3<f64>) -> Local<1> {
    Local {
        value: r.dot(r),
        grad: [r * 2.0],
        hess: [[Matrix3::identity() * 2.0]],
    }
}

/// `|v × w|²` over `(v, w)`.
pub(super) fn cross_squared(v: &Vector3<f64>, w: &Vector3<f64>) -> Local<2> {
    let n = v.cross(w);
    let vw = 2.0 * (w.cross_matrix() * v.cross_matrix() - n.cross_matrix());
    Local {
        value: n.dot(&n),
        grad: [w.cross(&n) * 2.0, n.cross(v) * 2.0],
        hess: [
            [
                (Matrix3::identity() * w.dot(w) - w * w.transpose()) * 2.0,
                vw,
            ],
            [
                vw.transpose(),
                (Matrix3::identity() * v.dot(v) - v * v.transpose()) * 2.0,
            ],
        ],
    }
}

/// `(u · (v × w))² / |v × w|²` over `(u, v, w)`: the squared distance of a point to a plane
/// (`u = p − t₀`, `v = t₁ − t₀`, `w = t₂ − t₀`) or of two lines (`u = b₀ − a₀`,
/// `v = a₁ − a₀`, `w = b₁ − b₀`).
pub(super) fn triple_squared_over_cross(
    u: &Vector3<f64>,
    v: &Vector3<f64>,
    w: &Vector3<f64>,
) -> Local<3> {
    let n = v.cross(w);
    let z = Matrix3::zeros();
    let (su, sv, sw) = (u.cross_matrix(), v.cross_matrix(), w.cross_matrix());
    let s = Local {
        value: u.dot(&n),
        grad: [n, w.cross(u), u.cross(v)],
        hess: [[z, -sw, sv], [sw, z, -su], [-sv, su, z]],
    };
    let c = cross_squared(v, w);
    let q = Local {
        value: c.value,
        grad: [Vector3::zeros(), c.grad[0], c.grad[1]],
        hess: [
            [z, z, z],
            [z, c.hess[0][0], c.hess[0][1]],
            [z, c.hess[1][0], c.hess[1][1]],
        ],
    };
    let (sv, qv) = (s.value, q.value);
    s.combine(
        &q,
        triple_squared_over_cross_value(u, v, w),
        [2.0 * sv / qv, -sv * sv / (qv * qv)],
        [
            2.0 / qv,
            -2.0 * sv / (qv * qv),
            2.0 * sv * sv / (qv * qv * qv),
        ],
    )
}

/// `|a × b|² / |b − a|²` over `(a, b) = (e₀ − p, e₁ − p)`: the squared distance of a point
/// `p` to the line through `e₀, e₁`.
pub(super) fn point_line(p: &Vector3<f64>, e0: &Vector3<f64>, e1: &Vector3<f64>) -> Local<2> {
    let c = cross_squared(&(e0 - p), &(e1 - p));
    let e = e1 - e0;
    let i2 = Matrix3::identity() * 2.0;
    let span = Local {
        value: e.dot(&e),
        grad: [e * -2.0, e * 2.0],
        hess: [[i2, -i2], [-i2, i2]],
    };
    let (cv, ev) = (c.value, span.value);
    c.combine(
        &span,
        point_line_value(p, e0, e1),
        [1.0 / ev, -cv / (ev * ev)],
        [0.0, -1.0 / (ev * ev), 2.0 * cv / (ev * ev * ev)],
    )
}
