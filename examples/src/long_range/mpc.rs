//! Receding-horizon control (MPC) of a table-top problem under one method of the paper's
//! comparison: the long-range paper runs Push, Sort and Gather this way (sec. 6, Table 3: a
//! trajectory of `H` frames, each frame's action the first of a plan of `h` PD-target
//! actions optimised by Adam from the real state).
//!
//! [`run_mpc`] plugs a task into sdrs-diff's [`RecedingHorizon`] driver: each frame's plan
//! objective ([`Window`]) rolls the plan out from the real, moving state (not from rest) and
//! differentiates the paper's loss at the window's end; the real world advances one step
//! under the plan's first action, simulated with the same contact model. A method that
//! fails (e.g. a step's Newton solve) keeps the frames it reached and its error.

use super::tabletop::{TabletopProblem, TabletopTask, region_loss};
use sdrs::diff::{
    ContactModels, GradientSource, Method, PolicyInput, RecedingHorizon, adjoint, rollout_policy,
};
use sdrs::prelude::*;
use std::time::Instant;

/// One frame's plan objective: the window task's policy rolled out for its horizon from the
/// real state `start`, scored by its loss, differentiated by the adjoint.
pub struct Window<'a> {
    task: &'a TabletopTask,
    sim: Simulator,
    start: Motion,
}

impl<'a> Window<'a> {
    /// The plan objective of `task` (a window of `task.steps` steps) from `start`.
    pub fn new(task: &'a TabletopTask, start: Motion) -> sdrs::diff::Result<Self> {
        let sim = Simulator::new(task.model.clone(), task.settings.clone()).map_err(|source| {
            sdrs::diff::DiffError::Setup {
                what: "the receding-horizon window's simulator",
                source,
            }
        })?;
        Ok(Self { task, sim, start })
    }
}

impl Window<'_> {
    /// The plan rolled out over the window, recording what the adjoint needs when
    /// `recording` says so.
    fn rollout(
        &mut self,
        plan: &DVector<f64>,
        recording: Recording,
    ) -> sdrs::diff::Result<sdrs::diff::Trajectory> {
        rollout_policy(
            &mut self.sim,
            &self.start,
            &self.task.policy,
            plan,
            self.task.steps,
            recording,
        )
    }
}

impl GradientSource for Window<'_> {
    fn value_and_gradient(
        &mut self,
        plan: &DVector<f64>,
    ) -> sdrs::diff::Result<(f64, DVector<f64>)> {
        let trajectory = self.rollout(plan, Recording::Blocks)?;
        let (loss, partials) = self.task.loss.evaluate(&self.task.model, &trajectory)?;
        let gradient = adjoint(&mut self.sim, &trajectory, &partials)?;
        Ok((loss, gradient.parameters))
    }

    /// The rollout's loss, without the adjoint.
    fn value(&mut self, plan: &DVector<f64>) -> sdrs::diff::Result<f64> {
        let trajectory = self.rollout(plan, Recording::States)?;
        Ok(self.task.loss.evaluate(&self.task.model, &trajectory)?.0)
    }
}

/// What one method's receding-horizon run did.
#[derive(Debug, Clone)]
pub struct MpcRun {
    /// The method.
    pub method: Method,
    /// The paper's loss of the real state at each frame reached, the start first.
    pub losses: Vec<f64>,
    /// The real states reached, the start first.
    pub states: Vec<State>,
    /// Each piece's distance (m) from its target at the last frame reached.
    pub misses: Vec<f64>,
    /// Every frame's plan-loss history ([`sdrs::diff::RecedingRun::plan_losses`]).
    pub plan_losses: Vec<Vec<f64>>,
    /// Adam iterations run over all frames.
    pub iterations: usize,
    /// Frames not optimised because the plan's window loss was already 0 (every target
    /// within ε at the window's end; [`RecedingHorizon::hold_at`]): the plan was applied as
    /// it was.
    pub skipped: usize,
    /// Plan evaluations (window rollout and adjoint; a bundle's one evaluation runs `samples`
    /// of them) over all frames: an iteration's, and each frame's last value; a skipped
    /// frame's one value (a rollout without adjoint) counts as one.
    pub evaluations: usize,
    /// Wall time of the whole run (s).
    pub seconds: f64,
    /// Why the run stopped before its last frame, `None` when it reached it.
    pub error: Option<String>,
    /// Frames whose descent stopped at an Adam iterate the window's rollout failed at, and
    /// why: they applied the best plan before it ([`sdrs::diff::RecedingRun::failures`]).
    pub failed_iterates: Vec<(usize, String)>,
}

