//! The IPC barrier potential between two rigid triangle meshes: `Σ b(d², d̂²)` over the
//! vertex–face and edge–edge pairs of the two bodies closer than `d̂` (edge–edge terms times
//! the mollifier), with the pose gradient and Hessian of the pair (Li et al. 2020; `ipctk`'s
//! `BarrierPotential` with stiffness 1).
//!
//! Candidates come from the broad phase's BVH over every vertex, edge and face box of both
//! bodies inflated by `d̂/2`. Each vertex–face and edge–edge candidate is one term with the
//! distance of its closest-point type, as in the original IPC formulation; `ipctk` instead
//! merges candidates that resolve to the same vertex–vertex or edge–vertex pair, so the two
//! agree where every active pair resolves to a face or edge interior (the configurations the
//! tests hold), and this sum counts a vertex–vertex contact once per candidate otherwise.

use super::barrier::barrier;
use super::distance::{Matrix12, Vector12, edge_edge, point_triangle};
use super::mollifier::{mollifier, threshold};
use crate::error::{ContactError, Result, positive};
use crate::model::{ContactModel, Order, PairContact, PairOutcome};
use nalgebra::{Isometry3, Point3};
use sdrs_geometry::broad_phase::{BroadPhase, Proxy};
use sdrs_geometry::twist::{BodyPoint, TwistTerm};
use sdrs_geometry::{Aabb, TriMesh};

/// A triangle mesh prepared for IPC: the mesh and its unique edges.
#[derive(Debug, Clone)]
pub struct IpcShape {
    mesh: TriMesh,
    edges: Vec<[u32; 2]>,
}

impl IpcShape {
    /// The mesh (body frame) with its edges.
    pub fn new(mesh: TriMesh) -> Self {
        let mut edges: Vec<[u32; 2]> = mesh
            .triangles()
            .iter()
            .flat_map(|t| [[t[0], t[1]], [t[1], t[2]], [t[2], t[0]]])
            .map(|[a, b]| [a.min(b), a.max(b)])
            .collect();
        edges.sort_unstable();
        edges.dedup();
        Self { mesh, edges }
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

/// A primitive of one of the two bodies.
#[derive(Debug, Clone, Copy)]
enum Primitive {
    Vertex(usize, u32),
    Edge(usize, u32),
    Face(usize, u32),
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

/// The vertex–face and edge–edge candidates of two placed bodies: pairs whose boxes are
/// within `dhat`, from the broad phase's BVH over every vertex, edge and face box. With
/// several placements of the bodies (`placements`), each primitive's box covers all of them
/// (swept boxes, for continuous collision detection).
pub(super) fn candidates(dhat: f64, placements: &[&[Placed; 2]]) -> Result<Vec<Candidate>> {
    let bodies = placements[0];
    let swept = |k: usize, ids: &[u32]| {
        Aabb::from_points(
            placements
                .iter()
                .flat_map(|p| ids.iter().map(move |&j| &p[k].vertices[j as usize])),
        )
    };
    let mut proxies = Vec::new();
    let mut primitives = Vec::new();
    for (k, body) in bodies.iter().enumerate() {
        for i in 0..body.vertices.len() as u32 {
            let aabb = swept(k, &[i]);
            proxies.push(Proxy { body: k, aabb });
            primitives.push(Primitive::Vertex(k, i));
        }
        for (i, e) in body.shape.edges.iter().enumerate() {
            let aabb = swept(k, e);
            proxies.push(Proxy { body: k, aabb });
            primitives.push(Primitive::Edge(k, i as u32));
        }
        for (i, t) in body.shape.mesh.triangles().iter().enumerate() {
            let aabb = swept(k, t);
            proxies.push(Proxy { body: k, aabb });
            primitives.push(Primitive::Face(k, i as u32));
        }
    }
    let mut broad = BroadPhase::new(0.5 * dhat).map_err(|e| ContactError::Geometry {
        message: e.to_string(),
    })?;
    let mut pairs = Vec::new();
    broad.candidate_pairs(&proxies, |_, _| false, &mut pairs);
    Ok(pairs
        .into_iter()
        .filter_map(|(i, j)| match (primitives[i], primitives[j]) {
            (Primitive::Vertex(kv, v), Primitive::Face(kf, f))
            | (Primitive::Face(kf, f), Primitive::Vertex(kv, v)) => Some(Candidate::PointFace {
                vertex: (kv, v),
                face: (kf, f),
            }),
            (Primitive::Edge(ka, ea), Primitive::Edge(kb, eb)) => Some(Candidate::EdgeEdge {
                a: (ka, ea),
                b: (kb, eb),
            }),
            _ => None,
        })
        .collect())
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
        for candidate in candidates(self.dhat, &[&bodies])? {
            let points = candidate.points(&bodies);
            let d = match candidate {
                Candidate::PointFace { .. } => {
                    let tri = [points[1].position, points[2].position, points[3].position];
                    let d = point_triangle(&points[0].position, &tri);
                    (d.value, d.gradient, d.hessian, None)
                }
                Candidate::EdgeEdge { .. } => {
                    let (x, y) = (
                        [points[0].position, points[1].position],
                        [points[2].position, points[3].position],
                    );
                    let d = edge_edge(&x, &y);
                    if d.value >= self.dhat * self.dhat {
                        continue;
                    }
                    let eps = candidate.mollifier_threshold(&bodies);
                    (d.value, d.gradient, d.hessian, Some(mollifier(&x, &y, eps)))
                }
            };
            let (d2, grad, hess, mollified) = d;
            if d2 >= self.dhat * self.dhat {
                continue;
            }
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
