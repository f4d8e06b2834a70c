//! The long-range paper's Sort benchmark (sec. 6, Fig. 8b/d; appendix A.6.2): 10 cubes of
//! two labels lie mixed on the ground; a rod pushes each label's cubes to its own region.
//! 66 DoF (the rod's 6 and 6 per cube); the paper's PD targets drive the rod's 3
//! translations, ours its 2 horizontal ones ([`DRIVEN`]).
//! Table 3: H = 700, receding horizon h = 16, μ = 3e-8, Adam lr 1e-2 with
//! (β₁, β₂) = (0.3, 0.5), 100 iterations, Δt = 0.04 s.
//!
//! The layout is ours (the paper shows it only in a figure): two rows of five cubes with
//! labels in a fixed mixed order, label A's region to the left, label B's to the right.
//!
//! **Why the 2-cube sort stalls** (issue 18; `long_range_tabletop -- sort --cubes 2
//! --rod=-0.375,-0.35,0`, the rod 8 cm in front of cubes 0 and 1, 30 frames, h = 16, 10
//! iterations). Cube 0 (label B, on the left) must go to the right region (0.7, 0.6), cube 1
//! (label A, on the right) to the left one (−0.7, 0.6): they must cross. The rod lies along x
//! with its yaw held, so its long face pushes along +y; it moves a cube along x only by
//! dragging it through the rod-cube friction (coefficient 0.5: at most half the push,
//! 26.6° off the face's normal) or by pushing with its 4 cm end, and the 60 cm face spans
//! both cubes (25 cm apart), so a drag moves both the same way. Measured: the rod moves by
//! (0.275, 0.843) m and carries cube 0 from (−0.50, −0.20) to (−0.02, 0.66) and cube 1 from
//! (−0.25, −0.20) to (0.10, 0.65), both dragged +x (x/y ratios 0.56 and 0.41): cube 0's miss
//! falls 1.442 → 0.718 m, cube 1's 0.918 → 0.764 (frame 15) and back up to 0.804 (loss
//! 2.7975 → 1.0369; over 60 frames it stays at 1.0222 from frame 35 on, misses 0.718 and
//! 0.794 m, the rod still). Both cubes then sit at their regions' y with the rest of their errors
//! along x in opposite directions (+0.72 and −0.80 m): no push of the face helps, and
//! reaching a cube's side (for cube 0 the rod's end against its −x face, the rod's centre
//! 35 cm to its left) takes the rod through free space, where the window's loss is flat
//! (the far-field problem of [`super::gather`]'s docs). With z driven (`--drive-z`, the
//! paper's 3 translations) the run ends at 1.1650 at frame 30 and, over 100 frames, stays at
//! 1.0927 from frame 40 on (misses 0.767, 0.794 m). Nor do the paper's 100 iterations per
//! frame (Table 3; ours 10) find a way out: from a scene built at the stalled positions (rod
//! at (0.047, 0.264), cubes 0 and 1 at (−0.02, 0.66) and (0.09, 0.67), at rest; the same
//! `run_mpc`, h = 16), in 10 frames no Adam iterate (1000 at 100 iterations per frame, 100
//! at 10) lowers its window's loss below the plan that holds the rod (7 min 21 s
//! and 56 s; the real loss creeps 1.02609 → 1.02630 with the rod still, the misses stay
//! 0.723 and 0.793 m). The targets are reachable on the table,
//! but not by face pushes alone: cube 0's path to its region is 56° off the face's normal.
//! Nor is it the crossing alone: cubes 1 and 2 (labels A and B, left and right of each other,
//! `--first 1 --cubes 2 --rod=-0.125,-0.35,0 --frames 40`) are pushed side by side to their
//! regions' y (loss 1.8475 → 0.4669) and stay 33 cm apart in x, 0.535 and 0.552 m from
//! their regions (±0.7 m in x): the face moves them together, and separating them would take
//! a push along x that the window's gradient does not find. Leaving the rod's yaw free (no
//! PD, as the paper's passive DoFs; `--free-yaw`) lets contact turn it (by −1.25 and
//! 0.61 rad over 40 frames) without changing the outcome: 2.7975 → 1.0573 (misses 0.607,
//! 0.902 m) for cubes 0 and 1, 1.8475 → 0.4427 (0.513, 0.552 m) for cubes 1 and 2. Counting the same way (a face
//! push to the regions' y carries a cube along x by about half that distance, measured
//! 0.41-0.56, so at most about 0.4 m from the row at y = −0.2 and 0.25 m from the row at
//! y = 0.1, plus ε = 0.25 m of slack), only 4 of the 10 cubes of [`CUBES`] can reach their
//! region by face pushes at all, even one at a time: cubes 1, 5, 9 and, marginally, 8 (0.45 m
//! along x of 0.5); cubes 0, 2, 3, 4, 6 and 7 need 0.7-1.2 m along x, so the rod's 4 cm end
//! or a route around the other cubes, of which the window's loss gives no sign.

