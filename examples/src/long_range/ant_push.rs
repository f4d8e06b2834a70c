//! The long-range paper's Ant-Push benchmark (sec. 6, Fig. 9; appendix A.6.2): a 9-link ant
//! walks to a box and pushes it to a target, its legs driven by 4 accumulated sine waves per
//! DoF (amplitude, frequency, phase: Hu et al. 2019), from a start where the ant and the box
//! are 40 cm apart, so only a globally supported potential gives the box a gradient.
//!
//! Table 3: H = 240 frames, Δt = 0.02 s, μ = 1e-8, Adam lr 3e-2 with (β₁, β₂) = (0.3, 0.5),
//! 100 iterations, 22 DoF. The paper's ant: a base with 3 translations and 1 rotation (yaw),
//! four upper legs and four lower legs, 16 DoF of which the 12 of the legs are controlled.
//! It says the legs join by "ball joints and hinge joints"; 16 − 4 = 12 leg DoF is three per
//! leg, so here each hip is two hinges (yaw about z, then pitch about the horizontal axis
//! across the leg: a ball joint without its twist) and each knee one hinge. Sizes, masses
//! and gains are not given; ours are on the constants below (the proportions of MuJoCo's
//! ant, as cuboids of 12 triangles each, so the long-range potential stays cheap).
//!
//! Layout (ours): the ant's centre at the origin facing +x, the box 40 cm ahead of its front
//! feet, the target 50 cm beyond the box's start along +x.

use super::tabletop::ground;
use sdrs::diff::{ContactModels, SineWaves, TargetRegion};
use sdrs::geometry::TriMesh;
use sdrs::prelude::*;

/// Table 3: trajectory horizon H (frames).
pub const HORIZON: usize = 240;
/// Table 3: time step Δt (s).
pub const DT: f64 = 0.02;
/// Table 3: potential coefficient μ.
pub const STIFFNESS: f64 = 1e-8;
/// Table 3: Adam learning rate.
pub const LEARNING_RATE: f64 = 3e-2;
/// Table 3: Adam iterations.
pub const ITERATIONS: usize = 100;
/// Sine waves per leg DoF (the paper's "4 accumulated sine wave signals").
pub const WAVES: usize = 4;
/// Blending margin of the long-range potential (relative, as the table-top scenes).
const MARGIN: f64 = 0.1;
/// Friction coefficient of every pair (ours, as the table-top scenes).
const FRICTION: f64 = 0.5;
/// Half extents of the torso (m) and its mass (kg).
const TORSO: (Vector3<f64>, f64) = (Vector3::new(0.15, 0.15, 0.05), 1.0);
/// Length (m), half thickness (m) and mass (kg) of an upper leg (horizontal, outward).
const UPPER: (f64, f64, f64) = (0.2, 0.025, 0.1);
/// Length (m), half thickness (m) and mass (kg) of a lower leg (down from the knee).
const LOWER: (f64, f64, f64) = (0.25, 0.02, 0.1);
/// PD stiffness of every leg DoF (N·m/rad); damping `c = 2 N·m·s/rad`.
const LEG_KP: f64 = 30.0;
/// Damping coefficient of every leg DoF (N·m·s/rad).
const LEG_DAMPING: f64 = 2.0;
/// Clearance of the feet above the ground at the start (m).
const CLEARANCE: f64 = 2e-3;
/// Side (m) and mass (kg) of the box.
const BOX: (f64, f64) = (0.2, 0.5);
/// Gap between the front feet and the box at the start (m).
const BOX_GAP: f64 = 0.4;
/// How far the box should move along +x (m).
const PUSH: f64 = 0.5;
/// Success radius ε_target (m): a quarter of the box's side.
pub const EPSILON: f64 = 0.05;

/// A cuboid link's hull and mesh: half extents `half`, placed at `place` in the link frame.
fn block(
    half: Vector3<f64>,
    place: Isometry3<f64>,
) -> Result<(ConvexHull, TriMesh), Box<dyn std::error::Error>> {
    let hull = ConvexHull::cuboid(half)?;
    let moved = ConvexHull::new(hull.vertices().iter().map(|v| place * v).collect())?;
    Ok((moved, TriMesh::cuboid(half)?.transformed(&place)))
}

/// A massless frame link (no shape) of joint `joint` under `parent` at `attachment`.
fn frame(name: &str, parent: Option<usize>, attachment: Isometry3<f64>, joint: JointKind) -> Link {
    Link::new(
        name,
        parent,
        attachment,
        joint,
        Vec::new(),
        MassModel::SecondMoment(Default::default()),
    )
}

/// A shaped link of `mass` kg.
fn body(
    name: &str,
    parent: usize,
    attachment: Isometry3<f64>,
    joint: JointKind,
    shape: (ConvexHull, TriMesh),
    mass: f64,
) -> Link {
    Link::new(
        name,
        Some(parent),
        attachment,
        joint,
        vec![shape.0],
        MassModel::Lumped { mass },
    )
    .with_mesh(shape.1)
}

/// The Ant-Push task.
#[derive(Debug, Clone)]
pub struct AntPush {
    /// The objective (sine waves on the 12 leg DoFs, the box's target region), stepped with
    /// the long-range model; [`AntPush::with_contact`] swaps the model.
    pub objective: Objective<SineWaves, TargetRegion>,
    /// The controlled DoFs (hip yaw, hip pitch, knee of each leg), in the waves' order.
    pub dofs: Vec<usize>,
    /// The box's link.
    pub box_link: usize,
    /// The box's target (centre of mass).
    pub target: Vector3<f64>,
}

