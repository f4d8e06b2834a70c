//! A receding-horizon run's real motion as an animation for the viewer (`.glb` and a
//! self-contained `.html`, [`sdrs_view::write_run`]) with its loss per frame beside it.

use super::mpc::MpcRun;
use sdrs::prelude::*;
use sdrs_view::glb::Animation;
use sdrs_view::{Plots, write_run};
use std::path::{Path, PathBuf};

/// Writes `run`'s real states on `model` (one frame every `dt` s) as `STEM.{glb,html}` in
/// `dir`, titled `title`.
pub fn write_mpc_animation(
    model: &Model,
    dt: f64,
    run: &MpcRun,
    title: &str,
    dir: &Path,
    stem: &str,
) -> anyhow::Result<[PathBuf; 2]> {
    let animation = Animation::from_states(model, dt, &run.states)?;
    let plots = Plots {
        loss: run
            .losses
            .iter()
            .enumerate()
            .map(|(k, &v)| (k as f64, v))
            .collect(),
        step_ms: Vec::new(),
    };
    Ok(write_run(&animation, title, &plots, dir, stem)?)
}

/// Writes the long-range run among `runs` (if it reached a frame) with
/// [`write_mpc_animation`] as `STEM_long_range.{glb,html}` and prints the paths.
pub fn write_long_range_animation(
    model: &Model,
    dt: f64,
    runs: &[MpcRun],
    title: &str,
    dir: &Path,
    stem: &str,
) -> anyhow::Result<()> {
    let long_range = sdrs::diff::Method::exact(sdrs::diff::ContactChoice::LongRange);
    if let Some(run) = runs
        .iter()
        .find(|run| run.method == long_range && run.states.len() > 1)
    {
        let name = format!("{stem}_long_range");
        for path in write_mpc_animation(model, dt, run, title, dir, &name)? {
            println!("wrote {}", sdrs_report::display_path(&path));
        }
    }
    Ok(())
}
