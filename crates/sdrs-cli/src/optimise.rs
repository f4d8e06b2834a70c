//! `sdrs optimise TASK.toml`: a control or co-design task from a task file ([`crate::task`]),
//! optimised with the trust-region step of SDRS eq. 15 or Adam; writes the convergence
//! history (CSV, SVG, PNG) and the best trajectory (JSON lines).

use std::path::{Path, PathBuf};

use clap::Args;
use sdrs::TrajectoryFile;
use sdrs::diff::{
    Adam, Block, CentreOfMass, CubicSpline, DesignMap, Effort, Evaluation, Objective, PointTarget,
    Policy, Recording, SineWaves, Sum, minimise,
};
use sdrs::dynamics::{Model, State, StepSettings};
use sdrs::prelude::{DVector, Point3, Vector3};
use sdrs::scene::Scene;
use sdrs_report::{LinePlot, Progress, ProgressMode, display_path};

use crate::error::CliError;
use crate::task::{LossTask, OptimiserTask, PolicyKind, Task};

/// Arguments of `sdrs optimise`.
#[derive(Debug, Args)]
pub struct OptimiseArgs {
    /// The task file (TOML).
    pub task: PathBuf,
    /// Iterations, overriding the task file's.
    #[arg(long)]
    pub iterations: Option<usize>,
    /// Output folder (default: `sdrs-out/NAME` under the cargo target directory).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

/// The result of an optimisation.
struct Outcome {
    /// The loss at the start and after each iteration (best so far for the trust region,
    /// the current iterate for Adam).
    history: Vec<f64>,
    /// The best policy and design parameters.
    policy: DVector<f64>,
    design: DVector<f64>,
    /// The evaluation there.
    best: Evaluation,
    /// The model with the best design.
    model: Model,
}

/// Runs `sdrs optimise`.
pub fn run(args: &OptimiseArgs) -> Result<(), CliError> {
    let task = Task::from_file(&args.task)?;
    let task_error = |message: String| CliError::Task {
        path: args.task.clone(),
        message,
    };
    let iterations = args.iterations.unwrap_or(task.iterations);
    if iterations == 0 {
        return Err(CliError::Usage("--iterations must be at least 1".into()));
    }
    let setup = Scene::from_file(&task.scene)?.build()?;
    for warning in &setup.warnings {
        eprintln!("warning: {warning}");
    }
    let model = setup.model.clone();
    let steps = task
        .steps
        .or(setup.steps)
        .ok_or_else(|| task_error("no horizon: set `steps` in the task or the scene".into()))?;
    let mut settings = setup.simulator.settings().clone();
    settings.backward = true;
    let dofs = joint_dofs(&model, &task.policy.joints).map_err(task_error)?;
    let mut design = DesignMap::new(&model, task.design.len());
    for (k, d) in task.design.iter().enumerate() {
        design.link_length(&model, &d.link_length, k)?;
    }
    let loss = loss(&model, &task.loss)?;
    let dt = settings.dt;
    let parts = Parts {
        model,
        settings,
        design,
        start: setup.motion.state.clone(),
        steps,
        loss,
    };
    let base = setup.control.clone();
    let outcome = match task.policy.kind {
        PolicyKind::CubicSpline => {
            let points = task.policy.points.unwrap_or_default();
            let policy = CubicSpline::new(base, dofs, points, steps as f64 * dt)?;
            optimise(&parts.with(policy), &task, iterations)
        }
        PolicyKind::SineWaves => {
            let waves = task.policy.waves.unwrap_or_default();
            optimise(
                &parts.with(SineWaves::new(base, dofs, waves)?),
                &task,
                iterations,
            )
        }
    }
    .map_err(|e| e.at(&args.task))?;
    report(args, &task, dt, &outcome)
}

/// Everything of an [`Objective`] but its policy.
struct Parts {
    model: Model,
    settings: StepSettings,
    design: DesignMap,
    start: State,
    steps: usize,
    loss: Sum,
}

impl Parts {
    fn with<P: Policy>(self, policy: P) -> Objective<P, Sum> {
        Objective {
            model: self.model,
            settings: self.settings,
            policy,
            design: self.design,
            start: self.start,
            steps: self.steps,
            loss: self.loss,
            recording: Recording::Blocks,
        }
    }
}

/// The first DoF of each named 1-DoF joint.
fn joint_dofs(model: &Model, joints: &[String]) -> Result<Vec<usize>, String> {
    joints
        .iter()
        .map(|name| {
            let link = model
                .joint_link(name)
                .map_err(|e| format!("policy.joints: {e}"))?;
            let dof = model.links()[link].joint.dof();
            if dof != 1 {
                return Err(format!(
                    "policy.joints: joint '{name}' has {dof} DoF; policies drive 1-DoF joints"
                ));
            }
            Ok(model.dof_offset(link))
        })
        .collect()
}

/// The weighted sum of the task's loss terms.
fn loss(model: &Model, terms: &[LossTask]) -> Result<Sum, CliError> {
    let mut sum = Sum::new();
    for term in terms {
        sum = match term {
            LossTask::PointTarget {
                link,
                point,
                target,
                every_step,
                weight,
            } => {
                let point = Point3::from(Vector3::from(*point));
                let loss = PointTarget::new(model, link, point, Vector3::from(*target))?;
                if *every_step {
                    sum.with(*weight, loss.every_step())
                } else {
                    sum.with(*weight, loss)
                }
            }
            LossTask::ComTarget {
                links,
                target,
                every_step,
                weight,
            } => {
                let target = Vector3::from(*target);
                let com = match links {
                    None => CentreOfMass::robot(model, target)?,
                    Some(names) => {
                        let names: Vec<&str> = names.iter().map(String::as_str).collect();
                        CentreOfMass::links(model, &names, target)?
                    }
                };
                if *every_step {
                    sum.with(*weight, com.every_step())
                } else {
                    sum.with(*weight, com)
                }
            }
            LossTask::Effort {
                torque,
                target_change,
            } => sum.with(1.0, Effort::new(*torque, *target_change)),
        };
    }
    Ok(sum)
}

/// A failure inside the optimisation, located in the task file when it is the task's fault.
enum Failure {
    Task(String),
    Other(CliError),
}

impl Failure {
    fn at(self, path: &Path) -> CliError {
        match self {
            Failure::Task(message) => CliError::Task {
                path: path.to_owned(),
                message,
            },
            Failure::Other(e) => e,
        }
    }
}

impl From<sdrs::diff::DiffError> for Failure {
    fn from(e: sdrs::diff::DiffError) -> Self {
        Failure::Other(e.into())
    }
}

/// Bounds and start of one parameter block.
struct Bounds {
    lower: DVector<f64>,
    upper: DVector<f64>,
    start: DVector<f64>,
}

fn bounds<P: Policy>(objective: &Objective<P, Sum>, task: &Task) -> Result<[Bounds; 2], Failure> {
    let n = objective.policy.parameters();
    let p = &task.policy;
    let lower = p.lower.expand(n, "policy.lower").map_err(Failure::Task)?;
    let upper = p.upper.expand(n, "policy.upper").map_err(Failure::Task)?;
    let start = match &p.start {
        Some(v) => v.expand(n, "policy.start").map_err(Failure::Task)?,
        None => vec![0.0; n],
    };
    for i in 0..n {
        if !(lower[i] <= start[i] && start[i] <= upper[i]) {
            return Err(Failure::Task(format!(
                "policy parameter {i}: start {} is not within [{}, {}]",
                start[i], lower[i], upper[i]
            )));
        }
    }
    let policy = Bounds {
        lower: DVector::from_vec(lower),
        upper: DVector::from_vec(upper),
        start: DVector::from_vec(start),
    };
    let design = Bounds {
        lower: DVector::from_iterator(task.design.len(), task.design.iter().map(|d| d.lower)),
        upper: DVector::from_iterator(task.design.len(), task.design.iter().map(|d| d.upper)),
        start: DVector::zeros(task.design.len()),
    };
    Ok([policy, design])
}

/// The design gradient of an evaluation, which the co-design needs.
fn design_gradient(e: &Evaluation, parameters: usize) -> Result<DVector<f64>, String> {
    match &e.design {
        Some(d) => Ok(d.clone()),
        None if parameters == 0 => Ok(DVector::zeros(0)),
        None => Err(
            "the design gradient is unavailable: link lengths need links whose mass is not \
             a solid of uniform density (give URDF inertials or lumped masses)"
                .into(),
        ),
    }
}

fn optimise<P: Policy>(
    objective: &Objective<P, Sum>,
    task: &Task,
    iterations: usize,
) -> Result<Outcome, Failure> {
    let [policy, design] = bounds(objective, task)?;
    let n_design = design.start.len();
    let progress = Progress::new("optimise", iterations as u64, ProgressMode::auto());
    let outcome = match task.optimiser {
        OptimiserTask::TrustRegion {
            radius,
            max_radius,
            design_radius,
            design_max_radius,
        } => {
            let mut blocks = vec![Block {
                lower: policy.lower,
                upper: policy.upper,
                radius,
                max_radius,
            }];
            let mut start = vec![policy.start];
            if n_design > 0 {
                blocks.push(Block {
                    lower: design.lower,
                    upper: design.upper,
                    radius: design_radius,
                    max_radius: design_max_radius,
                });
                start.push(design.start);
            }
            let evaluate = |x: &[DVector<f64>]| -> Result<_, String> {
                let p = x.get(1).cloned().unwrap_or_else(|| DVector::zeros(0));
                let e = objective.evaluate(&x[0], &p).map_err(|e| e.to_string())?;
                let mut gradient = vec![e.parameters.clone()];
                if n_design > 0 {
                    gradient.push(design_gradient(&e, n_design)?);
                }
                Ok((e.loss, gradient, e))
            };
            let best = minimise(start, blocks, evaluate, iterations, |p| {
                progress.tick_noting(format!("loss {:.4e}", p.loss), p.failure_note())
            })?;
            let design = best
                .parameters
                .get(1)
                .cloned()
                .unwrap_or_else(|| DVector::zeros(0));
            (best.history, best.parameters[0].clone(), design, best.data)
        }
        OptimiserTask::Adam {
            learning_rate,
            decay_to,
        } => {
            let n = policy.start.len();
            let lower = concat(&policy.lower, &design.lower);
            let upper = concat(&policy.upper, &design.upper);
            let mut x = concat(&policy.start, &design.start);
            let mut adam = Adam::new(x.len(), learning_rate);
            if let Some(to) = decay_to {
                adam = adam.with_decay(to, iterations)?;
            }
            let evaluate = |x: &DVector<f64>| {
                let (c, p) = (x.rows(0, n).into_owned(), x.rows(n, n_design).into_owned());
                let e = objective.evaluate(&c, &p)?;
                let g = concat(
                    &e.parameters,
                    &design_gradient(&e, n_design).map_err(Failure::Task)?,
                );
                Ok::<_, Failure>((e, g))
            };
            let (mut current, mut gradient) = evaluate(&x)?;
            let mut history = vec![current.loss];
            let mut best = (x.clone(), current.clone());
            for _ in 0..iterations {
                adam.step(&mut x, &gradient)?;
                x = x.zip_zip_map(&lower, &upper, |v, lo, hi| v.clamp(lo, hi));
                (current, gradient) = evaluate(&x)?;
                history.push(current.loss);
                if current.loss < best.1.loss {
                    best = (x.clone(), current.clone());
                }
                progress.set_message(&format!("loss {:.4e}", current.loss));
                progress.inc(1);
            }
            let (c, p) = (
                best.0.rows(0, n).into_owned(),
                best.0.rows(n, n_design).into_owned(),
            );
            (history, c, p, best.1)
        }
    };
    progress.finish();
    let (history, policy, design, best) = outcome;
    Ok(Outcome {
        model: objective.design.model(&objective.model, &design)?,
        history,
        policy,
        design,
        best,
    })
}

fn concat(a: &DVector<f64>, b: &DVector<f64>) -> DVector<f64> {
    DVector::from_iterator(a.len() + b.len(), a.iter().chain(b.iter()).copied())
}

/// Prints the result and writes the history and the best trajectory.
fn report(args: &OptimiseArgs, task: &Task, dt: f64, outcome: &Outcome) -> Result<(), CliError> {
    let name = task.name.clone().unwrap_or_else(|| {
        args.task
            .file_stem()
            .map_or("task".into(), |s| s.to_string_lossy().into_owned())
    });
    let dir = match &args.output {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|source| CliError::Write {
                path: dir.clone(),
                source,
            })?;
            dir.clone()
        }
        None => sdrs_report::output_dir(&name)?,
    };
    let plot = LinePlot::new(&format!("{name}: convergence"))
        .x_label("iteration")
        .y_label("loss")
        .log_y(outcome.history.iter().all(|l| *l > 0.0))
        .history("loss", &outcome.history);
    let mut written = plot.write_all(&dir, "history")?;
    let trajectory = dir.join("best.jsonl");
    TrajectoryFile::from_trajectory(&outcome.model, dt, &outcome.best.trajectory)?
        .write_jsonl(&trajectory)?;
    written.push(trajectory);
    let first = outcome.history[0];
    println!(
        "{name}: loss {first:.6e} -> {:.6e} after {} iterations",
        outcome.best.loss,
        outcome.history.len() - 1
    );
    println!("policy parameters: {:.5?}", outcome.policy.as_slice());
    if !outcome.design.is_empty() {
        let names: Vec<String> = task
            .design
            .iter()
            .zip(outcome.design.iter())
            .map(|(d, v)| format!("{} {v:+.5} m", d.link_length))
            .collect();
        println!("link length changes: {}", names.join(", "));
    }
    for path in written {
        println!("wrote {}", display_path(&path));
    }
    Ok(())
}
