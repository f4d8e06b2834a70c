//! The IPC barrier potential between two rigid triangle meshes: `Σ b(d², d̂²)` over the
//! vertex–face and edge–edge pairs of the two bodies closer than `d̂` (edge–edge terms times
//! the mollifier), with the pose gradient and Hessian of the pair (Li et al. 2020; `ipctk`'s
//! `BarrierPotential` with stiffness 1).
//!
//! Candidates come from each body's persistent body-frame trees of vertex, edge and face boxes
//! ([`sdrs_geometry::broad_phase::BodyBvh`]), queried against the other body's, with boxes
//! inflated by `d̂/2`. Each vertex–face and edge–edge candidate is one term with the
//! distance of its closest-point type, as in the original IPC formulation; `ipctk` instead
//! merges candidates that resolve to the same vertex–vertex or edge–vertex pair, so the two
//! agree where every active pair resolves to a face or edge interior (the configurations the
//! tests hold), and this sum counts a vertex–vertex contact once per candidate otherwise.

use super::barrier::barrier;
use super::distance::{
    Matrix12, Vector12, edge_edge, edge_edge_squared, point_triangle, point_triangle_squared,
};
use super::mollifier::{mollifier, mollifier_value, threshold};
use crate::error::{ContactError, Result, positive};
use crate::model::{ContactModel, Order, PairContact, PairOutcome};
use nalgebra::{Isometry3, Point3};
use sdrs_geometry::broad_phase::BodyBvh;
use sdrs_geometry::twist::{BodyPoint, TwistTerm};
use sdrs_geometry::{Aabb, TriMesh};

/// A triangle mesh prepared for IPC: the mesh, its unique edges, and a persistent tree over
/// each kind of primitive (vertices, edges, faces) in the body frame, built once: a rigid
/// body's primitives never move in its frame, so evaluations only query the trees.
#[derive(Debug, Clone)]
pub struct IpcShape {
    mesh: TriMesh,
    edges: Vec<[u32; 2]>,
    trees: PrimitiveTrees,
}

/// A kind of mesh primitive.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Vertex,
    Edge,
    Face,
}

/// The body-frame trees of a shape's vertices, edges and faces (leaf `i` is primitive `i`).
#[derive(Debug, Clone)]
struct PrimitiveTrees {
    vertices: BodyBvh,
    edges: BodyBvh,
    faces: BodyBvh,
}

impl IpcShape {
    /// The mesh (body frame) with its edges and primitive trees.
    pub fn new(mesh: TriMesh) -> Self {
        let mut edges: Vec<[u32; 2]> = mesh
            .triangles()
            .iter()
            .flat_map(|t| [[t[0], t[1]], [t[1], t[2]], [t[2], t[0]]])
            .map(|[a, b]| [a.min(b), a.max(b)])
            .collect();
        edges.sort_unstable();
        edges.dedup();
        let v = mesh.vertices();
        let tree = |boxes: Vec<Aabb>| BodyBvh::new(&boxes);
        let trees = PrimitiveTrees {
            vertices: tree(v.iter().map(|p| Aabb::new(*p, *p)).collect()),
            edges: tree(edges.iter().map(|e| primitive_box(v, e)).collect()),
            faces: tree(
                mesh.triangles()
                    .iter()
                    .map(|t| primitive_box(v, t))
                    .collect(),
            ),
        };
        Self { mesh, edges, trees }
    }

    fn tree(&self, kind: Kind) -> &BodyBvh {
        match kind {
            Kind::Vertex => &self.trees.vertices,
            Kind::Edge => &self.trees.edges,
            Kind::Face => &self.trees.faces,
        }
    }

    /// The vertex indices of primitive `i` of a kind (the first `n` of the array).
    fn corners(&self, kind: Kind, i: u32) -> ([u32; 3], usize) {
        match kind {
            Kind::Vertex => ([i, 0, 0], 1),
            Kind::Edge => {
                let [p, q] = self.edges[i as usize];
                ([p, q, 0], 2)
            }
            Kind::Face => (self.mesh.triangles()[i as usize], 3),
        }
    }

    /// The mesh.
    pub fn mesh(&self) -> &TriMesh {
        &self.mesh
    }

    /// The unique edges.
    pub fn edges(&self) -> &[[u32; 2]] {
        &self.edges
    }
}

impl crate::model::FromMesh for IpcShape {
    fn from_mesh(mesh: TriMesh) -> Result<Self> {
        Ok(Self::new(mesh))
    }

