//! Receding-horizon control (model-predictive control), as the long-range paper runs its
//! Push, Sort and Gather benchmarks (sec. 6, Table 3): at every frame, optimise a plan of the
//! next `h` actions from the current real state with `k` Adam iterations, starting from the
//! previous frame's plan shifted by one action (its last action repeated); apply the plan's
//! first action to the real state; repeat for `H` frames.
//!
//! The driver knows nothing of simulators: a builder closure turns the current state (and the
//! frame index) into a [`GradientSource`] over the flattened plan (`h x m` values,
//! action-major, as [`crate::OpenLoop`] lays out its parameters), and an `advance` closure
//! applies one action to the real state. So any task, any contact model and any gradient
//! estimator ([`crate::Bundled`]) plug in. A fresh Adam (the driver's learning rate and
//! moment decays) starts at every frame; the paper does not say whether its moments carry
//! over, and a new plan problem from a new state is a new optimisation. Each frame's descent
//! ends as [`RecedingHorizon::stopping`] says (by default the last iterate, no early stop;
//! [`RecedingHorizon::with_stopping`] keeps the best plan and stops once it is good enough).
//! A frame whose current plan already scores at most [`RecedingHorizon::hold_at`] (by default
//! a loss of exactly 0: every target reached over the window) is not optimised at all: its
//! value alone is evaluated ([`GradientSource::value`]) and the plan is applied and shifted as
//! it is, so the motion goes on ([`RecedingRun::skipped`] lists those frames). An Adam iterate
//! the objective fails at (e.g. a plan whose rollout the simulator cannot step) ends that
//! frame's descent at the best plan evaluated before it, and the run goes on
//! ([`RecedingRun::failures`] lists those frames and why); only a frame whose starting plan
//! fails ends the run.

use crate::descent::{GradientSource, Stopping, descent};
use crate::error::{DiffError, Result};
use crate::optim::{Adam, check_box};
use nalgebra::DVector;

/// The settings of a receding-horizon run.
#[derive(Debug, Clone, PartialEq)]
pub struct RecedingHorizon {
    /// Frames `H` to apply.
    pub frames: usize,
    /// Actions per plan `h`.
    pub horizon: usize,
    /// Values per action `m`.
    pub action: usize,
    /// Adam iterations `k` per frame.
    pub iterations: usize,
    /// Adam's learning rate.
    pub learning_rate: f64,
    /// Adam's first-moment decay (0.3 in the paper).
    pub beta1: f64,
    /// Adam's second-moment decay (0.5 in the paper).
    pub beta2: f64,
    /// Which plan each frame's descent leaves (its last or its best iterate) and whether it
    /// stops early ([`crate::descend_with`]); the next frame starts from that plan, shifted.
    pub stopping: Stopping,
    /// Skip the descent of a frame whose current plan's value is at most this (`None`: always
    /// optimise). The default `Some(0.0)` suits a loss that cannot go below zero, such as the
    /// paper's `ReLU(d² − ε²)`: a plan of loss 0 is already optimal, and a descent from it
    /// would spend its iterations holding.
    pub hold_at: Option<f64>,
    /// Per action value, the box `[lower, upper]` every plan is kept in
    /// ([`RecedingHorizon::with_action_bounds`]; `None`: unbounded).
    pub action_bounds: Option<(DVector<f64>, DVector<f64>)>,
}

/// What a receding-horizon run did.
#[derive(Debug, Clone)]
pub struct RecedingRun<S> {
    /// The real states `s^0 … s^H`.
    pub states: Vec<S>,
    /// The applied actions `a^0 … a^{H−1}`.
    pub actions: Vec<DVector<f64>>,
    /// Every frame's plan-loss history (`k + 1` values: before each Adam step and after the
    /// last; fewer when [`Stopping::stop_at`] ended the frame's descent early; the plan's
    /// value alone at a skipped frame).
    pub plan_losses: Vec<Vec<f64>>,
    /// The frames not optimised: their plan's value was at most
    /// [`RecedingHorizon::hold_at`].
    pub skipped: Vec<usize>,
    /// The frames whose descent ended at a failed iterate, and the failure: the frame applied
    /// the best plan evaluated before it.
    pub failures: Vec<(usize, String)>,
}

impl RecedingHorizon {
    /// `frames` frames planned `horizon` actions of `action` values ahead with `iterations`
    /// Adam iterations at `learning_rate`, with the paper's `(β₁, β₂) = (0.3, 0.5)`.
    pub fn new(
        frames: usize,
        horizon: usize,
        action: usize,
        iterations: usize,
        learning_rate: f64,
    ) -> Result<Self> {
        for (name, value) in [
            ("receding-horizon frames", frames),
            ("receding horizon", horizon),
            ("receding-horizon action length", action),
        ] {
            if value == 0 {
                return Err(DiffError::InvalidSetting {
                    name,
                    value: 0.0,
                    allowed: "at least 1",
                });
            }
        }
        if !(learning_rate.is_finite() && learning_rate > 0.0) {
            return Err(DiffError::InvalidSetting {
                name: "receding-horizon learning rate",
                value: learning_rate,
                allowed: "positive and finite",
            });
        }
        Ok(Self {
            frames,
            horizon,
            action,
            iterations,
            learning_rate,
            beta1: 0.3,
            beta2: 0.5,
            stopping: Stopping::default(),
            hold_at: Some(0.0),
            action_bounds: None,
        })
    }

