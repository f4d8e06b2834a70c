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

use super::radial::{add_radial, blend, centred};
use super::triangle::triangle_potential;
use crate::error::Result;
use crate::twist::Twist;
use crate::twist::{BodyPoint, TwistTerm};
use nalgebra::{Isometry3, Point3, SMatrix, Vector4};
use sdrs_geometry::sphere_tree::{NodeId, NodeKind};
use sdrs_geometry::{SphereTree, TriMesh};
use std::collections::HashMap;

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
    /// Optimal planes of the exact pairs of the last evaluation (warm starts).
    pub(super) previous: HashMap<(u32, u32), Vector4<f64>>,
    /// Optimal planes of this evaluation's exact pairs.
    pub(super) planes: HashMap<(u32, u32), Vector4<f64>>,
}

impl Recursion<'_> {
    /// Adds `P_BSH` of nodes `i` (body A) and `j` (body B) to `out`; `false` when two
    /// triangles touch (the potential is infinite).
    pub(super) fn pair(&mut self, i: NodeId, j: NodeId, out: &mut TwistTerm) -> Result<bool> {
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
            add_radial(out, &centred(r), &pa, &pb, self.hessian);
            return Ok(true);
        }
        // The near potential goes straight into `out` unless it is to be blended.
        let blended = r > d1;
        let mut near_local = blended.then(TwistTerm::zero);
        let near = near_local.as_mut().unwrap_or(out);
        let apart = match (self.a.tree.kind(i), self.b.tree.kind(j)) {
            (NodeKind::Leaf(ta), NodeKind::Leaf(tb)) => self.exact(ta, tb, near)?,
            _ => {
                let (ci, ni) = self.a.children(i);
                let (cj, nj) = self.b.children(j);
                let mut apart = true;
                'children: for &ic in &ci[..ni] {
                    for &jc in &cj[..nj] {
                        if !self.pair(ic, jc, near)? {
                            apart = false;
                            break 'children;
                        }
                    }
                }
                apart
            }
        };
        if !apart {
            return Ok(false);
        }
        if let Some(near) = near_local {
            self.census.centred += 1;
            self.census.blended += 1;
            let (mut far, mut phi) = (TwistTerm::zero(), TwistTerm::zero());
            add_radial(&mut far, &centred(r), &pa, &pb, self.hessian);
            add_radial(&mut phi, &blend(r, d1, d2), &pa, &pb, self.hessian);
            out.add_blend(&near, &far, &phi);
        }
        Ok(true)
    }

    /// Adds the exact potential of triangles `ta` (A) and `tb` (B) in twist space to `out`;
    /// `false` when they touch. The Hessian goes through the potential's factors:
    /// `Jᵀ(L_xx − L_xp L_pp⁻¹ L_px)J = Σ c_k u_k u_kᵀ − (Jᵀ L_xp) L_pp⁻¹ (Jᵀ L_xp)ᵀ` with
    /// `u_k = J_kᵀ n`, plus each vertex's rotation curvature.
    pub(super) fn exact(&mut self, ta: u32, tb: u32, out: &mut TwistTerm) -> Result<bool> {
        self.census.exact += 1;
        let (xa, xb) = (self.a.corners(ta), self.b.corners(tb));
        let start = self.previous.get(&(ta, tb)).copied();
        let Some(t) = triangle_potential(&xa, &xb, start, self.max_iterations)? else {
            return Ok(false);
        };
        self.planes.insert((ta, tb), t.plane);
        self.census.iterations += t.iterations;
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
        for k in 0..6 {
            let p = point(k);
            let g = t.gradient.fixed_rows::<3>(3 * k).into_owned();
            out.add_point_gradient(&p, &g);
            if !self.hessian {
                continue;
            }
            let (col, r) = (6 * p.body, p.offset());
            let mut u = Twist::zeros();
            u.fixed_rows_mut::<3>(0).copy_from(&n);
            u.fixed_rows_mut::<3>(3).copy_from(&r.cross(&n));
            let mut block = out.hessian.fixed_view_mut::<6, 6>(col, col);
            block += u * u.transpose() * t.curvature[k];
            let b = t.mixed.fixed_view::<3, 4>(3 * k, 0);
            let mut v = jl.fixed_view_mut::<3, 4>(col, 0);
            v += b;
            let mut w = jl.fixed_view_mut::<3, 4>(col + 3, 0);
            w += r.cross_matrix() * b;
            out.add_point_curvature(&p, &g);
        }
        if self.hessian {
            let chol = t
                .plane_hessian
                .cholesky()
                .expect("the plane Hessian is positive definite at the optimum");
            out.hessian -= jl * chol.solve(&jl.transpose());
        }
        Ok(true)
    }
}
