//! The long-range paper's Sort benchmark (sec. 6, Fig. 8b/d; appendix A.6.2): 10 cubes of
//! two labels lie mixed on the ground; a rod pushes each label's cubes to its own region.
//! 66 DoF (the rod's 6 and 6 per cube); the paper's PD targets drive the rod's 3
//! translations, ours its 2 horizontal ones ([`DRIVEN`]).
//! Table 3: H = 700, receding horizon h = 16, μ = 3e-8, Adam lr 1e-2 with
//! (β₁, β₂) = (0.3, 0.5), 100 iterations, Δt = 0.04 s.
//!
//! The layout is ours (the paper shows it only in a figure): two rows of five cubes with
//! labels in a fixed mixed order, label A's region to the left, label B's to the right.

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
    sort_problem_at(cubes, (ROD_START.0, ROD_START.1, 0.0), contact)
}

/// [`sort_problem`] with the rod starting at `rod` (x, y, yaw), e.g. next to the cubes (the
/// long-range gradient guides the rod only within about 10 cm of a cube; see
/// [`super::gather`]).
pub fn sort_problem_at(
    cubes: usize,
    rod: (f64, f64, f64),
    contact: Contact,
) -> Result<TabletopProblem, Box<dyn std::error::Error>> {
    if cubes == 0 || cubes > CUBES.len() {
        return Err(format!("{cubes} cubes: the sort task has 1 to {}", CUBES.len()).into());
    }
    let pieces: Vec<Piece> = CUBES[..cubes]
        .iter()
        .enumerate()
        .map(|(k, &(x, y, _))| Piece::cube(format!("cube{k}"), x, y))
        .collect();
    Ok(TabletopProblem {
        scene: tabletop((rod.0, rod.1), rod.2, &pieces, contact)?,
        targets: CUBES[..cubes]
            .iter()
            .map(|&(_, _, b)| TARGETS[usize::from(b)])
            .collect(),
        epsilon: EPSILON,
        driven: DRIVEN.to_vec(),
    })
}
