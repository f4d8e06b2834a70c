//! The smooth body terms of the step objective (inertia and gravity) assembled in joint space
//! by a composite-body recursion: O(n) for the gradient, O(n·depth) for the dense Hessian.
//!
//! The forward step has one term per rigid body ([`crate::bodies`]: links joined by fixed
//! joints, with their merged second moment), taken at the pose of the body's first link; the
//! formulas below hold for any such term, "link" standing for the body. The backward pass
//! ([`CrossComposites`]) keeps one term per link, since its design blocks are per link.
//!
//! **World-origin twists.** A link term's twist gradient `g = (g_v, g_ω)` and Hessian `h`
//! (6x6, blocks `A = h_vv`, `B = h_vω`, `D = h_ωω`) are taken with respect to the link twist
//! of [`crate::kinematics`]: its origin `o` moved by `v`, its rotation by `Exp(ω)` on the left.
//! A world-origin twist `ξ₀ = (v₀, ω)` (every point `x` moves with `ω × x + v₀`) moves the
//! origin by `v = v₀ + ω × o`, so `ξ = X ξ₀` with `X = [[I, −[o]×], [0, I]]`, and link `i`'s
//! Jacobian column for an ancestor DoF `k` is `X_i S_k`, `S_k = (v_k, ω_k)` the DoF's world
//! screw. In world-origin terms the link term has the wrench `w = Xᵀ g = (g_v, g_ω + o × g_v)`
//! and the block `Xᵀ h X`:
//!
//! ```text
//! Xᵀ h X = [[A, B − A[o]×], [Bᵀ + [o]× A, D − [o]× A [o]× + [o]× B − Bᵀ [o]×]]
//! ```
//!
//! **Gradient.** `∂E/∂q_k = Σ_{i ∈ sub(k)} (X_i S_k)ᵀ g_i = S_kᵀ W_k`, with `W_k` the
//! composite wrench `Σ w_i` over the subtree of the link that `k` moves.
//!
//! **Hessian.** For `k` before or equal to `l` on a path (so `sub(l) ⊆ sub(k)`), the
//! kinematics module gives `Σ_{i ∈ sub(l)} (X_i S_k)ᵀ h_i (X_i S_l) + β_i(k, l)` with the
//! second-order term `β_i(k, l) = g_v · ω_k × (ω_l × o + v_l) + [k < l] ½ g_ω · (ω_k × ω_l)`.
//! With `P = o g_vᵀ` and `(a × b)·(c × d) = (a·c)(b·d) − (a·d)(b·c)`, `β` is
//! `ω_kᵀ (P − tr P I) ω_l + g_v · (ω_k × v_l) + ½ g_ω · (ω_k × ω_l)` (the last term vanishes
//! for `k = l`). Its part symmetric in `(S_k, S_l)` is a 6x6 block per link,
//!
//! ```text
//! Σ = [[0, ½[g_v]×], [−½[g_v]×, sym(P) − tr(P) I]],
//! ```
//!
//! and its antisymmetric part, using `P − Pᵀ = −[o × g_v]×`, is `½ wᵀ ad(S_k) S_l` with the
//! Lie bracket `ad(S_k) S_l = (ω_k × v_l − ω_l × v_k, ω_k × ω_l)` of the two screws and the
//! same world wrench `w` as the gradient's. Everything is linear in the per-link terms, so
//! with the composites `C_l = Σ_{i ∈ sub(l)} (X_iᵀ h_i X_i + Σ_i)` and `W_l`:
//!
//! ```text
//! H[k, l] = H[l, k] = S_kᵀ C_l S_l + ½ W_lᵀ ad(S_k) S_l = S_k · (C_l S_l + b_l),
//! b_l = ½ (ω_l × F_l, v_l × F_l + ω_l × M_l),   W_l = (F_l, M_l).
//! ```
//!
//! (`C_l` is the Hessian in exponential coordinates of the subtree's energy, and the bracket
//! term is the usual correction for a product of exponentials, cf. Lynch & Park, *Modern
//! Robotics*, sec. 5.1, and Featherstone's composite-rigid-body algorithm, *Rigid Body
//! Dynamics Algorithms*, sec. 6.2.) The composites are summed from the leaves to the root
//! (links are listed parents first) in O(links), each DoF's column `C_l S_l + b_l` costs O(1)
//! and each of its `depth` entries one 6-vector dot product.

use crate::kinematics::Kinematics;
use crate::model::Model;
use nalgebra::{DMatrix, DVector, Matrix3, Matrix6, Vector3, Vector6};
use sdrs_geometry::twist::Twist;
use std::ops::AddAssign;

