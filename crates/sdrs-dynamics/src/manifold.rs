//! The configuration manifold: moving a state along a generalized velocity, the velocity
//! between two states, and the state behind given link poses.
//!
//! A tangent vector (a generalized velocity times a time) has one entry per DoF, like `q`.
//! Revolute, prismatic and universal coordinates and the translations of a free joint add to
//! the coordinates. The three rotation entries of a spherical or free joint are a rotation
//! vector in the joint's moving frame (the link's own axes, as MuJoCo's ball-joint velocity):
//! they turn the joint's rotation `R = R_ref Rx(q₀) Ry(q₁) Rz(q₂)` into `R Exp(δ)`. At a
//! re-centred state (the stepper's, where those coordinates are zero) this agrees with the
//! coordinates to first order.

use crate::error::{DynamicsError, Result, check_vector};
use crate::kinematics::{State, chart_rotation, forward_kinematics};
use crate::model::{JointKind, Model};
use nalgebra::{DVector, Isometry3, Unit, UnitQuaternion, Vector3};
use std::f64::consts::{PI, TAU};

/// How far (m or rad) a pose may be from one its joint allows in [`Model::state_from_poses`]:
/// round-off of forward kinematics, not a modelling tolerance.
const REACH_TOLERANCE: f64 = 1e-8;

