//! Recording a trajectory: the states, controls and (by default) every step's linearisation.

use crate::error::{DiffError, Result};
use crate::policy::{Policy, PolicyDerivatives, PolicyInput};
use nalgebra::{DVector, Isometry3};
use sdrs_dynamics::{Control, Kinematics, Linearization, Model, Motion, Simulator, State};
use std::borrow::Cow;
use std::sync::Arc;

/// What a rollout keeps for the backward pass.
///
/// - [`Recording::States`] (the default) keeps the states alone, O(H·|θ|) memory, and the
///   backward pass recomputes each step's linearisation at its stored solution
///   ([`Simulator::linearize`]: one objective evaluation with derivatives plus the mixed
///   blocks, no Newton solve). The forward pass then runs without `StepSettings::backward`.
///   This is checkpointing at every step: it trades one linearisation per step in the
///   backward pass for the blocks' memory.
/// - [`Recording::Blocks`] keeps every step's Hessian and mixed blocks, O(H·|θ|·(|θ| + |d|))
///   memory, computed during the forward pass (which needs `StepSettings::backward`); the
///   backward pass only solves.
///
/// Both give the same gradients up to the round-off of the contact planes' inner solves. On
/// the chain-reach scene (25 DoF, H = 250, `cargo xtask bench diff`), forward + backward take
/// about the same time either way (31 + 49 ms with states, 62 + 11 ms with blocks); blocks pay
/// off when one trajectory is differentiated several times (several losses, or tangents and
/// adjoints of the same rollout).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Recording {
    /// Keep the states; recompute the blocks in the backward pass.
    #[default]
    States,
    /// Keep every step's blocks (fast backward pass, more memory).
    Blocks,
}

/// The policy a trajectory was recorded under and its parameters: what the backward pass
/// pulls back through ([`Policy::pullback`]), `O(|c|)` memory in all.
#[derive(Debug, Clone)]
pub struct RecordedPolicy {
    /// The policy (a shared copy, [`crate::SharePolicy`]).
    pub policy: Arc<dyn Policy>,
    /// Its parameters `c`.
    pub parameters: DVector<f64>,
    /// The step's time step `Δt` (a step's input time is `(t + 1) Δt`).
    pub dt: f64,
}

/// A simulated trajectory with what its derivatives need.
#[derive(Debug, Clone)]
pub struct Trajectory {
    /// `θ^0 … θ^H`.
    pub states: Vec<State>,
    /// The link poses before the first step (`T^{−1}`).
    pub initial_previous: Vec<Isometry3<f64>>,
    /// The controls of the `H` steps.
    pub controls: Vec<Control>,
    /// The policy and its parameters, when recorded through a policy.
    pub policy: Option<RecordedPolicy>,
    /// Every step's linearisation ([`Recording::Blocks`]; empty with [`Recording::States`]).
    pub linearizations: Vec<Linearization>,
    /// Newton iterations of every step.
    pub iterations: Vec<usize>,
    /// Active hull pairs at every step's solution.
    pub active_pairs: Vec<usize>,
    /// How it was recorded.
    pub recording: Recording,
}

impl Trajectory {
    /// The number of steps `H`.
    pub fn steps(&self) -> usize {
        self.controls.len()
    }

    /// The final state `θ^H`.
    pub fn last(&self) -> &State {
        self.states
            .last()
            .expect("a trajectory holds its initial state")
    }

    /// The number of policy parameters (0 without a policy).
    pub fn parameters(&self) -> usize {
        self.policy.as_ref().map_or(0, |p| p.parameters.len())
    }

    /// The policy and what it saw at step `t < H` (`None` without a policy).
    pub fn policy_input(&self, t: usize) -> Option<(&RecordedPolicy, PolicyInput<'_>)> {
        let recorded = self.policy.as_ref()?;
        let input = PolicyInput {
            step: t,
            time: (t + 1) as f64 * recorded.dt,
            current: self.states.get(t)?,
            previous: t.checked_sub(1).map(|p| &self.states[p]),
        };
        Some((recorded, input))
    }

    /// The policy's dense Jacobians at step `t` ([`Policy::derivatives`]; `None` without a
    /// policy or past the last step). For inspection: `|θ| x |c|` and more per step.
    pub fn policy_derivatives(&self, t: usize) -> Option<PolicyDerivatives> {
        if t >= self.steps() {
            return None;
        }
        let (recorded, input) = self.policy_input(t)?;
        Some(recorded.policy.derivatives(&recorded.parameters, &input))
    }