/// Per-body composite blocks and wrenches, kept between evaluations so that assembling does
/// not allocate once the buffers have the model's size. Bodies are numbered as in
/// [`crate::bodies`] (their first links ascending), and a body's term is taken at the pose of
/// its first link: links joined by fixed joints share their DoFs, so one term per body is
/// all the recursion needs.
#[derive(Debug, Clone, Default)]
pub(crate) struct Composites {
    /// Per body, `C` (world-origin, symmetric part of the second-order term included); after
    /// [`Composites::accumulate`], summed over the body's subtree.
    blocks: Vec<Matrix6<f64>>,
    /// Per body, the world wrench `w = (F, M)` (M about the world origin); after
    /// [`Composites::accumulate`], summed over the subtree.
    wrenches: Vec<Vector6<f64>>,
}

impl Composites {
    /// Starts an assembly for `bodies` bodies: every term zero.
    pub(crate) fn clear(&mut self, bodies: usize) {
        self.blocks.clear();
        self.blocks.resize(bodies, Matrix6::zeros());
        self.wrenches.clear();
        self.wrenches.resize(bodies, Vector6::zeros());
    }

    /// Adds the term of body `b` at origin `o` with twist gradient `g` and Hessian `h` (the
    /// link twist of [`crate::kinematics`] of the body's first link).
    pub(crate) fn add_body(&mut self, b: usize, o: &Vector3<f64>, g: &Twist, h: &Matrix6<f64>) {
        let gv: Vector3<f64> = g.fixed_rows::<3>(0).into_owned();
        let gw: Vector3<f64> = g.fixed_rows::<3>(3).into_owned();
        let mut w = Vector6::zeros();
        w.fixed_rows_mut::<3>(0).copy_from(&gv);
        w.fixed_rows_mut::<3>(3).copy_from(&(gw + o.cross(&gv)));
        self.wrenches[b] += w;

        let a = h.fixed_view::<3, 3>(0, 0).into_owned();
        let bb = h.fixed_view::<3, 3>(0, 3).into_owned();
        let d = h.fixed_view::<3, 3>(3, 3).into_owned();
        let ox = o.cross_matrix();
        let fx = gv.cross_matrix();
        let p = o * gv.transpose();
        let vw: Matrix3<f64> = bb - a * ox + fx * 0.5;
        let ww: Matrix3<f64> = d - ox * a * ox + ox * bb - bb.transpose() * ox
            + (p + p.transpose()) * 0.5
            - Matrix3::identity() * p.trace();
        let block = &mut self.blocks[b];
        let mut add = |r: usize, c: usize, m: &Matrix3<f64>| {
            let mut view = block.fixed_view_mut::<3, 3>(r, c);
            view += m;
        };
        add(0, 0, &a);
        add(0, 3, &vw);
        add(3, 0, &vw.transpose());
        add(3, 3, &ww);
    }

    /// Sums every body's block and wrench into its ancestors' (leaves to root).
    pub(crate) fn accumulate(&mut self, model: &Model) {
        let bodies = model.bodies();
        sum_subtrees(&mut self.blocks, |b| bodies.parent(b));
        sum_subtrees(&mut self.wrenches, |b| bodies.parent(b));
    }

    /// Adds the generalized gradient `S_kᵀ W_k` and, when given, the Hessian
    /// `S_k · (C_l S_l + b_l)` of the accumulated terms.
    pub(crate) fn add_to(
        &self,
        model: &Model,
        kin: &Kinematics,
        gradient: &mut DVector<f64>,
        mut hessian: Option<&mut DMatrix<f64>>,
    ) {
        for (b, &j) in model.bodies().roots().iter().enumerate() {
            let first = model.dof_offset(j);
            let (block, wrench) = (&self.blocks[b], &self.wrenches[b]);
            let force: Vector3<f64> = wrench.fixed_rows::<3>(0).into_owned();
            let moment: Vector3<f64> = wrench.fixed_rows::<3>(3).into_owned();
            for l in first..first + model.links()[j].joint.dof() {
                let s_l = kin.world_screw(l);
                gradient[l] += s_l.dot(wrench);
                let Some(hessian) = hessian.as_deref_mut() else {
                    continue;
                };
                let (v_l, w_l): (Vector3<f64>, Vector3<f64>) =
                    (s_l.fixed_rows::<3>(0).into(), s_l.fixed_rows::<3>(3).into());
                let mut column = block * s_l;
                let mut bracket = Vector6::zeros();
                bracket
                    .fixed_rows_mut::<3>(0)
                    .copy_from(&(w_l.cross(&force) * 0.5));
                bracket
                    .fixed_rows_mut::<3>(3)
                    .copy_from(&((v_l.cross(&force) + w_l.cross(&moment)) * 0.5));
                column += bracket;
                for &k in model.path(j).iter().take_while(|&&k| k <= l) {
                    let s = kin.world_screw(k).dot(&column);
                    hessian[(k, l)] += s;
                    if k != l {
                        hessian[(l, k)] += s;
                    }
                }
            }
        }
    }
}

