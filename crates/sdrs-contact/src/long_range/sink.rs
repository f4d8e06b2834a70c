//! Where the hierarchical sum's Hessian is gathered (the value and gradient travel up the
//! recursion, which the blends need; the Hessian does not, so it goes straight here).
//!
//! Most terms are radial functions `f(|x_I − x_J|)` of two node centres. In twist space such
//! a term's Hessian is `J_Iᵀ K J_I + J_Jᵀ K J_J − J_Iᵀ K J_J − J_Jᵀ K J_I` plus each point's
//! rotation curvature, with `K = (f'/r)(I − e eᵀ) + f'' e eᵀ` and `J = [I, −[x − o]×]`. The
//! same-body blocks depend on the term only through `K` and the force at the centre, so they
//! are summed per node and mapped to twists once per node; only the cross-body block is
//! mapped per term. A node pairs with a handful of nodes of the other body, so this saves
//! most of the per-term work.

use super::radial::Radial;
use crate::pair_map::PairMap;
use nalgebra::{Matrix3, Matrix6, SMatrix, Vector3};
use sdrs_geometry::SphereTree;
use sdrs_geometry::sphere_tree::NodeId;
use sdrs_geometry::twist::{BodyPoint, Matrix12, TwistTerm, Vector12};

/// One node's radial sums: `Σ K` and `Σ` of the forces at its centre.
struct NodeSum {
    node: NodeId,
    point: BodyPoint,
    curvature: Matrix3<f64>,
    force: Vector3<f64>,
}

/// The radial sums of one body's nodes, stored compactly for the nodes that have any (a
/// node-indexed slot array would be cleared for every branch of the recursion, which cost
/// more than the sums themselves).
struct NodeSums {
    slot: PairMap<NodeId, u32>,
    sums: Vec<NodeSum>,
}

impl NodeSums {
    fn new() -> Self {
        // Room for a typical branch, so that growing is rare.
        const TYPICAL: usize = 512;
        Self {
            slot: PairMap::with_capacity_and_hasher(TYPICAL, Default::default()),
            sums: Vec::with_capacity(TYPICAL),
        }
    }

    fn add(&mut self, node: NodeId, point: &BodyPoint, k: &Matrix3<f64>, force: &Vector3<f64>) {
        let next = self.sums.len() as u32;
        let slot = *self.slot.entry(node).or_insert(next);
        if slot == next {
            self.sums.push(NodeSum {
                node,
                point: *point,
                curvature: Matrix3::zeros(),
                force: Vector3::zeros(),
            });
        }
        let sum = &mut self.sums[slot as usize];
        sum.curvature += k;
        sum.force += force;
    }
}

/// The Hessian of the hierarchical sum, gathered term by term.
pub(super) struct Sink {
    /// Terms added as they are (exact pairs, the blends' cross terms).
    hessian: Matrix12,
    /// `Σ −J_Iᵀ K J_J` of the radial terms (body A's twist rows, B's columns).
    cross: Matrix6<f64>,
    nodes: [NodeSums; 2],
    /// When shape derivatives are wanted.
    design: Option<Design>,
}

/// `∂G/∂y`, the change of the twist gradient with a world vertex (12x3).
pub(super) type Matrix12x3 = SMatrix<f64, 12, 3>;

/// A world vertex's gradient and mixed block `∂G/∂y`.
pub(super) type VertexDerivative = (Vector3<f64>, Matrix12x3);

/// Shape-derivative sums. With `T_w = Σ_v J_vᵀ ∂²P/∂y_v∂y_w` (the world-vertex Hessian
/// seen from the twists), a vertex's mixed block is `∂G/∂y_w = T_w + [0; −[∇_w P]×]` (its
/// lever arm). A radial term of centres `x_I`, `x_J` adds `(J_I − J_J)ᵀ K` to `T` at `x_I`,
/// shared by `I`'s vertices (the centre is their mean), and its negative at `x_J`.
struct Design {
    /// The exact pairs' world gradients at each vertex of each body.
    corners: [Vec<Vector3<f64>>; 2],
    /// The exact pairs' `T` at each vertex of each body.
    corner_mixed: [Vec<Matrix12x3>; 2],
    /// The radial terms' `T` at each node centre, by [`NodeSums`] slot.
    node_mixed: [Vec<Matrix12x3>; 2],
}

