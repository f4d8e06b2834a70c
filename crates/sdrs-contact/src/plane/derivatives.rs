//! Pose and design derivatives of the plane barrier by the implicit function theorem.

use super::Side;
use super::solve::{Moments, Solution};
use crate::barrier::barrier;
use crate::model::{Order, PairContact, VertexDerivatives};
use crate::twist::rotation_curvature;
use nalgebra::{Matrix3, SMatrix, Vector3, Vector4};

type Matrix6x4 = SMatrix<f64, 6, 4>;
type Matrix12x4 = SMatrix<f64, 12, 4>;

/// `∂²U*/∂ξ²` (6x6) of one body from its moments (σ = side sign).
fn twist_hessian(m: &Moments, n: &Vector3<f64>, sign: f64) -> SMatrix<f64, 6, 6> {
    let nx = n.cross_matrix();
    let s1xn = m.s1.cross(n);
    let mut h = SMatrix::<f64, 6, 6>::zeros();
    h.fixed_view_mut::<3, 3>(0, 0)
        .copy_from(&(n * n.transpose() * m.s0));
    let vw = n * s1xn.transpose();
    h.fixed_view_mut::<3, 3>(0, 3).copy_from(&vw);
    h.fixed_view_mut::<3, 3>(3, 0).copy_from(&vw.transpose());
    // Σ P''(r×n)(r×n)ᵀ = [n]× (Σ P'' r rᵀ) [n]×ᵀ, plus the second-order rotation term
    // σ Σ P' (½(r nᵀ + n rᵀ) − (n·r) I).
    let ww = nx * m.s2 * nx.transpose() + rotation_curvature(&m.t1, n) * sign;
    h.fixed_view_mut::<3, 3>(3, 3).copy_from(&ww);
    h
}

/// `∂²U*/∂ξ∂p` (6x4) of one body.
fn twist_plane_mixed(m: &Moments, n: &Vector3<f64>, t: &Vector3<f64>, sign: f64) -> Matrix6x4 {
    let nx = n.cross_matrix();
    // Σ P'' x̄ with x̄ = (r + t, 1).
    let ybar = Vector4::new(
        m.s1.x + m.s0 * t.x,
        m.s1.y + m.s0 * t.y,
        m.s1.z + m.s0 * t.z,
        m.s0,
    );
    let mut h = Matrix6x4::zeros();
    let mut v_rows = n * ybar.transpose();
    let mut v_block = v_rows.fixed_view_mut::<3, 3>(0, 0);
    v_block += Matrix3::identity() * (sign * m.t0);
    h.fixed_view_mut::<3, 4>(0, 0).copy_from(&v_rows);
    // Σ P'' (r×n) x̄ᵀ = −[n]× [Σ P'' r (r+t)ᵀ | Σ P'' r], plus σ Σ P' [[r]× | 0].
    let w_block = -nx * (m.s2 + m.s1 * t.transpose()) + m.t1.cross_matrix() * sign;
    let w_col = -nx * m.s1;
    h.fixed_view_mut::<3, 3>(3, 0).copy_from(&w_block);
    h.fixed_view_mut::<3, 1>(3, 3).copy_from(&w_col);
    h
}

/// Energy and the requested derivatives at the converged plane.
pub(super) fn assemble(
    sides: &[Side; 2],
    solution: &Solution,
    s: f64,
    order: Order,
) -> PairContact {
    let eval = &solution.eval;
    let mut out = PairContact::zero();
    out.value = eval.value;
    out.iterations = solution.iterations;
    if order == Order::Value || eval.value == 0.0 {
        return out;
    }
    let p = solution.plane;
    let n = Vector3::new(p.x, p.y, p.z);
    for (b, (side, m)) in sides.iter().zip(&eval.moments).enumerate() {
        // ∂U/∂ξ = ∂U*/∂ξ at p* (eq. 34): σ (Σ P' n, Σ P' r × n).
        let g = Vector3::from(n * m.t0 * side.sign);
        let tau = m.t1.cross(&n) * side.sign;
        out.gradient.fixed_rows_mut::<3>(6 * b).copy_from(&g);
        out.gradient.fixed_rows_mut::<3>(6 * b + 3).copy_from(&tau);
    }
    if order == Order::Gradient {
        return out;
    }
    let mut mixed = Matrix12x4::zeros();
    for (b, (side, m)) in sides.iter().zip(&eval.moments).enumerate() {
        let t = side.pose.translation.vector;
        out.hessian
            .fixed_view_mut::<6, 6>(6 * b, 6 * b)
            .copy_from(&twist_hessian(m, &n, side.sign));
        mixed
            .fixed_view_mut::<6, 4>(6 * b, 0)
            .copy_from(&twist_plane_mixed(m, &n, &t, side.sign));
    }
    // Eq. 35: subtract ∂²U*/∂ξ∂p H_pp⁻¹ ∂²U*/∂p∂ξ. H_pp is positive definite whenever
    // U > 0 (Lemma VII.3), which is the only case that reaches here.
    let chol = super::solve::factor(&eval.hessian);
    let k: Matrix12x4 = chol.solve(&mixed.transpose()).transpose();
    out.hessian -= k * mixed.transpose();
    out.hessian = (out.hessian + out.hessian.transpose()) * 0.5;
    if order == Order::Design {
        out.vertices = vertex_derivatives(sides, &n, p.w, s, &k);
    }
    out
}

/// Gradient and mixed pose derivatives with respect to every active local vertex.
fn vertex_derivatives(
    sides: &[Side; 2],
    n: &Vector3<f64>,
    offset: f64,
    s: f64,
    k: &Matrix12x4,
) -> Vec<VertexDerivatives> {
    let mut out = Vec::new();
    let nx = n.cross_matrix();
    for (b, side) in sides.iter().enumerate() {
        let r_mat: Matrix3<f64> = *side.pose.rotation.to_rotation_matrix().matrix();
        let t = side.pose.translation.vector;
        let sign = side.sign;
        for (vertex, x, q) in side.distances(n, offset) {
            let Some((_, d1, d2)) = barrier(q, s).filter(|_| q < s) else {
                continue;
            };
            let r = r_mat * x.coords;
            let y = r + t;
            let nt_r = n.transpose() * r_mat; // ∂(n·y)/∂x
            // ∂²U*/∂ξ_b∂x: v rows P'' n nᵀR; ω rows P''(r×n) nᵀR − σP'[n]×R.
            let mut direct = SMatrix::<f64, 12, 3>::zeros();
            direct
                .fixed_view_mut::<3, 3>(6 * b, 0)
                .copy_from(&(n * nt_r * d2));
            direct
                .fixed_view_mut::<3, 3>(6 * b + 3, 0)
                .copy_from(&(r.cross(n) * nt_r * d2 - nx * r_mat * (sign * d1)));
            // ∂²U*/∂p∂x: P'' x̄ nᵀR + σP' [R; 0].
            let ybar = Vector4::new(y.x, y.y, y.z, 1.0);
            let mut plane_x: SMatrix<f64, 4, 3> = ybar * nt_r * d2;
            let mut plane_n = plane_x.fixed_view_mut::<3, 3>(0, 0);
            plane_n += r_mat * (sign * d1);
            out.push(VertexDerivatives {
                body: b,
                vertex,
                gradient: nt_r.transpose() * (sign * d1),
                mixed: direct - k * plane_x,
            });
        }
    }
    out
}
