//! Friction for the long-range potential (long-range paper, appendix A.3).
//!
//! Only triangle pairs take part, through a locally supported version of their potential
//! (eq. 12): with `r` the distance of the two triangles' centroids, `d₁ = R_i + R_j` (their
//! leaf-sphere radii) and `d₂ = (1 + ε) d₁`,
//!
//! ```text
//! P_local = (1 − φ(r)) P^{t_i ∪ t_j},    φ = Φ((r − d₁)/(d₂ − d₁))   (eq. 4 with P_{d₂} = 0)
//! ```
//!
//! so a pair rubs only while its centroids are closer than `d₂` (the normal potential still
//! acts at any distance). Each such pair lags, from step t, its optimal separating plane and
//! the normal forces `κ |∂P_local/∂y_k|` on its six corners, and damps the corners' velocity
//! relative to that plane exactly as SDRS friction does for a hull pair (SDRS eq. 8-13,
//! [`crate::friction`]): the plane is a zero-mass object whose in-plane motion minimises the
//! dissipation. The paper leaves this damping term to Ye et al. (2025); this is that term.
//!
//! The corners' step-t positions decide the plane and the forces, so the step-t derivatives
//! go through the triangle potential's Hessian (for the forces) and its plane sensitivity
//! `∂p/∂y = −L_pp⁻¹ L_py` (implicit function theorem), both from
//! [`super::triangle::TrianglePotential`].

use super::MeshShape;
use super::radial::blend;
use super::triangle::{Matrix18, Vector18, triangle_potential};
use crate::error::{ContactError, Result, positive};
use crate::friction::frame::{Forces, FrictionPoint};
use crate::friction::{FrictionCache, FrictionFrame, LaggedContact, PlaneFriction};
use crate::model::{LaggedFriction, Order, PairContact};
use nalgebra::{Isometry3, Matrix3, Point3, SMatrix, Vector3};
use sdrs_geometry::sphere_tree::{NodeId, NodeKind};
use sdrs_geometry::twist::{Matrix12, Vector12};

/// Long-range friction: [`PlaneFriction`] on every triangle pair within the blend margin.
///
/// ```
/// use sdrs_contact::friction::PlaneFriction;
/// use sdrs_contact::long_range::{MeshShape, friction::LongRangeFriction};
/// use sdrs_contact::{LaggedFriction, Order};
/// use sdrs_geometry::TriMesh;
/// use nalgebra::{Isometry3, Vector3};
/// let slab = MeshShape::new(TriMesh::cuboid(Vector3::new(1.0, 1.0, 0.1))?)?;
/// let block = MeshShape::new(TriMesh::cuboid(Vector3::repeat(0.1))?)?;
/// let friction = LongRangeFriction::new(PlaneFriction::new(0.5, 0.01)?, 0.5)?;
/// let (below, at_t) = (Isometry3::translation(0.0, 0.0, -0.1), Isometry3::translation(0.0, 0.0, 0.101));
/// let mut frames = friction.frames(1e-3, &slab, &below, &block, &at_t)?;
/// assert!(!frames.is_empty());
/// // The block slides 1 cm along x during the step: friction pushes it back along −x.
/// let next = Isometry3::translation(0.01, 0.0, 0.101);
/// let f = friction.evaluate(&mut frames, &below, &next, Order::Gradient)?;
/// assert!(f.gradient[6] > 0.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct LongRangeFriction {
    friction: PlaneFriction,
    epsilon: f64,
    max_iterations: usize,
}

/// The lagged data of one pair of bodies: a friction frame (and warm start) per triangle pair
/// within the margin at step t.
#[derive(Debug, Clone, Default)]
pub struct TriangleFrames {
    frames: Vec<(FrictionFrame, FrictionCache)>,
}

impl TriangleFrames {
    /// The frames, one per rubbing triangle pair.
    pub fn frames(&self) -> impl Iterator<Item = &FrictionFrame> {
        self.frames.iter().map(|(f, _)| f)
    }

