//! The reverse (adjoint) recursion over a recorded trajectory (SDRS sec. IV-D).
//!
//! With `λ^t = dL/dθ^t` (total), step `t`'s solution `θ^{t+1}` passes
//! `μ = −H⁻¹ λ^{t+1}` back to its inputs: `λ^t += B_θᵀ μ`, the previous poses' twists get
//! `B_ξᵀ μ` (mapped to `θ^{t−1}` and the attachments through the poses' Jacobians), the PD
//! targets `B_uᵀ μ` and the generalized forces `−μ` (`B_τ = −I`; through the policy's
//! pullback to its parameters and, for feedback, to the states), the design `B_dᵀ μ`.
//!
//! Memory: besides the trajectory, `O(H·|θ|)` for `λ` and the per-step target and force
//! gradients, plus `|c|` for the parameters; no per-step policy Jacobian is formed.

use crate::error::{DiffError, Result};
use crate::policy::{ControlCotangent, PolicyGradient};
use crate::pose::pose_adjoint;
use crate::step::neg_solve_in_place;
use crate::trajectory::Trajectory;
use nalgebra::DVector;
use sdrs_dynamics::{Model, Simulator};

/// The explicit partial derivatives of a loss `L(θ^0 … θ^H, u, d)`: a final-state loss plus
/// optional running costs `Σ_t l(θ^t, u^t)` (`u^t`: PD targets and generalized forces).
#[derive(Debug, Clone, PartialEq)]
pub struct LossGradient {
    /// `∂L/∂θ^t` for `t = 0 … H`, each in its state's chart.
    pub states: Vec<DVector<f64>>,
    /// `∂L/∂θ*^t` for `t = 0 … H−1` (control costs).
    pub target_position: Vec<DVector<f64>>,
    /// `∂L/∂θ̇*^t`.
    pub target_velocity: Vec<DVector<f64>>,
    /// `∂L/∂τ^t` of the generalized forces (effort costs).
    pub force: Vec<DVector<f64>>,
    /// `∂L/∂d` with the states held (e.g. a point on a link whose attachment is designed).
    pub design: DVector<f64>,
}

impl LossGradient {
    /// All zero, for `steps` steps of `model`.
    pub fn zeros(model: &Model, steps: usize) -> Self {
        let n = model.dof();
        Self {
            states: vec![DVector::zeros(n); steps + 1],
            target_position: vec![DVector::zeros(n); steps],
            target_velocity: vec![DVector::zeros(n); steps],
            force: vec![DVector::zeros(n); steps],
            design: DVector::zeros(model.design_len()),
        }
    }

    /// A loss of the final state alone with gradient `gradient`.
    pub fn final_state(model: &Model, steps: usize, gradient: DVector<f64>) -> Self {
        let mut loss = Self::zeros(model, steps);
        loss.states[steps] = gradient;
        loss
    }

    /// `self += weight · other` (the partials of a weighted sum of losses).
    pub fn add_scaled(&mut self, weight: f64, other: &Self) -> Result<()> {
        let counts = [
            (
                "loss state gradients",
                self.states.len(),
                other.states.len(),
            ),
            (
                "loss target-position gradients",
                self.target_position.len(),
                other.target_position.len(),
            ),
            (
                "loss target-velocity gradients",
                self.target_velocity.len(),
                other.target_velocity.len(),
            ),
            ("loss force gradients", self.force.len(), other.force.len()),
        ];
        for (what, expected, actual) in counts {
            if actual != expected {
                return Err(DiffError::LengthMismatch {
                    what,
                    actual,
                    expected,
                });
            }
        }
        let lengths = |g: &Self| -> Vec<usize> {
            g.states
                .iter()
                .chain(&g.target_position)
                .chain(&g.target_velocity)
                .chain(&g.force)
                .chain(std::iter::once(&g.design))
                .map(|v| v.len())
                .collect()
        };
        if let Some((mine, theirs)) = lengths(self)
            .into_iter()
            .zip(lengths(other))
            .find(|(a, b)| a != b)
        {
            return Err(DiffError::LengthMismatch {
                what: "a loss gradient vector of a sum's term",
                actual: theirs,
                expected: mine,
            });
        }
        let pairs = self
            .states
            .iter_mut()
            .zip(&other.states)
            .chain(self.target_position.iter_mut().zip(&other.target_position))
            .chain(self.target_velocity.iter_mut().zip(&other.target_velocity))
            .chain(self.force.iter_mut().zip(&other.force))
            .chain(std::iter::once((&mut self.design, &other.design)));
        for (mine, theirs) in pairs {
            mine.axpy(weight, theirs, 1.0);
        }
        Ok(())
    }

