//! Pose and design derivatives of the plane barrier by the implicit function theorem.

use super::Side;
use super::anchors::{Proposal, key, side_and_vertex};
use super::solve::{Moments, Solution, add_norm_terms, add_side_terms, factor};
use crate::barrier::barrier;
use crate::model::{Order, PairContact, VertexDerivatives};
use nalgebra::{Matrix3, Matrix4, SMatrix, Vector3, Vector4};
use sdrs_geometry::twist::{Vector12, rotation_curvature};

type Matrix6x4 = SMatrix<f64, 6, 4>;
type Matrix12x4 = SMatrix<f64, 12, 4>;

/// How the optimal plane `p* = (n, o)` of a pair moves with the poses and local vertices
/// ([`super::PlaneBarrier::plane_sensitivity`]).
#[derive(Debug, Clone, PartialEq)]
pub struct PlaneSensitivity {
    /// The optimal plane `(n, o)` (unnormalised: `|n| < 1`).
    pub plane: Vector4<f64>,
    /// The energy `U_c` there.
    pub value: f64,
    /// `∂p*/∂ξ` (4x12) with respect to the two bodies' twists.
    pub pose: SMatrix<f64, 4, 12>,
    /// `∂p*/∂x` for every active local vertex (those within the support of the plane; no other
    /// vertex moves the plane).
    pub vertices: Vec<VertexSensitivity>,
}

/// `∂p*/∂x` for one local vertex.
#[derive(Debug, Clone, PartialEq)]
pub struct VertexSensitivity {
    /// 0 for the first body of the pair, 1 for the second.
    pub body: usize,
    /// Index of the vertex in that body's hull.
    pub vertex: usize,
    /// `∂p*/∂x` (4x3).
    pub derivative: SMatrix<f64, 4, 3>,
}

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

/// `∂²U*/∂ξ∂p` (12x4) of the pair at the plane with normal `n`, from the sides' moments.
fn pose_plane_mixed(sides: &[Side; 2], n: &Vector3<f64>, moments: &[Moments; 2]) -> Matrix12x4 {
    let mut mixed = Matrix12x4::zeros();
    for (b, (side, m)) in sides.iter().zip(moments).enumerate() {
        let t = side.pose.translation.vector;
        mixed
            .fixed_view_mut::<6, 4>(6 * b, 0)
            .copy_from(&twist_plane_mixed(m, n, &t, side.sign));
    }
    mixed
}

/// `∂p*/∂ξ` and `∂p*/∂x` at a converged plane with `U > 0`.
pub(super) fn sensitivity(sides: &[Side; 2], solution: &Solution, s: f64) -> PlaneSensitivity {
    let p = solution.plane;
    let chol = &solution.factor;
    let n = Vector3::new(p.x, p.y, p.z);
    let pose = -chol.solve(&pose_plane_mixed(sides, &n, &solution.eval.moments).transpose());
    let vertices = active_vertices(sides, &n, p.w, s)
        .map(|v| VertexSensitivity {
            body: v.body,
            vertex: v.vertex,
            derivative: -chol.solve(&v.plane_mixed),
        })
        .collect();
    PlaneSensitivity {
        plane: p,
        value: solution.eval.value,
        pose,
        vertices,
    }
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
    out.gradient = twist_gradient(sides, &n, &eval.moments);
    if order == Order::Gradient {
        return out;
    }
    // Eq. 35: subtract ∂²U*/∂ξ∂p H_pp⁻¹ ∂²U*/∂p∂ξ. H_pp is positive definite whenever
    // U > 0 (Lemma VII.3), which is the only case that reaches here.
    let (hessian, k) = reduced_hessian(sides, &n, &eval.moments, &solution.factor);
    out.hessian = hessian;
    if order == Order::Design {
        out.vertices = vertex_derivatives(sides, &n, p.w, s, &k);
    }
    out
}

/// `∂U*/∂ξ` (eq. 34) from the sides' moments: per body `σ (Σ P' n, Σ P' r × n)`.
fn twist_gradient(sides: &[Side; 2], n: &Vector3<f64>, moments: &[Moments; 2]) -> Vector12 {
    let mut gradient = Vector12::zeros();
    for (b, (side, m)) in sides.iter().zip(moments).enumerate() {
        let g = Vector3::from(n * m.t0 * side.sign);
        let tau = m.t1.cross(n) * side.sign;
        gradient.fixed_rows_mut::<3>(6 * b).copy_from(&g);
        gradient.fixed_rows_mut::<3>(6 * b + 3).copy_from(&tau);
    }
    gradient
}

