//! One task under every method of the paper's comparison (long-range, IPC, SDRS hulls with
//! exact gradients, the gradient bundle), from the same initial guess with the same Adam:
//! the convergence histories overlaid in one plot and one CSV (through sdrs-report).

use sdrs::diff::{Adam, ContactModels, GradientSource, Method, MethodRun, Stopping, compare};
use sdrs::prelude::*;
use sdrs_report::LinePlot;
use std::path::{Path, PathBuf};

/// How a task's runs end: at the first iterate whose task loss (the paper's
/// `ReLU(d² − ε²)`, zero once every object is within ε) is 0, unless `all_iterations`. Adam
/// with the paper's `(β₁, β₂)` takes every step, so an iterate that solved the task can be
/// followed by ones that do not (Ant-Push lost its box again after iteration 13).
pub fn until_solved(all_iterations: bool) -> Stopping {
    if all_iterations {
        Stopping::default()
    } else {
        Stopping::default().stopping_at(0.0)
    }
}

/// Runs up to `iterations` steps of `adam` (a copy per method; [`sdrs::diff::paper_adam`] is the
/// paper's, [`Adam::with_bounds`] keeps the parameters in a box) from `x0` under each of
/// `methods`,
/// each ending as `stopping` says ([`until_solved`]) (`build(settings)` gives the task's exact
/// gradient source), printing each method's loss
/// every `every` iterations, each failed method's error (the others still run) and each
/// method's best and final loss ([`MethodRun::best`]: Adam with the paper's small `(β₁, β₂)`
/// can end above a loss it passed).
#[allow(clippy::too_many_arguments)]
pub fn run_methods<G: GradientSource>(
    methods: &[Method],
    models: &ContactModels,
    x0: &DVector<f64>,
    adam: &Adam,
    iterations: usize,
    stopping: Stopping,
    every: usize,
    build: impl FnMut(&ContactSettings) -> sdrs::diff::Result<G>,
) -> Vec<MethodRun> {
    let runs = compare(
        methods,
        models,
        x0,
        adam,
        iterations,
        stopping,
        build,
        |method, it| {
            if it.iteration % every.max(1) == 0 {
                println!(
                    "  {:<32} iteration {:>4}: loss {:.6e}, |gradient| {:.3e}",
                    method.name(),
                    it.iteration,
                    it.value,
                    it.gradient.norm()
                );
            }
        },
    );
    for run in &runs {
        if let Some(error) = &run.error {
            println!(
                "  {:<32} failed after {} iterations: {error}",
                run.method.name(),
                run.history.len().saturating_sub(1)
            );
        }
        if let (Some(best), Some(last)) = (&run.best, run.history.last()) {
            println!(
                "  {:<32} best loss {:.6e} at iteration {}, final loss {last:.6e}",
                run.method.name(),
                best.value,
                best.iteration
            );
        }
    }
    runs
}

/// A run's best iterate as a table cell: `loss (iteration)`, `–` when it has none.
pub fn best_cell(run: &MethodRun) -> String {
    run.best.as_ref().map_or_else(
        || "–".to_string(),
        |best| format!("{:.4e} ({})", best.value, best.iteration),
    )
}

/// Writes the runs' convergence histories, overlaid, as `STEM.{csv,svg,png}` in `dir`.
pub fn write_histories(
    runs: &[MethodRun],
    title: &str,
    dir: &Path,
    stem: &str,
) -> anyhow::Result<Vec<PathBuf>> {
    let series: Vec<(String, &[f64])> = runs
        .iter()
        .map(|run| (run.method.name(), run.history.as_slice()))
        .collect();
    write_series(&series, title, "iteration", dir, stem)
}

/// Writes named loss histories (`x_label` counts their entries), overlaid on a log axis, as
/// `STEM.{csv,svg,png}` in `dir`.
pub fn write_series(
    series: &[(String, &[f64])],
    title: &str,
    x_label: &str,
    dir: &Path,
    stem: &str,
) -> anyhow::Result<Vec<PathBuf>> {
    let mut plot = LinePlot::new(title)
        .x_label(x_label)
        .y_label("loss")
        .log_y(true);
    for (name, history) in series {
        // A log axis cannot show zero: a solved task's zero loss is drawn at 1e-12.
        let points = history
            .iter()
            .enumerate()
            .map(|(k, &v)| (k as f64, v.max(1e-12)))
            .collect();
        plot = plot.series(name, points);
    }
    Ok(plot.write_all(dir, stem)?)
}

/// The command-line choice of methods of the receding-horizon examples: the long-range model
/// alone, or with `--baselines` every method of the paper ([`Method::paper`]).
#[derive(Debug, Clone, clap::Args)]
pub struct MethodChoice {
    /// Also run IPC, the SDRS hull barrier and the gradient bundle.
    #[arg(long)]
    pub baselines: bool,
    /// Gradient-bundle perturbations per gradient.
    #[arg(long, default_value_t = 4)]
    pub samples: usize,
    /// Gradient-bundle perturbation standard deviation (m and rad of the PD targets).
    #[arg(long, default_value_t = 0.05)]
    pub sigma: f64,
    /// Gradient-bundle seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl MethodChoice {
    /// The methods chosen.
    pub fn methods(&self) -> Vec<Method> {
        if self.baselines {
            Method::paper(self.samples, self.sigma, self.seed)
        } else {
            vec![Method::exact(sdrs::diff::ContactChoice::LongRange)]
        }
    }
}