impl Model {
    /// The state reached from `state` by the tangent vector `dq` (see the [module
    /// docs](crate::manifold)); spherical and free joints come out re-centred.
    ///
    /// ```
    /// use sdrs_dynamics::{JointKind, Link, MassModel, Model, State};
    /// use sdrs_geometry::ConvexHull;
    /// use nalgebra::{DVector, Isometry3, Vector3};
    /// let cube = ConvexHull::cuboid(Vector3::repeat(0.1))?;
    /// let body = Link::new("box", None, Isometry3::identity(), JointKind::Free, vec![cube], MassModel::Lumped { mass: 1.0 });
    /// let model = Model::new(vec![body])?;
    /// let a = State::zero(&model);
    /// // 1 m along x, and a quarter turn about z.
    /// let v = DVector::from_vec(vec![1.0, 0.0, 0.0, 0.0, 0.0, std::f64::consts::FRAC_PI_2]);
    /// let b = model.integrate(&a, &v)?;
    /// assert!((model.difference(&a, &b)? - &v).norm() < 1e-12);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn integrate(&self, state: &State, dq: &DVector<f64>) -> Result<State> {
        state.check(self)?;
        check_vector("tangent vector", dq, self.dof())?;
        let mut out = state.clone();
        out.q += dq;
        for i in 0..self.links().len() {
            if let Some(r) = self.rotation_dofs(i) {
                let turn = chart_rotation(&state.q.as_slice()[r.clone()]);
                let delta =
                    UnitQuaternion::from_scaled_axis(dq.fixed_rows::<3>(r.start).into_owned());
                out.references[i] = state.references[i] * turn * delta;
                out.q.rows_mut(r.start, 3).fill(0.0);
            }
        }
        Ok(out)
    }

    /// The tangent vector from `a` to `b`: `integrate(a, difference(a, b))` has `b`'s poses,
    /// and `difference(a, integrate(a, v)) = v` while every joint rotation in `v` is below half
    /// a turn. Revolute angles are not wrapped: `q` is a coordinate on ℝ.
    pub fn difference(&self, a: &State, b: &State) -> Result<DVector<f64>> {
        a.check(self)?;
        b.check(self)?;
        let mut v = &b.q - &a.q;
        for i in 0..self.links().len() {
            if let Some(r) = self.rotation_dofs(i) {
                let rotation =
                    |s: &State| s.references[i] * chart_rotation(&s.q.as_slice()[r.clone()]);
                let delta = (rotation(a).inverse() * rotation(b)).scaled_axis();
                v.rows_mut(r.start, 3).copy_from(&delta);
            }
        }
        Ok(v)
    }

    /// The state whose forward kinematics gives the link `poses` (one world pose per link),
    /// inverting each joint from the pose of its link relative to its parent. Revolute and
    /// universal angles are taken within half a turn of `near`'s (so velocities across ±π come
    /// out right); spherical and free joints come out re-centred. Poses that the joints cannot
    /// produce (a revolute joint that also translates) give [`DynamicsError::UnreachablePose`].
    ///
    /// ```
    /// use sdrs_dynamics::scenes::chain;
    /// use sdrs_dynamics::{Kinematics, State};
    /// use nalgebra::DVector;
    /// let model = chain(3, 0.01)?.model;
    /// let state = State::new(&model, DVector::from_vec(vec![0.3, -1.2, 3.1]))?;
    /// let poses = Kinematics::new(&model, &state).poses().to_vec();
    /// let back = model.state_from_poses(&poses, &State::zero(&model))?;
    /// assert!((back.q - state.q).norm() < 1e-12);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn state_from_poses(&self, poses: &[Isometry3<f64>], near: &State) -> Result<State> {
        near.check(self)?;
        if poses.len() != self.links().len() {
            return Err(DynamicsError::LengthMismatch {
                what: "link poses",
                actual: poses.len(),
                expected: self.links().len(),
            });
        }
        if let Some(index) = poses.iter().position(|p| !finite_pose(p)) {
            return Err(DynamicsError::NonFinite {
                what: "link poses",
                index,
            });
        }
        let mut out = near.clone();
        for (i, link) in self.links().iter().enumerate() {
            let relative = self.joint_relative(poses, i);
            let rotation = relative.rotation;
            let j = self.dof_offset(i);
            match &link.joint {
                JointKind::Fixed => {}
                JointKind::Revolute { .. } | JointKind::Prismatic { .. } => {
                    out.q[j] = self.joint_coordinate(poses, i, near.q[j]);
                }
                JointKind::Universal { first, second } => {
                    // R = Rot(first, α) Rot(second, β) turns `second` by α about `first`.
                    let (s, rs) = (*second, rotation * second);
                    let across = |v: &Vector3<f64>| v - first * first.dot(v);
                    let (a, b) = (across(&s), across(&rs));
                    let alpha = if a.norm() > 1e-9 && b.norm() > 1e-9 {
                        unwrap(first.dot(&a.cross(&b)).atan2(a.dot(&b)), near.q[j])
                    } else {
                        near.q[j]
                    };
                    let rest =
                        UnitQuaternion::from_axis_angle(&Unit::new_unchecked(*first), -alpha)
                            * rotation;
                    out.q[j] = alpha;
                    out.q[j + 1] = unwrap(angle_about(&rest, second), near.q[j + 1]);
                }
                JointKind::Spherical => {
                    out.references[i] = rotation;
                    out.q.rows_mut(j, 3).fill(0.0);
                }
                JointKind::Free => {
                    out.q.rows_mut(j, 3).copy_from(&relative.translation.vector);
                    out.references[i] = rotation;
                    out.q.rows_mut(j + 3, 3).fill(0.0);
                }
            }
        }
        let (reached, _) = forward_kinematics(self, out.q.as_slice(), &out.references);
        for (i, (pose, given)) in reached.iter().zip(poses).enumerate() {
            let error = (pose.translation.vector - given.translation.vector)
                .norm()
                .max(pose.rotation.angle_to(&given.rotation));
            if error > REACH_TOLERANCE {
                return Err(DynamicsError::UnreachablePose {
                    link: self.links()[i].name.clone(),
                    error,
                });
            }
        }
        Ok(out)
    }

    /// The DoFs of link `i`'s joint rotation vector, for spherical and free joints.
    fn rotation_dofs(&self, i: usize) -> Option<std::ops::Range<usize>> {
        let joint = &self.links()[i].joint;
        joint.has_reference().then(|| {
            let end = self.dof_offset(i) + joint.dof();
            end - 3..end
        })
    }

    /// The first DoF of each spherical or free joint's three rotation coordinates (the
    /// coordinates a re-centred state keeps at zero), in link order.
    ///
    /// ```
    /// use sdrs_dynamics::scenes::box_on_incline;
    /// let model = box_on_incline(0.0, 0.5, 0.01)?.model; // a fixed slab and a free box
    /// assert_eq!(model.rotation_blocks().collect::<Vec<_>>(), vec![3]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn rotation_blocks(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.links().len()).filter_map(|i| self.rotation_dofs(i).map(|r| r.start))
    }

    /// Link `link`'s joint frame at link `poses`: its parent's pose times its attachment.
    pub(crate) fn joint_frame(&self, poses: &[Isometry3<f64>], link: usize) -> Isometry3<f64> {
        let l = &self.links()[link];
        l.parent.map_or(l.attachment, |p| poses[p] * l.attachment)
    }

    /// Link `link`'s pose in its joint frame.
    fn joint_relative(&self, poses: &[Isometry3<f64>], link: usize) -> Isometry3<f64> {
        self.joint_frame(poses, link).inverse() * poses[link]
    }

    /// The coordinate of link `link`'s revolute or prismatic joint at link `poses` (an angle
    /// within half a turn of `near`); 0 for other joints.
    pub(crate) fn joint_coordinate(&self, poses: &[Isometry3<f64>], link: usize, near: f64) -> f64 {
        let relative = self.joint_relative(poses, link);
        match &self.links()[link].joint {
            JointKind::Revolute { axis } => unwrap(angle_about(&relative.rotation, axis), near),
            JointKind::Prismatic { axis } => axis.dot(&relative.translation.vector),
            _ => 0.0,
        }
    }
}

/// The angle in (−π, π] of the part of `rotation` about the unit `axis`.
fn angle_about(rotation: &UnitQuaternion<f64>, axis: &Vector3<f64>) -> f64 {
    let angle = 2.0 * rotation.imag().dot(axis).atan2(rotation.w);
    if angle > PI {
        angle - TAU
    } else if angle <= -PI {
        angle + TAU
    } else {
        angle
    }
}

/// `angle` plus the whole turns that bring it within half a turn of `near`.
fn unwrap(angle: f64, near: f64) -> f64 {
    angle + TAU * ((near - angle) / TAU).round()
}

fn finite_pose(pose: &Isometry3<f64>) -> bool {
    pose.translation.vector.iter().all(|x| x.is_finite())
        && pose.rotation.coords.iter().all(|x| x.is_finite())
}
