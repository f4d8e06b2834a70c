//! The universal parallel-jaw gripper of the SDRS paper (sec. V-F, Figs. 16-18).
//!
//! A palm carries two jaws on prismatic joints: 3 links (palm and two jaws) and 5 DoFs (the
//! palm's x, y, z slides on massless mounting frames, and one slide per jaw), every DoF under
//! stable PD (eq. 5). Each jaw is a plate of [`JawBlocks`] (13 × 12 = 156 blocks in the
//! paper's setting, [`PAPER_GRID`]); the vertices of both jaws' blocks are the design, shared by
//! the four trajectories. There are no control parameters (the paper's "preset
//! parameterisation of the controller"): the jaws' PD targets are the closed pose `θ_*`
//! throughout, and the palm's targets follow a script — hold while the jaws close (the first
//! [`CLOSE`] of the horizon), then move smoothly to the trajectory's target.
//!
//! Four objects ([`OBJECTS`]: a polyhedral ball, a cube, a lying
//! octagonal cylinder and an X of two crossed bars) start on the ground between the open
//! jaws; trajectory `i` grasps object `i` and carries it to a target drawn once from a fixed
//! seed ([`targets`](crate::carry::targets): raised 8-12 cm and moved 4-8 cm sideways in a
//! random direction). Its loss is the paper's "relative motion
//! between the object and the gripper", `|R_palmᵀ (COM_object − t_palm) − r|²` at the end
//! of the horizon, with `r` the object's centre in the palm's frame at the start (the paper
//! writes `|COM_object − COM_gripper|²`; the palm's frame is used because a held object keeps
//! a fixed offset from the gripper, not its centre). The optimised loss is the sum over the
//! four trajectories, evaluated in parallel ([`Carry::evaluate`], rayon), and the design
//! descends it with Adam (the paper: H = 180, α_d = 5e-3), each step projected onto the blocks'
//! bounds ([`JawBlocks::bounds`]). What the grasp-and-carry benchmarks share is in
//! [`crate::carry`].
//!
//! Ours, not the paper's (it gives no sizes): the jaws (8 cm square plates, 2 cm thick,
//! opening 9 cm), masses (palm 0.3 kg, jaws 0.05 kg, objects 0.1 kg), the gains (palm
//! k_p = 1e3; jaws k_p = 50 with closed targets 3.5 cm in from the open pose, squeezing a
//! 6 cm object with ≈ 2 N), the friction μ = 0.1 ([`MU`], "low": two flat jaws squeezing with
//! 2 N hold 0.4 N, less than the objects' 0.98 N weight, so none is lifted by the initial
//! gripper, as in the paper), the objects and the targets.
//!
//! Measured (`parallel_jaw` example, 2 shared cores): at the default reduced scale (6 × 6
//! blocks per jaw, H = 90, Adam lr 1e-3, 100 iterations, ≈ 1 min) the summed loss falls from
//! 5.04e-2 to 1.02e-2 m² and the optimised jaws hold the ball, the cylinder and the cross
//! (slip ≤ 2 mm) but not the cube: 3 of 4, where the paper holds all 4. The paper's learning
//! rate 5e-3 moves every vertex 5 mm per step, most of a 13 mm block's half-width, and the
//! loss jumps between grasps (2 of 4 after 100 iterations). The cube is out of reach of this
//! design space: it stands on the ground with vertical faces, so no block can get under it,
//! and friction from the at most 2.5 N squeeze (the blocks grow 5 mm inwards at most) carries
//! 0.5 N of its 0.98 N weight. The loss is piecewise flat between grasps (a dropped object
//! lies on the ground whatever the jaws' shape), so the history is a staircase, not a curve.
//! At the paper's scale (13 × 12 blocks, 7488 parameters, H = 180, lr 1e-3, 100 iterations,
//! ≈ 6 min at 3.6 s per iteration) the best design (iteration 5, loss 5.09e-2 → 1.08e-2)
//! holds the ball and the cylinder (slip 4 and 7 mm), lets the cross slip 12.5 mm and drops
//! the cube: 2 of 4 by our 1 cm test, and the later iterations do not improve on it.

use crate::blocks::JawBlocks;
use crate::carry::{Carry, CarryError, Gripper, build, palm_mounts};
use sdrs::prelude::*;

pub use crate::carry::{DT, OBJECTS};

