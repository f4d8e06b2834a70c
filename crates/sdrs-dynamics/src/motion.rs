//! A running simulation's state between steps: the configuration and the link poses one step
//! earlier, which carry its velocity.
//!
//! Velocities are finite differences over the step `Δt`: the generalized velocity `v` of a
//! motion is the tangent vector (see [`crate::manifold`]) that leads from θ^t back to the
//! configuration of the previous poses, over `−Δt`; a link's velocity is that of its pose
//! between the two steps.

use crate::error::{DynamicsError, Result};
use crate::handles::LinkId;
use crate::kinematics::{Kinematics, State};
use crate::model::{JointKind, Model};
use nalgebra::{DVector, Isometry3, Vector3};

/// A running simulation: the configuration θ^t and the link poses one step earlier, which the
/// inertial term of the next step needs ([`crate::Simulator::advance`]).
///
/// ```
/// use sdrs_dynamics::{Control, JointKind, Link, MassModel, Model, Motion, Simulator, State, StepSettings};
/// use sdrs_geometry::ConvexHull;
/// use nalgebra::{Isometry3, Vector3};
/// let cube = ConvexHull::cuboid(Vector3::repeat(0.1))?;
/// let ball = Link::new("ball", None, Isometry3::identity(), JointKind::Free, vec![cube], MassModel::Lumped { mass: 1.0 });
/// let model = Model::new(vec![ball])?;
/// let ball = model.link("ball")?;
/// let mut settings = StepSettings::new(0.01)?;
/// settings.gravity = 0.0;
/// let mut sim = Simulator::new(model.clone(), settings)?;
/// // Thrown along x at 2 m/s, spinning at 1 rad/s about z.
/// let mut motion = Motion::at_rest(&model, State::neutral(&model))
///     .with_body_velocity(&model, ball, Vector3::new(2.0, 0.0, 0.0), Vector3::z(), 0.01)?;
/// sim.advance(&mut motion, &Control::passive(&model))?;
/// let (linear, _angular) = motion.body_velocity(&model, ball, 0.01)?;
/// assert!((linear - Vector3::new(2.0, 0.0, 0.0)).norm() < 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Motion {
    /// θ^t.
    pub state: State,
    /// Link poses at t−1.
    pub previous: Vec<Isometry3<f64>>,
}

impl Motion {
    /// `state` at rest: the poses one step earlier are its own.
    pub fn at_rest(model: &Model, state: State) -> Self {
        let previous = Kinematics::new(model, &state).poses().to_vec();
        Self { state, previous }
    }

    /// `state` moving with generalized velocity `velocity` (one entry per DoF, in the
    /// convention of [`crate::manifold`]) over steps of `dt`: the previous poses are those of
    /// `integrate(state, −dt · velocity)`.
    pub fn from_velocity(
        model: &Model,
        state: State,
        velocity: &DVector<f64>,
        dt: f64,
    ) -> Result<Self> {
        check_dt(dt)?;
        let earlier = model.integrate(&state, &(velocity * -dt))?;
        let previous = Kinematics::new(model, &earlier).poses().to_vec();
        Ok(Self { state, previous })
    }

    /// The same motion with the free joint of `link` moving at `linear` (the link origin's
    /// velocity) and `angular` (angular velocity), both in world axes, over steps of `dt`;
    /// every other joint keeps its velocity. For a free body (a root link, as every object) these
    /// are its world velocities; for a free joint below a moving parent, its velocity relative
    /// to the parent's frame.
    pub fn with_body_velocity(
        self,
        model: &Model,
        link: LinkId,
        linear: Vector3<f64>,
        angular: Vector3<f64>,
        dt: f64,
    ) -> Result<Self> {
        let i = model.link_id(link.index())?.index();
        let spec = &model.links()[i];
        if spec.joint != JointKind::Free {
            return Err(DynamicsError::WrongJointKind {
                joint: spec.joint_label(),
                actual: spec.joint.kind_name(),
                operation: "a body velocity",
                needed: "a free joint",
            });
        }
        if let Some(index) = linear
            .iter()
            .chain(angular.iter())
            .position(|x| !x.is_finite())
        {
            return Err(DynamicsError::NonFinite {
                what: "body velocity (linear, then angular)",
                index,
            });
        }
        let mut velocity = self.velocity(model, dt)?;
        let poses = Kinematics::new(model, &self.state).poses().to_vec();
        let parent = spec.parent.map_or_else(Isometry3::identity, |p| poses[p]);
        let frame = parent * spec.attachment;
        // The translations move the link along the joint frame's axes; the rotation entries
        // are an angular velocity in the link's own axes.
        let j = model.dof_offset(i);
        velocity
            .fixed_rows_mut::<3>(j)
            .copy_from(&(frame.rotation.inverse() * linear));
        velocity
            .fixed_rows_mut::<3>(j + 3)
            .copy_from(&(poses[i].rotation.inverse() * angular));
        Self::from_velocity(model, self.state, &velocity, dt)
    }

    /// The generalized velocity over the last step of `dt`: the tangent vector from θ^t to the
    /// configuration of the previous poses ([`Model::state_from_poses`]), divided by `−dt`.
    pub fn velocity(&self, model: &Model, dt: f64) -> Result<DVector<f64>> {
        check_dt(dt)?;
        let earlier = model.state_from_poses(&self.previous, &self.state)?;
        Ok(model.difference(&self.state, &earlier)? / -dt)
    }

    /// The world velocity `(linear, angular)` of `link` over the last step of `dt`: its
    /// origin's displacement over `dt`, and the rotation vector of `R^t (R^{t−1})ᵀ` over `dt`.
    pub fn body_velocity(
        &self,
        model: &Model,
        link: LinkId,
        dt: f64,
    ) -> Result<(Vector3<f64>, Vector3<f64>)> {
        check_dt(dt)?;
        let i = model.link_id(link.index())?.index();
        if self.previous.len() != model.links().len() {
            return Err(DynamicsError::LengthMismatch {
                what: "previous link poses",
                actual: self.previous.len(),
                expected: model.links().len(),
            });
        }
        self.state.check(model)?;
        let now = Kinematics::new(model, &self.state).poses()[i];
        let before = self.previous[i];
        let linear = (now.translation.vector - before.translation.vector) / dt;
        let angular = (now.rotation * before.rotation.inverse()).scaled_axis() / dt;
        Ok((linear, angular))
    }
}

fn check_dt(dt: f64) -> Result<()> {
    if dt.is_finite() && dt > 0.0 {
        Ok(())
    } else {
        Err(DynamicsError::InvalidSetting {
            name: "dt",
            value: dt,
            allowed: "positive and finite",
        })
    }
}
