//! `sdrs bench SCENE.toml`: runs a scene and prints per-step timings (SDRS Table II's
//! breakdown), Newton iterations and active contact pairs.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;
use sdrs::dynamics::StepTimings;
use sdrs_report::{Progress, ProgressMode, display_path};

use crate::error::{CliError, print};
use crate::scene::load;
use crate::stats::Summary;

/// Arguments of `sdrs bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// The scene file (TOML).
    pub scene: PathBuf,
    /// Steps to time (default: the scene's `steps`).
    #[arg(long)]
    pub steps: Option<usize>,
    /// Untimed steps run first.
    #[arg(long, default_value_t = 0)]
    pub warmup: usize,
    /// A folder searched for `package://NAME/...` paths (repeatable).
    #[arg(long, value_name = "DIR")]
    pub package_path: Vec<PathBuf>,
}

/// Runs `sdrs bench`.
pub fn run(args: &BenchArgs) -> Result<(), CliError> {
    let mut loaded = load(&args.scene, &args.package_path, args.steps)?;
    let setup = &mut loaded.setup;
    for step in 0..args.warmup {
        setup
            .simulator
            .advance(&mut setup.motion, &setup.control)
            .map_err(|source| CliError::Step { step, source })?;
    }
    let progress = Progress::new("bench", loaded.steps as u64, ProgressMode::auto());
    let (mut times, mut iterations, mut pairs) = (Vec::new(), Vec::new(), Vec::new());
    let mut total = StepTimings::default();
    for step in args.warmup..args.warmup + loaded.steps {
        let report = setup
            .simulator
            .advance(&mut setup.motion, &setup.control)
            .map_err(|source| CliError::Step { step, source })?;
        times.push(1e3 * report.timings.total.as_secs_f64());
        iterations.push(report.iterations as f64);
        pairs.push(report.active_pairs as f64);
        total += report.timings;
        progress.inc(1);
    }
    progress.finish();
    let model = &setup.model;
    let dt = setup.simulator.settings().dt;
    let mut out = format!(
        "{}: {} links, {} DoF, {} steps of {} ms ({} warm-up)\n",
        display_path(&args.scene),
        model.links().len(),
        model.dof(),
        loaded.steps,
        1e3 * dt,
        args.warmup
    );
    let rows = [
        ("step time (ms)", Summary::of(&times), 3),
        ("Newton iterations", Summary::of(&iterations), 1),
        ("active pairs", Summary::of(&pairs), 1),
    ];
    let _ = writeln!(
        out,
        "  {:<18} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "per step", "mean", "median", "p95", "min", "max"
    );
    for (name, summary, digits) in rows {
        if let Some(s) = summary {
            let _ = writeln!(
                out,
                "  {name:<18} {:>9.digits$} {:>9.digits$} {:>9.digits$} {:>9.digits$} {:>9.digits$}",
                s.mean, s.median, s.p95, s.min, s.max
            );
        }
    }
    if total.total.as_secs_f64() > 0.0 {
        let [normal, friction, newton, other] = total.percentages();
        let _ = writeln!(
            out,
            "  time split: contact {normal:.1}%, friction {friction:.1}%, Newton {newton:.1}%, other {other:.1}%"
        );
        let _ = writeln!(
            out,
            "  real-time factor: {:.2} (simulated time / wall time of the steps)",
            loaded.steps as f64 * dt / total.total.as_secs_f64()
        );
    }
    print(&out)
}
