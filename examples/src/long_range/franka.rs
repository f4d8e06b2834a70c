//! The long-range paper's Franka Push (appendix A.6.5, Fig. 15): a fixed-base Franka Panda
//! pushes an object on the ground to a target under receding-horizon control
//! ([`super::mpc`]), with the long-range contact model between every Panda link and the
//! object, the object and the ground, and the Panda and the ground.
//!
//! What is ours (the paper gives only a figure and the per-frame costs):
//!
//! * **The arm**: the Panda of `example-robot-data` (URDF with its collision meshes, 200-300
//!   triangles per link; the SRDF's `<disable_collisions>` applied), base bolted to the
//!   ground at the origin. Its seven arm joints are the DoFs; the two finger joints are made
//!   fixed (fingers closed, rigid with the hand), so the model has 7 arm DoFs + 6 of the
//!   object. The arm never touches itself (collision groups: [`GROUP_GROUND`],
//!   [`GROUP_ARM`], [`GROUP_OBJECT`]): the paper's potential acts between every arm link and
//!   the object and between the object and the ground. Arm–ground contact is optional
//!   (`arm_ground` of [`franka_push`]) and off in the benchmark: it makes a window
//!   evaluation 31-33 times slower (4 steps: 5.0 s against 0.16 s), the long-range friction
//!   of the arm's triangles against the ground's 1.5 m triangles taking most of it (see the
//!   `long_range_franka` example's notes), so the benchmark reports the arm's lowest point
//!   instead ([`arm_lowest`]).
//! * **Control**: stable-PD position targets of the seven joints (the 7-D action of each
//!   frame), gains [`KP`] with critical damping for [`JOINT_INERTIA`]. Gravity is on and the
//!   PD holds the arm (no compensation: the arm sags a little under its weight, which the
//!   plan corrects). The joint limits of the URDF are the simulator's limit barrier, so no
//!   target, however far past a limit, moves a joint out of its range.
//! * **The object**: a [`super::tabletop::CUBE_SIZE`] box (the paper's bunny has no
//!   redistributable copy; [`Piece::ell`], the generated non-convex L of the gather task,
//!   can stand in: [`franka_push`] takes any [`Piece`]).
//! * **Layout**: the hand pointing down at [`START`] hovers ~7 cm above the ground, the box
//!   [`BOX`] 8 cm in front of the hand's collision mesh (10 cm from the fingers), the target
//!   [`TARGET`] 20 cm further along +x; success within [`EPSILON`].
//! * **Settings**: push's Table 3 row (H, h, μ, Adam lr with (β₁, β₂) = (0.3, 0.5), its
//!   iterations, Δt = 0.04 s): the constants of [`super::push`] re-exported here.

use super::tabletop::{Contact, DT, Piece, Tabletop, TabletopProblem, ground};
use sdrs::dynamics::srdf::Srdf;
use sdrs::dynamics::{UrdfOptions, load_urdf};
use sdrs::prelude::*;
use std::path::PathBuf;
use thiserror::Error;

pub use super::push::{EPSILON, HORIZON, ITERATIONS, LEARNING_RATE, RECEDING, STIFFNESS};

/// The Panda's arm joints, in DoF order.
pub const ARM_JOINTS: [&str; 7] = [
    "panda_joint1",
    "panda_joint2",
    "panda_joint3",
    "panda_joint4",
    "panda_joint5",
    "panda_joint6",
    "panda_joint7",
];

/// The neutral start (rad): the SRDF's `default` pose (joint 7 at π/4) with the shoulder and
/// elbow lowered, joint 6 keeping the hand pointing straight down (q6 = q2 − q4); the
/// tool centre point at (0.44, 0, 0.08) m.
pub const START: [f64; 7] = [0.0, 0.2, 0.0, -2.6, 0.0, 2.8, std::f64::consts::FRAC_PI_4];

/// PD stiffness of every arm joint (N·m/rad): holds
/// the arm's ~12 kg within a few hundredths of a radian of its targets against gravity.
pub const KP: f64 = 2000.0;

/// The joint inertia (kg·m²) the arm's PD damping is critical for.
pub const JOINT_INERTIA: f64 = 1.0;

/// The box's start (x, y): 8 cm in front of the hand.
pub const BOX: (f64, f64) = (0.6, 0.0);

/// The box's target (centre of mass), 20 cm beyond its start.
pub const TARGET: Vector3<f64> = Vector3::new(0.8, 0.0, 0.05);

/// Collision group of the ground (touches the object, and the arm when asked).
pub const GROUP_GROUND: u32 = 1;
/// Collision group of the arm's links (touch the object, and the ground when asked; never
/// each other).
pub const GROUP_ARM: u32 = 2;
/// Collision group of the object (touches the ground and the arm).
pub const GROUP_OBJECT: u32 = 4;

/// Where the Panda's description lives.
#[derive(Debug, Clone)]
pub struct PandaFiles {
    /// The URDF.
    pub urdf: PathBuf,
    /// The SRDF, whose `<disable_collisions>` pairs are applied (`None`: none).
    pub srdf: Option<PathBuf>,
    /// Folders searched for `package://` meshes.
    pub package_paths: Vec<PathBuf>,
}

/// What can be wrong with the robot description given as a Panda.
#[derive(Debug, Error)]
pub enum FrankaError {
    /// An arm joint is missing or is not a revolute joint.
    #[error("the robot has no revolute joint '{0}': give the Panda of example-robot-data")]
    ArmJoint(String),
    /// The start pose is outside the URDF's joint limits.
    #[error("the start pose puts {0:?} at or beyond its limit")]
    StartOutsideLimits(Vec<String>),
}

