//! One task under every method of the paper's comparison (long-range, IPC, SDRS hulls with
//! exact gradients, the gradient bundle), from the same initial guess with the same Adam:
//! the convergence histories overlaid in one plot and one CSV (through sdrs-report).

use sdrs::diff::{ContactModels, GradientSource, Method, MethodRun, compare, paper_adam};
use sdrs::prelude::*;
use sdrs_report::LinePlot;
use std::path::{Path, PathBuf};

/// Runs `iterations` Adam steps at `learning_rate` from `x0` under each of `methods`
/// (`build(settings)` gives the task's exact gradient source), printing each method's loss
/// every `every` iterations.
pub fn run_methods<G: GradientSource>(
    methods: &[Method],
    models: &ContactModels,
    x0: &DVector<f64>,
    learning_rate: f64,
    iterations: usize,
    every: usize,
    build: impl FnMut(&ContactSettings) -> sdrs::diff::Result<G>,
) -> sdrs::diff::Result<Vec<MethodRun>> {
    compare(
        methods,
        models,
        x0,
        &paper_adam(x0.len(), learning_rate),
        iterations,
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
    )
}

/// Writes the runs' convergence histories, overlaid, as `STEM.{csv,svg,png}` in `dir`.
pub fn write_histories(
    runs: &[MethodRun],
    title: &str,
    dir: &Path,
    stem: &str,
) -> anyhow::Result<Vec<PathBuf>> {
    let mut plot = LinePlot::new(title)
        .x_label("iteration")
        .y_label("loss")
        .log_y(true);
    for run in runs {
        // A log axis cannot show zero: a solved task's zero loss is drawn at 1e-12.
        let points = run
            .history
            .iter()
            .enumerate()
            .map(|(k, &v)| (k as f64, v.max(1e-12)))
            .collect();
        plot = plot.series(&run.method.name(), points);
    }
    Ok(plot.write_all(dir, stem)?)
}
