//! The lagged data of plane friction: what step t's normal contact leaves for step t+1.

use crate::barrier::barrier as p_s;
use crate::error::Result;
use crate::plane::{PlaneBarrier, PlaneCache};
use nalgebra::{Isometry3, Matrix3x2, Point3, SMatrix, Vector3, Vector4};
use sdrs_geometry::ConvexHull;
use std::sync::atomic::{AtomicU64, Ordering};

/// One vertex pressed against the separating plane at step t.
#[derive(Debug, Clone, PartialEq)]
pub struct FrictionPoint {
    /// 0 for the first body of the pair, 1 for the second.
    pub body: usize,
    /// Index of the vertex in that body's hull.
    pub vertex: usize,
    /// The vertex in its body's local frame.
    pub local: Point3<f64>,
    /// Its world position at step t.
    pub position: Vector3<f64>,
    /// Its plane distance `q = σ(n·y + o)` at step t.
    pub distance: f64,
    /// Magnitude of its normal force at step t: `stiffness · |P'_s(q)| · |n|` for a hull pair
    /// (SDRS eq. 8), `stiffness · |∂P_local/∂y|` for a triangle pair (long-range eq. 12).
    pub normal_force: f64,
    /// `∂p*/∂x`: how the step-t plane moves with this local vertex (4x3).
    pub plane_derivative: SMatrix<f64, 4, 3>,
}

/// Where a frame's normal forces come from, and so how they move with the step-t state.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Forces {
    /// The SDRS plane barrier with support `s`: each force is a function of the plane and of
    /// its point's step-t position (SDRS eq. 8).
    Barrier { support: f64 },
    /// A long-range triangle pair: the frame's six points are the two triangles' corners, and
    /// the forces are functions of all six step-t positions, `∂|f_k|/∂y_l` (6x18).
    Triangles {
        derivative: Box<SMatrix<f64, 6, 18>>,
    },
}

/// The separating plane of step t (normal and in-plane basis) and the vertices it pressed,
/// with their normal forces: everything SDRS friction (eq. 8-13) lags by one step. Built for
/// a hull pair by [`FrictionFrame::new`], for a long-range triangle pair by
/// [`crate::long_range::friction`].
///
/// Two frames are equal when their data are; [`FrictionFrame::id`] tells copies of one frame
/// apart from frames computed anew without comparing the data.
#[derive(Debug, Clone)]
pub struct FrictionFrame {
    /// Unique to this frame's data: new for every frame built and every change of one.
    id: u64,
    plane: Vector4<f64>,
    normal: Vector3<f64>,
    basis: Matrix3x2<f64>,
    points: Vec<FrictionPoint>,
    poses: [Isometry3<f64>; 2],
    plane_pose_derivative: SMatrix<f64, 4, 12>,
    stiffness: f64,
    forces: Forces,
}

/// An orthonormal basis of the plane orthogonal to the unit vector `n`.
fn tangent_basis(n: &Vector3<f64>) -> Matrix3x2<f64> {
    // Cross with the axis least aligned with n: well conditioned for any n.
    let axis = Vector3::ith(n.iamin(), 1.0);
    let b1 = n.cross(&axis).normalize();
    let b2 = n.cross(&b1);
    Matrix3x2::from_columns(&[b1, b2])
}

impl FrictionFrame {
    /// The frame of a hull pair at step t: solves (warm-started from `cache`) the plane barrier
    /// at the step-t poses and records every vertex with a non-zero normal force. `stiffness`
    /// is the multiplier of the contact energy in the time-stepping objective (SDRS eq. 14),
    /// so that the forces are those the bodies feel. `None` when the pair is out of contact.
    pub fn new(
        barrier: &PlaneBarrier,
        stiffness: f64,
        a: &ConvexHull,
        pose_a: &Isometry3<f64>,
        b: &ConvexHull,
        pose_b: &Isometry3<f64>,
        cache: &mut PlaneCache,
    ) -> Result<Option<Self>> {
        crate::error::positive("stiffness", stiffness)?;
        let Some(sensitivity) = barrier.plane_sensitivity(a, pose_a, b, pose_b, cache)? else {
            return Ok(None);
        };
        let p = sensitivity.plane;
        let (n, o) = (p.xyz(), p.w);
        let s = barrier.support();
        let hulls = [(a, pose_a, -1.0), (b, pose_b, 1.0)];
        // The pressed vertices are exactly the vertices active in the barrier (q < s).
        let points = sensitivity
            .vertices
            .into_iter()
            .filter_map(|v| {
                let (hull, pose, sign) = hulls[v.body];
                let local = hull.vertices()[v.vertex];
                let y = pose * local;
                let q = sign * (n.dot(&y.coords) + o);
                let (_, d1, _) = p_s(q, s).filter(|_| q < s)?;
                Some(FrictionPoint {
                    body: v.body,
                    vertex: v.vertex,
                    local,
                    position: y.coords,
                    distance: q,
                    normal_force: stiffness * d1.abs() * n.norm(),
                    plane_derivative: v.derivative,
                })
            })
            .collect();
        Ok(Some(Self::assemble(
            p,
            points,
            [*pose_a, *pose_b],
            sensitivity.pose,
            stiffness,
            Forces::Barrier { support: s },
        )))
    }