/// Replaces every node's value by the sum over its subtree, given each node's parent (nodes
/// are listed parents first).
fn sum_subtrees<T: Copy + AddAssign>(values: &mut [T], parent: impl Fn(usize) -> Option<usize>) {
    for i in (0..values.len()).rev() {
        if let Some(p) = parent(i) {
            let value = values[i];
            values[p] += value;
        }
    }
}

/// The link terms' part of the backward pass's mixed block `∂²O/∂θ^{t+1}∂θ^t`, by the same
/// recursion: a link block `B_i = ∂g_i/∂ξ_i^t` enters as `S_k(θ^{t+1})ᵀ X(o_i)ᵀ B_i X(o_i^t)
/// S_l(θ^t)` for DoFs `k`, `l` on link `i`'s path, so with the composites
/// `K_j = Σ_{i ∈ sub(j)} X(o_i)ᵀ B_i X(o_i^t)` the entry for `k` on the path of `l`'s link `j`
/// (or the other way round) is `S_k · K_j S_l^t` (or `S_l · K_j S_k^t`). Mixed derivatives
/// between two configurations have no second-order kinematic term.
#[derive(Debug, Clone, Default)]
pub(crate) struct CrossComposites {
    /// Per link, `X(o)ᵀ B X(o^t)`; after [`CrossComposites::accumulate`], summed over the
    /// subtree.
    blocks: Vec<Matrix6<f64>>,
}

impl CrossComposites {
    /// Starts an assembly for `links` links: every block zero.
    pub(crate) fn clear(&mut self, links: usize) {
        self.blocks.clear();
        self.blocks.resize(links, Matrix6::zeros());
    }

    /// Adds link `i`'s block `b = ∂g/∂ξ^t` (link twists), its origin at `o` now and `o_t` at
    /// step t.
    pub(crate) fn add_link(
        &mut self,
        i: usize,
        o: &Vector3<f64>,
        o_t: &Vector3<f64>,
        b: &Matrix6<f64>,
    ) {
        // `X(o) = [I −[o]×; 0 I]`, so with `b = [A B; C D]` (3x3 blocks), `P = [o]×` and
        // `Q = −[o^t]×`: `X(o)ᵀ b X(o^t) = [A, AQ + B; PA + C, (PA + C)Q + PB + D]`. Written
        // out in 3x3 products: a general 6x6 product runs through matrixmultiply's packing.
        let p = o.cross_matrix();
        let q = -o_t.cross_matrix();
        let block = |r: usize, c: usize| b.fixed_view::<3, 3>(r, c).into_owned();
        let (a, bb, c, d) = (block(0, 0), block(0, 3), block(3, 0), block(3, 3));
        let lower = p * a + c;
        let out = &mut self.blocks[i];
        let mut add = |r: usize, col: usize, m: Matrix3<f64>| {
            let mut view = out.fixed_view_mut::<3, 3>(r, col);
            view += m;
        };
        add(0, 0, a);
        add(0, 3, a * q + bb);
        add(3, 0, lower);
        add(3, 3, lower * q + p * bb + d);
    }

    /// Sums every link's block into its ancestors'.
    pub(crate) fn accumulate(&mut self, model: &Model) {
        sum_subtrees(&mut self.blocks, |i| model.links()[i].parent);
    }

