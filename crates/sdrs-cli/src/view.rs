//! `sdrs view SCENE.toml TRAJ.jsonl [-o DIR]`: the animation of a trajectory file of a scene as
//! `NAME.glb` (any glTF viewer, Blender) and `NAME.html` (the self-contained viewer).

use std::path::PathBuf;

use clap::Args;
use sdrs::TrajectoryFile;
use sdrs_report::display_path;
use sdrs_view::glb::{Animation, ContactLayer};
use sdrs_view::{Plots, write_run};

use crate::error::{CliError, existing};
use crate::scene::load;

/// Arguments of `sdrs view`.
#[derive(Debug, Args)]
pub struct ViewArgs {
    /// The scene file (TOML) the trajectory was simulated from: it gives the shapes.
    pub scene: PathBuf,
    /// The trajectory file (JSON lines, as `sdrs simulate` writes it).
    pub trajectory: PathBuf,
    /// The folder to write NAME.glb and NAME.html to (default: `sdrs-out/view/` under the
    /// cargo target directory).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Contact-force arrows: metres per newton.
    #[arg(long, default_value_t = 0.01)]
    pub force_scale: f64,
    /// A folder searched for `package://NAME/...` paths (repeatable).
    #[arg(long, value_name = "DIR")]
    pub package_path: Vec<PathBuf>,
}

/// Runs `sdrs view`.
pub fn run(args: &ViewArgs) -> Result<(), CliError> {
    existing(&args.trajectory)?;
    let loaded = load(&args.scene, &args.package_path, Some(1))?;
    let model = &loaded.setup.model;
    let trajectory = TrajectoryFile::read(&args.trajectory)?;
    let layer = ContactLayer {
        force_scale: args.force_scale,
        marker_size: 0.005,
    };
    let animation = Animation::from_trajectory(model, &trajectory)?.with_contacts(layer)?;
    let dir = match &args.output {
        Some(dir) => dir.clone(),
        None => sdrs_report::output_dir("view")?,
    };
    let name = args
        .trajectory
        .file_stem()
        .unwrap_or_default()
        .to_string_lossy();
    let title = format!("{} ({})", name, args.scene.display());
    let written = write_run(&animation, &title, &Plots::default(), &dir, &name)?;
    let [glb, html] = written.map(|p| display_path(&p));
    crate::error::print(&format!("wrote {glb} and {html}\n"))
}
