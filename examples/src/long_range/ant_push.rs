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
//! and gains are not given; ours are [`AntConfig`]'s defaults (the proportions of MuJoCo's
//! ant, as cuboids of 12 triangles each, so the long-range potential stays cheap).
//!
//! Layout (ours): the ant's centre at the origin facing +x, the box 40 cm ahead of its front
//! feet, the target 50 cm beyond the box's start along +x.
//!
//! The box (ours) is a 30 cm cube of 0.5 kg. It was a 20 cm cube, whose top (0.201 m) was
//! level with the torso's underside (0.202 m) and which fitted between the front feet
//! (0.58 m apart): the ant learnt to walk over it, barely moving it, and the box's end
//! position jumped with every Adam step (240 frames, paper settings: the torso 1.6 m ahead
//! and the box 6 mm from its start at iteration 7, the box 0.26-0.49 m from its target over
//! iterations 6-11; the earlier full run's best was 7.3 cm, never within ε). A box taller
//! than the torso's underside must be pushed by the torso: with it the same settings put the
//! box within ε (at iteration 77 of 100 on 2026-11-27; an earlier run, before later solver
//! changes, at iteration 13: see the example `long_range_ant_push`). [`AntConfig`] holds every setting of ours, to try others.

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
/// Clearance of the feet above the ground at the start (m).
const CLEARANCE: f64 = 2e-3;
/// Success radius ε_target (m).
pub const EPSILON: f64 = 0.05;

/// The settings of the task that are ours (the paper gives none of them); the defaults are
/// the task's.
#[derive(Debug, Clone, PartialEq)]
pub struct AntConfig {
    /// Friction coefficient of every pair (default 0.5, as the table-top scenes).
    pub friction: f64,
    /// Half extents (m) and mass (kg) of the torso.
    pub torso: (Vector3<f64>, f64),
    /// Length (m), half thickness (m) and mass (kg) of an upper leg (horizontal, outward).
    pub upper: (f64, f64, f64),
    /// Length (m), half thickness (m) and mass (kg) of a lower leg (down from the knee).
    pub lower: (f64, f64, f64),
    /// PD stiffness of every leg DoF (N·m/rad).
    pub kp: f64,
    /// Damping coefficient of every leg DoF (N·m·s/rad).
    pub damping: f64,
    /// Side (m) and mass (kg) of the box. The default, 0.3 m, is taller than the torso's
    /// underside (0.202 m at the start), so the ant cannot walk over it (a 0.2 m box fitted
    /// under its belly, between its front feet; see the module doc).
    pub box_size: (f64, f64),
    /// Gap between the front feet and the box at the start (m).
    pub box_gap: f64,
    /// How far the box should move along +x (m).
    pub push: f64,
}

impl Default for AntConfig {
    fn default() -> Self {
        Self {
            friction: 0.5,
            torso: (Vector3::new(0.15, 0.15, 0.05), 1.0),
            upper: (0.2, 0.025, 0.1),
            lower: (0.25, 0.02, 0.1),
            kp: 60.0,
            damping: 2.0,
            box_size: (0.3, 0.5),
            box_gap: 0.4,
            push: 0.5,
        }
    }
}

/// A cuboid link's hull and mesh: half extents `half`, placed at `place` in the link frame.
fn block(
    half: Vector3<f64>,
    place: Isometry3<f64>,
) -> Result<(ConvexHull, TriMesh), Box<dyn std::error::Error>> {
    let hull = ConvexHull::cuboid(half)?;
    let moved = ConvexHull::new(hull.vertices().iter().map(|v| place * v).collect())?;
    Ok((moved, TriMesh::cuboid(half)?.transformed(&place)))
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
        Self::with_config(steps, &AntConfig::default())
    }

    /// The task over `steps` frames with our settings `config`.
    pub fn with_config(
        steps: usize,
        config: &AntConfig,
    ) -> Result<Self, Box<dyn std::error::Error>> {
        let (torso_half, torso_mass) = config.torso;
        let (upper_length, upper_half, upper_mass) = config.upper;
        let (lower_length, lower_half, lower_mass) = config.lower;
        let (box_side, box_mass) = config.box_size;
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
            links.push(Link::frame(*name, Some(links.len() - 1), attachment, joint));
        }
        let torso = links.len();
        links.push(body(
            "torso",
            torso - 1,
            Isometry3::identity(),
            JointKind::Revolute { axis: Vector3::z() },
            block(torso_half, Isometry3::identity())?,
            torso_mass,
        ));
        let mut legs = Vec::new();
        for (i, (sx, sy)) in [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)]
            .into_iter()
            .enumerate()
        {
            let out = Vector3::new(sx, sy, 0.0).normalize();
            let across = Vector3::z().cross(&out);
            let corner = Vector3::new(sx * torso_half.x, sy * torso_half.y, 0.0);
            let hip = links.len();
            links.push(Link::frame(
                format!("hip{i}"),
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
        let front = torso_half.x + upper_length / 2f64.sqrt() + lower_half;
        let box_x = front + config.box_gap + 0.5 * box_side;
        let half = Vector3::repeat(0.5 * box_side);
        let box_link = links.len();
        links.push(
            Link::new(
                "box",
                None,
                Isometry3::translation(box_x, 0.0, 0.5 * box_side + 1e-3),
                JointKind::Free,
                vec![ConvexHull::cuboid(half)?],
                MassModel::Lumped { mass: box_mass },
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
        settings.contact = Some(long_range_with(STIFFNESS, config.friction)?);
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
            control.kp[j] = config.kp;
            control.kd[j] = config.damping;
        }
        let target = Vector3::new(box_x + config.push, 0.0, 0.5 * box_side);
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
    long_range_with(stiffness, AntConfig::default().friction)
}

/// The long-range model with coefficient `stiffness` and friction coefficient `friction`.
pub fn long_range_with(
    stiffness: f64,
    friction: f64,
) -> Result<ContactSettings, Box<dyn std::error::Error>> {
    Ok(ContactSettings::new(
        ContactKind::LongRange(sdrs::contact::long_range::LongRange::new(MARGIN)?),
        stiffness,
    )?
    .with_friction(FrictionSettings::new(friction)?))
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