    fn check(&self, model: &Model, steps: usize) -> Result<()> {
        let n = model.dof();
        let counts = [
            ("loss state gradients", self.states.len(), steps + 1),
            (
                "loss target-position gradients",
                self.target_position.len(),
                steps,
            ),
            (
                "loss target-velocity gradients",
                self.target_velocity.len(),
                steps,
            ),
            ("loss force gradients", self.force.len(), steps),
            (
                "loss design gradient",
                self.design.len(),
                model.design_len(),
            ),
        ];
        let vectors = self
            .states
            .iter()
            .chain(&self.target_position)
            .chain(&self.target_velocity)
            .chain(&self.force)
            .map(|v| ("a loss gradient vector", v.len(), n));
        for (what, actual, expected) in counts.into_iter().chain(vectors) {
            if actual != expected {
                return Err(DiffError::LengthMismatch {
                    what,
                    actual,
                    expected,
                });
            }
        }
        Ok(())
    }
}

/// `dL/d(inputs)` of a trajectory.
#[derive(Debug, Clone, PartialEq)]
pub struct TrajectoryGradient {
    /// `dL/dθ^0`, with the poses before the first step held fixed.
    pub initial: DVector<f64>,
    /// `dL/dξ^{−1}`: with respect to the twists of the poses before the first step (6 per
    /// link); [`pose_adjoint`] maps it to coordinates (e.g. for a start at rest, where
    /// `T^{−1} = T(θ^0)`).
    pub initial_previous: DVector<f64>,
    /// `dL/dθ*^t` of every step's PD position targets.
    pub target_position: Vec<DVector<f64>>,
    /// `dL/dθ̇*^t` of every step's PD velocity targets.
    pub target_velocity: Vec<DVector<f64>>,
    /// `dL/dτ^t` of every step's generalized forces.
    pub force: Vec<DVector<f64>>,
    /// `dL/dc` of the policy's parameters (empty without a policy).
    pub parameters: DVector<f64>,
    /// `dL/dd` over the design vector (`Model::design`: attachments, then hull vertices),
    /// with `θ^0` and `T^{−1}` held fixed; `None` when the steps do not provide their design
    /// blocks (solid-hull masses, user energies: see `sdrs_dynamics::StepDerivatives`).
    pub design: Option<DVector<f64>>,
    /// `dL/dp` of the physical parameters the simulator's steps are differentiated with
    /// respect to (`sdrs_dynamics::StepSettings::parameters`, in that order; empty without
    /// them), each held the same over the whole trajectory.
    pub physical: DVector<f64>,
}

impl TrajectoryGradient {
    /// Folds [`TrajectoryGradient::initial_previous`] into the initial state and the design
    /// for a trajectory that starts at rest (`T^{−1} = T(d, θ^0)`, as `Motion::at_rest` sets
    /// it): afterwards `initial` and `design` are total derivatives for that start.
    pub fn start_at_rest(&mut self, model: &Model, initial: &sdrs_dynamics::State) {
        let (coordinates, attachments) = pose_adjoint(model, initial, &self.initial_previous);
        self.initial += coordinates;
        if let Some(design) = &mut self.design {
            let mut d = design.rows_mut(0, attachments.len());
            d += attachments;
        }
        self.initial_previous.fill(0.0);
    }
}

