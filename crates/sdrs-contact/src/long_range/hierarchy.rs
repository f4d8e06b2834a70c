//! The hierarchical potential of long-range paper eq. 6-8 (Algorithm 1): recursion over the
//! node pairs of two bodies' layered bounding-sphere hierarchies.
//!
//! For nodes `I`, `J` with world centres `r = |x_I − x_J|` apart, `d₁ = R_I + R_J` and
//! `d₂ = (1 + ε) d₁`:
//! - `r ≥ d₂`: the centred closed form `P_c(r)` alone;
//! - otherwise the near potential — the exact triangle potential for two leaves, else the
//!   sum over child pairs (a leaf is its own only child) — blended towards `P_c` by
//!   `φ(r)` when `r > d₁`.
//!
//! Every term is returned with its gradient and Hessian in the two bodies' twists.

use super::radial::{BodyPoint, TwistTerm, blend, centred, radial_term, to_twists};
use super::triangle::triangle_potential;
use crate::error::Result;
use nalgebra::{Isometry3, Point3};
use sdrs_geometry::sphere_tree::{NodeId, NodeKind};
use sdrs_geometry::{SphereTree, TriMesh};

/// One body of a pair: mesh, hierarchy and pose, with world positions precomputed.
pub(super) struct PlacedBody<'a> {
    mesh: &'a TriMesh,
    tree: &'a SphereTree,
    origin: Point3<f64>,
    vertices: Vec<Point3<f64>>,
    centres: Vec<Point3<f64>>,
}

impl<'a> PlacedBody<'a> {
    pub(super) fn new(mesh: &'a TriMesh, tree: &'a SphereTree, pose: &Isometry3<f64>) -> Self {
        let mut centres = Vec::new();
        tree.world_centers(pose, &mut centres);
        Self {
            mesh,
            tree,
            origin: Point3::from(pose.translation.vector),
            vertices: mesh.vertices().iter().map(|v| pose * v).collect(),
            centres,
        }
    }

    fn corners(&self, triangle: u32) -> [Point3<f64>; 3] {
        self.mesh.triangles()[triangle as usize].map(|v| self.vertices[v as usize])
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

/// The recursion's state for one pair of bodies.
pub(super) struct Recursion<'a> {
    pub(super) a: PlacedBody<'a>,
    pub(super) b: PlacedBody<'a>,
    pub(super) epsilon: f64,
    pub(super) hessian: bool,
    pub(super) max_iterations: usize,
    pub(super) census: Census,
}

impl Recursion<'_> {
    /// `P_BSH` of nodes `i` (body A) and `j` (body B); `None` when two triangles touch.
    pub(super) fn pair(&mut self, i: NodeId, j: NodeId) -> Result<Option<TwistTerm>> {
        self.census.node_pairs += 1;
        let pa = BodyPoint {
            body: 0,
            position: self.a.centres[i as usize],
            origin: self.a.origin,
        };
        let pb = BodyPoint {
            body: 1,
            position: self.b.centres[j as usize],
            origin: self.b.origin,
        };
        let r = (pa.position - pb.position).norm();
        let d1 = self.a.tree.radius(i) + self.b.tree.radius(j);
        let d2 = (1.0 + self.epsilon) * d1;
        if r >= d2 {
            self.census.centred += 1;
            return Ok(Some(radial_term(&centred(r), &pa, &pb)));
        }
        let near = match (self.a.tree.kind(i), self.b.tree.kind(j)) {
            (NodeKind::Leaf(ta), NodeKind::Leaf(tb)) => self.exact(ta, tb)?,
            _ => {
                let (ci, ni) = self.a.children(i);
                let (cj, nj) = self.b.children(j);
                let mut sum = TwistTerm::zero();
                for &ic in &ci[..ni] {
                    for &jc in &cj[..nj] {
                        match self.pair(ic, jc)? {
                            Some(term) => sum.add(&term),
                            None => return Ok(None),
                        }
                    }
                }
                Some(sum)
            }
        };
        let Some(near) = near else { return Ok(None) };
        if r <= d1 {
            return Ok(Some(near));
        }
        self.census.centred += 1;
        self.census.blended += 1;
        let far = radial_term(&centred(r), &pa, &pb);
        let phi = radial_term(&blend(r, d1, d2), &pa, &pb);
        Ok(Some(near.blend(&far, &phi)))
    }

    /// The exact potential of triangles `ta` (A) and `tb` (B) in twist space.
    pub(super) fn exact(&mut self, ta: u32, tb: u32) -> Result<Option<TwistTerm>> {
        self.census.exact += 1;
        let (xa, xb) = (self.a.corners(ta), self.b.corners(tb));
        let Some(t) = triangle_potential(&xa, &xb, None, self.hessian, self.max_iterations)? else {
            return Ok(None);
        };
        self.census.iterations += t.iterations;
        let point = |body: usize, position: Point3<f64>| BodyPoint {
            body,
            position,
            origin: if body == 0 {
                self.a.origin
            } else {
                self.b.origin
            },
        };
        let points = [
            point(0, xa[0]),
            point(0, xa[1]),
            point(0, xa[2]),
            point(1, xb[0]),
            point(1, xb[1]),
            point(1, xb[2]),
        ];
        let (gradient, hessian) =
            to_twists(&points, &t.gradient, self.hessian.then_some(&t.hessian));
        Ok(Some(TwistTerm {
            value: t.value,
            gradient,
            hessian,
        }))
    }
}
