//! A run's motion as an animation for the viewer (`.glb` and a self-contained `.html`,
//! [`sdrs_view::write_run`]) with its loss history beside it and its targets marked: the
//! receding-horizon tasks' real trajectory, an optimised trajectory's replayed plan.

use super::mpc::MpcRun;
use super::tabletop::TabletopProblem;
use sdrs::prelude::*;
use sdrs_view::glb::{Animation, Marker};
use sdrs_view::{Plots, write_run};
use std::path::{Path, PathBuf};

/// The markers of a task's `targets` (centres of mass, world frame) with success radius
/// `epsilon`: a translucent sphere of radius `epsilon` at each distinct target, coloured per
/// distinct target (so the two label regions of Sort differ, and pieces sharing a target
/// share its marker), named `target K`.
///
/// ```
/// use sdrs::prelude::Vector3;
/// use sdrs_examples::long_range::animation::target_markers;
///
/// let a = Vector3::new(-0.7, 0.6, 0.05);
/// let b = Vector3::new(0.7, 0.6, 0.05);
/// let markers = target_markers([a, b, a, b, a], 0.1);
/// assert_eq!(markers.len(), 2);
/// assert_eq!(markers[1].centre, [0.7, 0.6, 0.05]);
/// assert_eq!(markers[1].radius, 0.1);
/// assert_ne!(markers[0].colour, markers[1].colour);
/// ```
pub fn target_markers(
    targets: impl IntoIterator<Item = Vector3<f64>>,
    epsilon: f64,
) -> Vec<Marker> {
    let mut centres: Vec<[f64; 3]> = Vec::new();
    for target in targets {
        let centre = [target.x, target.y, target.z];
        if !centres.contains(&centre) {
            centres.push(centre);
        }
    }
    centres
        .into_iter()
        .enumerate()
        .map(|(k, centre)| Marker::new(format!("target {k}"), centre, epsilon, Marker::colour(k)))
        .collect()
}

/// The motion through `states` of `model` (one frame every `dt` s) with `markers`.
pub fn marked_motion<'m>(
    model: &'m Model,
    dt: f64,
    states: &[State],
    markers: Vec<Marker>,
) -> anyhow::Result<Animation<'m>> {
    Ok(Animation::from_states(model, dt, states)?.with_markers(markers)?)
}

/// Writes `animation` as `STEM.{glb,html}` in `dir`, titled `title`, with the loss history
/// `losses` plotted beside the motion, and prints the paths.
pub fn write_motion(
    animation: &Animation,
    losses: &[f64],
    title: &str,
    dir: &Path,
    stem: &str,
) -> anyhow::Result<[PathBuf; 2]> {
    let plots = Plots {
        loss: sdrs_report::indexed(losses),
        step_ms: Vec::new(),
    };
    let paths = write_run(animation, title, &plots, dir, stem)?;
    for path in &paths {
        println!("wrote {}", sdrs_report::display_path(path));
    }
    Ok(paths)
}

/// Writes the real motion of the long-range run among `runs` on `problem` (if it reached a
/// frame), its targets marked, with its loss per frame ([`write_motion`]), as
/// `STEM_long_range.{glb,html}`.
pub fn write_long_range_animation(
    problem: &TabletopProblem,
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
        let animation = marked_motion(
            &problem.scene.model,
            problem.scene.settings.dt,
            &run.states,
            target_markers(problem.targets.iter().copied(), problem.epsilon),
        )?;
        write_motion(
            &animation,
            &run.losses,
            title,
            dir,
            &format!("{stem}_long_range"),
        )?;
    }
    Ok(())
}
