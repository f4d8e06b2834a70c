//! One call from parameters to a loss and its gradients: rollout → loss → adjoint →
//! start-at-rest correction → design pullback.

use crate::adjoint::{TrajectoryGradient, adjoint};
use crate::design::DesignMap;
use crate::error::{DiffError, Result};
use crate::loss::Loss;
use crate::policy::Policy;
use crate::trajectory::{Recording, Trajectory, rollout_policy};
use nalgebra::DVector;
use sdrs_dynamics::{Model, Motion, Simulator, State, StepSettings};

/// A differentiable task: a robot whose design is `design.model(model, p)`, starting at rest
/// at `start`, driven for `steps` steps by `policy` with parameters `c`, scored by `loss`.
///
/// [`Objective::evaluate`] builds a fresh [`Simulator`] for every evaluation, so its result
/// depends only on `(c, p)`.
///
/// ```
/// use sdrs_diff::{CubicSpline, DesignMap, Objective, PointTarget, Recording};
/// use sdrs_dynamics::{State, scenes::chain};
/// use nalgebra::{DVector, Point3, Vector3};
/// let mut scene = chain(2, 0.01)?;
/// scene.settings.backward = true;
/// scene.control.kp = DVector::from_element(2, 40.0); // N·m/rad
/// let model = scene.model.clone();
/// let mut design = DesignMap::new(&model, 1);
/// design.link_length(&model, "link0", 0)?;
/// let objective = Objective {
///     policy: CubicSpline::new(scene.control.clone(), vec![0], 4, 0.2)?,
///     loss: PointTarget::new(&model, "link1", Point3::new(0.0, 0.0, -0.1), Vector3::new(0.1, 0.0, -0.15))?,
///     start: State::zero(&model),
///     steps: 20,
///     design,
///     settings: scene.settings,
///     recording: Recording::Blocks,
///     model,
/// };
/// let e = objective.evaluate(&DVector::from_element(4, 0.3), &DVector::zeros(1))?;
/// assert_eq!((e.parameters.len(), e.design.unwrap().len()), (4, 1));
/// assert!(e.loss > 0.0 && e.trajectory.steps() == 20);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Objective<P, L> {
    /// The robot at the design map's base design.
    pub model: Model,
    /// The step settings (with `backward` on for [`Recording::Blocks`]).
    pub settings: StepSettings,
    /// The control policy.
    pub policy: P,
    /// Design parameters `p` → the design vector (no parameters for a fixed design).
    pub design: DesignMap,
    /// The start, at rest (`Motion::at_rest`).
    pub start: State,
    /// The horizon `H`.
    pub steps: usize,
    /// The loss.
    pub loss: L,
    /// What the rollout keeps for the backward pass.
    pub recording: Recording,
}

/// A loss and its total derivatives.
#[derive(Debug, Clone)]
pub struct Evaluation {
    /// The loss's value.
    pub loss: f64,
    /// `dL/dc` of the policy parameters.
    pub parameters: DVector<f64>,
    /// `dL/dp` of the design parameters (the start at rest moving with the design), `None`
    /// when the steps do not provide design blocks (`TrajectoryGradient::design`).
    pub design: Option<DVector<f64>>,
    /// `dL/dθ^0` for a start at rest (the poses before it moving with `θ^0`).
    pub initial: DVector<f64>,
    /// Everything else the adjoint gives (per-step targets and forces).
    pub gradient: TrajectoryGradient,
    /// The trajectory.
    pub trajectory: Trajectory,
}

impl<P: Policy, L: Loss> Objective<P, L> {
    /// A control task: no design parameters, the start at rest at `model`'s zero state
    /// (every link at its attachment), the blocks the adjoint needs recorded
    /// ([`Recording::Blocks`], so `settings.backward` is turned on).
    ///
    /// ```
    /// use sdrs_diff::{CubicSpline, Objective, PointTarget};
    /// use sdrs_dynamics::scenes::chain;
    /// use nalgebra::{DVector, Point3, Vector3};
    /// let scene = chain(2, 0.01)?;
    /// let model = scene.model.clone();
    /// let target = PointTarget::new(&model, "link1", Point3::origin(), Vector3::new(0.1, 0.0, -0.2))?;
    /// let policy = CubicSpline::new(scene.control.clone(), vec![0], 4, 0.2)?;
    /// let objective = Objective::control_only(model, scene.settings, policy, target, 20);
    /// let e = objective.evaluate(&DVector::from_element(4, 0.3), &DVector::zeros(0))?;
    /// assert_eq!((e.parameters.len(), e.design.map_or(0, |d| d.len())), (4, 0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn control_only(
        model: Model,
        mut settings: StepSettings,
        policy: P,
        loss: L,
        steps: usize,
    ) -> Self {
        settings.backward = true;
        Self {
            start: State::zero(&model),
            design: DesignMap::new(&model, 0),
            recording: Recording::Blocks,
            model,
            settings,
            policy,
            loss,
            steps,
        }
    }

    /// The loss and its gradients for policy parameters `c` and design parameters `p`.
    pub fn evaluate(&self, c: &DVector<f64>, p: &DVector<f64>) -> Result<Evaluation> {
        let model = self.design.model(&self.model, p)?;
        self.start
            .check(&model)
            .map_err(|source| DiffError::Setup {
                what: "the objective's start state",
                source,
            })?;
        let mut sim = Simulator::new(model.clone(), self.settings.clone()).map_err(|source| {
            DiffError::Setup {
                what: "the objective's simulator",
                source,
            }
        })?;
        let start = Motion::at_rest(&model, self.start.clone());
        let trajectory = rollout_policy(
            &mut sim,
            &start,
            &self.policy,
            c,
            self.steps,
            self.recording,
        )?;
        let (loss, partials) = self.loss.evaluate(&model, &trajectory)?;
        if !loss.is_finite() {
            return Err(DiffError::NonFinite {
                what: "loss value",
                index: 0,
            });
        }
        let mut gradient = adjoint(&mut sim, &trajectory, &partials)?;
        gradient.start_at_rest(&model, &self.start);
        Ok(Evaluation {
            loss,
            parameters: gradient.parameters.clone(),
            design: gradient.design.as_ref().map(|d| self.design.pullback(d)),
            initial: gradient.initial.clone(),
            gradient,
            trajectory,
        })
    }
}