    /// The link poses before step `t` (`T^{t−1}`) of this trajectory of `model`.
    pub fn previous_poses(&self, model: &Model, t: usize) -> Cow<'_, [Isometry3<f64>]> {
        if t == 0 {
            Cow::Borrowed(&self.initial_previous)
        } else {
            Cow::Owned(Kinematics::new(model, &self.states[t - 1]).poses().to_vec())
        }
    }

    /// Step `t`'s linearisation: stored, or recomputed at its solution.
    pub(crate) fn linearization(
        &self,
        sim: &mut Simulator,
        t: usize,
    ) -> Result<Cow<'_, Linearization>> {
        if let Some(lin) = self.linearizations.get(t) {
            return Ok(Cow::Borrowed(lin));
        }
        let previous = self.previous_poses(sim.model(), t);
        sim.linearize(
            &self.states[t + 1],
            &self.states[t],
            &previous,
            &self.controls[t],
        )
        .map(Cow::Owned)
        .map_err(|source| DiffError::Step { step: t, source })
    }
}

/// Simulates `controls.len()` steps from `start` and records what the derivatives need.
/// [`Recording::Blocks`] needs a simulator built with `StepSettings::backward`. The
/// simulator's warm starts are reset first ([`Simulator::reset`]), so a rollout depends only on
/// its inputs.
///
/// ```
/// use sdrs_diff::{Recording, rollout};
/// use sdrs_dynamics::scenes::chain;
/// use sdrs_dynamics::{Motion, Simulator, State};
/// let scene = chain(2, 0.01)?;
/// let mut sim = Simulator::new(scene.model.clone(), scene.settings)?;
/// let start = Motion::at_rest(&scene.model, State::zero(&scene.model));
/// let t = rollout(&mut sim, &start, &vec![scene.control; 5], Recording::States)?;
/// assert_eq!((t.states.len(), t.steps(), t.linearizations.len()), (6, 5, 0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn rollout(
    sim: &mut Simulator,
    start: &Motion,
    controls: &[Control],
    recording: Recording,
) -> Result<Trajectory> {
    record(sim, start, controls.len(), recording, |t, _, _| {
        controls[t].clone()
    })
}

/// Simulates `steps` steps from `start` under `policy` with `parameters` and records what
/// the derivatives need: the states and a shared copy of the policy with its parameters
/// (the backward pass pulls back through it), no per-step policy Jacobians.
pub fn rollout_policy(
    sim: &mut Simulator,
    start: &Motion,
    policy: &dyn Policy,
    parameters: &DVector<f64>,
    steps: usize,
    recording: Recording,
) -> Result<Trajectory> {
    policy.check(parameters)?;
    let dt = sim.settings().dt;
    let mut trajectory = record(sim, start, steps, recording, |t, current, previous| {
        let input = PolicyInput {
            step: t,
            time: (t + 1) as f64 * dt,
            current,
            previous,
        };
        policy.control(parameters, &input)
    })?;
    trajectory.policy = Some(RecordedPolicy {
        policy: policy.share(),
        parameters: parameters.clone(),
        dt,
    });
    Ok(trajectory)
}

/// The rollout loop: `control(t, θ^t, θ^{t−1})` gives each step's control.
fn record(
    sim: &mut Simulator,
    start: &Motion,
    steps: usize,
    recording: Recording,
    mut control: impl FnMut(usize, &State, Option<&State>) -> Control,
) -> Result<Trajectory> {
    if recording == Recording::Blocks && !sim.settings().backward {
        return Err(DiffError::NoBackwardBlocks);
    }
    // Warm starts left by earlier runs (or by `adjoint`/`tangent` recomputing steps) would
    // make this rollout depend on history: every rollout starts cold.
    sim.reset();
    let mut motion = start.clone();
    let mut out = Trajectory {
        states: vec![start.state.clone()],
        initial_previous: start.previous.clone(),
        controls: Vec::with_capacity(steps),
        policy: None,
        linearizations: Vec::new(),
        iterations: Vec::with_capacity(steps),
        active_pairs: Vec::with_capacity(steps),
        recording,
    };
    for step in 0..steps {
        let previous = step.checked_sub(1).map(|p| &out.states[p]);
        let u = control(step, &motion.state, previous);
        let report = sim
            .advance(&mut motion, &u)
            .map_err(|source| DiffError::Step { step, source })?;
        out.states.push(motion.state.clone());
        out.controls.push(u);
        out.iterations.push(report.iterations);
        out.active_pairs.push(report.active_pairs);
        if recording == Recording::Blocks {
            out.linearizations.push(
                report
                    .linearization
                    .expect("backward blocks were asked for"),
            );
        }
    }
    Ok(out)
}
