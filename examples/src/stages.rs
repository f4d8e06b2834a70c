//! A state loss measured at one step of the horizon rather than at its end: the staged losses
//! of the SDRS gripper benchmarks (sec. V-E: "during the first two stages … during the last
//! two stages …") put one term at the end of a stage and another at the end of the horizon.

use sdrs::diff::{DiffError, Loss, LossGradient, Trajectory};
use sdrs::prelude::{DVector, Model};

/// `L(θ^step)`: the final-state loss `loss` evaluated on the trajectory cut after `step`
/// steps; its partials go to the states, controls and design of those steps.
///
/// ```
/// use sdrs::prelude::*;
/// use sdrs::dynamics::scenes::chain;
/// use sdrs_examples::stages::AtStep;
/// let scene = chain(2, 0.01)?;
/// let model = scene.model.clone();
/// let mut sim = Simulator::new(model.clone(), scene.settings)?;
/// let start = Motion::at_rest(&model, State::zero(&model));
/// let t = rollout(&mut sim, &start, &vec![scene.control; 4], Recording::States)?;
/// let tip = PointTarget::new(&model, "link1", Point3::origin(), Vector3::zeros())?;
/// let (value, g) = AtStep::new(2, tip).evaluate(&model, &t)?;
/// assert!(value > 0.0 && g.states.len() == 5 && g.states[4].norm() == 0.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct AtStep<L> {
    step: usize,
    loss: L,
}

impl<L: Loss> AtStep<L> {
    /// `loss` (a final-state loss) at state `θ^step`.
    pub fn new(step: usize, loss: L) -> Self {
        Self { step, loss }
    }
}

impl<L: Loss> Loss for AtStep<L> {
    fn evaluate(
        &self,
        model: &Model,
        trajectory: &Trajectory,
    ) -> Result<(f64, LossGradient), DiffError> {
        let steps = trajectory.steps();
        if self.step > steps {
            return Err(DiffError::OutOfRange {
                what: "step of a staged loss",
                index: self.step,
                len: steps + 1,
            });
        }
        let cut = Trajectory {
            states: trajectory.states[..=self.step].to_vec(),
            initial_previous: trajectory.initial_previous.clone(),
            controls: trajectory.controls[..self.step].to_vec(),
            policy: trajectory.policy.clone(),
            linearizations: Vec::new(),
            iterations: trajectory.iterations[..self.step.min(trajectory.iterations.len())]
                .to_vec(),
            active_pairs: trajectory.active_pairs[..self.step.min(trajectory.active_pairs.len())]
                .to_vec(),
            recording: sdrs::diff::Recording::States,
        };
        let (value, partial) = self.loss.evaluate(model, &cut)?;
        let mut gradient = LossGradient::zeros(model, steps);
        gradient.states[..=self.step].clone_from_slice(&partial.states);
        gradient.target_position[..self.step].clone_from_slice(&partial.target_position);
        gradient.target_velocity[..self.step].clone_from_slice(&partial.target_velocity);
        gradient.force[..self.step].clone_from_slice(&partial.force);
        gradient.design = partial.design;
        Ok((value, gradient))
    }
}

/// Control values of a clamped uniform cubic B-spline ([`sdrs::diff::CubicSpline`], `points`
/// values per DoF, DoF after DoF) that follow a scripted `schedule`: each DoF's value `i` is
/// the schedule at the Greville abscissa of basis function `i` (the mean of its 3 inner
/// knots), so the spline tracks the schedule up to its smoothing. `schedule(u)` gives the
/// targets of the DoFs at horizon fraction `u ∈ [0, 1]`.
///
/// ```
/// use sdrs_examples::stages::scheduled_spline;
/// let c = scheduled_spline(5, 2, |u| vec![u, 1.0]);
/// assert_eq!(c.len(), 10);
/// assert!(c[0] == 0.0 && c[4] == 1.0 && (c[2] - 0.5).abs() < 1e-12 && c[7] == 1.0);
/// ```
pub fn scheduled_spline(
    points: usize,
    dofs: usize,
    schedule: impl Fn(f64) -> Vec<f64>,
) -> DVector<f64> {
    let spans = points.saturating_sub(3).max(1) as f64;
    let knot = |i: usize| (i.saturating_sub(3).min(points.saturating_sub(3)) as f64) / spans;
    let mut values = DVector::zeros(dofs * points);
    for i in 0..points {
        let u = (knot(i + 1) + knot(i + 2) + knot(i + 3)) / 3.0;
        for (a, value) in schedule(u).into_iter().take(dofs).enumerate() {
            values[a * points + i] = value;
        }
    }
    values
}