impl AntPush {
    /// The task over `steps` frames (Table 3: [`HORIZON`]).
    pub fn new(steps: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let (upper_length, upper_half, upper_mass) = UPPER;
        let (lower_length, lower_half, lower_mass) = LOWER;
        // The hips at the torso's mid-height, the lower legs straight down from the knees.
        let height = lower_length + CLEARANCE;
        let mut links = vec![ground()?];
        // The base: x, y, z translations and yaw, the torso on the last.
        let axes = [
            JointKind::Prismatic { axis: Vector3::x() },
            JointKind::Prismatic { axis: Vector3::y() },
            JointKind::Prismatic { axis: Vector3::z() },
        ];
        for (k, (name, joint)) in ["base_x", "base_y", "base_z"].iter().zip(axes).enumerate() {
            let attachment = if k == 0 {
                Isometry3::translation(0.0, 0.0, height)
            } else {
                Isometry3::identity()
            };
            links.push(frame(name, Some(links.len() - 1), attachment, joint));
        }
        let torso = links.len();
        links.push(body(
            "torso",
            torso - 1,
            Isometry3::identity(),
            JointKind::Revolute { axis: Vector3::z() },
            block(TORSO.0, Isometry3::identity())?,
            TORSO.1,
        ));
        let mut legs = Vec::new();
        for (i, (sx, sy)) in [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)]
            .into_iter()
            .enumerate()
        {
            let out = Vector3::new(sx, sy, 0.0).normalize();
            let across = Vector3::z().cross(&out);
            let corner = Vector3::new(sx * TORSO.0.x, sy * TORSO.0.y, 0.0);
            let hip = links.len();
            links.push(frame(
                &format!("hip{i}"),
                Some(torso),
                Isometry3::translation(corner.x, corner.y, corner.z),
                JointKind::Revolute { axis: Vector3::z() },
            ));
            let upper = links.len();
            links.push(body(
                &format!("upper{i}"),
                hip,
                Isometry3::identity(),
                JointKind::Revolute { axis: across },
                // Along `out`: the x-aligned block turned about z, its inner end at the hip.
                block(
                    Vector3::new(0.5 * upper_length, upper_half, upper_half),
                    Isometry3::new(out * (0.5 * upper_length), Vector3::z() * sy.atan2(sx)),
                )?,
                upper_mass,
            ));
            let knee = out * upper_length;
            links.push(body(
                &format!("lower{i}"),
                upper,
                Isometry3::translation(knee.x, knee.y, knee.z),
                JointKind::Revolute { axis: across },
                block(
                    Vector3::new(lower_half, lower_half, 0.5 * lower_length),
                    Isometry3::translation(0.0, 0.0, -0.5 * lower_length),
                )?,
                lower_mass,
            ));
            legs.push(hip);
        }
        // The box ahead of the front feet (+x).
        let front = TORSO.0.x + upper_length / 2f64.sqrt() + lower_half;
        let box_x = front + BOX_GAP + 0.5 * BOX.0;
        let half = Vector3::repeat(0.5 * BOX.0);
        let box_link = links.len();
        links.push(
            Link::new(
                "box",
                None,
                Isometry3::translation(box_x, 0.0, 0.5 * BOX.0 + 1e-3),
                JointKind::Free,
                vec![ConvexHull::cuboid(half)?],
                MassModel::Lumped { mass: BOX.1 },
            )
            .with_mesh(TriMesh::cuboid(half)?),
        );
        let mut model = Model::new(links)?;
        // An upper leg starts inside the torso's corner (its parent is the massless hip frame,
        // so the parent-child rule does not cover the pair).
        for i in 0..4 {
            model.exclude_pair("torso", &format!("upper{i}"))?;
        }
        let mut settings = StepSettings::new(DT)?;
        settings.contact = Some(long_range(STIFFNESS)?);
        settings.design_derivatives = false;
        // Every leg DoF under PD holding the start pose; the base is passive.
        let mut control = Control::passive(&model);
        let leg_dofs: Vec<usize> = legs
            .iter()
            .flat_map(|&hip| {
                let first = model.dof_offset(hip);
                first..first + 3
            })
            .collect();
        for &j in &leg_dofs {
            control.kp[j] = LEG_KP;
            control.kd[j] = 0.5 * LEG_DAMPING * DT;
        }
        let target = Vector3::new(box_x + PUSH, 0.0, 0.5 * BOX.0);
        let loss = TargetRegion::links(&model, &["box"], target, EPSILON)?;
        Ok(Self {
            objective: Objective::control_only(
                model,
                settings,
                SineWaves::new(control, leg_dofs.clone(), WAVES)?,
                loss,
                steps,
            ),
            dofs: leg_dofs,
            box_link,
            target,
        })
    }

    /// The same task stepped with `contact`.
    pub fn with_contact(&self, contact: &ContactSettings) -> Self {
        let mut task = self.clone();
        task.objective.settings.contact = Some(contact.clone());
        task
    }
}

/// The long-range model of this task with coefficient `stiffness`, with friction.
pub fn long_range(stiffness: f64) -> Result<ContactSettings, Box<dyn std::error::Error>> {
    Ok(ContactSettings::new(
        ContactKind::LongRange(sdrs::contact::long_range::LongRange::new(MARGIN)?),
        stiffness,
    )?
    .with_friction(FrictionSettings::new(FRICTION)?))
}

/// The paper's three contact models for this task: long-range (μ = [`STIFFNESS`]), IPC and
/// the SDRS hull barrier with the table-top scenes' settings.
pub fn contact_models() -> Result<ContactModels, Box<dyn std::error::Error>> {
    let table = super::tabletop::contact_models(STIFFNESS)?;
    Ok(ContactModels {
        long_range: long_range(STIFFNESS)?,
        ..table
    })
}
