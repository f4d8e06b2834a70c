//! External wrenches on links as generalized forces (as MuJoCo's `mj_applyFT`).
//!
//! A force `f` at a world point `p` of link `i` and a torque `τ` (both in world axes) do the
//! work `f·δp + τ·δφ` under a small motion; with link `i`'s Jacobian columns
//! `(u_k, ω_k)` = (its origin `o`'s velocity, its angular velocity) per unit of DoF `k`, the
//! point moves by `u_k + ω_k × (p − o)`, so the generalized force is
//! `Q_k = u_k·f + ω_k·(τ + (p − o) × f)`: `Jᵀ w` at the configuration of the kinematics.

use crate::error::{DynamicsError, Result, check_vector};
use crate::handles::LinkId;
use crate::kinematics::Kinematics;
use crate::model::Model;
use crate::stepper::Control;
use nalgebra::{DVector, Point3, Vector3};

impl Model {
    /// The generalized force of a wrench on `link` at the configuration of `kinematics`: the
    /// force `force` (world axes) applied at `point` (in the link's frame) and the torque
    /// `torque` (world axes). See the [module docs](crate::wrench).
    pub fn wrench_to_force(
        &self,
        kinematics: &Kinematics,
        link: LinkId,
        point: &Point3<f64>,
        force: &Vector3<f64>,
        torque: &Vector3<f64>,
    ) -> Result<DVector<f64>> {
        let mut out = DVector::zeros(self.dof());
        self.add_wrench_to(&mut out, kinematics, link, point, force, torque)?;
        Ok(out)
    }

    fn add_wrench_to(
        &self,
        out: &mut DVector<f64>,
        kinematics: &Kinematics,
        link: LinkId,
        point: &Point3<f64>,
        force: &Vector3<f64>,
        torque: &Vector3<f64>,
    ) -> Result<()> {
        let i = self.link_id(link.index())?.index();
        if kinematics.poses().len() != self.links().len() {
            return Err(DynamicsError::LengthMismatch {
                what: "kinematics' link poses",
                actual: kinematics.poses().len(),
                expected: self.links().len(),
            });
        }
        let values = point.iter().chain(force.iter()).chain(torque.iter());
        if let Some(index) = values.clone().position(|x| !x.is_finite()) {
            return Err(DynamicsError::NonFinite {
                what: "wrench (point, force, torque)",
                index,
            });
        }
        let pose = kinematics.poses()[i];
        let arm = pose.rotation * point.coords;
        let moment = torque + arm.cross(force);
        for (k, column) in kinematics.jacobian(i) {
            let u = column.fixed_rows::<3>(0);
            let w = column.fixed_rows::<3>(3);
            out[k] += u.dot(force) + w.dot(&moment);
        }
        Ok(())
    }
}

impl Control {
    /// Adds the generalized force of a wrench on `link` ([`Model::wrench_to_force`]) at the
    /// configuration of `kinematics` (the step's θ^t) to [`Control::force`], so it acts in the
    /// next step and its gradient flows through the force input.
    ///
    /// ```
    /// use sdrs_dynamics::{Control, JointKind, Kinematics, Link, MassModel, Model, Motion, Simulator, State, StepSettings};
    /// use sdrs_geometry::ConvexHull;
    /// use nalgebra::{Point3, Vector3};
    /// let cube = ConvexHull::cuboid(Vector3::repeat(0.1))?;
    /// let body = Link::new("box", None, nalgebra::Isometry3::identity(), JointKind::Free, vec![cube], MassModel::Lumped { mass: 2.0 });
    /// let model = Model::new(vec![body])?;
    /// let mut settings = StepSettings::new(0.01)?;
    /// settings.gravity = 0.0;
    /// let mut sim = Simulator::new(model.clone(), settings)?;
    /// let mut motion = Motion::at_rest(&model, State::neutral(&model));
    /// // Push with 4 N along x through the centre: a = F / m = 2 m/s².
    /// let mut control = Control::passive(&model);
    /// let kinematics = Kinematics::new(&model, &motion.state);
    /// control.add_wrench(&model, &kinematics, model.link("box")?, &Point3::origin(), &Vector3::new(4.0, 0.0, 0.0), &Vector3::zeros())?;
    /// sim.advance(&mut motion, &control)?;
    /// assert!((motion.state.q[0] - 2.0 * 0.01f64.powi(2)).abs() < 1e-12);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_wrench(
        &mut self,
        model: &Model,
        kinematics: &Kinematics,
        link: LinkId,
        point: &Point3<f64>,
        force: &Vector3<f64>,
        torque: &Vector3<f64>,
    ) -> Result<()> {
        check_vector("generalized force", &self.force, model.dof())?;
        model.add_wrench_to(&mut self.force, kinematics, link, point, force, torque)
    }
}