    fn mesh(&self) -> &TriMesh {
        &self.mesh
    }
}

/// The IPC barrier potential with activation distance `d̂`.
///
/// ```
/// use sdrs_contact::ipc::potential::{Ipc, IpcShape};
/// use sdrs_contact::{ContactModel, Order};
/// use sdrs_geometry::TriMesh;
/// use nalgebra::{Isometry3, Vector3};
/// let cube = IpcShape::new(TriMesh::cuboid(Vector3::repeat(0.5))?);
/// let model = Ipc::new(0.01)?;
/// let near = Isometry3::translation(0.0, 0.0, 1.005); // faces 5 mm apart
/// let far = Isometry3::translation(0.0, 0.0, 1.02); // beyond d̂
/// let out = model.evaluate(&cube, &Isometry3::identity(), &cube, &near, &mut (), Order::Gradient)?;
/// assert!(out.value() > 0.0 && out.contact().unwrap().gradient[2] > 0.0);
/// let out = model.evaluate(&cube, &Isometry3::identity(), &cube, &far, &mut (), Order::Value)?;
/// assert_eq!(out.value(), 0.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Ipc {
    dhat: f64,
    psd: bool,
}

impl Ipc {
    /// The potential with activation distance `dhat > 0` and exact local Hessians.
    pub fn new(dhat: f64) -> Result<Self> {
        Ok(Self {
            dhat: positive("dhat", dhat)?,
            psd: false,
        })
    }

    /// The activation distance `d̂`.
    pub fn dhat(&self) -> f64 {
        self.dhat
    }

    /// Projects every term's 12x12 Hessian (in the coordinates of its four points) onto the
    /// positive semi-definite cone before mapping it to the poses, as IPC's Newton solver does.
    pub fn with_psd_projection(mut self, on: bool) -> Self {
        self.psd = on;
        self
    }
}

/// The box of the points `ids` of `vertices`.
fn primitive_box(vertices: &[Point3<f64>], ids: &[u32]) -> Aabb {
    Aabb::from_points(ids.iter().map(|&i| &vertices[i as usize]))
}

/// A vertex–face or edge–edge pair of the two bodies whose boxes are within `d̂`.
#[derive(Debug, Clone, Copy)]
pub(super) enum Candidate {
    /// A vertex of one body and a face (triangle index) of the other.
    PointFace {
        vertex: (usize, u32),
        face: (usize, u32),
    },
    /// An edge (index into [`IpcShape::edges`]) of each body.
    EdgeEdge { a: (usize, u32), b: (usize, u32) },
}

/// A body placed in the world.
pub(super) struct Placed<'a> {
    pub(super) shape: &'a IpcShape,
    pose: Isometry3<f64>,
    origin: Point3<f64>,
    pub(super) vertices: Vec<Point3<f64>>,
}

impl Placed<'_> {
    fn point(&self, body: usize, v: u32) -> BodyPoint {
        BodyPoint {
            body,
            position: self.vertices[v as usize],
            origin: self.origin,
        }
    }
}

/// The two bodies at their poses.
pub(super) fn place<'a>(
    a: &'a IpcShape,
    pose_a: &Isometry3<f64>,
    b: &'a IpcShape,
    pose_b: &Isometry3<f64>,
) -> [Placed<'a>; 2] {
    [(a, pose_a), (b, pose_b)].map(|(shape, pose)| Placed {
        shape,
        pose: *pose,
        origin: Point3::from(pose.translation.vector),
        vertices: shape.mesh.vertices().iter().map(|v| pose * v).collect(),
    })
}

impl Candidate {
    /// Its four points: the vertex and the face's corners, or the two edges' ends.
    pub(super) fn points(&self, bodies: &[Placed; 2]) -> [BodyPoint; 4] {
        match *self {
            Candidate::PointFace {
                vertex: (kv, v),
                face: (kf, f),
            } => {
                let t = bodies[kf].shape.mesh.triangles()[f as usize];
                [
                    bodies[kv].point(kv, v),
                    bodies[kf].point(kf, t[0]),
                    bodies[kf].point(kf, t[1]),
                    bodies[kf].point(kf, t[2]),
                ]
            }
            Candidate::EdgeEdge {
                a: (ka, ea),
                b: (kb, eb),
            } => {
                let (ea, eb) = (
                    bodies[ka].shape.edges[ea as usize],
                    bodies[kb].shape.edges[eb as usize],
                );
                [
                    bodies[ka].point(ka, ea[0]),
                    bodies[ka].point(ka, ea[1]),
                    bodies[kb].point(kb, eb[0]),
                    bodies[kb].point(kb, eb[1]),
                ]
            }
        }
    }
}