/// The paper's horizon per trajectory.
pub const STEPS: usize = 180;
/// The paper's learning rate (Adam, design); the example defaults to 1e-3 (module docs).
pub const LEARNING_RATE: f64 = 5e-3;
/// Friction coefficient (ours; low, see the module docs).
pub const MU: f64 = 0.1;
/// The paper's block grid per jaw (along the jaw's width x and height z): 156 blocks.
pub const PAPER_GRID: [usize; 2] = [13, 12];
/// The jaw plate's size (x width, y thickness, z height; m).
pub const PLATE: Vector3<f64> = Vector3::new(0.08, 0.02, 0.08);
/// Distance of each jaw's inner face from the palm's centre plane when open (m).
pub const OPEN: f64 = 0.045;
/// The jaws' closed target `θ_*`: each slides this far in from the open pose (m).
pub const CLOSED: f64 = 0.035;
/// Jaw slide stiffness (the energy's `k_p`; the force is `2 k_p Δ`).
pub const JAW_KP: f64 = 50.0;
/// Fraction of the horizon in which the palm holds still while the jaws close.
pub const CLOSE: f64 = 0.3;
/// Palm mass (kg).
pub const PALM_MASS: f64 = 0.3;
/// Mass of each jaw (kg).
pub const JAW_MASS: f64 = 0.05;
/// Height of the jaws' lower edge above the ground at the start (m).
const JAW_BOTTOM: f64 = 0.008;

/// The gripper: the palm on its mounts ([`palm_mounts`]) and two jaws of `jaw`'s blocks
/// sliding along ∓y (joint value: how far the jaw has closed).
fn gripper(jaw: &JawBlocks) -> Result<Vec<Link>, CarryError> {
    let palm = ConvexHull::cuboid(Vector3::new(0.05, OPEN + PLATE.y, 0.01))
        .map_err(|e| CarryError::Scene(e.to_string()))?;
    // The palm's frame is at the jaws' centre; its plate sits above them.
    let palm_plate = ConvexHull::new(
        palm.vertices()
            .iter()
            .map(|v| v + Vector3::new(0.0, 0.0, PLATE.z / 2.0 + 0.012))
            .collect(),
    )
    .map_err(|e| CarryError::Scene(e.to_string()))?;
    let jaw_at = |side: f64| Isometry3::translation(0.0, side * (OPEN + PLATE.y / 2.0), 0.0);
    let mut links = palm_mounts(vec![palm_plate], PALM_MASS);
    for (name, side) in [("jaw_left", 1.0), ("jaw_right", -1.0)] {
        links.push(Link::new(
            name,
            Some(2),
            jaw_at(side),
            JointKind::Prismatic {
                axis: -side * Vector3::y(),
            },
            jaw.hulls.clone(),
            MassModel::Lumped { mass: JAW_MASS },
        ));
    }
    Ok(links)
}

/// Builds the benchmark with `grid` blocks per jaw (width × height; the paper: [`PAPER_GRID`])
/// and a horizon of `steps` per trajectory (the paper: [`STEPS`]), one trajectory per named
/// object (names from [`OBJECTS`]; the paper: all 4). The design vector holds the left jaw's
/// block vertices, then the right jaw's.
pub fn parallel_jaw(grid: [usize; 2], steps: usize, objects: &[&str]) -> Result<Carry, CarryError> {
    let block = PLATE.component_div(&Vector3::new(grid[0] as f64, 1.0, grid[1] as f64));
    let jaw = JawBlocks::grid([grid[0], 1, grid[1]], block)?;
    // Palm: 2 k_p = 2000 N/m on 0.4 kg, near-critical damping; jaws: 2 k_p = 100 N/m on
    // 0.05 kg, damping 2√(2 k_p m) ≈ 4.5 N·s/m (the stepper's k_d is damping · Δt / 2).
    let palm = (1e3, 0.5 * 60.0 * DT);
    let finger = (JAW_KP, (2.0 * JAW_KP * JAW_MASS).sqrt() * DT);
    let gripper = Gripper {
        links: gripper(&jaw)?,
        parts: vec![("jaw_left".into(), jaw.clone()), ("jaw_right".into(), jaw)],
        start: Vector3::new(0.0, 0.0, JAW_BOTTOM + PLATE.z / 2.0),
        gains: vec![palm, palm, palm, finger, finger],
        closed: vec![CLOSED, CLOSED],
        close: CLOSE,
        mu: MU,
    };
    build(&gripper, objects, steps)
}