impl MpcRun {
    /// The loss at the last frame reached.
    pub fn final_loss(&self) -> f64 {
        *self.losses.last().expect("a run holds its start's loss")
    }

    /// The lowest real loss of the run and the first frame at which it was reached.
    pub fn best_loss(&self) -> (usize, f64) {
        self.losses
            .iter()
            .copied()
            .enumerate()
            .fold((0, f64::INFINITY), |best, (k, v)| match v < best.1 {
                true => (k, v),
                false => best,
            })
    }

    /// Whether every piece ended within `epsilon` of its target.
    pub fn success(&self, epsilon: f64) -> bool {
        self.error.is_none() && self.misses.iter().all(|&m| m <= epsilon)
    }

    /// Mean wall time of one plan evaluation ([`MpcRun::evaluations`], s), the real steps'
    /// share included.
    pub fn seconds_per_evaluation(&self) -> f64 {
        self.seconds / self.evaluations.max(1) as f64
    }
}

/// Runs `driver` (its `horizon` is the window `h`, its `action` the number of driven DoFs)
/// on `problem` simulated and differentiated under `method` with `settings` (the method's
/// contact model, [`Method::settings`]), from the scene's start state at rest
/// ([`super::tabletop::Tabletop::start`]) and the trivial plan (the pusher held where it
/// is). `progress(frame, loss)` sees the real loss after each frame.
pub fn run_mpc(
    problem: &TabletopProblem,
    method: &Method,
    settings: &ContactSettings,
    driver: &RecedingHorizon,
    mut progress: impl FnMut(usize, f64),
) -> MpcRun {
    let started = Instant::now();
    let start = Motion::at_rest(&problem.scene.model, problem.scene.start.clone());
    let loss_of = |state: &State| region_loss(&problem.misses(state), problem.epsilon);
    let mut run = MpcRun {
        method: *method,
        losses: vec![loss_of(&start.state)],
        states: vec![start.state.clone()],
        misses: problem.misses(&start.state),
        plan_losses: Vec::new(),
        iterations: 0,
        skipped: 0,
        evaluations: 0,
        seconds: 0.0,
        error: None,
        failed_iterates: Vec::new(),
    };
    let outcome = (|| -> Result<Vec<(usize, String)>, Box<dyn std::error::Error>> {
        let mut problem = problem.clone();
        problem.scene.settings.contact = Some(settings.clone());
        let window = problem.task(driver.horizon)?;
        // The applied action: a one-step open loop on the driven DoFs.
        let apply = OpenLoop::new(problem.scene.control.clone(), problem.driven.clone(), 1)?;
        let mut world =
            Simulator::new(problem.scene.model.clone(), problem.scene.settings.clone())?;
        let dt = problem.scene.settings.dt;
        let (iterations, evaluations) = (&mut run.iterations, &mut run.evaluations);
        let skipped = &mut run.skipped;
        let plan_losses = &mut run.plan_losses;
        let (losses, states) = (&mut run.losses, &mut run.states);
        let receding = driver.run(
            start,
            window.policy.initial(),
            |state: &Motion, frame| {
                method.source(Window::new(&window, state.clone())?, frame as u64)
            },
            |state, action| {
                let input = PolicyInput {
                    step: 0,
                    time: dt,
                    current: &state.state,
                    previous: None,
                };
                world
                    .advance(state, &apply.control(action, &input))
                    .map_err(|source| sdrs::diff::DiffError::Step {
                        step: states.len() - 1,
                        source,
                    })?;
                let loss = loss_of(&state.state);
                progress(states.len(), loss);
                losses.push(loss);
                states.push(state.state.clone());
                Ok(())
            },
            |_, history, held| {
                *skipped += usize::from(held);
                *iterations += history.len().saturating_sub(1);
                *evaluations += history.len();
                plan_losses.push(history.to_vec());
            },
        )?;
        Ok(receding.failures)
    })();
    match outcome {
        Ok(failures) => run.failed_iterates = failures,
        Err(e) => run.error = Some(e.to_string()),
    }
    run.misses = problem.misses(run.states.last().expect("the start is recorded"));
    run.seconds = started.elapsed().as_secs_f64();
    run
}