/// The Hessian `∂²U*/∂ξ² − ∂²U*/∂ξ∂p H_pp⁻¹ ∂²U*/∂p∂ξ` from the sides' moments and the
/// factor of `H_pp`, with `K = ∂²U*/∂ξ∂p H_pp⁻¹` (12x4).
fn reduced_hessian(
    sides: &[Side; 2],
    n: &Vector3<f64>,
    moments: &[Moments; 2],
    chol: &nalgebra::Cholesky<f64, nalgebra::U4>,
) -> (SMatrix<f64, 12, 12>, Matrix12x4) {
    let mut hessian = SMatrix::<f64, 12, 12>::zeros();
    for (b, (side, m)) in sides.iter().zip(moments).enumerate() {
        hessian
            .fixed_view_mut::<6, 6>(6 * b, 6 * b)
            .copy_from(&twist_hessian(m, n, side.sign));
    }
    let mixed = pose_plane_mixed(sides, n, moments);
    let k: Matrix12x4 = chol.solve(&mixed.transpose()).transpose();
    hessian -= k * mixed.transpose();
    ((hessian + hessian.transpose()) * 0.5, k)
}

/// The energy and exact gradient at the converged plane, with the Hessian and gradient of the
/// force-anchored Newton model ([`super::anchors`]) in place of the exact Hessian: the
/// returned contact's `hessian` is the model's, and the second value its gradient.
///
/// The model replaces each active vertex's `P'`, `P''` by the model's, and adds the vertices
/// beyond the support that still carry an estimate ([`Proposal::beyond`]); its plane is not
/// the barrier's optimum, so its pose gradient is taken after one Newton step of the model's
/// own plane solve, `∂Ũ*/∂ξ − K̃ ∇_p Ũ*` (first order in the plane's offset, like the Hessian's
/// reduction). Where every estimate matches its vertex's force, this is the exact gradient and
/// Hessian.
pub(super) fn assemble_anchored(
    sides: &[Side; 2],
    solution: &Solution,
    s: f64,
    proposal: Proposal,
) -> (PairContact, Vector12) {
    let exact = assemble(sides, solution, s, Order::Gradient);
    let moments = model_moments(sides, &solution.plane, s, proposal, true);
    match anchored_model(sides, &solution.plane, s, &moments, Curvature::Full) {
        Some((hessian, gradient)) => (PairContact { hessian, ..exact }, gradient),
        // Not finite: the exact Newton model instead.
        None if solution.eval.value > 0.0 => {
            let full = assemble(sides, solution, s, Order::Hessian);
            let gradient = full.gradient;
            (full, gradient)
        }
        None => (exact, Vector12::zeros()),
    }
}

/// The force-anchored model of a pair beyond the support (zero energy and gradient) at the
/// plane `p` its estimates were last proposed at: the Hessian and gradient of the vertices
/// that still carry an estimate, or `None` when none does.
pub(super) fn anchored_beyond_support(
    sides: &[Side; 2],
    p: &Vector4<f64>,
    s: f64,
    proposal: Proposal,
) -> Option<(SMatrix<f64, 12, 12>, Vector12)> {
    let moments = model_moments(sides, p, s, proposal, false);
    anchored_model(sides, p, s, &moments, Curvature::GaussNewton)
}

/// The model's moments at the plane `p`: each vertex within the support with its estimate's
/// term ([`Proposal::term`]) when `within` (the plane is the pair's optimum), then each vertex
/// beyond it that keeps an estimate.
fn model_moments(
    sides: &[Side; 2],
    p: &Vector4<f64>,
    s: f64,
    mut proposal: Proposal,
    within: bool,
) -> [Moments; 2] {
    let n = p.xyz();
    let mut moments = [Moments::default(); 2];
    for (b, (side, m)) in sides
        .iter()
        .zip(&mut moments)
        .enumerate()
        .filter(|_| within)
    {
        let rotation = side.pose.rotation.to_rotation_matrix();
        for (vertex, x, q) in side.distances(&n, p.w) {
            if q < s {
                let term = proposal.term(key(b, vertex), q);
                m.add(&(rotation * x.coords), (term.d1, term.d2));
            }
        }
    }
    proposal.beyond_support(
        |k| {
            let (b, vertex) = side_and_vertex(k);
            let side = &sides[b];
            let r = side.pose.rotation * side.hull.vertices().get(vertex)?.coords;
            let q = side.sign * (n.dot(&(r + side.pose.translation.vector)) + p.w);
            Some((q, (b, r)))
        },
        |(b, r), term| moments[b].add(&r, (term.d1, term.d2)),
    );
    moments
}

/// Which second derivatives of the vertex distances a model's Hessian keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Curvature {
    /// All of them, as the barrier's own Hessian at its optimal plane.
    Full,
    /// Only `Σ m'' ∇q ∇qᵀ` (Gauss-Newton): at a plane the hulls have moved from, a model
    /// term's `m'` can be a large pull, and its products with the distances' second
    /// derivatives (`q = n·y + o` is bilinear) would make the reduced Hessian indefinite.
    GaussNewton,
}

