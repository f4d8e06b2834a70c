//! Differentiating a rollout of [`NcpSimulator`]: the step Jacobians of every step
//! ([`crate::step_jacobian`], NCP paper appendix D) chained forwards (the Jacobian of the final
//! state with respect to the initial one, for Gauss-Newton) and backwards (the gradient of a
//! loss on the states with respect to the initial state and every step's control force).
//!
//! The reverse pass multiplies each step Jacobian's transpose into the cotangent
//! ([`StepJacobian::vjp`]): with the step Jacobians built in forward mode this costs `O(H n²)`
//! after the `O(H n³)` of building them.

use crate::error::NcpError;
use crate::solver::problem::check_size;
use crate::step_jacobian::StepJacobian;
use crate::stepper::{NcpSimulator, NcpStepReport};
use nalgebra::{DMatrix, DVector};
use sdrs_dynamics::{Control, State};

/// A rollout and the Jacobian of each of its steps.
#[derive(Debug, Clone)]
pub struct DifferentiableRollout {
    /// The states `q_0 … q_H` (re-centred after the first).
    pub states: Vec<State>,
    /// The velocities `v_0 … v_H`.
    pub velocities: Vec<DVector<f64>>,
    /// Each step's report.
    pub reports: Vec<NcpStepReport>,
    /// Each step's Jacobian.
    pub jacobians: Vec<StepJacobian>,
}

/// The gradient of a loss on a rollout's states.
#[derive(Debug, Clone, PartialEq)]
pub struct RolloutGradient {
    /// `∂ℓ/∂q_0` (tangent coordinates, see [`crate::step_jacobian`]).
    pub q0: DVector<f64>,
    /// `∂ℓ/∂v_0`.
    pub v0: DVector<f64>,
    /// `∂ℓ/∂u_k` for each step's control force.
    pub forces: Vec<DVector<f64>>,
}

impl NcpSimulator {
    /// Runs one step per control from `(state, v)`, keeping every step's Jacobian.
    ///
    /// ```
    /// use sdrs_dynamics::{Control, JointKind, Link, MassModel, Model, State};
    /// use sdrs_geometry::ConvexHull;
    /// use sdrs_ncp::{NcpSettings, NcpSimulator};
    /// use nalgebra::{DVector, Isometry3, Vector3};
    /// let cube = ConvexHull::cuboid(Vector3::repeat(0.1))?;
    /// let link = Link::new("box", None, Isometry3::identity(), JointKind::Free, vec![cube], MassModel::Lumped { mass: 1.0 });
    /// let model = Model::new(vec![link])?;
    /// let mut sim = NcpSimulator::new(model.clone(), NcpSettings::new(1e-2)?);
    /// let state = State::new(&model, DVector::zeros(6))?;
    /// let v = DVector::from_vec(vec![1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    /// let rollout = sim.rollout_with_jacobians(&state, &v, &vec![Control::passive(&model); 10])?;
    /// // Free flight: x_10 = x_0 + 10 Δt v_x, so ∂x_10/∂v_x = 0.1.
    /// assert!((rollout.final_state_jacobian()[(0, 6)] - 0.1).abs() < 1e-12);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn rollout_with_jacobians(
        &mut self,
        state: &State,
        v: &DVector<f64>,
        controls: &[Control],
    ) -> Result<DifferentiableRollout, NcpError> {
        let mut out = DifferentiableRollout {
            states: vec![state.clone()],
            velocities: vec![v.clone()],
            reports: Vec::with_capacity(controls.len()),
            jacobians: Vec::with_capacity(controls.len()),
        };
        let (mut state, mut v) = (state.clone(), v.clone());
        for control in controls {
            let (report, record) = self.step_recorded(&mut state, &mut v, control)?;
            out.jacobians.push(self.step_jacobian(&record)?);
            out.reports.push(report);
            out.states.push(state.clone());
            out.velocities.push(v.clone());
        }
        Ok(out)
    }
}

impl DifferentiableRollout {
    /// Forward mode: `∂(q_H, v_H)/∂(q_0, v_0)` (2n x 2n, `q` rows and columns first).
    pub fn final_state_jacobian(&self) -> DMatrix<f64> {
        let n = self.velocities[0].len();
        let mut total = DMatrix::identity(2 * n, 2 * n);
        for j in &self.jacobians {
            let mut step = DMatrix::zeros(2 * n, 2 * n);
            step.view_mut((0, 0), (n, n)).copy_from(&j.dq_dq);
            step.view_mut((0, n), (n, n)).copy_from(&j.dq_dv);
            step.view_mut((n, 0), (n, n)).copy_from(&j.dv_dq);
            step.view_mut((n, n), (n, n)).copy_from(&j.dv_dv);
            total = step * total;
        }
        total
    }

    /// Reverse mode: for the cotangents `(∂ℓ/∂q_k, ∂ℓ/∂v_k)` of the states `k = 1 … H` (one
    /// pair per step; zeros where the loss does not look), the gradient with respect to the
    /// initial state and every control force.
    pub fn vjp(
        &self,
        cotangents: &[(DVector<f64>, DVector<f64>)],
    ) -> Result<RolloutGradient, NcpError> {
        check_size("state cotangents", cotangents.len(), self.jacobians.len())?;
        let n = self.velocities[0].len();
        let mut q_bar = DVector::zeros(n);
        let mut v_bar = DVector::zeros(n);
        let mut forces = vec![DVector::zeros(n); self.jacobians.len()];
        for (k, j) in self.jacobians.iter().enumerate().rev() {
            let (cq, cv) = &cotangents[k];
            q_bar += cq;
            v_bar += cv;
            let (q, v, u) = j.vjp(&q_bar, &v_bar)?;
            q_bar = q;
            v_bar = v;
            forces[k] = u;
        }
        Ok(RolloutGradient {
            q0: q_bar,
            v0: v_bar,
            forces,
        })
    }
}