    /// A frame from its parts; the unit normal and basis follow from the plane.
    pub(crate) fn assemble(
        plane: Vector4<f64>,
        points: Vec<FrictionPoint>,
        poses: [Isometry3<f64>; 2],
        plane_pose_derivative: SMatrix<f64, 4, 12>,
        stiffness: f64,
        forces: Forces,
    ) -> Self {
        let normal = plane.xyz().normalize();
        Self {
            id: next_id(),
            plane,
            normal,
            basis: tangent_basis(&normal),
            points,
            poses,
            plane_pose_derivative,
            stiffness,
            forces,
        }
    }

    /// The step-t plane `(n, o)` (unnormalised, as the barrier solves for it).
    pub fn plane(&self) -> Vector4<f64> {
        self.plane
    }

    /// `∂p*/∂ξ^t` (4x12): how the step-t plane moves with the step-t twists of the two bodies.
    pub fn plane_pose_derivative(&self) -> &SMatrix<f64, 4, 12> {
        &self.plane_pose_derivative
    }

    /// The step-t poses of the two bodies.
    pub fn poses(&self) -> &[Isometry3<f64>; 2] {
        &self.poses
    }

    /// The contact stiffness the normal forces were scaled by.
    pub fn stiffness(&self) -> f64 {
        self.stiffness
    }

    /// The barrier support `s` of the step-t plane; `None` for a triangle-pair frame, whose
    /// forces come from the long-range potential.
    pub fn support(&self) -> Option<f64> {
        match self.forces {
            Forces::Barrier { support } => Some(support),
            Forces::Triangles { .. } => None,
        }
    }

    pub(crate) fn forces(&self) -> &Forces {
        &self.forces
    }

    /// The unit normal of the step-t plane (from the first body towards the second).
    pub fn normal(&self) -> Vector3<f64> {
        self.normal
    }

    /// The in-plane basis `B` (3x2, orthonormal columns).
    pub fn basis(&self) -> &Matrix3x2<f64> {
        &self.basis
    }

    /// The pressed vertices.
    pub fn points(&self) -> &[FrictionPoint] {
        &self.points
    }

    /// Turns the in-plane basis by `angle` about the normal. The friction energy does not
    /// depend on this choice; this exists to let that be checked. Errors on a non-finite
    /// angle.
    pub fn rotate_basis(&mut self, angle: f64) -> crate::error::Result<()> {
        if !angle.is_finite() {
            return Err(crate::error::ContactError::InvalidSetting {
                name: "angle",
                value: angle,
                allowed: "finite (radians)",
            });
        }
        let (c, s) = (angle.cos(), angle.sin());
        let (b1, b2) = (
            self.basis.column(0).into_owned(),
            self.basis.column(1).into_owned(),
        );
        self.basis = Matrix3x2::from_columns(&[b1 * c + b2 * s, b2 * c - b1 * s]);
        self.id = next_id();
        Ok(())
    }

    /// An identifier shared by this frame and its clones only: a frame built anew, or changed
    /// ([`FrictionFrame::rotate_basis`]), gets a new one. What is prepared from a frame for its
    /// inner solves is kept under it, so a solve checks the frame it is given in one
    /// comparison.
    pub fn id(&self) -> u64 {
        self.id
    }
}

/// A new frame identifier ([`FrictionFrame::id`]).
fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl PartialEq for FrictionFrame {
    /// The frames' data are equal (whatever their [`FrictionFrame::id`]s).
    fn eq(&self, other: &Self) -> bool {
        self.plane == other.plane
            && self.normal == other.normal
            && self.basis == other.basis
            && self.points == other.points
            && self.poses == other.poses
            && self.plane_pose_derivative == other.plane_pose_derivative
            && self.stiffness == other.stiffness
            && self.forces == other.forces
    }
}