    /// Adds the accumulated blocks to `out` (rows: DoFs at `kin`, columns: DoFs at `now`).
    pub(crate) fn add_to(
        &self,
        model: &Model,
        kin: &Kinematics,
        now: &Kinematics,
        out: &mut DMatrix<f64>,
    ) {
        for (j, link) in model.links().iter().enumerate() {
            let first = model.dof_offset(j);
            let block = &self.blocks[j];
            for l in first..first + link.joint.dof() {
                let column = block * now.world_screw(l);
                let row = block.transpose() * kin.world_screw(l);
                for &k in model.path(j).iter().take_while(|&&k| k <= l) {
                    out[(k, l)] += kin.world_screw(k).dot(&column);
                    if k != l {
                        out[(l, k)] += now.world_screw(k).dot(&row);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Composites, CrossComposites};
    use crate::energy::link_energy;
    use crate::kinematics::{Kinematics, State};
    use crate::model::Model;
    use crate::stepper::random_trees::{Noise, assert_matches, random_model};
    use nalgebra::{DMatrix, DVector, SMatrix, UnitQuaternion};

    /// The gradient and Hessian of the link energies, by the composite recursion over bodies
    /// (merged second moments) and by `Kinematics::add_term` link by link (each link's own
    /// second moment and its body's inertial prediction moved by its offset).
    fn both(model: &Model, noise: &mut Noise) -> [(DVector<f64>, DMatrix<f64>); 2] {
        let mut state = State::new(
            model,
            DVector::from_fn(model.dof(), |_, _| 0.7 * noise.next()),
        )
        .expect("the model's size");
        for r in &mut state.references {
            *r = UnitQuaternion::from_scaled_axis(noise.vector(1.5));
        }
        let kin = Kinematics::new(model, &state);
        let n = model.dof();
        let bodies = model.bodies();
        let predicted: Vec<SMatrix<f64, 3, 4>> = bodies
            .roots()
            .iter()
            .map(|_| SMatrix::<f64, 3, 4>::from_fn(|_, _| noise.next()))
            .collect();
        let (mut g_old, mut h_old) = (DVector::zeros(n), DMatrix::zeros(n, n));
        for (i, pose) in kin.poses().iter().enumerate() {
            let own = predicted[bodies.number(i)] * model.body_offset(i).to_homogeneous();
            let (_, g, h) = link_energy(model.second_moment(i), pose, &own, 0.01, 9.81);
            kin.add_term(model, [i], &g, Some(&h), &mut g_old, Some(&mut h_old));
        }
        let mut composites = Composites::default();
        composites.clear(bodies.roots().len());
        for (b, &root) in bodies.roots().iter().enumerate() {
            let pose = &kin.poses()[root];
            let (_, g, h) = link_energy(bodies.second_moment(b), pose, &predicted[b], 0.01, 9.81);
            composites.add_body(b, &pose.translation.vector, &g, &h);
        }
        composites.accumulate(model);
        let (mut g_new, mut h_new) = (DVector::zeros(n), DMatrix::zeros(n, n));
        composites.add_to(model, &kin, &mut g_new, Some(&mut h_new));
        [(g_old, h_old), (g_new, h_new)]
    }

    #[test]
    fn the_cross_composites_equal_the_jacobian_products_on_random_trees() {
        let mut noise = Noise(0x2545_f491_4f6c_dd1d);
        for case in 0..40 {
            let (floating, chain) = (case % 2 == 0, case % 3 == 0);
            let links = 1 + noise.pick(12);
            let model = random_model(&mut noise, links, floating, chain);
            let [kin, now] = [0.7, 0.5].map(|spread| {
                let q = DVector::from_fn(model.dof(), |_, _| spread * noise.next());
                Kinematics::new(&model, &State::new(&model, q).expect("the model's size"))
            });
            let n = model.dof();
            let (mut old, mut new) = (DMatrix::zeros(n, n), DMatrix::zeros(n, n));
            let mut cross = CrossComposites::default();
            cross.clear(links);
            for i in 0..links {
                let b = SMatrix::<f64, 6, 6>::from_fn(|_, _| noise.next());
                kin.add_cross(&now, &[i], &b, &mut old);
                let (o, o_t) = (
                    kin.poses()[i].translation.vector,
                    now.poses()[i].translation.vector,
                );
                cross.add_link(i, &o, &o_t, &b);
            }
            cross.accumulate(&model);
            cross.add_to(&model, &kin, &now, &mut new);
            assert_matches(case, "the blocks", new.as_slice(), old.as_slice());
        }
    }

    #[test]
    fn the_body_composite_recursion_equals_the_link_jacobian_products_on_random_trees() {
        let mut noise = Noise(0x9e37_79b9_7f4a_7c15);
        for case in 0..60 {
            let (floating, chain) = (case % 2 == 0, case % 3 == 0);
            let links = 1 + noise.pick(12);
            let model = random_model(&mut noise, links, floating, chain);
            let [(g_old, h_old), (g_new, h_new)] = both(&model, &mut noise);
            assert_matches(case, "gradients", g_new.as_slice(), g_old.as_slice());
            assert_matches(case, "Hessians", h_new.as_slice(), h_old.as_slice());
            assert_eq!(h_new, h_new.transpose(), "case {case}: symmetric");
        }
    }
}
