//! A run's motion as an animation for the viewer (`.glb` and a self-contained `.html`,
//! [`sdrs_view::write_run`]) with its loss history beside it: the receding-horizon tasks'
//! real trajectory, an optimised trajectory's last rollout.

use super::mpc::MpcRun;
use sdrs::prelude::*;
use sdrs_view::glb::Animation;
use sdrs_view::{Plots, write_run};
use std::path::{Path, PathBuf};

/// Writes `states` of `model` (one frame every `dt` s) as `STEM.{glb,html}` in `dir`, titled
/// `title`, with the loss history `losses` plotted beside the motion.
pub fn write_motion(
    model: &Model,
    dt: f64,
    states: &[State],
    losses: &[f64],
    title: &str,
    dir: &Path,
    stem: &str,
) -> anyhow::Result<[PathBuf; 2]> {
    let animation = Animation::from_states(model, dt, states)?;
    let plots = Plots {
        loss: sdrs_report::indexed(losses),
        step_ms: Vec::new(),
    };
    Ok(write_run(&animation, title, &plots, dir, stem)?)
}

/// Writes the real motion of the long-range run among `runs` (if it reached a frame), with its
/// loss per frame ([`write_motion`]), as `STEM_long_range.{glb,html}` and prints the paths.
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
        for path in write_motion(model, dt, &run.states, &run.losses, title, dir, &name)? {
            println!("wrote {}", sdrs_report::display_path(&path));
        }
    }
    Ok(())
}
