//! IPC's lagged friction (Li et al. 2020, sec. 5): every vertex–face and edge–edge pair within
//! `d̂` at step t keeps its normal force `λ = κ |∂b/∂d|`, the coordinates of its closest
//! points and a tangent basis `T` of the plane orthogonal to them, all lagged. At step t+1 the
//! pair's relative tangential displacement is `u = Tᵀ Σ_i w_i (x_i − x_i^t)` (`w` = the
//! closest points' weights: `(1, −β₁, −β₂, −β₃)` for a point and a face,
//! `(1 − α, α, −(1 − β), −β)` for two edges) and its dissipation
//!
//! ```text
//! D = μ λ f₀(|u|),   f₀(y) = y²/(ε_v Δt) − y³/(3 (ε_v Δt)²) + ε_v Δt/3  (y < ε_v Δt),  y beyond,
//! ```
//!
//! whose derivative `f₁ = f₀'` rises from 0 to 1 over slips of `ε_v Δt` (C¹ smoothed Coulomb
//! friction; `D` is C²). The energy is convex in `u`, so its Hessian is positive
//! semi-definite as it stands. As in IPC, nothing is differentiated through the lagged data:
//! the step-t derivatives the adjoint would need are not provided
//! ([`ContactError::Unsupported`]); the long-range and SDRS friction models provide them.

use super::mollifier::mollifier_value;
use super::potential::{Candidate, Ipc, IpcShape, Placed, candidates, place};
use crate::distance::{point_triangle, segment_segment};
use crate::error::{ContactError, Result, positive};
use crate::friction::LaggedContact;
use crate::model::{LaggedFriction, Order, PairContact};
use nalgebra::{Isometry3, Matrix2, Matrix3x2, Point3, Vector2, Vector3};
use sdrs_geometry::twist::{BodyPoint, TwistTerm};

/// IPC friction with coefficient `μ`, time step `Δt` and velocity threshold `ε_v`.
///
/// ```
/// use sdrs_contact::ipc::{friction::IpcFriction, potential::{Ipc, IpcShape}};
/// use sdrs_contact::{LaggedFriction, Order};
/// use sdrs_geometry::TriMesh;
/// use nalgebra::{Isometry3, Vector3};
/// let cube = IpcShape::new(TriMesh::cuboid(Vector3::repeat(0.5))?);
/// let friction = IpcFriction::new(&Ipc::new(0.01)?, 0.5, 0.01)?;
/// let (below, at_t) = (Isometry3::identity(), Isometry3::translation(0.0, 0.0, 1.005));
/// let mut frames = friction.frames(1.0, &cube, &below, &cube, &at_t)?;
/// // The upper cube slides 1 cm along x: friction pushes it back along −x.
/// let next = Isometry3::translation(0.01, 0.0, 1.005);
/// let f = friction.evaluate(&mut frames, &below, &next, Order::Gradient)?;
/// assert!(f.gradient[6] > 0.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct IpcFriction {
    potential: Ipc,
    mu: f64,
    dt: f64,
    velocity_epsilon: f64,
}

/// One pair's lagged contact.
#[derive(Debug, Clone, PartialEq)]
struct Contact {
    /// Body and local position of each of the four points.
    points: [(usize, Point3<f64>); 4],
    /// Their step-t world positions.
    previous: [Point3<f64>; 4],
    /// Closest-point weights: `Σ w_i x_i` is the relative position of the closest points.
    weights: [f64; 4],
    basis: Matrix3x2<f64>,
    /// `μ λ`.
    force: f64,
}

/// The lagged contacts of one pair of bodies.
#[derive(Debug, Clone, Default)]
pub struct IpcFrames {
    contacts: Vec<Contact>,
}

impl IpcFrames {
    /// The number of lagged vertex–face and edge–edge contacts.
    pub fn len(&self) -> usize {
        self.contacts.len()
    }

    /// Whether there is no lagged contact.
    pub fn is_empty(&self) -> bool {
        self.contacts.is_empty()
    }
}