impl Candidate {
    /// The edge–edge mollifier's threshold, from the rest (body-frame) edges; 0 for a
    /// vertex–face pair (not mollified).
    pub(super) fn mollifier_threshold(&self, bodies: &[Placed; 2]) -> f64 {
        let Candidate::EdgeEdge {
            a: (ka, ea),
            b: (kb, eb),
        } = *self
        else {
            return 0.0;
        };
        let rest = |k: usize, e: u32| {
            let v = bodies[k].shape.mesh.vertices();
            let e = bodies[k].shape.edges[e as usize];
            [v[e[0] as usize], v[e[1] as usize]]
        };
        threshold(&rest(ka, ea), &rest(kb, eb))
    }
}

/// The vertex–face and edge–edge candidates of two placed bodies: pairs of primitives whose
/// world boxes, inflated by `dhat / 2` each, overlap, found by querying each body's
/// body-frame trees against the other's (never a pair within one body). With several
/// placements of the bodies (`placements`), each primitive's box covers all of them (swept
/// boxes, for continuous collision detection). Candidates come in a canonical order: A's
/// vertices against B's faces, then edge pairs, then A's faces against B's vertices, each
/// sorted by primitive index (the order of a sorted pair list over all primitives of A then
/// B).
pub(super) fn candidates(dhat: f64, placements: &[&[Placed; 2]]) -> Result<Vec<Candidate>> {
    let [a, b] = placements[0];
    let poses =
        |k: usize| -> Vec<Isometry3<f64>> { placements.iter().map(|p| p[k].pose).collect() };
    let (poses_a, poses_b) = (poses(0), poses(1));
    let margin = 0.5 * dhat;
    // The exact test of a candidate pair: the swept world boxes of its primitives, inflated.
    let swept = |k: usize, ids: &[u32]| {
        Aabb::from_points(
            placements
                .iter()
                .flat_map(|p| ids.iter().map(move |&j| &p[k].vertices[j as usize])),
        )
        .inflated(margin)
    };
    let pairs = |ka: Kind, kb: Kind| -> Result<Vec<(u32, u32)>> {
        let mut found = Vec::new();
        let (ta, tb) = (a.shape.tree(ka), b.shape.tree(kb));
        ta.for_each_overlap(&poses_a, tb, &poses_b, margin, |i, j| {
            let (ca, na) = a.shape.corners(ka, i);
            let (cb, nb) = b.shape.corners(kb, j);
            if swept(0, &ca[..na]).intersects(&swept(1, &cb[..nb])) {
                found.push((i, j));
            }
        })
        .map_err(|e| ContactError::Geometry {
            message: e.to_string(),
        })?;
        found.sort_unstable();
        Ok(found)
    };
    let point_face = |vertex, face| Candidate::PointFace { vertex, face };
    let mut found: Vec<Candidate> = pairs(Kind::Vertex, Kind::Face)?
        .into_iter()
        .map(|(v, f)| point_face((0, v), (1, f)))
        .collect();
    found.extend(
        pairs(Kind::Edge, Kind::Edge)?
            .into_iter()
            .map(|(i, j)| Candidate::EdgeEdge {
                a: (0, i),
                b: (1, j),
            }),
    );
    found.extend(
        pairs(Kind::Face, Kind::Vertex)?
            .into_iter()
            .map(|(f, v)| point_face((1, v), (0, f))),
    );
    Ok(found)
}

impl Ipc {
    /// One term with derivatives over its four points (12 coordinates), or `None` when the
    /// points touch; zero beyond `d̂`.
    fn term(
        &self,
        d2: f64,
        grad: &Vector12,
        hess: &Matrix12,
        mollified: Option<(f64, Vector12, Matrix12)>,
    ) -> Option<(f64, Vector12, Matrix12)> {
        let (b, b1, b2) = barrier(d2, self.dhat * self.dhat)?;
        let mut value = b;
        let mut g = grad * b1;
        let mut h = grad * grad.transpose() * b2 + hess * b1;
        if let Some((m, mg, mh)) = mollified {
            let cross = mg * g.transpose();
            h = h * m + cross + cross.transpose() + mh * b;
            g = g * m + mg * b;
            value *= m;
        }
        if self.psd {
            let eig = h.symmetric_eigen();
            let clamped = eig.eigenvalues.map(|l| l.max(0.0));
            h = eig.eigenvectors * Matrix12::from_diagonal(&clamped) * eig.eigenvectors.transpose();
        }
        Some((value, g, h))
    }
}