impl Sink {
    /// An empty sink, gathering shape derivatives too for meshes of `vertices` vertices when
    /// given.
    pub(super) fn new(vertices: Option<[usize; 2]>) -> Self {
        Self {
            hessian: Matrix12::zeros(),
            cross: Matrix6::zeros(),
            nodes: [NodeSums::new(), NodeSums::new()],
            design: vertices.map(|n| Design {
                corners: n.map(|n| vec![Vector3::zeros(); n]),
                corner_mixed: n.map(|n| vec![Matrix12x3::zeros(); n]),
                node_mixed: [Vec::new(), Vec::new()],
            }),
        }
    }

    /// Adds what another sink gathered (for the same two hierarchies and options).
    pub(super) fn merge(&mut self, other: Sink) {
        self.hessian += other.hessian;
        self.cross += other.cross;
        for (body, sums) in other.nodes.into_iter().enumerate() {
            for (slot, s) in sums.sums.into_iter().enumerate() {
                self.nodes[body].add(s.node, &s.point, &s.curvature, &s.force);
                let mixed = other
                    .design
                    .as_ref()
                    .and_then(|d| d.node_mixed[body].get(slot));
                if let Some(t) = mixed {
                    self.add_node_mixed(body, s.node, t);
                }
            }
        }
        if let (Some(d), Some(o)) = (&mut self.design, &other.design) {
            for body in 0..2 {
                for (sum, g) in d.corners[body].iter_mut().zip(&o.corners[body]) {
                    *sum += g;
                }
                for (sum, t) in d.corner_mixed[body].iter_mut().zip(&o.corner_mixed[body]) {
                    *sum += t;
                }
            }
        }
    }

    /// Whether shape derivatives are gathered.
    pub(super) fn design(&self) -> bool {
        self.design.is_some()
    }

    /// Adds, at vertex `vertex` of body `body`, a term's world gradient `g` and its `T` block
    /// (shape derivatives only).
    pub(super) fn add_corner(
        &mut self,
        body: usize,
        vertex: u32,
        g: &Vector3<f64>,
        t: &Matrix12x3,
    ) {
        if let Some(d) = &mut self.design {
            d.corners[body][vertex as usize] += g;
            d.corner_mixed[body][vertex as usize] += t;
        }
    }

    /// Adds `v ⊗ (±s e)` to `T` at the centres of node `i` (+) and node `j` (−): a twist
    /// covector times the vertex gradient of a radial function with derivative `s` (shape
    /// derivatives only; the nodes must have radial terms already).
    pub(super) fn add_covector(
        &mut self,
        v: &Vector12,
        s: f64,
        e: &Vector3<f64>,
        i: NodeId,
        j: NodeId,
    ) {
        let t = v * (e * s).transpose();
        self.add_node_mixed(0, i, &t);
        self.add_node_mixed(1, j, &-t);
    }

    fn add_node_mixed(&mut self, body: usize, node: NodeId, t: &Matrix12x3) {
        let Some(d) = &mut self.design else {
            return;
        };
        let slot = self.nodes[body].slot[&node] as usize;
        let mixed = &mut d.node_mixed[body];
        if mixed.len() <= slot {
            mixed.resize(slot + 1, Matrix12x3::zeros());
        }
        mixed[slot] += t;
    }

