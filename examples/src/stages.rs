//! A state loss measured at one step of the horizon rather than at its end: the staged losses
//! of the SDRS gripper benchmarks (sec. V-E: "during the first two stages … during the last
//! two stages …") put one term at the end of a stage and another at the end of the horizon.

use sdrs::diff::{DiffError, Loss, LossGradient, Trajectory};
use sdrs::prelude::Model;

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
