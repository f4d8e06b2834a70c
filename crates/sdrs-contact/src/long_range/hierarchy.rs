//! The hierarchical potential of long-range paper eq. 6-8 (Algorithm 1): recursion over the
//! node pairs of two bodies' layered bounding-sphere hierarchies.
//!
//! For nodes `I`, `J` with world centres `r = |x_I − x_J|` apart, `d₁ = R_I + R_J` and
//! `d₂ = (1 + ε) d₁`:
//! - `r ≥ d₂`: the far field alone: the centred closed form `P_c(r)` (eq. 7), or with
//!   [`FarField::Counted`] `|I||J| P_c(r)`;
//! - otherwise the near potential — the exact triangle potential for two leaves, else the
//!   sum over child pairs (a leaf is its own only child) — blended towards `P_c` by
//!   `φ(r)` when `r > d₁`.
//!
//! Every term is returned with its gradient and Hessian in the two bodies' twists.

use super::radial::{Radial, blend, centred};
use super::sink::Sink;
use super::triangle::triangle_potential;
use super::{FarField, PlaneMap};
use crate::error::Result;
use nalgebra::{Isometry3, Point3, SMatrix};
use sdrs_geometry::sphere_tree::{NodeId, NodeKind};
use sdrs_geometry::twist::{BodyPoint, Vector12, add_point_gradient, rotation_curvature};
use sdrs_geometry::{SphereTree, TriMesh};

/// One body of a pair: mesh, hierarchy and pose. World positions are computed as the
/// recursion reaches them: it visits few of a body's nodes (a far pair stops at the roots), and
/// placing every node and vertex of both bodies for every pair was 40% of a 16-ball billiards
/// step.
pub(super) struct PlacedBody<'a> {
    mesh: &'a TriMesh,
    tree: &'a SphereTree,
    pose: Isometry3<f64>,
    origin: Point3<f64>,
}

impl<'a> PlacedBody<'a> {
    pub(super) fn new(mesh: &'a TriMesh, tree: &'a SphereTree, pose: &Isometry3<f64>) -> Self {
        Self {
            mesh,
            tree,
            pose: *pose,
            origin: Point3::from(pose.translation.vector),
        }
    }

    /// Node `id`'s world centre.
    fn centre(&self, id: NodeId) -> Point3<f64> {
        self.pose * self.tree.center(id)
    }

    fn corners(&self, triangle: u32) -> [Point3<f64>; 3] {
        let vertices = self.mesh.vertices();
        self.mesh.triangles()[triangle as usize].map(|v| self.pose * vertices[v as usize])
    }

    fn children(&self, id: NodeId) -> ([NodeId; 2], usize) {
        match self.tree.kind(id) {
            NodeKind::Leaf(_) => ([id, id], 1),
            NodeKind::Internal(l, r) => ([l, r], 2),
        }
    }
}

/// Counts of what one evaluation did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Census {
    /// Node pairs visited.
    pub node_pairs: usize,
    /// Exact triangle-pair potentials solved.
    pub exact: usize,
    /// Centred closed-form terms (alone or blended).
    pub centred: usize,
    /// Blended terms.
    pub blended: usize,
    /// Inner Newton iterations over all exact pairs.
    pub iterations: usize,
}

/// The value and twist gradient of a (partial) sum; the Hessian goes to the [`Sink`].
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Sum {
    pub(super) value: f64,
    pub(super) gradient: Vector12,
}

/// The recursion over one pair of bodies: what every branch reads.
pub(super) struct Recursion<'a> {
    pub(super) a: PlacedBody<'a>,
    pub(super) b: PlacedBody<'a>,
    pub(super) epsilon: f64,
    pub(super) far_field: FarField,
    pub(super) max_iterations: usize,
    /// Optimal planes of the exact pairs of the last evaluation (warm starts).
    pub(super) previous: PlaneMap,
    /// What a fresh branch gathers: the Hessian, and shape derivatives for meshes of these
    /// vertex counts.
    pub(super) hessian: bool,
    pub(super) design: Option<[usize; 2]>,
}

/// What a branch of the recursion gathers besides its value and gradient.
pub(super) struct Gathered {
    /// Where the Hessian goes; `None` when only the value and gradient are wanted.
    pub(super) sink: Option<Sink>,
    pub(super) census: Census,
    /// Optimal planes of this evaluation's exact pairs.
    pub(super) planes: PlaneMap,
}