/// Adds a term over four body points to `out`.
fn add_term(
    out: &mut TwistTerm,
    points: &[BodyPoint; 4],
    value: f64,
    g: &Vector12,
    h: &Matrix12,
    hessian: bool,
) {
    out.value += value;
    for (i, p) in points.iter().enumerate() {
        let gi = g.fixed_rows::<3>(3 * i).into_owned();
        out.add_point_gradient(p, &gi);
        if hessian {
            out.add_point_curvature(p, &gi);
            for (j, q) in points.iter().enumerate() {
                out.add_point_block(p, q, &h.fixed_view::<3, 3>(3 * i, 3 * j).into_owned());
            }
        }
    }
}

impl ContactModel for Ipc {
    type Shape = IpcShape;
    type Cache = ();

    /// `d̂`: beyond it every term is exactly zero.
    fn support_distance(&self) -> f64 {
        self.dhat
    }

    /// IPC's barrier acts only within `d̂`, so a long step can carry a vertex across a face
    /// unseen: steps are limited so that every vertex–face and edge–edge pair keeps a tenth
    /// of its distance along the straight-line motion of the vertices (additive CCD).
    fn max_step(
        &self,
        a: &IpcShape,
        b: &IpcShape,
        from: [&Isometry3<f64>; 2],
        to: [&Isometry3<f64>; 2],
    ) -> Result<f64> {
        for pose in from.iter().chain(&to) {
            crate::model::check_poses(pose, pose)?;
        }
        let start = place(a, from[0], b, from[1]);
        let end = place(a, to[0], b, to[1]);
        super::ccd::max_step(self.dhat, &start, &end)
    }