/// Runs `driver` on `problem` under each of `methods` (their contact models from `models`),
/// printing the real loss every `every` frames and each failure (the others still run).
pub fn compare_mpc(
    problem: &TabletopProblem,
    methods: &[Method],
    models: &ContactModels,
    driver: &RecedingHorizon,
    every: usize,
) -> Vec<MpcRun> {
    methods
        .iter()
        .map(|method| {
            let name = method.name();
            let run = run_mpc(
                problem,
                method,
                method.settings(models),
                driver,
                |frame, loss| {
                    if frame % every.max(1) == 0 {
                        println!("  {name:<32} frame {frame:>4}: loss {loss:.6e}");
                    }
                },
            );
            if let Some(error) = &run.error {
                println!(
                    "  {name:<32} failed at frame {}: {error}",
                    run.losses.len() - 1
                );
            }
            run
        })
        .collect()
}

/// Writes the runs' real loss per frame, overlaid, as `STEM.{csv,svg,png}` in `dir`, and
/// prints the result table (the paper's figure beside it) with how far the rod of
/// [`super::tabletop::tabletop`] moved ([`report_mpc_with`]).
pub fn report_mpc(
    runs: &[MpcRun],
    epsilon: f64,
    title: &str,
    paper: &str,
    dir: &std::path::Path,
    stem: &str,
) -> anyhow::Result<()> {
    report_mpc_with(runs, epsilon, title, paper, dir, stem, |_, last| {
        format!(
            "the rod's (x, y, yaw) moved by ({:.3}, {:.3}, {:.3})",
            last.q[0], last.q[1], last.q[3]
        )
    })
}

/// [`report_mpc`] for any pusher: `pusher(start, last)` says what it did between the start
/// and the last state reached.
pub fn report_mpc_with(
    runs: &[MpcRun],
    epsilon: f64,
    title: &str,
    paper: &str,
    dir: &std::path::Path,
    stem: &str,
    pusher: impl Fn(&State, &State) -> String,
) -> anyhow::Result<()> {
    println!(
        "{:<32} {:>8} {:>12} {:>20} {:>12} {:>8} {:>8} {:>10} {:>12}",
        "method",
        "success",
        "start loss",
        "best loss (frame)",
        "final loss",
        "frames",
        "skipped",
        "iterations",
        "s/evaluation"
    );
    for run in runs {
        let (best_frame, best) = run.best_loss();
        println!(
            "{:<32} {:>8} {:>12.4e} {:>20} {:>12.4e} {:>8} {:>8} {:>10} {:>12.3}",
            run.method.name(),
            if run.success(epsilon) { "yes" } else { "no" },
            run.losses[0],
            format!("{best:.4e} ({best_frame})"),
            run.final_loss(),
            run.losses.len() - 1,
            run.skipped,
            run.iterations,
            run.seconds_per_evaluation(),
        );
        let last = run.states.last().expect("the start is recorded");
        println!(
            "  misses (m): {:.3?}; {}{}",
            run.misses,
            pusher(&run.states[0], last),
            run.error
                .as_ref()
                .map(|e| format!("; failed: {e}"))
                .unwrap_or_default()
        );
        if let Some((frame, why)) = run.failed_iterates.first() {
            println!(
                "  {} frames stopped their descent at a failed plan and applied the best before it (first: frame {frame}: {why})",
                run.failed_iterates.len()
            );
        }
    }
    println!("{paper}");
    let series: Vec<(String, &[f64])> = runs
        .iter()
        .map(|run| (run.method.name(), run.losses.as_slice()))
        .collect();
    for path in super::compare::write_series(&series, title, "frame", dir, stem)? {
        println!("wrote {}", sdrs_report::display_path(&path));
    }
    Ok(())
}