impl Gathered {
    /// Adds what another branch gathered.
    fn merge(&mut self, other: Gathered) {
        if let (Some(sink), Some(other)) = (&mut self.sink, other.sink) {
            sink.merge(other);
        }
        let c = other.census;
        self.census.node_pairs += c.node_pairs;
        self.census.exact += c.exact;
        self.census.centred += c.centred;
        self.census.blended += c.blended;
        self.census.iterations += c.iterations;
        self.planes.extend(other.planes);
    }
}

/// Node pairs this many levels below the root are split into two branches evaluated on
/// rayon's pool (with the `parallel` feature) and merged in a fixed order, so the result does
/// not depend on the number of threads.
const SPLIT_DEPTH: usize = 3;

/// Runs two closures, in parallel with the `parallel` feature.
fn join<A: Send, B: Send>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
    #[cfg(feature = "parallel")]
    {
        rayon::join(a, b)
    }
    #[cfg(not(feature = "parallel"))]
    {
        (a(), b())
    }
}

/// `w f` for a radial function `f`.
fn scaled(f: &Radial, w: f64) -> Radial {
    Radial {
        value: w * f.value,
        first: w * f.first,
        second: w * f.second,
    }
}

/// How a subtree's terms enter the total's second derivatives, given the blends above it:
/// its Hessian (and twist-vertex block) times `scale`, the product of their `(1 − φ)`
/// weights; and, for shape derivatives, `covector ⊗ ∇_y` of its vertex gradient, the product
/// rule's coupling of the blends' twist gradients with the subtree's vertex gradient.
#[derive(Debug, Clone)]
pub(super) struct Weight {
    pub(super) scale: f64,
    pub(super) covector: Vector12,
}

impl Weight {
    /// The weight of the whole sum.
    pub(super) fn one() -> Self {
        Self {
            scale: 1.0,
            covector: Vector12::zeros(),
        }
    }

    /// The weight of the near sum of a blend `(1 − φ) near + φ far` under `self`, with
    /// `dphi` the twist gradient of `φ`: `∂B/∂y = (1 − φ) ∂near/∂y + …` couples the
    /// near sum's vertex gradient with `(1 − φ)` times the covector above and with `−∂φ/∂ξ`.
    fn near(&self, keep: f64, dphi: &Vector12) -> Self {
        Self {
            scale: self.scale * keep,
            covector: self.covector * keep - dphi * self.scale,
        }
    }
}