    /// The same driver keeping every action in the box `lower ≤ a ≤ upper` (one bound per
    /// action value; ±infinity for none): the initial plan is clamped into it and each Adam
    /// step projected onto it ([`Adam::with_bounds`]), so no applied action leaves it (a
    /// pusher's targets kept on the table). Errors on a bound of the wrong length, a NaN or
    /// `lower > upper`.
    pub fn with_action_bounds(self, lower: DVector<f64>, upper: DVector<f64>) -> Result<Self> {
        check_box(
            &lower,
            &upper,
            self.action,
            "receding-horizon action bounds",
        )?;
        Ok(Self {
            action_bounds: Some((lower, upper)),
            ..self
        })
    }

    /// The same driver, each frame's descent ending as `stopping` says.
    pub fn with_stopping(self, stopping: Stopping) -> Self {
        Self { stopping, ..self }
    }

    /// The same driver, skipping the descent of frames whose plan's value is at most
    /// `hold_at` (`None`: optimise every frame).
    pub fn with_hold_at(self, hold_at: Option<f64>) -> Self {
        Self { hold_at, ..self }
    }

    /// Runs from `start` with the initial plan `plan` (`horizon x action` values):
    /// `build(state, frame)` gives the plan's objective from the real state at `frame`,
    /// `advance(state, action)` applies one action; `progress(frame, history, skipped)` sees
    /// each frame's plan-loss history and whether its descent was skipped
    /// ([`RecedingHorizon::hold_at`]).
    ///
    /// ```
    /// use sdrs_diff::RecedingHorizon;
    /// use nalgebra::DVector;
    /// // A point x driven by velocity actions (x ← x + a) towards 1, plans of 3 actions
    /// // scored by the squared miss at the plan's end.
    /// let driver = RecedingHorizon::new(10, 3, 1, 30, 0.1)?;
    /// let run = driver.run(
    ///     0.0f64,
    ///     DVector::zeros(3),
    ///     |&x, _frame| Ok(move |plan: &DVector<f64>| {
    ///         let miss = x + plan.sum() - 1.0;
    ///         Ok((miss * miss, DVector::from_element(3, 2.0 * miss)))
    ///     }),
    ///     |x, a| { *x += a[0]; Ok(()) },
    ///     |_, _, _| {},
    /// )?;
    /// assert_eq!((run.states.len(), run.actions.len()), (11, 10));
    /// assert!((run.states[10] - 1.0).abs() < 0.05);
    /// # Ok::<(), sdrs_diff::DiffError>(())
    /// ```
    pub fn run<S, G>(
        &self,
        start: S,
        plan: DVector<f64>,
        mut build: impl FnMut(&S, usize) -> Result<G>,
        mut advance: impl FnMut(&mut S, &DVector<f64>) -> Result<()>,
        mut progress: impl FnMut(usize, &[f64], bool),
    ) -> Result<RecedingRun<S>>
    where
        S: Clone,
        G: GradientSource,
    {
        let (h, m) = (self.horizon, self.action);
        if plan.len() != h * m {
            return Err(DiffError::LengthMismatch {
                what: "receding-horizon initial plan",
                actual: plan.len(),
                expected: h * m,
            });
        }
        // The bounds of the whole plan: the action's, once per action.
        let plan_bounds = self.action_bounds.as_ref().map(|(lower, upper)| {
            let tile = |b: &DVector<f64>| DVector::from_fn(h * m, |i, _| b[i % m]);
            (tile(lower), tile(upper))
        });
        let mut plan = plan;
        if let Some((lower, upper)) = &plan_bounds {
            plan = plan.zip_zip_map(lower, upper, |x, l, u| x.clamp(l, u));
        }
        let mut state = start;
        let mut run = RecedingRun {
            states: vec![state.clone()],
            actions: Vec::with_capacity(self.frames),
            plan_losses: Vec::with_capacity(self.frames),
            skipped: Vec::new(),
            failures: Vec::new(),
        };
        for frame in 0..self.frames {
            let mut source = build(&state, frame)?;
            let held = match self.hold_at {
                Some(hold) => Some(source.value(&plan)?).filter(|&value| value <= hold),
                None => None,
            };
            let history = match held {
                Some(value) => {
                    run.skipped.push(frame);
                    vec![value]
                }
                None => {
                    let mut adam = Adam::new(h * m, self.learning_rate);
                    adam.beta1 = self.beta1;
                    adam.beta2 = self.beta2;
                    if let Some((lower, upper)) = &plan_bounds {
                        adam = adam.with_bounds(lower.clone(), upper.clone())?;
                    }
                    let descent = descent(
                        &mut plan,
                        &mut adam,
                        self.iterations,
                        &mut source,
                        self.stopping,
                        |_| {},
                    );
                    match (descent.error, descent.best) {
                        (None, _) => descent.history,
                        (Some(error), Some(best)) => {
                            plan = best.x;
                            run.failures.push((frame, error.to_string()));
                            descent.history
                        }
                        (Some(error), None) => return Err(error),
                    }
                }
            };
            progress(frame, &history, held.is_some());
            run.plan_losses.push(history);
            let action = plan.rows(0, m).into_owned();
            advance(&mut state, &action)?;
            run.states.push(state.clone());
            run.actions.push(action);
            // Shift: drop the applied action; the last block keeps the old last action, which
            // so repeats.
            plan.as_mut_slice().copy_within(m.., 0);
        }
        Ok(run)
    }
}