/// An orthonormal basis of the plane orthogonal to the unit vector `n`.
fn tangent_basis(n: &Vector3<f64>) -> Matrix3x2<f64> {
    let axis = Vector3::ith(n.iamin(), 1.0);
    let b1 = n.cross(&axis).normalize();
    Matrix3x2::from_columns(&[b1, n.cross(&b1)])
}

/// Barycentric coordinates of `q` (in the plane of `t`) with respect to triangle `t`.
fn barycentric(q: &Point3<f64>, t: &[Point3<f64>; 3]) -> [f64; 3] {
    let (e1, e2, d) = (t[1] - t[0], t[2] - t[0], q - t[0]);
    let (a, b, c) = (e1.dot(&e1), e1.dot(&e2), e2.dot(&e2));
    let (p, r) = (d.dot(&e1), d.dot(&e2));
    let det = a * c - b * b;
    let (u, v) = ((c * p - b * r) / det, (a * r - b * p) / det);
    [1.0 - u - v, u, v]
}

/// The parameter of `q` along segment `s` (0 at its start, 1 at its end).
fn along(q: &Point3<f64>, s: &[Point3<f64>; 2]) -> f64 {
    let e = s[1] - s[0];
    (q - s[0]).dot(&e) / e.norm_squared()
}

impl IpcFriction {
    /// Friction on the contacts of `potential` (its `d̂`), coefficient `mu`, time step `dt`,
    /// velocity threshold `ε_v = 1e-3` m/s (`ipctk`'s default).
    pub fn new(potential: &Ipc, mu: f64, dt: f64) -> Result<Self> {
        Ok(Self {
            potential: potential.clone(),
            mu: positive("mu", mu)?,
            dt: positive("dt", dt)?,
            velocity_epsilon: 1e-3,
        })
    }

    /// Sets the velocity threshold `ε_v` (m/s, positive) below which friction is smoothed.
    pub fn with_velocity_epsilon(mut self, epsilon: f64) -> Result<Self> {
        self.velocity_epsilon = positive("velocity_epsilon", epsilon)?;
        Ok(self)
    }

    /// `(f₁(y)/y, f₁'(y))`, bounded as `y → 0`.
    fn slope(&self, y: f64) -> (f64, f64) {
        let h = self.velocity_epsilon * self.dt;
        if y < h {
            (2.0 / h - y / (h * h), 2.0 / h - 2.0 * y / (h * h))
        } else {
            (1.0 / y, 0.0)
        }
    }

    /// `f₀(y)`.
    fn dissipation(&self, y: f64) -> f64 {
        let h = self.velocity_epsilon * self.dt;
        if y < h {
            y * y / h - y * y * y / (3.0 * h * h) + h / 3.0
        } else {
            y
        }
    }

    /// The lagged contact of `candidate` (its four points in the world and in their bodies),
    /// `None` beyond `d̂`.
    fn lagged(
        &self,
        stiffness: f64,
        bodies: &[Placed; 2],
        candidate: &Candidate,
        locals: [(usize, Point3<f64>); 4],
    ) -> Result<Option<Contact>> {
        let x = candidate.points(bodies).map(|p| p.position);
        let (closest, weights, mollified) = match candidate {
            Candidate::PointFace { .. } => {
                let c = point_triangle(&x[0], &[x[1], x[2], x[3]]);
                let [b1, b2, b3] = barycentric(&c.b, &[x[1], x[2], x[3]]);
                (c, [1.0, -b1, -b2, -b3], 1.0)
            }
            Candidate::EdgeEdge { .. } => {
                let (ea, eb) = ([x[0], x[1]], [x[2], x[3]]);
                let c = segment_segment(&ea, &eb);
                let (a, b) = (along(&c.a, &ea), along(&c.b, &eb));
                // Nearly parallel edges carry a mollified normal force (as in the potential).
                let m = mollifier_value(&ea, &eb, candidate.mollifier_threshold(bodies));
                (c, [1.0 - a, a, b - 1.0, -b], m)
            }
        };
        let dhat = self.potential.dhat();
        let d = closest.distance;
        if d >= dhat {
            return Ok(None);
        }
        let Some((_, b1, _)) = super::barrier::barrier(d * d, dhat * dhat) else {
            return Err(ContactError::PenetratingFrame);
        };
        // λ = κ m |∂b(d², d̂²)/∂d| = κ m |b'| 2d (m: the edge–edge mollifier, else 1).
        let force = self.mu * stiffness * mollified * b1.abs() * 2.0 * d;
        Ok(Some(Contact {
            points: locals,
            previous: x,
            weights,
            basis: tangent_basis(&((closest.a - closest.b) / d)),
            force,
        }))
    }
}

