//! The lagged data of plane friction: what step t's normal contact leaves for step t+1.

use crate::barrier::barrier as p_s;
use crate::error::{ContactError, Result};
use crate::model::{ContactModel, Order, PairOutcome};
use crate::plane::{PlaneBarrier, PlaneCache};
use nalgebra::{Isometry3, Matrix3x2, Point3, Vector3};
use sdrs_geometry::ConvexHull;

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
    /// Magnitude of its normal force at step t, `|f⊥| = stiffness · |P'_s(q)| · |n|` (eq. 8).
    pub normal_force: f64,
}

/// The separating plane of step t (normal and in-plane basis) and the vertices it pressed,
/// with their normal forces: everything SDRS friction (eq. 8-13) lags by one step.
#[derive(Debug, Clone, PartialEq)]
pub struct FrictionFrame {
    normal: Vector3<f64>,
    basis: Matrix3x2<f64>,
    points: Vec<FrictionPoint>,
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
        match barrier.evaluate(a, pose_a, b, pose_b, cache, Order::Value)? {
            PairOutcome::Penetrating => return Err(ContactError::PenetratingFrame),
            PairOutcome::Separated(c) if c.value == 0.0 => return Ok(None),
            PairOutcome::Separated(_) => {}
        }
        let Some((n, o)) = cache.plane() else {
            return Ok(None);
        };
        let s = barrier.support();
        let mut points = Vec::new();
        for (body, (hull, pose, sign)) in [(a, pose_a, -1.0), (b, pose_b, 1.0)]
            .into_iter()
            .enumerate()
        {
            for (vertex, x) in hull.vertices().iter().enumerate() {
                let y = pose * x;
                let q = sign * (n.dot(&y.coords) + o);
                if let Some((_, d1, _)) = p_s(q, s).filter(|_| q < s) {
                    points.push(FrictionPoint {
                        body,
                        vertex,
                        local: *x,
                        position: y.coords,
                        normal_force: stiffness * d1.abs() * n.norm(),
                    });
                }
            }
        }
        let normal = n.normalize();
        Ok(Some(Self {
            normal,
            basis: tangent_basis(&normal),
            points,
        }))
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
    /// depend on this choice; this exists to let that be checked.
    pub fn rotate_basis(&mut self, angle: f64) {
        let (c, s) = (angle.cos(), angle.sin());
        let (b1, b2) = (
            self.basis.column(0).into_owned(),
            self.basis.column(1).into_owned(),
        );
        self.basis = Matrix3x2::from_columns(&[b1 * c + b2 * s, b2 * c - b1 * s]);
    }
}