use super::tabletop::{Contact, Piece, TabletopProblem, TabletopTask, tabletop};
use sdrs::prelude::*;

/// Table 3: trajectory horizon H.
pub const HORIZON: usize = 700;
/// Table 3: receding horizon h.
pub const RECEDING: usize = 16;
/// Table 3: Adam learning rate.
pub const LEARNING_RATE: f64 = 1e-2;
/// Table 3: iterations.
pub const ITERATIONS: usize = 100;
/// Success radius ε_target (m) around a label's region centre (the paper gives no value).
pub const EPSILON: f64 = 0.25;
/// Where the rod starts (x, y), lying along x, in front of the cubes.
pub const ROD_START: (f64, f64) = (0.0, -0.6);

/// The cubes' start positions (x, y) and labels (`false`: A, `true`: B).
pub const CUBES: [(f64, f64, bool); 10] = [
    (-0.5, -0.2, true),
    (-0.25, -0.2, false),
    (0.0, -0.2, true),
    (0.25, -0.2, false),
    (0.5, -0.2, false),
    (-0.5, 0.1, false),
    (-0.25, 0.1, true),
    (0.0, 0.1, false),
    (0.25, 0.1, true),
    (0.5, 0.1, true),
];

/// Centres of label A's and label B's target regions.
pub const TARGETS: [Vector3<f64>; 2] =
    [Vector3::new(-0.7, 0.6, 0.05), Vector3::new(0.7, 0.6, 0.05)];

/// The rod's DoFs driven by the plan: its horizontal translations x, y. The paper drives the
/// 3 translations; we hold the height z by PD at its start instead (see [`super::tabletop`]'s
/// docs on the height: with z driven the loss, blind to it, lets Adam random-walk the rod
/// over the cubes or into the ground). `long_range_tabletop --drive-z` runs the paper's.
pub const DRIVEN: [usize; 2] = [0, 1];

/// A sort task and each cube's target.
pub type SortTask = (TabletopTask, Vec<Vector3<f64>>);

/// The sort task with the first `cubes` cubes of [`CUBES`] over `steps` steps under
/// `contact`.
pub fn sort(
    cubes: usize,
    steps: usize,
    contact: Contact,
) -> Result<SortTask, Box<dyn std::error::Error>> {
    let problem = sort_problem(cubes, contact)?;
    Ok((problem.task(steps)?, problem.targets))
}

/// The sort problem (any horizon) with the first `cubes` cubes of [`CUBES`]: each cube's
/// target is its label's region centre ([`TARGETS`]), the rod drives [`DRIVEN`].
pub fn sort_problem(
    cubes: usize,
    contact: Contact,
) -> Result<TabletopProblem, Box<dyn std::error::Error>> {
    sort_problem_at(0, cubes, (ROD_START.0, ROD_START.1, 0.0), contact)
}

/// The sort problem with the `count` cubes of [`CUBES`] from index `first` on (named
/// `cube{first}`, …) and the rod starting at `rod` (x, y, yaw), e.g. next to the cubes (the
/// long-range gradient guides the rod only within about 10 cm of a cube; see
/// [`super::gather`]).
pub fn sort_problem_at(
    first: usize,
    count: usize,
    rod: (f64, f64, f64),
    contact: Contact,
) -> Result<TabletopProblem, Box<dyn std::error::Error>> {
    if count == 0 || first + count > CUBES.len() {
        return Err(format!(
            "{count} cubes from index {first}: the sort task has {}",
            CUBES.len()
        )
        .into());
    }
    let cubes = &CUBES[first..first + count];
    let pieces: Vec<Piece> = cubes
        .iter()
        .enumerate()
        .map(|(k, &(x, y, _))| Piece::cube(format!("cube{}", first + k), x, y))
        .collect();
    Ok(TabletopProblem {
        scene: tabletop((rod.0, rod.1), rod.2, &pieces, contact)?,
        targets: cubes
            .iter()
            .map(|&(_, _, b)| TARGETS[usize::from(b)])
            .collect(),
        epsilon: EPSILON,
        driven: DRIVEN.to_vec(),
    })
}