/// The Franka push problem: the Panda of `files`, `piece` (its start pose as given), pushed
/// to `target` within [`EPSILON`], simulated under `contact` (the long-range model with
/// Table 3's μ = [`STIFFNESS`]), the arm and the ground in contact when `arm_ground`; the
/// seven arm joints are driven, the arm starts at rest at [`START`].
pub fn franka_push(
    files: &PandaFiles,
    piece: &Piece,
    target: Vector3<f64>,
    contact: Contact,
    arm_ground: bool,
) -> Result<TabletopProblem, Box<dyn std::error::Error>> {
    let options = UrdfOptions {
        package_paths: files.package_paths.clone(),
        ..UrdfOptions::default()
    };
    let robot = load_urdf(&files.urdf, &options)?;
    let mut links = vec![ground()?];
    let offset = links.len();
    for mut link in robot.links().iter().cloned() {
        link.parent = link.parent.map(|p| p + offset);
        for excluded in &mut link.contact.excluded {
            *excluded += offset;
        }
        // The fingers (and any other joint that is not the arm's) are held fixed.
        let arm = link
            .joint_name
            .as_deref()
            .is_some_and(|name| ARM_JOINTS.contains(&name));
        if !arm && link.joint.dof() > 0 {
            link.joint = JointKind::Fixed;
            link.limits = None;
        }
        links.push(link);
    }
    let object = links.len();
    links.push(piece.link());
    let mut model = Model::new(links)?;
    if let Some(srdf) = &files.srdf {
        Srdf::from_file(srdf)?.apply(&mut model)?;
    }
    let names: Vec<String> = model.links().iter().map(|l| l.name.clone()).collect();
    for (k, name) in names.iter().enumerate() {
        let (group, mask) = match k {
            0 if arm_ground => (GROUP_GROUND, GROUP_ARM | GROUP_OBJECT),
            0 => (GROUP_GROUND, GROUP_OBJECT),
            k if k == object => (GROUP_OBJECT, GROUP_GROUND | GROUP_ARM),
            _ if arm_ground => (GROUP_ARM, GROUP_GROUND | GROUP_OBJECT),
            _ => (GROUP_ARM, GROUP_OBJECT),
        };
        model.set_collision_group(name, group, mask)?;
    }

    let mut settings = StepSettings::new(DT)?;
    settings.contact = Some(contact.settings_at(STIFFNESS)?);
    settings.backward = true;
    settings.design_derivatives = false;

    let mut start = State::zero(&model);
    let mut control = Control::passive(&model);
    for (joint, &angle) in ARM_JOINTS.iter().zip(&START) {
        let link = model
            .joint_link(joint)
            .ok()
            .filter(|&l| matches!(model.links()[l].joint, JointKind::Revolute { .. }))
            .ok_or_else(|| FrankaError::ArmJoint(joint.to_string()))?;
        let dof = model.dof_offset(link);
        start.q[dof] = angle;
        control.position[dof] = angle;
        control.kp[dof] = KP;
        // Critical damping c = 2√(k I).
        control.kd[dof] = 2.0 * (KP * JOINT_INERTIA).sqrt();
    }
    let mut inside = start.clone();
    let moved = model.clamp_inside_limits(&mut inside, settings.limit_support);
    if !moved.is_empty() {
        return Err(FrankaError::StartOutsideLimits(moved).into());
    }
    let driven = ARM_JOINTS
        .iter()
        .map(|j| Ok(model.dof_offset(model.joint_link(j)?)))
        .collect::<Result<Vec<_>, sdrs::dynamics::DynamicsError>>()?;
    Ok(TabletopProblem {
        scene: Tabletop {
            model,
            settings,
            control,
            pieces: vec![object],
            start,
        },
        targets: vec![target],
        epsilon: EPSILON,
        driven,
    })
}

/// [`franka_push`] of a [`Piece::cube`] named `box` at [`BOX`] to [`TARGET`], without
/// arm–ground contact.
pub fn franka_box(
    files: &PandaFiles,
    contact: Contact,
) -> Result<TabletopProblem, Box<dyn std::error::Error>> {
    franka_push(
        files,
        &Piece::cube("box", BOX.0, BOX.1),
        TARGET,
        contact,
        false,
    )
}

/// The lowest world z (m) of the moving arm's hulls (every link with a DoF on its path but
/// `pieces`; the base bolted to the ground is left out) in `state`: below zero, the arm has
/// gone into the ground.
pub fn arm_lowest(model: &Model, pieces: &[usize], state: &State) -> f64 {
    let kinematics = Kinematics::new(model, state);
    model
        .links()
        .iter()
        .zip(kinematics.poses())
        .enumerate()
        .filter(|(k, _)| !model.path(*k).is_empty() && !pieces.contains(k))
        .flat_map(|(_, (link, pose))| {
            link.hulls
                .iter()
                .flat_map(move |h| h.vertices().iter().map(move |v| (pose * v).z))
        })
        .fold(f64::INFINITY, f64::min)
}

/// How far each joint of `state` is inside its limits (rad; negative: beyond), the smallest
/// over the arm's joints: the run's joint-limit safety.
pub fn limit_clearance(model: &Model, state: &State) -> f64 {
    model
        .links()
        .iter()
        .enumerate()
        .filter_map(|(k, link)| {
            let (lower, upper) = link.limits?;
            let q = state.q[model.dof_offset(k)];
            Some((q - lower).min(upper - q))
        })
        .fold(f64::INFINITY, f64::min)
}