    fn evaluate(
        &self,
        a: &IpcShape,
        pose_a: &Isometry3<f64>,
        b: &IpcShape,
        pose_b: &Isometry3<f64>,
        _: &mut (),
        order: Order,
    ) -> Result<PairOutcome> {
        crate::model::check_poses(pose_a, pose_b)?;
        if order == Order::Design {
            return Err(ContactError::Unsupported {
                what: "mesh-vertex (design) derivatives of the IPC potential",
            });
        }
        let bodies = place(a, pose_a, b, pose_b);
        let hessian = order >= Order::Hessian;
        let mut out = TwistTerm::zero();
        let dhat2 = self.dhat * self.dhat;
        for candidate in candidates(self.dhat, &[&bodies])? {
            let points = candidate.points(&bodies);
            let x = points.map(|p| p.position);
            let (tri, ea, eb) = ([x[1], x[2], x[3]], [x[0], x[1]], [x[2], x[3]]);
            // The value first: most candidates lie beyond d̂ and need no derivatives.
            let d2 = match candidate {
                Candidate::PointFace { .. } => point_triangle_squared(&x[0], &tri).1,
                Candidate::EdgeEdge { .. } => edge_edge_squared(&ea, &eb).1,
            };
            if d2 >= dhat2 {
                continue;
            }
            let eps = candidate.mollifier_threshold(&bodies);
            if order == Order::Value {
                let Some((b, _, _)) = barrier(d2, dhat2) else {
                    return Ok(PairOutcome::Penetrating);
                };
                out.value += match candidate {
                    Candidate::PointFace { .. } => b,
                    Candidate::EdgeEdge { .. } => b * mollifier_value(&ea, &eb, eps),
                };
                continue;
            }
            let (grad, hess, mollified) = match candidate {
                Candidate::PointFace { .. } => {
                    let d = point_triangle(&x[0], &tri);
                    (d.gradient, d.hessian, None)
                }
                Candidate::EdgeEdge { .. } => {
                    let d = edge_edge(&ea, &eb);
                    (d.gradient, d.hessian, Some(mollifier(&ea, &eb, eps)))
                }
            };
            let Some((value, g, h)) = self.term(d2, &grad, &hess, mollified) else {
                return Ok(PairOutcome::Penetrating);
            };
            add_term(&mut out, &points, value, &g, &h, hessian);
        }
        let mut c = PairContact::zero();
        c.value = out.value;
        if order >= Order::Gradient {
            c.gradient = out.gradient;
        }
        if hessian {
            c.hessian = (out.hessian + out.hessian.transpose()) * 0.5;
        }
        Ok(PairOutcome::Separated(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Translation3, UnitQuaternion, Vector3};

    /// Every vertex–face and edge–edge pair of the two bodies whose world boxes, inflated by
    /// `dhat / 2`, overlap, in the order of a sorted pair list over all primitives of A then
    /// B (the broad phase over every primitive of both bodies that the trees replace).
    fn all_pairs(dhat: f64, placements: &[&[Placed; 2]]) -> Vec<Candidate> {
        let boxes = |k: usize| {
            let shape = placements[0][k].shape;
            let prims = (0..shape.mesh.vertices().len() as u32)
                .map(|i| (Kind::Vertex, i))
                .chain((0..shape.edges.len() as u32).map(|i| (Kind::Edge, i)))
                .chain((0..shape.mesh.triangles().len() as u32).map(|i| (Kind::Face, i)));
            prims
                .map(|(kind, i)| {
                    let (c, n) = shape.corners(kind, i);
                    let points = placements
                        .iter()
                        .flat_map(|p| c[..n].iter().map(move |&v| p[k].vertices[v as usize]))
                        .collect::<Vec<_>>();
                    (kind, i, Aabb::from_points(&points).inflated(0.5 * dhat))
                })
                .collect::<Vec<_>>()
        };
        let (a, b) = (boxes(0), boxes(1));
        let mut out = Vec::new();
        for &(ka, i, ba) in &a {
            for &(kb, j, bb) in &b {
                if !ba.intersects(&bb) {
                    continue;
                }
                match (ka, kb) {
                    (Kind::Vertex, Kind::Face) => out.push(Candidate::PointFace {
                        vertex: (0, i),
                        face: (1, j),
                    }),
                    (Kind::Edge, Kind::Edge) => out.push(Candidate::EdgeEdge {
                        a: (0, i),
                        b: (1, j),
                    }),
                    (Kind::Face, Kind::Vertex) => out.push(Candidate::PointFace {
                        vertex: (1, j),
                        face: (0, i),
                    }),
                    _ => {}
                }
            }
        }
        out
    }

    fn key(c: &Candidate) -> (u8, [(usize, u32); 2]) {
        match *c {
            Candidate::PointFace { vertex, face } => (0, [vertex, face]),
            Candidate::EdgeEdge { a, b } => (1, [a, b]),
        }
    }

    /// The trees find exactly the pairs (and order) of the all-primitives search, for one
    /// placement and for swept placements, on two spheres close to touching at many
    /// relative orientations.
    #[test]
    fn trees_find_the_pairs_of_the_all_primitives_search() {
        let sphere = IpcShape::new(TriMesh::icosphere(0.5, 2).unwrap());
        let bumpy = IpcShape::new(TriMesh::cuboid(Vector3::new(0.3, 0.2, 0.4)).unwrap());
        let mut checked = 0;
        for k in 0..24 {
            let t = k as f64;
            let turn = |s: f64| {
                UnitQuaternion::from_scaled_axis(Vector3::new(0.7 * s, -1.1 * s, 0.4 * s + 0.2))
            };
            let pose_a = Isometry3::from_parts(Translation3::new(0.1 * t.sin(), 0.0, 0.0), turn(t));
            let dir =
                Vector3::new((0.9 * t).cos(), (0.9 * t).sin(), 0.3 * (1.3 * t).sin()).normalize();
            let pose_b = Isometry3::from_parts(
                Translation3::from(dir * 0.86 + pose_a.translation.vector),
                turn(2.0 * t + 1.0),
            );
            let moved = Isometry3::from_parts(
                Translation3::from(pose_b.translation.vector - dir * 0.02),
                turn(2.0 * t + 1.05),
            );
            for (a, b) in [(&sphere, &sphere), (&sphere, &bumpy), (&bumpy, &sphere)] {
                let start = place(a, &pose_a, b, &pose_b);
                let end = place(a, &pose_a, b, &moved);
                for (dhat, placements) in [(0.02, vec![&start]), (0.05, vec![&start, &end])] {
                    let trees: Vec<_> = candidates(dhat, &placements)
                        .unwrap()
                        .iter()
                        .map(key)
                        .collect();
                    let all: Vec<_> = all_pairs(dhat, &placements).iter().map(key).collect();
                    assert_eq!(trees, all, "case {k}, d̂ {dhat}");
                    checked += usize::from(!all.is_empty());
                }
            }
        }
        assert!(checked > 60, "only {checked} cases with candidates");
    }
}
