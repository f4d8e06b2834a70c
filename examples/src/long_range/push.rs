//! The long-range paper's Push benchmark (sec. 6, Fig. 7; appendix A.6.2): a rod pushes a
//! box to a target region under receding-horizon control ([`super::mpc`]). 12 DoF (the
//! rod's 6 and the box's 6); the 6-D control of each frame is the rod's PD position targets
//! on all six of its DoFs (x, y, z, yaw, roll, pitch: position and orientation). Table 3:
//! H = 200 frames, receding horizon h = 48, μ = 1e-6, Adam lr 1e-2 with (β₁, β₂) =
//! (0.3, 0.5), 50 iterations per frame, Δt = 0.04 s.
//!
//! The layout is ours (the paper shows it only in a figure and says "the rod is initially
//! located in front of the box" and "moves around to the back of the box" before pushing):
//! the box at the origin, the target 40 cm away along +x, the rod 20 cm beside the box (in
//! front of it as the viewer sees it, on the −y side), lying along x: it can push the box
//! only sideways (+y) from there and must get behind it (−x) first. [`push_from`] takes any
//! other rod start, e.g. between the box and the target.

use super::tabletop::{Contact, Piece, TabletopProblem, tabletop};
use sdrs::prelude::*;

/// Table 3: trajectory horizon H (frames applied).
pub const HORIZON: usize = 200;
/// Table 3: receding horizon h.
pub const RECEDING: usize = 48;
/// Table 3: potential coefficient μ.
pub const STIFFNESS: f64 = 1e-6;
/// Table 3: Adam learning rate.
pub const LEARNING_RATE: f64 = 1e-2;
/// Table 3: Adam iterations (per frame: the paper runs its iterations on every window).
pub const ITERATIONS: usize = 50;
/// Success radius ε_target (m) around the target (the paper gives no value; half the box's
/// side).
pub const EPSILON: f64 = 0.05;
/// The box's start (x, y).
pub const BOX: (f64, f64) = (0.0, 0.0);
/// Where the rod starts (x, y, yaw): beside the box, lying along x.
pub const ROD_START: (f64, f64, f64) = (0.0, -0.2, 0.0);
/// The box's target (centre of mass).
pub const TARGET: Vector3<f64> = Vector3::new(0.4, 0.0, 0.05);

/// The push problem with the rod starting at [`ROD_START`] ([`push_from`]).
pub fn push(contact: Contact) -> Result<TabletopProblem, Box<dyn std::error::Error>> {
    push_from(contact, ROD_START)
}

/// The push problem under `contact` (the long-range model with Table 3's μ =
/// [`STIFFNESS`]) with the rod starting at `rod` (x, y, yaw): the box named `box` should end
/// within [`EPSILON`] of [`TARGET`]; all six rod DoFs are driven.
pub fn push_from(
    contact: Contact,
    rod: (f64, f64, f64),
) -> Result<TabletopProblem, Box<dyn std::error::Error>> {
    let pieces = [Piece::cube("box", BOX.0, BOX.1)];
    let mut scene = tabletop((rod.0, rod.1), rod.2, &pieces, contact)?;
    scene.settings.contact = Some(contact.settings_at(STIFFNESS)?);
    Ok(TabletopProblem {
        scene,
        targets: vec![TARGET],
        epsilon: EPSILON,
        driven: (0..6).collect(),
    })
}
