//! The long-range paper's Push benchmark (sec. 6, Fig. 7; appendix A.6.2): a rod pushes a
//! box to a target region under receding-horizon control ([`super::mpc`]). 12 DoF (the
//! rod's 6 and the box's 6); the 6-D control of each frame is the rod's PD position targets
//! on all six of its DoFs (x, y, z, yaw, roll, pitch: position and orientation). Table 3:
//! H = 200 frames, receding horizon h = 48, μ = 1e-6, Adam lr 1e-2 with (β₁, β₂) =
//! (0.3, 0.5), 50 iterations per frame, Δt = 0.04 s.
//!
//! The layout is ours (the paper shows it only in a figure): the box at the origin, the
//! target 60 cm away along +y, the rod 25 cm in front of the box (between the box and the
//! target, on the wrong side), lying across the way and offset 15 cm along x so that the
//! start is not mirror-symmetric (a symmetric start has no sideways gradient).

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
/// Where the rod starts (x, y), lying along x, between the box and the target.
pub const ROD_START: (f64, f64) = (0.15, 0.25);
/// The box's target (centre of mass).
pub const TARGET: Vector3<f64> = Vector3::new(0.0, 0.6, 0.05);

/// The push problem under `contact` (the long-range model with Table 3's μ =
/// [`STIFFNESS`]): the box named `box` should end within [`EPSILON`] of [`TARGET`]; all six
/// rod DoFs are driven.
pub fn push(contact: Contact) -> Result<TabletopProblem, Box<dyn std::error::Error>> {
    let mut scene = tabletop(ROD_START, 0.0, &[Piece::cube("box", BOX.0, BOX.1)], contact)?;
    scene.settings.contact = Some(contact.settings_at(STIFFNESS)?);
    Ok(TabletopProblem {
        scene,
        targets: vec![TARGET],
        epsilon: EPSILON,
        driven: (0..6).collect(),
    })
}
