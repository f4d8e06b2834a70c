//! A run's motion as an animation for the viewer (`.glb` and a self-contained `.html`,
//! [`sdrs_view::write_run`]) with its loss history beside it and its targets marked: the
//! receding-horizon tasks' real trajectory, an optimised trajectory's replayed plan.

use super::mpc::MpcRun;
use super::tabletop::TabletopProblem;
use sdrs::prelude::*;
use sdrs_view::glb::{Animation, Marker, link_colour};
use sdrs_view::{Plots, write_run};
use std::path::{Path, PathBuf};

/// The markers of a task whose pieces (links of `model`) must bring their centres of mass
/// within `epsilon` of their targets, given as `(link, target)` (world frame): a translucent
/// sphere of radius `epsilon` at each distinct target, in its piece's colour when one piece
/// alone is sent there (`target of NAME`), otherwise in a palette colour of its own (`target
/// K`: Sort's label regions, Gather's one region).
///
/// ```
/// use sdrs::dynamics::scenes;
/// use sdrs::prelude::Vector3;
/// use sdrs_examples::long_range::animation::target_markers;
/// use sdrs_view::glb::link_colour;
///
/// let model = scenes::chain(4, 0.01)?.model;
/// let (a, b) = (Vector3::new(-0.7, 0.6, 0.05), Vector3::new(0.7, 0.6, 0.05));
/// // Links 1 and 3 share target a; link 2 alone goes to b.
/// let markers = target_markers(&model, [(1, a), (2, b), (3, a)], 0.1);
/// assert_eq!(markers.len(), 2);
/// assert_eq!((markers[1].centre, markers[1].radius), ([0.7, 0.6, 0.05], 0.1));
/// assert_eq!(Some(markers[1].colour), link_colour(&model, 2));
/// assert_eq!(markers[0].name, "target 0");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn target_markers(
    model: &Model,
    pieces: impl IntoIterator<Item = (usize, Vector3<f64>)>,
    epsilon: f64,
) -> Vec<Marker> {
    // Each distinct target with the pieces sent there.
    let mut targets: Vec<([f64; 3], Vec<usize>)> = Vec::new();
    for (link, target) in pieces {
        let centre = [target.x, target.y, target.z];
        match targets.iter_mut().find(|(c, _)| *c == centre) {
            Some((_, links)) => links.push(link),
            None => targets.push((centre, vec![link])),
        }
    }
    targets
        .into_iter()
        .enumerate()
        .map(|(k, (centre, links))| {
            let alone = match links.as_slice() {
                &[link] => link_colour(model, link).map(|c| (c, &model.links()[link].name)),
                _ => None,
            };
            match alone {
                Some((colour, name)) => {
                    Marker::new(format!("target of {name}"), centre, epsilon, colour)
                }
                None => Marker::new(format!("target {k}"), centre, epsilon, Marker::colour(k)),
            }
        })
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
            target_markers(
                &problem.scene.model,
                problem
                    .scene
                    .pieces
                    .iter()
                    .copied()
                    .zip(problem.targets.iter().copied()),
                problem.epsilon,
            ),
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