    /// The number of rubbing triangle pairs.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// Whether no triangle pair rubs.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }
}

/// One body of a pair at step t.
struct Placed<'a> {
    shape: &'a MeshShape,
    pose: &'a Isometry3<f64>,
}

impl<'a> Placed<'a> {
    fn new(shape: &'a MeshShape, pose: &'a Isometry3<f64>) -> Self {
        Self { shape, pose }
    }

    /// Node `id`'s world centre (computed where the search reaches it, as in the potential's
    /// recursion).
    fn centre(&self, id: NodeId) -> Point3<f64> {
        self.pose * self.shape.tree().center(id)
    }

    fn corners(&self, triangle: u32) -> [u32; 3] {
        self.shape.mesh().triangles()[triangle as usize]
    }
}

impl LongRangeFriction {
    /// Friction `friction` (coefficient, time step, smoothing) on triangle pairs whose
    /// centroids are closer than `(1 + epsilon)` times the sum of their radii.
    pub fn new(friction: PlaneFriction, epsilon: f64) -> Result<Self> {
        Ok(Self {
            friction,
            epsilon: positive("epsilon", epsilon)?,
            max_iterations: 100,
        })
    }

    /// Collects the triangle pairs under nodes `i`, `j` whose centroids are closer than `d₂`.
    /// The hierarchy is layered (children's spheres inside their parent's), so no pair under
    /// `I`, `J` is within its margin once `|x_I − x_J| ≥ (1 + ε)(R_I + R_J)`.
    fn rubbing(&self, bodies: &[Placed; 2], i: NodeId, j: NodeId, out: &mut Vec<(u32, u32)>) {
        let (ta, tb) = (bodies[0].shape.tree(), bodies[1].shape.tree());
        let r = (bodies[0].centre(i) - bodies[1].centre(j)).norm();
        if r >= (1.0 + self.epsilon) * (ta.radius(i) + tb.radius(j)) {
            return;
        }
        match (ta.kind(i), tb.kind(j)) {
            (NodeKind::Leaf(x), NodeKind::Leaf(y)) => out.push((x, y)),
            (NodeKind::Internal(l, r), NodeKind::Leaf(_)) => {
                self.rubbing(bodies, l, j, out);
                self.rubbing(bodies, r, j, out);
            }
            (NodeKind::Leaf(_), NodeKind::Internal(l, r)) => {
                self.rubbing(bodies, i, l, out);
                self.rubbing(bodies, i, r, out);
            }
            (NodeKind::Internal(il, ir), NodeKind::Internal(jl, jr)) => {
                for x in [il, ir] {
                    for y in [jl, jr] {
                        self.rubbing(bodies, x, y, out);
                    }
                }
            }
        }
    }

