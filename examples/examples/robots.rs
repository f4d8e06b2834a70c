//! Any URDF robot held by PD under the default contact settings: a fixed-base arm holds its
//! configuration; with `--floating`, the robot is dropped onto the ground from 5 cm in its
//! standing configuration (the SRDF's, where it has one) and holds it.
//!
//! The run's animation goes to `target/sdrs-out/robots/NAME.{glb,html}`.
//!
//! ```sh
//! cargo run --release -p sdrs-examples --example robots -- ROBOT.urdf [--srdf ROBOT.srdf] \
//!     [--floating] [--package-path DIR]... [--seconds 5] [--state NAME]
//! ```
//!
//! `package://NAME/...` meshes resolve through `--package-path` and, failing that, through an
//! ancestor folder of the URDF named NAME. Prints what was left out of contact, per-step time
//! and Newton iterations, and exits non-zero if the robot errs, penetrates, produces NaN,
//! flies off or falls over.

use clap::Parser;
use sdrs_examples::robots::{Trial, TrialOptions, TrialReport};
use sdrs_report::{display_path, output_dir};
use sdrs_view::glb::Animation;
use sdrs_view::{Plots, write_run};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(about = "Hold a URDF robot under PD (dropped onto the ground with --floating)")]
struct Args {
    /// The robot's URDF.
    urdf: PathBuf,
    /// Its SRDF (disabled collision pairs, named configurations).
    #[arg(long)]
    srdf: Option<PathBuf>,
    /// Give the root a free joint and drop the robot onto the ground.
    #[arg(long)]
    floating: bool,
    /// A directory searched for `package://NAME/...` (repeatable).
    #[arg(long = "package-path")]
    package_paths: Vec<PathBuf>,
    /// Simulated time (s).
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
    /// The SRDF group state to hold (default: standing/half_sitting/default if present).
    #[arg(long)]
    state: Option<String>,
    /// Time step (s).
    #[arg(long, default_value_t = 0.01)]
    dt: f64,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let options = TrialOptions {
        package_paths: args.package_paths.clone(),
        floating: args.floating,
        state: args.state.clone(),
        dt: args.dt,
        ..TrialOptions::default()
    };
    let mut trial = match Trial::new(&args.urdf, args.srdf.as_deref(), &options) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let model = &trial.model;
    println!(
        "{}: {} links, {} DoF, {} hulls; holding '{}'",
        args.urdf.display(),
        model.links().len() - 1,
        model.dof(),
        trial.hulls,
        trial.configuration
    );
    for warning in &trial.skipped {
        println!("warning: {warning}");
    }
    if !trial.moved.is_empty() {
        println!(
            "moved inside their limits (the barrier is infinite at a limit): {}",
            trial.moved.join(", ")
        );
    }
    let filtered = &trial.filtered;
    if let Some(srdf) = &filtered.srdf {
        println!(
            "SRDF: {} disabled pairs applied, {} naming links this model does not have",
            srdf.applied,
            srdf.unknown.len()
        );
    }
    println!(
        "automatic filter: {} pairs touching or within the barrier's support at the start",
        filtered.automatic.len()
    );
    for pair in &filtered.automatic {
        println!(
            "  {} – {} ({:.2} mm)",
            pair.link_a,
            pair.link_b,
            1e3 * pair.distance
        );
    }
    println!("{} link pairs left in contact", filtered.active);
    let report = trial.run(args.seconds, 10);
    println!(
        "{} steps: {:.2} ms per step (max {:.2} ms), Newton iterations {:.2} per step (max {})",
        report.steps,
        1e3 * report.step_time.0.as_secs_f64(),
        1e3 * report.step_time.1.as_secs_f64(),
        report.iterations.0,
        report.iterations.1
    );
    let name = args.urdf.file_stem().unwrap_or_default().to_string_lossy();
    match write_animation(&trial, &report, &name) {
        Ok(paths) => paths
            .iter()
            .for_each(|p| println!("wrote {}", display_path(p))),
        Err(e) => eprintln!("could not write the animation: {e}"),
    }
    if let (Some(h), Some(standing)) = (report.base_height, trial.standing_height) {
        println!(
            "base height {h:.4} m, standing height {standing:.4} m ({:+.1} mm)",
            1e3 * (h - standing)
        );
    }
    println!(
        "smallest distance between links in contact: {:.3} mm",
        1e3 * report.min_distance
    );
    match report.failure {
        None => {
            println!("ok");
            ExitCode::SUCCESS
        }
        Some(why) => {
            eprintln!("FAILED: {why}");
            ExitCode::FAILURE
        }
    }
}

/// Writes the run's animation to `target/sdrs-out/robots/NAME.{glb,html}`.
fn write_animation(
    trial: &Trial,
    report: &TrialReport,
    name: &str,
) -> Result<[PathBuf; 2], Box<dyn std::error::Error>> {
    let dt = trial.simulator.settings().dt;
    let animation = Animation::from_states(&trial.model, dt, &report.states)?;
    let plots = Plots {
        loss: Vec::new(),
        step_ms: report.step_ms.clone(),
    };
    let title = format!("{name}: {}", trial.configuration);
    Ok(write_run(
        &animation,
        &title,
        &plots,
        &output_dir("robots")?,
        name,
    )?)
}
