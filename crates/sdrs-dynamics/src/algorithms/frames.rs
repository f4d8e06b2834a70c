//! Forward kinematics: link and frame placements, DoF screws, and link/frame Jacobians.
//!
//! The placements are those of [`crate::forward_kinematics`] (SDRS eq. 1); the world screw of
//! DoF `k` is `S_k = (p × ω, ω)` for a rotation about the world axis `ω` through `p`, and
//! `S_k = (d, 0)` for a translation along the world direction `d` (Featherstone's Plücker
//! coordinates at the world origin, `(linear, angular)`). A frame's Jacobian columns for the
//! DoFs on its path follow from them (Pinocchio's `getFrameJacobian`, see [`JacobianFrame`]).

use super::data::RigidBodyData;
use super::spatial::{join, parts, world_inertia};
use crate::error::{DynamicsError, Result};
use crate::handles::{Frame, LinkId};
use crate::kinematics::State;
use crate::model::{Elementary, Model};
use nalgebra::{Isometry3, Matrix6, Matrix6xX, Translation3, Unit, UnitQuaternion, Vector6};

/// The coordinates of a Jacobian's columns (velocities `(linear, angular)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JacobianFrame {
    /// World axes, linear part the velocity of the body point at the world origin: the DoF
    /// screws `S_k` themselves (Pinocchio's `WORLD`).
    Spatial,
    /// World axes, linear part the velocity of the frame's origin: sdrs's twist convention
    /// ([`crate::Kinematics::jacobian`]; Pinocchio's `LOCAL_WORLD_ALIGNED`).
    Aligned,
    /// The frame's own axes, linear part the velocity of its origin (Pinocchio's `LOCAL`).
    Local,
}

impl RigidBodyData {
    /// Forward kinematics at `state`: every link's placement, every DoF's world screw and the
    /// world inertia of the body each DoF carries. The other algorithms call it themselves;
    /// call it before [`RigidBodyData::link_placement`], [`RigidBodyData::frame_placement`]
    /// and [`RigidBodyData::frame_jacobian`].
    ///
    /// ```
    /// use sdrs_dynamics::{JacobianFrame, RigidBodyData, State, scenes::chain};
    /// use nalgebra::DVector;
    /// let model = chain(2, 0.01)?.model;
    /// let mut data = RigidBodyData::new(&model);
    /// let state = State::new(&model, DVector::from_vec(vec![0.3, -0.5]))?;
    /// data.forward_kinematics(&model, &state)?;
    /// let tip = model.link("link1")?;
    /// let pose = data.link_placement(tip)?;
    /// let jacobian = data.frame_jacobian(&model, &model.frame("link1", nalgebra::Isometry3::identity())?, JacobianFrame::Aligned)?;
    /// assert_eq!(jacobian.ncols(), 2);
    /// assert!(pose.translation.vector.norm() > 0.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn forward_kinematics(&mut self, model: &Model, state: &State) -> Result<()> {
        self.check(model, state)?;
        let mut k = 0;
        for (i, link) in model.links().iter().enumerate() {
            let parent = link
                .parent
                .map_or_else(Isometry3::identity, |p| self.placements[p]);
            let mut frame = parent * link.attachment;
            for _ in 0..link.joint.dof() {
                let (motion, reference) = self.motion[k];
                let q = state.q[k];
                match motion {
                    Elementary::Rotation(axis) => {
                        if reference {
                            frame.rotation *= state.references[i];
                        }
                        let w = frame.rotation * axis;
                        self.screw[k] = join(&frame.translation.vector.cross(&w), &w);
                        frame.rotation *=
                            UnitQuaternion::from_axis_angle(&Unit::new_unchecked(axis), q);
                    }
                    Elementary::Translation(axis) => {
                        let d = frame.rotation * axis;
                        self.screw[k] = join(&d, &nalgebra::Vector3::zeros());
                        frame *= Translation3::from(axis * q);
                    }
                }
                k += 1;
            }
            self.placements[i] = frame;
        }
        for k in 0..self.dof() {
            self.inertia[k] = match &self.body[k] {
                Some(moment) => world_inertia(moment, &self.placements[self.link_of[k]]),
                None => Matrix6::zeros(),
            };
        }
        Ok(())
    }

    /// The world placement of `link` at the last [`RigidBodyData::forward_kinematics`].
    pub fn link_placement(&self, link: LinkId) -> Result<Isometry3<f64>> {
        self.placements
            .get(link.index())
            .copied()
            .ok_or(DynamicsError::LinkIndex {
                index: link.index(),
                links: self.links,
            })
    }

    /// The world placement of `frame` at the last [`RigidBodyData::forward_kinematics`].
    pub fn frame_placement(&self, frame: &Frame) -> Result<Isometry3<f64>> {
        Ok(self.link_placement(frame.link)? * frame.offset)
    }

    /// The 6 x n Jacobian of `frame` (its velocity `(linear, angular)` is `J q̇`) at the last
    /// [`RigidBodyData::forward_kinematics`], in the coordinates `kind`; columns of DoFs that
    /// do not move the frame are zero.
    pub fn frame_jacobian(
        &mut self,
        model: &Model,
        frame: &Frame,
        kind: JacobianFrame,
    ) -> Result<&Matrix6xX<f64>> {
        let pose = self.frame_placement(frame)?;
        let origin = pose.translation.vector;
        let local = pose.rotation.inverse();
        self.jacobian.fill(0.0);
        for &k in model.path(frame.link.index()) {
            let s = self.screw[k];
            let column = match kind {
                JacobianFrame::Spatial => s,
                JacobianFrame::Aligned | JacobianFrame::Local => {
                    let (v, w) = parts(&s);
                    let linear = v + w.cross(&origin);
                    if kind == JacobianFrame::Local {
                        join(&(local * linear), &(local * w))
                    } else {
                        join(&linear, &w)
                    }
                }
            };
            self.jacobian.set_column(k, &column);
        }
        Ok(&self.jacobian)
    }

    /// The world screw `S_k` of every DoF at the last [`RigidBodyData::forward_kinematics`]
    /// (the spatial Jacobian's columns, see [`JacobianFrame::Spatial`]).
    pub fn screws(&self) -> &[Vector6<f64>] {
        &self.screw
    }
}