    /// The frame of triangles `ta` (body A) and `tb` (body B); `None` when the blend weight
    /// is 1 (the pair is exactly at the margin).
    fn triangle_frame(
        &self,
        stiffness: f64,
        bodies: &[Placed; 2],
        ta: u32,
        tb: u32,
    ) -> Result<Option<FrictionFrame>> {
        let ids = [bodies[0].corners(ta), bodies[1].corners(tb)];
        let local =
            |body: usize, k: usize| bodies[body].shape.mesh().vertices()[ids[body][k] as usize];
        let world: [[Point3<f64>; 3]; 2] =
            std::array::from_fn(|body| std::array::from_fn(|k| bodies[body].pose * local(body, k)));
        let Some(t) = triangle_potential(&world[0], &world[1], None, self.max_iterations)? else {
            return Err(ContactError::PenetratingFrame);
        };
        let centroid = |body: usize| {
            Point3::from(world[body].iter().map(|p| p.coords).sum::<Vector3<f64>>() / 3.0)
        };
        let offset = centroid(0) - centroid(1);
        let r = offset.norm();
        // Leaf-sphere radii (the corners' largest distance from the centroid, as in the
        // hierarchy): constant under rigid motion.
        let radius = |body: usize| {
            let c = centroid(body);
            world[body]
                .iter()
                .map(|p| (p - c).norm())
                .fold(0.0, f64::max)
        };
        let d1 = radius(0) + radius(1);
        let phi = blend(r, d1, (1.0 + self.epsilon) * d1);
        if phi.value >= 1.0 {
            return Ok(None);
        }
        let (gradient, hessian) =
            local_potential(&t.gradient, &t.hessian(), t.value, &offset, &phi);
        // Forces κ|g_k| and their derivatives κ ĝ_kᵀ ∂g_k/∂y.
        let mut forces = [0.0; 6];
        let mut derivative = SMatrix::<f64, 6, 18>::zeros();
        for k in 0..6 {
            let g = gradient.fixed_rows::<3>(3 * k);
            forces[k] = stiffness * g.norm();
            if forces[k] > 0.0 {
                let unit = g / g.norm();
                derivative.set_row(
                    k,
                    &(unit.transpose() * hessian.fixed_rows::<3>(3 * k) * stiffness),
                );
            }
        }
        // The frame's plane follows SDRS's orientation (normal from A towards B): −p.
        let plane_by_corner: SMatrix<f64, 4, 18> = t.factor().solve_columns(&t.mixed.transpose());
        let mut plane_pose = SMatrix::<f64, 4, 12>::zeros();
        let points = (0..6)
            .map(|k| {
                let (body, c) = (k / 3, k % 3);
                let pose = bodies[body].pose;
                let by_corner = plane_by_corner.fixed_view::<4, 3>(0, 3 * k).into_owned();
                let arm = world[body][c].coords - pose.translation.vector;
                let mut columns = plane_pose.fixed_view_mut::<4, 6>(0, 6 * body);
                let mut v = columns.fixed_view_mut::<4, 3>(0, 0);
                v += by_corner;
                let mut w = columns.fixed_view_mut::<4, 3>(0, 3);
                w -= by_corner * arm.cross_matrix();
                let slack = if body == 0 { 1.0 } else { -1.0 }
                    * (t.plane.xyz().dot(&world[body][c].coords) + t.plane.w);
                FrictionPoint {
                    body,
                    vertex: ids[body][c] as usize,
                    local: local(body, c),
                    position: world[body][c].coords,
                    distance: slack,
                    normal_force: forces[k],
                    plane_derivative: by_corner * Matrix3::from(pose.rotation),
                }
            })
            .collect();
        Ok(Some(FrictionFrame::assemble(
            -t.plane,
            points,
            [*bodies[0].pose, *bodies[1].pose],
            plane_pose,
            stiffness,
            Forces::Triangles {
                derivative: Box::new(derivative),
            },
        )))
    }
}

/// Adds a pair's energy, gradient, Hessian and iterations to `sum`.
fn add(sum: &mut PairContact, c: &PairContact) {
    sum.value += c.value;
    sum.gradient += c.gradient;
    sum.hessian += c.hessian;
    sum.iterations += c.iterations;
}

/// Gradient and Hessian of `P_local = (1 − φ(r)) P` in the six corners, from those of `P`,
/// its value, the centroid offset `x_A − x_B` (so `∂r/∂y_k = ±e/3`) and the blend weight.
fn local_potential(
    gradient: &Vector18,
    hessian: &Matrix18,
    value: f64,
    offset: &Vector3<f64>,
    phi: &super::radial::Radial,
) -> (Vector18, Matrix18) {
    let r = offset.norm();
    let e = offset / r;
    let sign = |k: usize| if k < 3 { 1.0 } else { -1.0 };
    let mut dr = Vector18::zeros();
    let mut ddr = Matrix18::zeros();
    let transverse = (Matrix3::identity() - e * e.transpose()) / (9.0 * r);
    for k in 0..6 {
        dr.fixed_rows_mut::<3>(3 * k)
            .copy_from(&(e * (sign(k) / 3.0)));
        for l in 0..6 {
            ddr.fixed_view_mut::<3, 3>(3 * k, 3 * l)
                .copy_from(&(transverse * (sign(k) * sign(l))));
        }
    }
    let keep = 1.0 - phi.value;
    let g = gradient * keep - dr * (value * phi.first);
    let h = hessian * keep
        - (dr * gradient.transpose() + gradient * dr.transpose()) * phi.first
        - (dr * dr.transpose() * phi.second + ddr * phi.first) * value;
    (g, h)
}