/// `dL/d(θ^0, controls, policy parameters, design, physical parameters)` of `trajectory`
/// (recorded by `sim`) for
/// a loss with explicit partials `loss`. One solve per step, with the factor of the step's
/// Hessian that its linearisation carries.
///
/// ```
/// use sdrs_diff::{LossGradient, Recording, adjoint, rollout};
/// use sdrs_dynamics::scenes::chain;
/// use sdrs_dynamics::{Motion, Simulator, State};
/// use nalgebra::DVector;
/// let mut scene = chain(3, 0.01)?;
/// scene.settings.backward = true;
/// scene.control.kp = DVector::from_element(3, 40.0); // N·m/rad
/// let model = scene.model.clone();
/// let mut sim = Simulator::new(model.clone(), scene.settings)?;
/// let start = Motion::at_rest(&model, State::zero(&model));
/// let trajectory = rollout(&mut sim, &start, &vec![scene.control; 20], Recording::Blocks)?;
/// // d(sum of final joint angles)/d(everything):
/// let loss = LossGradient::final_state(&model, 20, DVector::from_element(3, 1.0));
/// let g = adjoint(&mut sim, &trajectory, &loss)?;
/// // The last step's targets act through −H⁻¹(−k), k the stiffness: raising them all raises
/// // the angles' sum.
/// assert!(g.target_position[19].sum() > 0.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn adjoint(
    sim: &mut Simulator,
    trajectory: &Trajectory,
    loss: &LossGradient,
) -> Result<TrajectoryGradient> {
    let model = sim.model().clone();
    let n = model.dof();
    let steps = trajectory.steps();
    loss.check(&model, steps)?;
    let links = model.links().len();
    let offset = 3 * links;
    // λ[t] = dL/dθ^t, accumulated as later steps are processed.
    let mut lambda = loss.states.clone();
    let mut out = TrajectoryGradient {
        initial: DVector::zeros(n),
        initial_previous: DVector::zeros(6 * links),
        target_position: loss.target_position.clone(),
        target_velocity: loss.target_velocity.clone(),
        force: loss.force.clone(),
        parameters: DVector::zeros(trajectory.parameters()),
        design: Some(loss.design.clone()),
        physical: DVector::zeros(sim.settings().parameters.len()),
    };
    for t in (0..steps).rev() {
        let lin = trajectory.linearization(sim, t)?;
        let blocks = &lin.derivatives;
        let mut mu = lambda[t + 1].clone();
        neg_solve_in_place(&lin, &mut mu, t)?;
        lambda[t] += blocks.current.transpose() * &mu;
        if blocks.parameters.ncols() != out.physical.len() {
            return Err(DiffError::LengthMismatch {
                what: "physical parameters of a recorded step (StepSettings::parameters)",
                actual: blocks.parameters.ncols(),
                expected: out.physical.len(),
            });
        }
        out.physical.gemv_tr(1.0, &blocks.parameters, &mu, 1.0);
        out.target_position[t] += blocks.target_position.component_mul(&mu);
        out.target_velocity[t] += blocks.target_velocity.component_mul(&mu);
        out.force[t] -= &mu;
        if let Some((recorded, input)) = trajectory.policy_input(t) {
            let (before, now) = lambda.split_at_mut(t);
            recorded.policy.pullback(
                &recorded.parameters,
                &input,
                ControlCotangent {
                    position: &out.target_position[t],
                    velocity: &out.target_velocity[t],
                    force: &out.force[t],
                },
                PolicyGradient {
                    parameters: &mut out.parameters,
                    current: &mut now[0],
                    previous: before.last_mut(),
                },
            );
        }
        match (&mut out.design, &blocks.vertices, &blocks.attachments) {
            (Some(design), Some(vertices), Some(attachments)) => {
                vertices.add_transpose_product(&mu, design);
                attachments.add_transpose_product(&mu, design);
            }
            _ => out.design = None,
        }
        // The previous poses: T^{t−1} = T(d, θ^{t−1}) for t ≥ 1, given for t = 0.
        let previous: DVector<f64> = blocks.previous.tr_mul(&mu);
        if t == 0 {
            out.initial_previous = previous;
        } else {
            let (coordinates, attach) = pose_adjoint(&model, &trajectory.states[t - 1], &previous);
            lambda[t - 1] += coordinates;
            if let Some(design) = &mut out.design {
                let mut d = design.rows_mut(0, offset);
                d += attach;
            }
        }
    }
    out.initial = lambda.swap_remove(0);
    Ok(out)
}