    /// The gradient with respect to every world vertex of both meshes and each vertex's
    /// mixed block `∂G/∂y` (`None` unless shape derivatives were gathered).
    pub(super) fn vertex_derivatives(
        &self,
        trees: [&SphereTree; 2],
    ) -> Option<[Vec<VertexDerivative>; 2]> {
        let d = self.design.as_ref()?;
        let mut gradients = d.corners.clone();
        let mut mixed = d.corner_mixed.clone();
        for body in 0..2 {
            for (slot, s) in self.nodes[body].sums.iter().enumerate() {
                let set = trees[body].vertex_set(s.node);
                let share = 1.0 / set.len() as f64;
                let t = d.node_mixed[body].get(slot);
                for &v in set {
                    gradients[body][v as usize] += s.force * share;
                    if let Some(t) = t {
                        mixed[body][v as usize] += t * share;
                    }
                }
            }
        }
        Some(std::array::from_fn(|body| {
            gradients[body]
                .iter()
                .zip(&mixed[body])
                .map(|(g, t)| {
                    // The lever arm: the torque r × g moves with the vertex, −[g]×.
                    let mut t = *t;
                    let mut w = t.fixed_view_mut::<3, 3>(6 * body + 3, 0);
                    w -= g.cross_matrix();
                    (*g, t)
                })
                .collect()
        }))
    }

    /// The Hessian terms that are added as they are. Only its lower triangle is read at the
    /// end: symmetric updates may skip the upper one.
    pub(super) fn hessian_mut(&mut self) -> &mut Matrix12 {
        &mut self.hessian
    }

    /// Adds the Hessian of `f(|x_a − x_b|)` for node `i`'s centre `a` (body A) and node `j`'s
    /// centre `b` (body B).
    pub(super) fn add_radial(
        &mut self,
        f: &Radial,
        (i, a): (NodeId, &BodyPoint),
        (j, b): (NodeId, &BodyPoint),
    ) {
        let d: Vector3<f64> = a.position - b.position;
        let r = d.norm();
        let e = d / r;
        let radial = e * e.transpose();
        let k = radial * f.second + (Matrix3::identity() - radial) * (f.first / r);
        let force = e * f.first;
        self.nodes[0].add(i, a, &k, &force);
        self.nodes[1].add(j, b, &k, &-force);
        // −J_aᵀ K J_b = [[−K, K R_b], [−R_a K, R_a K R_b]], R = [r]×.
        let (ra, rb) = (a.offset().cross_matrix(), b.offset().cross_matrix());
        let k_rb = k * rb;
        let ra_k = ra * k;
        let c = &mut self.cross;
        let mut m = c.fixed_view_mut::<3, 3>(0, 0);
        m -= k;
        let mut m = c.fixed_view_mut::<3, 3>(0, 3);
        m += k_rb;
        let mut m = c.fixed_view_mut::<3, 3>(3, 0);
        m -= ra_k;
        let mut m = c.fixed_view_mut::<3, 3>(3, 3);
        m += ra * k_rb;
        if self.design.is_some() {
            // (J_a − J_b)ᵀ K = [K; R_a K; −K; −R_b K], with R_b K = −(K R_b)ᵀ.
            let mut q = Matrix12x3::zeros();
            q.fixed_view_mut::<3, 3>(0, 0).copy_from(&k);
            q.fixed_view_mut::<3, 3>(3, 0).copy_from(&ra_k);
            q.fixed_view_mut::<3, 3>(6, 0).copy_from(&-k);
            q.fixed_view_mut::<3, 3>(9, 0).copy_from(&k_rb.transpose());
            self.add_node_mixed(0, i, &q);
            self.add_node_mixed(1, j, &-q);
        }
    }

    /// The Hessian: everything gathered.
    pub(super) fn finish(&self) -> Matrix12 {
        let mut term = TwistTerm::zero();
        for sums in &self.nodes {
            for s in &sums.sums {
                term.add_point_block(&s.point, &s.point, &s.curvature);
                term.add_point_curvature(&s.point, &s.force);
            }
        }
        let mut lower = self.hessian;
        lower.fill_upper_triangle_with_lower_triangle();
        let mut h = lower + term.hessian;
        let mut ab = h.fixed_view_mut::<6, 6>(0, 6);
        ab += self.cross;
        let mut ba = h.fixed_view_mut::<6, 6>(6, 0);
        ba += self.cross.transpose();
        h
    }
}