impl LaggedFriction for LongRangeFriction {
    type Shape = MeshShape;
    type Frames = TriangleFrames;

    /// The lagged frames of bodies `a` and `b` at their step-t poses, with the normal forces
    /// of the contact energy scaled by `stiffness`. Errors with
    /// [`ContactError::PenetratingFrame`] when two triangles touch.
    fn frames(
        &self,
        stiffness: f64,
        a: &MeshShape,
        pose_a: &Isometry3<f64>,
        b: &MeshShape,
        pose_b: &Isometry3<f64>,
    ) -> Result<TriangleFrames> {
        positive("stiffness", stiffness)?;
        crate::model::check_poses(pose_a, pose_b)?;
        let bodies = [Placed::new(a, pose_a), Placed::new(b, pose_b)];
        let mut pairs = Vec::new();
        self.rubbing(&bodies, a.tree().root(), b.tree().root(), &mut pairs);
        let frames = pairs
            .into_iter()
            .map(|(ta, tb)| {
                let frame = self.triangle_frame(stiffness, &bodies, ta, tb)?;
                Ok(frame.map(|f| (f, FrictionCache::default())))
            })
            .filter_map(Result::transpose)
            .collect::<Result<_>>()?;
        Ok(TriangleFrames { frames })
    }

    /// The friction energy at the step-(t+1) poses with its derivatives up to
    /// [`Order::Hessian`]. Mesh-vertex derivatives ([`Order::Design`]) are not provided (as
    /// for the potential): [`ContactError::Unsupported`].
    fn evaluate(
        &self,
        frames: &mut TriangleFrames,
        pose_a: &Isometry3<f64>,
        pose_b: &Isometry3<f64>,
        order: Order,
    ) -> Result<PairContact> {
        crate::model::check_poses(pose_a, pose_b)?;
        if order == Order::Design {
            return Err(ContactError::Unsupported {
                what: "mesh-vertex (design) derivatives of the long-range friction",
            });
        }
        let mut out = PairContact::zero();
        for (frame, cache) in &mut frames.frames {
            let c = self
                .friction
                .evaluate(frame, pose_a, pose_b, cache, order)?;
            add(&mut out, &c);
        }
        Ok(out)
    }

    /// [`LaggedFriction::evaluate`] at [`Order::Hessian`] with every other derivative the
    /// adjoint of a time step needs: the gradient with respect to the step-t twists and
    /// `∂²U_f/∂ξ^{t+1}∂ξ^t`, through the lagged planes, forces and positions.
    fn evaluate_lagged(
        &self,
        frames: &mut TriangleFrames,
        pose_a: &Isometry3<f64>,
        pose_b: &Isometry3<f64>,
    ) -> Result<LaggedContact> {
        crate::model::check_poses(pose_a, pose_b)?;
        let mut contact = PairContact::zero();
        let (mut step_gradient, mut step_mixed) = (Vector12::zeros(), Matrix12::zeros());
        let mut force_scale_mixed = Vector12::zeros();
        for (frame, cache) in &mut frames.frames {
            let l = self
                .friction
                .evaluate_lagged(frame, pose_a, pose_b, cache)?;
            add(&mut contact, &l.contact);
            step_gradient += l.step_gradient;
            step_mixed += l.step_mixed;
            force_scale_mixed += l.force_scale_mixed;
        }
        Ok(LaggedContact {
            contact,
            step_gradient,
            step_mixed,
            force_scale_mixed,
        })
    }
}
