//! `sdrs simulate SCENE.toml --steps N -o OUT.jsonl`: runs a scene file with a progress bar and
//! writes the trajectory file (JSON lines: a header, the start, then one line per step, each
//! with the time, the state, every link's pose and the active contacts with their forces).

use std::path::PathBuf;

use clap::Args;
use sdrs::TrajectoryWriter;
use sdrs_report::{Progress, ProgressMode, display_path};

use crate::error::CliError;
use crate::scene::load;

/// Arguments of `sdrs simulate`.
#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// The scene file (TOML).
    pub scene: PathBuf,
    /// Steps to run (default: the scene's `steps`).
    #[arg(long)]
    pub steps: Option<usize>,
    /// The trajectory file to write (default: `sdrs-out/simulate/SCENE.jsonl` under the cargo
    /// target directory).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// A folder searched for `package://NAME/...` paths (repeatable).
    #[arg(long, value_name = "DIR")]
    pub package_path: Vec<PathBuf>,
}

/// Runs `sdrs simulate`.
pub fn run(args: &SimulateArgs) -> Result<(), CliError> {
    let mut loaded = load(&args.scene, &args.package_path, args.steps)?;
    let path = match &args.output {
        Some(path) => path.clone(),
        None => {
            let stem = args.scene.file_stem().unwrap_or_default().to_string_lossy();
            sdrs_report::output_dir("simulate")?.join(format!("{stem}.jsonl"))
        }
    };
    let setup = &mut loaded.setup;
    let dt = setup.simulator.settings().dt;
    let mut writer = TrajectoryWriter::create(&path, &setup.model, dt)?;
    let contacts = |setup: &mut sdrs::scene::SceneSetup, step| {
        setup
            .simulator
            .contacts(&setup.motion)
            .map_err(|source| CliError::Step { step, source })
    };
    let start = contacts(setup, 0)?;
    writer.record(&setup.model, &setup.motion.state, &start)?;
    let progress = Progress::new("simulate", loaded.steps as u64, ProgressMode::auto());
    let mut active = 0;
    for step in 0..loaded.steps {
        setup
            .simulator
            .advance(&mut setup.motion, &setup.control)
            .map_err(|source| CliError::Step { step, source })?;
        let now = contacts(setup, step + 1)?;
        active = active.max(now.len());
        writer.record(&setup.model, &setup.motion.state, &now)?;
        progress.inc(1);
    }
    progress.finish();
    writer.finish()?;
    crate::error::print(&format!(
        "simulated {} steps of {} ms ({} s), up to {active} active contacts; wrote {}\n",
        loaded.steps,
        1e3 * dt,
        loaded.steps as f64 * dt,
        display_path(&path)
    ))
}