impl LaggedFriction for IpcFriction {
    type Shape = IpcShape;
    type Frames = IpcFrames;

    /// The lagged contacts at the step-t poses: every vertex–face and edge–edge pair closer
    /// than `d̂`. Errors with [`ContactError::PenetratingFrame`] when two primitives touch.
    fn frames(
        &self,
        stiffness: f64,
        a: &IpcShape,
        pose_a: &Isometry3<f64>,
        b: &IpcShape,
        pose_b: &Isometry3<f64>,
    ) -> Result<IpcFrames> {
        positive("stiffness", stiffness)?;
        crate::model::check_poses(pose_a, pose_b)?;
        let bodies = place(a, pose_a, b, pose_b);
        let mut contacts = Vec::new();
        let poses = [pose_a, pose_b];
        for candidate in candidates(self.potential.dhat(), &[&bodies])? {
            let locals = candidate
                .points(&bodies)
                .map(|p| (p.body, poses[p.body].inverse_transform_point(&p.position)));
            if let Some(c) = self.lagged(stiffness, &bodies, &candidate, locals)? {
                contacts.push(c);
            }
        }
        Ok(IpcFrames { contacts })
    }

    fn evaluate(
        &self,
        frames: &mut IpcFrames,
        pose_a: &Isometry3<f64>,
        pose_b: &Isometry3<f64>,
        order: Order,
    ) -> Result<PairContact> {
        crate::model::check_poses(pose_a, pose_b)?;
        if order == Order::Design {
            return Err(ContactError::Unsupported {
                what: "mesh-vertex (design) derivatives of IPC friction",
            });
        }
        let poses = [pose_a, pose_b];
        let mut out = TwistTerm::zero();
        for c in &frames.contacts {
            let points = c.points.map(|(body, local)| BodyPoint {
                body,
                position: poses[body] * local,
                origin: Point3::from(poses[body].translation.vector),
            });
            let slip: Vector3<f64> = (0..4)
                .map(|i| (points[i].position - c.previous[i]) * c.weights[i])
                .sum();
            let u: Vector2<f64> = c.basis.transpose() * slip;
            let y = u.norm();
            out.value += c.force * self.dissipation(y);
            if order == Order::Value {
                continue;
            }
            let (over_y, rise) = self.slope(y);
            // ∂D/∂(Σ w x) = μλ f₁(y)/y T u.
            let g = c.basis * u * (c.force * over_y);
            let curvature = if y > 0.0 {
                let e = u / y;
                (Matrix2::identity() - e * e.transpose()) * over_y + e * e.transpose() * rise
            } else {
                Matrix2::identity() * over_y
            };
            let block = c.basis * curvature * c.basis.transpose() * c.force;
            for (i, p) in points.iter().enumerate() {
                let gi = g * c.weights[i];
                out.add_point_gradient(p, &gi);
                if order >= Order::Hessian {
                    out.add_point_curvature(p, &gi);
                    for (j, q) in points.iter().enumerate() {
                        out.add_point_block(p, q, &(block * (c.weights[i] * c.weights[j])));
                    }
                }
            }
        }
        let mut c = PairContact::zero();
        c.value = out.value;
        c.gradient = out.gradient;
        c.hessian = (out.hessian + out.hessian.transpose()) * 0.5;
        Ok(c)
    }

    fn evaluate_lagged(
        &self,
        _: &mut IpcFrames,
        _: &Isometry3<f64>,
        _: &Isometry3<f64>,
    ) -> Result<LaggedContact> {
        Err(ContactError::Unsupported {
            what: "step-t derivatives of IPC's lagged friction",
        })
    }
}
