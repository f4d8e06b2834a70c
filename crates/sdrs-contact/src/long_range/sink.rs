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
use crate::twist::{BodyPoint, Matrix12, TwistTerm};
use nalgebra::{Matrix3, Matrix6, Vector3};
use sdrs_geometry::SphereTree;
use sdrs_geometry::sphere_tree::NodeId;

/// One node's radial sums: `Σ K` and `Σ` of the forces at its centre.
struct NodeSum {
    node: NodeId,
    point: BodyPoint,
    curvature: Matrix3<f64>,
    force: Vector3<f64>,
}

/// The radial sums of one body's nodes, stored compactly for the nodes that have any.
struct NodeSums {
    slot: Vec<u32>,
    sums: Vec<NodeSum>,
}

impl NodeSums {
    fn new(nodes: usize) -> Self {
        Self {
            slot: vec![u32::MAX; nodes],
            // Growing this vector by doubling cost as much as the radial terms' own sums.
            sums: Vec::with_capacity(nodes / 2),
        }
    }

    fn add(&mut self, node: NodeId, point: &BodyPoint, k: &Matrix3<f64>, force: &Vector3<f64>) {
        let slot = &mut self.slot[node as usize];
        if *slot == u32::MAX {
            *slot = self.sums.len() as u32;
            self.sums.push(NodeSum {
                node,
                point: *point,
                curvature: Matrix3::zeros(),
                force: Vector3::zeros(),
            });
        }
        let sum = &mut self.sums[*slot as usize];
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
    /// When shape gradients are wanted: each body's world vertex gradients of the exact
    /// pairs (the radial terms' are in the node sums).
    corners: Option<[Vec<Vector3<f64>>; 2]>,
}

impl Sink {
    /// An empty sink for hierarchies of `nodes` nodes, gathering vertex gradients too for
    /// meshes of `vertices` vertices when given.
    pub(super) fn new(nodes: [usize; 2], vertices: Option<[usize; 2]>) -> Self {
        Self {
            hessian: Matrix12::zeros(),
            cross: Matrix6::zeros(),
            nodes: nodes.map(NodeSums::new),
            corners: vertices.map(|n| n.map(|n| vec![Vector3::zeros(); n])),
        }
    }

    /// Adds the world gradient `g` of a term at vertex `vertex` of body `body` (kept only when
    /// vertex gradients are gathered).
    pub(super) fn add_corner(&mut self, body: usize, vertex: u32, g: &Vector3<f64>) {
        if let Some(corners) = &mut self.corners {
            corners[body][vertex as usize] += g;
        }
    }

    /// The gradients with respect to every world vertex of both meshes (`None` unless asked
    /// for): the exact pairs' plus each node's centre force shared among its vertex set (the
    /// centre is their mean).
    pub(super) fn vertex_gradients(&self, trees: [&SphereTree; 2]) -> Option<[Vec<Vector3<f64>>; 2]> {
        let mut out = self.corners.clone()?;
        for ((sums, tree), gradients) in self.nodes.iter().zip(trees).zip(&mut out) {
            for s in &sums.sums {
                let set = tree.vertex_set(s.node);
                let share = s.force / set.len() as f64;
                for &v in set {
                    gradients[v as usize] += share;
                }
            }
        }
        Some(out)
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
        let c = &mut self.cross;
        let mut m = c.fixed_view_mut::<3, 3>(0, 0);
        m -= k;
        let mut m = c.fixed_view_mut::<3, 3>(0, 3);
        m += k_rb;
        let mut m = c.fixed_view_mut::<3, 3>(3, 0);
        m -= ra * k;
        let mut m = c.fixed_view_mut::<3, 3>(3, 3);
        m += ra * k_rb;
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