/// The model's pose Hessian and gradient from its moments at the plane `p` (`None` when no
/// vertex is modelled or the model's plane Hessian cannot be factored).
fn anchored_model(
    sides: &[Side; 2],
    p: &Vector4<f64>,
    s: f64,
    moments: &[Moments; 2],
    curvature: Curvature,
) -> Option<(SMatrix<f64, 12, 12>, Vector12)> {
    if moments.iter().all(|m| m.s0 == 0.0 && m.t0 == 0.0) {
        return None;
    }
    let n = p.xyz();
    let (mut plane_gradient, mut plane_hessian) = (Vector4::zeros(), Matrix4::zeros());
    if let Some((_, d1, d2)) = barrier(1.0 - n.norm(), s) {
        add_norm_terms(&n, (d1, d2), &mut plane_gradient, &mut plane_hessian);
    }
    for (side, m) in sides.iter().zip(moments) {
        let t = side.pose.translation.vector;
        add_side_terms(m, &t, side.sign, &mut plane_gradient, &mut plane_hessian);
    }
    let chol = factor(&plane_hessian)?;
    let curved = match curvature {
        Curvature::Full => *moments,
        Curvature::GaussNewton => moments.map(|m| Moments {
            t0: 0.0,
            t1: Vector3::zeros(),
            ..m
        }),
    };
    let (hessian, k) = reduced_hessian(sides, &n, &curved, &chol);
    let gradient = twist_gradient(sides, &n, moments) - k * plane_gradient;
    Some((hessian, gradient))
}

/// One vertex within the support of the plane, with what its derivatives are built from.
struct ActiveVertex {
    body: usize,
    vertex: usize,
    /// `P'(q)`, `P''(q)` at its plane distance `q`.
    d1: f64,
    d2: f64,
    /// Its body's rotation `R`.
    rotation: Matrix3<f64>,
    /// `r = R x`: its offset from the body origin.
    r: Vector3<f64>,
    /// `nᵀR = ∂(n·y)/∂x`.
    nt_r: SMatrix<f64, 1, 3>,
    /// `∂²U*/∂p∂x = P'' x̄ nᵀR + σP' [R; 0]` with `x̄ = (y, 1)`.
    plane_mixed: SMatrix<f64, 4, 3>,
}

/// Every vertex of the pair within the support of the plane `(n, offset)`.
fn active_vertices<'a>(
    sides: &'a [Side; 2],
    n: &'a Vector3<f64>,
    offset: f64,
    s: f64,
) -> impl Iterator<Item = ActiveVertex> + 'a {
    sides.iter().enumerate().flat_map(move |(body, side)| {
        let r_mat: Matrix3<f64> = *side.pose.rotation.to_rotation_matrix().matrix();
        let t = side.pose.translation.vector;
        let sign = side.sign;
        side.distances(n, offset).filter_map(move |(vertex, x, q)| {
            let (_, d1, d2) = barrier(q, s).filter(|_| q < s)?;
            let r = r_mat * x.coords;
            let y = r + t;
            let nt_r = n.transpose() * r_mat;
            let ybar = Vector4::new(y.x, y.y, y.z, 1.0);
            let mut plane_mixed: SMatrix<f64, 4, 3> = ybar * nt_r * d2;
            let mut plane_n = plane_mixed.fixed_view_mut::<3, 3>(0, 0);
            plane_n += r_mat * (sign * d1);
            Some(ActiveVertex {
                body,
                vertex,
                d1,
                d2,
                rotation: r_mat,
                r,
                nt_r,
                plane_mixed,
            })
        })
    })
}

/// Gradient and mixed pose derivatives with respect to every active local vertex.
fn vertex_derivatives(
    sides: &[Side; 2],
    n: &Vector3<f64>,
    offset: f64,
    s: f64,
    k: &Matrix12x4,
) -> Vec<VertexDerivatives> {
    let nx = n.cross_matrix();
    active_vertices(sides, n, offset, s)
        .map(|v| {
            let sign = sides[v.body].sign;
            // ∂²U*/∂ξ_b∂x: v rows P'' n nᵀR; ω rows P''(r×n) nᵀR − σP'[n]×R.
            let mut direct = SMatrix::<f64, 12, 3>::zeros();
            direct
                .fixed_view_mut::<3, 3>(6 * v.body, 0)
                .copy_from(&(n * v.nt_r * v.d2));
            direct
                .fixed_view_mut::<3, 3>(6 * v.body + 3, 0)
                .copy_from(&(v.r.cross(n) * v.nt_r * v.d2 - nx * v.rotation * (sign * v.d1)));
            VertexDerivatives {
                body: v.body,
                vertex: v.vertex,
                gradient: v.nt_r.transpose() * (sign * v.d1),
                mixed: direct - k * v.plane_mixed,
            }
        })
        .collect()
}