impl Recursion<'_> {
    /// Adds `P_BSH` of nodes `i` (body A) and `j` (body B): its value and twist gradient to
    /// `out`, its second derivatives under `weight` to the sink. `false` when two triangles
    /// touch (the potential is infinite).
    pub(super) fn pair(
        &self,
        acc: &mut Gathered,
        (i, j): (NodeId, NodeId),
        weight: &Weight,
        depth: usize,
        out: &mut Sum,
    ) -> Result<bool> {
        let scale = weight.scale;
        acc.census.node_pairs += 1;
        let pa = BodyPoint {
            body: 0,
            position: self.a.centre(i),
            origin: self.a.origin,
        };
        let pb = BodyPoint {
            body: 1,
            position: self.b.centre(j),
            origin: self.b.origin,
        };
        let offset = pa.position - pb.position;
        let r = offset.norm();
        // The twist gradient of r: (e, r_a × e) on A, −(e, r_b × e) on B.
        let mut dr = Vector12::zeros();
        let e = offset / r;
        dr.fixed_rows_mut::<3>(0).copy_from(&e);
        dr.fixed_rows_mut::<3>(3).copy_from(&pa.offset().cross(&e));
        dr.fixed_rows_mut::<3>(6).copy_from(&-e);
        dr.fixed_rows_mut::<3>(9).copy_from(&-pb.offset().cross(&e));
        let d1 = self.a.tree.radius(i) + self.b.tree.radius(j);
        let d2 = (1.0 + self.epsilon) * d1;
        let far = match self.far_field {
            FarField::Centred => centred(r),
            FarField::Counted => scaled(
                &centred(r),
                (self.a.tree.triangle_count(i) * self.b.tree.triangle_count(j)) as f64,
            ),
        };
        if r >= d2 {
            acc.census.centred += 1;
            out.value += far.value;
            out.gradient += dr * far.first;
            if let Some(sink) = &mut acc.sink {
                sink.add_radial(&scaled(&far, scale), (i, &pa), (j, &pb));
                if sink.design() {
                    sink.add_covector(&weight.covector, far.first, &e, i, j);
                }
            }
            return Ok(true);
        }
        // The near potential goes straight into `out` unless it is to be blended.
        let phi = (r > d1).then(|| blend(r, d1, d2));
        let keep = phi.map_or(1.0, |phi| 1.0 - phi.value);
        let dphi = dr * phi.map_or(0.0, |phi| phi.first);
        let inner = match phi {
            Some(_) => weight.near(keep, &dphi),
            None => weight.clone(),
        };
        let mut near_local = phi.map(|_| Sum::default());
        let near = near_local.as_mut().unwrap_or(out);
        let apart = match (self.a.tree.kind(i), self.b.tree.kind(j)) {
            (NodeKind::Leaf(ta), NodeKind::Leaf(tb)) => self.exact(acc, ta, tb, &inner, near)?,
            _ => {
                let (ci, ni) = self.a.children(i);
                let (cj, nj) = self.b.children(j);
                let mut all = [(0, 0); 4];
                for (k, &ic) in ci[..ni].iter().enumerate() {
                    for (l, &jc) in cj[..nj].iter().enumerate() {
                        all[k * nj + l] = (ic, jc);
                    }
                }
                let children = &all[..ni * nj];
                if depth < SPLIT_DEPTH && children.len() > 1 {
                    let (left, right) = children.split_at(children.len() / 2);
                    let branch = |pairs: &[(NodeId, NodeId)]| {
                        let mut acc = self.gathered();
                        let mut sum = Sum::default();
                        self.pairs(&mut acc, pairs, &inner, depth + 1, &mut sum)
                            .map(|apart| (apart, acc, sum))
                    };
                    let (left, right) = join(|| branch(left), || branch(right));
                    let mut apart = true;
                    for (branch_apart, gathered, sum) in [left?, right?] {
                        apart &= branch_apart;
                        acc.merge(gathered);
                        near.value += sum.value;
                        near.gradient += sum.gradient;
                    }
                    apart
                } else {
                    self.pairs(acc, children, &inner, depth + 1, near)?
                }
            }
        };
        if !apart {
            return Ok(false);
        }
        if let (Some(near), Some(phi)) = (near_local, phi) {
            // (1 − φ) near + φ far, by the product rule; the near Hessian is already in the
            // sink at scale (1 − φ).
            acc.census.centred += 1;
            acc.census.blended += 1;
            let w = phi.value;
            let dv = far.value - near.value;
            out.value += keep * near.value + w * far.value;
            out.gradient += near.gradient * keep + dr * (w * far.first) + dphi * dv;
            if let Some(sink) = &mut acc.sink {
                // φ H_far + (v_far − v_near) H_φ is one radial term of the same two points.
                let combined = Radial {
                    value: 0.0,
                    first: scale * (w * far.first + dv * phi.first),
                    second: scale * (w * far.second + dv * phi.second),
                };
                sink.add_radial(&combined, (i, &pa), (j, &pb));
                let dg = dr * far.first - near.gradient;
                let cross = dphi * dg.transpose() * scale;
                *sink.hessian_mut() += cross + cross.transpose();
                if sink.design() {
                    // ∂φ/∂ξ ⊗ ∂far/∂y + ∂(far − near)/∂ξ ⊗ ∂φ/∂y, and the covector above
                    // times the vertex gradient of φ far + (far − near) φ.
                    let v = (dphi * far.first + dg * phi.first) * scale
                        + weight.covector * (w * far.first + dv * phi.first);
                    sink.add_covector(&v, 1.0, &e, i, j);
                }
            }
        }
        Ok(true)
    }

    /// [`Recursion::pair`] on each of `pairs` in turn; stops at the first that touches.
    fn pairs(
        &self,
        acc: &mut Gathered,
        pairs: &[(NodeId, NodeId)],
        weight: &Weight,
        depth: usize,
        out: &mut Sum,
    ) -> Result<bool> {
        for &pair in pairs {
            if !self.pair(acc, pair, weight, depth, out)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// An empty accumulator for a branch.
    pub(super) fn gathered(&self) -> Gathered {
        Gathered {
            sink: self.hessian.then(|| Sink::new(self.design)),
            census: Census::default(),
            planes: PlaneMap::default(),
        }
    }

    /// Adds the exact potential of triangles `ta` (A) and `tb` (B): value and twist gradient
    /// to `out`, Hessian times `scale` to the sink; `false` when they touch. The Hessian goes
    /// through the potential's factors:
    /// `Jᵀ(L_xx − L_xp L_pp⁻¹ L_px)J = Σ c_k u_k u_kᵀ − (Jᵀ L_xp) L_pp⁻¹ (Jᵀ L_xp)ᵀ` with
    /// `u_k = J_kᵀ n`, plus each vertex's rotation curvature.
    pub(super) fn exact(
        &self,
        acc: &mut Gathered,
        ta: u32,
        tb: u32,
        weight: &Weight,
        out: &mut Sum,
    ) -> Result<bool> {
        let scale = weight.scale;
        acc.census.exact += 1;
        let (xa, xb) = (self.a.corners(ta), self.b.corners(tb));
        let ids = [
            self.a.mesh.triangles()[ta as usize],
            self.b.mesh.triangles()[tb as usize],
        ];
        let start = self.previous.get(&(ta, tb)).copied();
        let Some(t) = triangle_potential(&xa, &xb, start, self.max_iterations)? else {
            return Ok(false);
        };
        acc.planes.insert((ta, tb), t.plane);
        acc.census.iterations += t.iterations;
        let point = |k: usize| {
            let (body, position, origin) = if k < 3 {
                (0, xa[k], self.a.origin)
            } else {
                (1, xb[k - 3], self.b.origin)
            };
            BodyPoint {
                body,
                position,
                origin,
            }
        };
        out.value += t.value;
        let n = t.plane.xyz();
        let mut jl = SMatrix::<f64, 12, 4>::zeros();
        // u_k = J_kᵀ n on its body's rows.
        let mut u = [Vector12::zeros(); 6];
        for (k, u) in u.iter_mut().enumerate() {
            let p = point(k);
            let g = t.gradient.fixed_rows::<3>(3 * k).into_owned();
            add_point_gradient(&mut out.gradient, &p, &g);
            let Some(sink) = &mut acc.sink else {
                continue;
            };
            let h = sink.hessian_mut();
            let (col, r) = (6 * p.body, p.offset());
            u.fixed_rows_mut::<3>(col).copy_from(&n);
            u.fixed_rows_mut::<3>(col + 3).copy_from(&r.cross(&n));
            let own = u.fixed_rows::<6>(col).into_owned();
            h.fixed_view_mut::<6, 6>(col, col)
                .syger(scale * t.curvature[k], &own, &own, 1.0);
            let mut ww = h.fixed_view_mut::<3, 3>(col + 3, col + 3);
            ww += rotation_curvature(&r, &(g * scale));
            let b = t.mixed.fixed_view::<3, 4>(3 * k, 0);
            let mut v = jl.fixed_view_mut::<3, 4>(col, 0);
            v += b;
            let mut w = jl.fixed_view_mut::<3, 4>(col + 3, 0);
            w += r.cross_matrix() * b;
        }
        let Some(sink) = &mut acc.sink else {
            return Ok(true);
        };
        // J L_xp L_pp⁻¹ L_px Jᵀ = M Mᵀ with M = (J L_xp) L⁻ᵀ, L_pp = L Lᵀ.
        let factor = t.factor();
        let m = factor.forward_columns(&jl.transpose()).transpose();
        let h = sink.hessian_mut();
        for c in m.column_iter() {
            h.syger(-scale, &c, &c, 1.0);
        }
        if sink.design() {
            // T_k = Jᵀ ∂²P/∂x∂x_k = c_k u_k nᵀ − M L⁻¹ L_px,k.
            let w = factor.forward_columns(&t.mixed.transpose());
            for (k, u) in u.iter().enumerate() {
                let g = t.gradient.fixed_rows::<3>(3 * k).into_owned();
                let mut tk = u * (n.transpose() * t.curvature[k]) - m * w.fixed_columns::<3>(3 * k);
                tk = tk * scale + weight.covector * g.transpose();
                sink.add_corner(k / 3, ids[k / 3][k % 3], &(g * scale), &tk);
            }
        }
        Ok(true)
    }
}
