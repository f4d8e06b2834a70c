//! Robots in motion: the workloads of `cargo xtask bench motion`.
//!
//! A step at rest converges in no Newton iteration and says little about a simulator's cost.
//! These workloads move: quadrupeds trotting under joint PD (the gymnasium ant, and Unitree A1
//! and Solo-12 from example-robot-data's URDFs), a humanoid falling and lying, boxes pushed and
//! sliding, an arm sweeping boxes off a table. Each is a rollout from a fixed start under
//! controls that are a function of the step index only, so the same rollout can be run by a
//! peer simulator: `benches/reference/mujoco_motion.py` builds the same scenes in MuJoCo (the
//! same MJCF and URDF files, the latter through MuJoCo's URDF compiler, PD gains, time step and
//! friction) and times them through `mujoco.rollout`.
//!
//! | workload | what moves |
//! |---|---|
//! | `ant_trot` | the ant stands 0.5 s, trots 1.5 s ([`ant_trot`]) |
//! | `a1_trot` | Unitree A1 stands 0.5 s, trots 1.5 s ([`a1_trot`]) |
//! | `solo12_trot` | Solo-12 stands 0.5 s, trots 1.5 s ([`solo12_trot`]) |
//! | `humanoid_lying` | the humanoid collapses and lies ([`humanoid_lying`]) |
//! | `box_push` | a box pushed along the ground ([`box_push`]) |
//! | `box_incline` | a box sliding down a 30° incline ([`box_incline`]) |
//! | `arm_sweep` | an arm sweeps three cubes off a table ([`arm_sweep`]) |
//! | `resting_box`, `stack_5` | a box and a stack of five at rest ([`resting_box`], [`stack_5`]) |
//!
//! PD gains are SI units (stiffness N·m/rad, damping N·m·s/rad), as [`Control`] holds them
//! and MuJoCo takes them.

use nalgebra::{DVector, Isometry3, Point3, Vector3};
use sdrs::{RobotHandle, World};
use sdrs_diff::{LossGradient, Recording, adjoint, rollout};
use sdrs_dynamics::srdf::Srdf;
use sdrs_dynamics::{
    Control, JointKind, Kinematics, Link, MassModel, MjcfModel, MjcfOptions, Model, Motion,
    Simulator, State, StepReport, UrdfOptions, load_mjcf, load_urdf,
};
use sdrs_examples::robots::vertical_extent;
use sdrs_geometry::ConvexHull;
use sdrs_geometry::mesh::DecompositionSettings;
use std::f64::consts::PI;
use std::path::PathBuf;
use std::time::Instant;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Writes the control of step `k` (a function of the step index only, so a peer can replay it).
pub type Schedule = Box<dyn Fn(usize, &mut Control)>;

/// One workload: a model, a simulator, a start and the controls of every step.
pub struct Workload {
    /// Short name, the row of the report and the key of the peer's timings.
    pub name: &'static str,
    /// What moves, in a few words.
    pub what: String,
    /// The model.
    pub model: Model,
    /// Its simulator (settings included).
    pub sim: Simulator,
    /// The start.
    pub start: Motion,
    /// Steps of the rollout.
    pub steps: usize,
    /// Writes step `k`'s control into the given one (which starts as the passive control).
    pub schedule: Schedule,
    /// The link whose final position the report compares with the peer's.
    pub tracked: usize,
}

/// What one rollout of a workload measured.
#[derive(Debug, Clone, Default)]
pub struct Measured {
    /// Wall time per step (s).
    pub step_times: Vec<f64>,
    /// Newton iterations per step.
    pub iterations: Vec<usize>,
    /// Line-search trials per step (evaluations of a trial state, the full step's included).
    pub trials: Vec<usize>,
    /// The tracked link's final position (m).
    pub final_position: [f64; 3],
}

impl Measured {
    /// Mean step time (s).
    pub fn mean_step(&self) -> f64 {
        mean(&self.step_times)
    }
    /// Mean Newton iterations per step.
    pub fn mean_iterations(&self) -> f64 {
        self.iterations.iter().sum::<usize>() as f64 / self.iterations.len().max(1) as f64
    }
    /// Most Newton iterations of a step.
    pub fn max_iterations(&self) -> usize {
        self.iterations.iter().copied().max().unwrap_or(0)
    }
    /// Mean line-search trials per step.
    pub fn mean_trials(&self) -> f64 {
        self.trials.iter().sum::<usize>() as f64 / self.trials.len().max(1) as f64
    }
    /// Wall time per Newton iteration (s): the steps' total over their iterations (steps that
    /// take none cost an evaluation or two, which this charges to the others).
    pub fn per_iteration(&self) -> Option<f64> {
        let iterations: usize = self.iterations.iter().sum();
        (iterations > 0).then(|| self.step_times.iter().sum::<f64>() / iterations as f64)
    }
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

impl Workload {
    /// Runs the rollout from the start (warm starts forgotten first) and measures each step.
    pub fn run(&mut self) -> sdrs_dynamics::Result<Measured> {
        self.sim.reset();
        let mut motion = self.start.clone();
        let mut control = Control::passive(&self.model);
        let mut measured = Measured::default();
        for k in 0..self.steps {
            (self.schedule)(k, &mut control);
            let clock = Instant::now();
            let report: StepReport = self.sim.advance(&mut motion, &control)?;
            measured.step_times.push(clock.elapsed().as_secs_f64());
            measured.iterations.push(report.iterations);
            measured.trials.push(report.line_search_trials);
        }
        let kin = Kinematics::new(&self.model, &motion.state);
        measured.final_position = kin.poses()[self.tracked].translation.vector.into();
        Ok(measured)
    }
}

/// What a rollout and its adjoint cost per step (s), measured by [`Workload::rollout_and_adjoint`].
#[derive(Debug, Clone, Copy)]
pub struct Differentiated {
    /// The rollout with the blocks of every step kept for the backward pass.
    pub forward: f64,
    /// The adjoint pass of a loss on the final state (every step's solve and pull-back).
    pub backward: f64,
}

impl Workload {
    /// The rollout with `StepSettings::backward` (the blocks recorded, design blocks off: states
    /// and controls are differentiated) and the adjoint of a loss on the final coordinates,
    /// each per step: what a first-order learning method pays per step and environment.
    pub fn rollout_and_adjoint(&mut self) -> Result<Differentiated> {
        let mut settings = self.sim.settings().clone().with_backward(true);
        settings.design_derivatives = false;
        let mut sim = Simulator::new(self.model.clone(), settings)?;
        let mut control = Control::passive(&self.model);
        let controls: Vec<Control> = (0..self.steps)
            .map(|k| {
                (self.schedule)(k, &mut control);
                control.clone()
            })
            .collect();
        let clock = Instant::now();
        let trajectory = rollout(&mut sim, &self.start, &controls, Recording::Blocks)?;
        let forward = clock.elapsed().as_secs_f64();
        let n = self.model.dof();
        let loss =
            LossGradient::final_state(&self.model, self.steps, DVector::from_element(n, 1.0));
        let clock = Instant::now();
        adjoint(&mut sim, &trajectory, &loss)?;
        let backward = clock.elapsed().as_secs_f64();
        let steps = self.steps as f64;
        Ok(Differentiated {
            forward: forward / steps,
            backward: backward / steps,
        })
    }
}

/// The gymnasium models vendored for the MJCF importer's tests.
pub fn mjcf_path(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../crates/sdrs-dynamics/tests/data/mjcf")
        .join(file)
}

/// Time step of every workload (s).
pub const DT: f64 = 0.005;
/// Steps of every workload: 2 s.
pub const STEPS: usize = 400;
/// The ant's PD stiffness (N·m/rad) and damping (N·m·s/rad).
pub const TROT_GAINS: (f64, f64) = (40.0, 1.0);
/// A1's PD stiffness (N·m/rad) and damping (N·m·s/rad). Under the ant's gains the 13.7 kg
/// robot does not stand but sits back: its base sinks 5-6 cm and slides 8-9 cm back in 0.5 s,
/// pitching 7-9° (sdrs and MuJoCo alike); under these it sinks 1.5-2 cm.
pub const A1_GAINS: (f64, f64) = (100.0, 3.0);
/// Solo-12's PD stiffness (N·m/rad) and damping (N·m·s/rad): the 2.5 kg robot's base sinks
/// about 2 cm under its weight and holds.
pub const SOLO12_GAINS: (f64, f64) = (5.0, 0.15);
/// Friction coefficient of the trots and the humanoid.
pub const ROBOT_FRICTION: f64 = 0.8;
/// Seconds the trot stands (PD at the standing pose) before it trots.
pub const STAND: f64 = 0.5;
/// The trot's frequency (Hz).
pub const TROT_HZ: f64 = 2.0;
const LIFT: f64 = -1.0;

/// The ant's standing pose (gymnasium's `init_qpos`): hips 0, ankles ±1 rad, the torso raised so
/// its lowest point is `CLEARANCE` above the ground.
const ANT_ANKLES: [f64; 4] = [1.0, -1.0, -1.0, 1.0];
/// The lowest point of a robot above the ground at its start (m).
pub const CLEARANCE: f64 = 0.005;

/// A robot of `links` on the default ground with friction `mu`, at rest in the configuration
/// `configure` gives in the world's model (moved just inside any limit, and its free root's
/// height replaced so that the lowest point is [`CLEARANCE`] above the ground). Pairs touching
/// there are left out of contact, as `Model::exclude_touching` does for any robot.
fn on_ground(
    links: Vec<Link>,
    mu: f64,
    configure: impl FnOnce(&Model, &RobotHandle) -> sdrs_dynamics::Result<State>,
) -> Result<(Model, Simulator, Motion, RobotHandle)> {
    let mut world = World::new(DT)?.with_ground().with_friction(mu)?;
    let robot = world.add_robot(links, Isometry3::identity());
    let mut start = None;
    let (model, sim) = world.build_with(|model, settings| {
        let mut state = configure(model, &robot)?;
        model.clamp_inside_limits(&mut state, 2.0 * settings.limit_support);
        let (lowest, _) = vertical_extent(model, &state, robot.link_range().start);
        // The free joint's z translation is the robot's third DoF.
        state.q[robot.dofs().start + 2] += CLEARANCE - lowest;
        let support = settings
            .contact
            .as_ref()
            .map_or(0.0, |c| c.support_distance());
        model.exclude_touching(&state, support)?;
        start = Some(state);
        Ok(())
    })?;
    let start = start.ok_or("the world was built without a start")?;
    let motion = Motion::at_rest(&model, start);
    Ok((model, sim, motion, robot))
}

/// An MJCF robot [`on_ground`], its start at `qpos` (MuJoCo's `qpos0` if `None`).
fn mjcf_on_ground(
    file: &str,
    mu: f64,
    qpos: Option<&[f64]>,
) -> Result<(Model, Simulator, Motion, MjcfModel)> {
    let options = MjcfOptions {
        floor: None,
        ..MjcfOptions::default()
    };
    let mjcf = load_mjcf(mjcf_path(file), &options)?;
    let own = match qpos {
        Some(qpos) => mjcf.state_from_qpos(qpos)?,
        None => mjcf.initial_state(),
    };
    let (model, sim, start, _) = on_ground(mjcf.model.links().to_vec(), mu, |model, robot| {
        let mut state = State::zero(model);
        let dofs = robot.dofs();
        state.q.rows_mut(dofs.start, dofs.len()).copy_from(&own.q);
        for (link, reference) in robot.link_range().zip(own.references.iter()) {
            state.references[link] = *reference;
        }
        Ok(state)
    })?;
    Ok((model, sim, start, mjcf))
}

/// A robot of example-robot-data (`sdrs_robot_data`) with a floating base [`on_ground`] in
/// its SRDF's `standing` configuration. Each collision mesh is one convex hull (a
/// decomposition of concavity 1), as MuJoCo collides a mesh by its convex hull; round shapes
/// are tessellated as the importer does by default. The SRDF's collision pairs are not
/// applied: `exclude_touching` alone filters, as for the MJCF robots.
fn urdf_on_ground(name: &str, mu: f64) -> Result<(Model, Simulator, Motion, RobotHandle)> {
    let robot = sdrs_robot_data::robot(name).ok_or_else(|| format!("no robot '{name}'"))?;
    let defaults = UrdfOptions::default();
    let options = UrdfOptions {
        package_paths: vec![sdrs_robot_data::package_path()?],
        floating_base: true,
        decomposition: DecompositionSettings {
            concavity: 1.0,
            ..defaults.decomposition
        },
        ..defaults
    };
    let urdf = load_urdf(robot.urdf_path()?, &options)?;
    let srdf = Srdf::from_file(robot.srdf_path()?)?;
    on_ground(urdf.links().to_vec(), mu, |model, _| {
        srdf.state(model, "standing")
    })
}

/// The trot's PD targets of a swing joint and a lift joint at time `t`: standing for
/// [`STAND`] s, then the swing joint at `swing0 ± 0.3` rad (times `swing_sign`) and the lift
/// joint at `lift0 ± 0.2` rad (times `lift_sign`) a quarter period later, diagonal legs in
/// phase (`phase` 0 or π).
pub fn trot_targets(
    t: f64,
    phase: f64,
    [swing0, swing_sign]: [f64; 2],
    [lift0, lift_sign]: [f64; 2],
) -> (f64, f64) {
    if t < STAND {
        return (swing0, lift0);
    }
    let w = 2.0 * PI * TROT_HZ * (t - STAND) + phase;
    (
        swing0 + swing_sign * 0.3 * w.sin(),
        lift0 + lift_sign * 0.2 * w.cos(),
    )
}

/// One leg of a trot: the DoF of its swing and lift joints, each with `[standing angle, sign]`
/// as [`trot_targets`] takes them, and its phase.
struct TrotLeg {
    swing: (usize, [f64; 2]),
    lift: (usize, [f64; 2]),
    phase: f64,
}

/// The controls of a trot: joint PD of SI `gains` on every leg's swing and lift joint towards
/// [`trot_targets`], and on each `(DoF, angle)` of `held` towards its angle.
fn trot_schedule(legs: Vec<TrotLeg>, held: Vec<(usize, f64)>, gains: (f64, f64)) -> Schedule {
    let (kp, kd) = gains;
    Box::new(move |k, control| {
        let t = k as f64 * DT;
        let trotting = legs.iter().flat_map(|leg| {
            let (swing, lift) = trot_targets(t, leg.phase, leg.swing.1, leg.lift.1);
            [(leg.swing.0, swing), (leg.lift.0, lift)]
        });
        for (dof, target) in trotting.chain(held.iter().copied()) {
            control.kp[dof] = kp;
            control.kd[dof] = kd;
            control.position[dof] = target;
        }
    })
}

/// The gymnasium ant (`ant.xml`: 14 DoF, capsule legs) standing 0.5 s and then trotting 1.5 s
/// under joint PD (40 N·m/rad, 1 N·m·s/rad), μ = 0.8, Δt = 5 ms.
pub fn ant_trot() -> Result<Workload> {
    let mut qpos = vec![0.0, 0.0, 0.55, 1.0, 0.0, 0.0, 0.0];
    for ankle in ANT_ANKLES {
        qpos.extend([0.0, ankle]);
    }
    let (model, sim, start, mjcf) = mjcf_on_ground("ant.xml", ROBOT_FRICTION, Some(&qpos))?;
    // Hip and ankle of legs 1-4 (MuJoCo order of the joints after the root).
    let legs = (0..4)
        .map(|leg| TrotLeg {
            // A hip turn about z moves the foot of the leg at angle ψ from +x along
            // (−sin ψ, cos ψ): the front legs (1, 2) and the back ones (3, 4) stroke along x
            // with opposite signs of the turn.
            swing: (
                mjcf.joints[1 + 2 * leg].dof,
                [0.0, if leg < 2 { -1.0 } else { 1.0 }],
            ),
            lift: (
                mjcf.joints[2 + 2 * leg].dof,
                [ANT_ANKLES[leg], ANT_ANKLES[leg].signum() * LIFT],
            ),
            // Legs 1 and 3 (front left, back right) against 2 and 4.
            phase: if leg % 2 == 0 { 0.0 } else { PI },
        })
        .collect();
    Ok(Workload {
        tracked: model.link_index("torso")?,
        name: "ant_trot",
        what: "ant.xml stands 0.5 s, trots 1.5 s under joint PD 40 N·m/rad, 1 N·m·s/rad; μ 0.8"
            .into(),
        schedule: trot_schedule(legs, Vec::new(), TROT_GAINS),
        model,
        sim,
        start,
        steps: STEPS,
    })
}

/// A quadruped of example-robot-data for [`quadruped_trot`]: its joints are named
/// `{leg}{joint}` for each leg and joint of the lists.
struct Quadruped {
    /// Its name in `sdrs_robot_data`.
    robot: &'static str,
    /// The workload's name.
    name: &'static str,
    /// Leg prefixes: front left, front right, hind left, hind right.
    legs: [&'static str; 4],
    /// Joint suffixes: abduction (held), hip pitch (the swing), knee (the lift).
    joints: [&'static str; 3],
    /// Joint PD stiffness (N·m/rad) and damping (N·m·s/rad).
    gains: (f64, f64),
}

/// A quadruped standing 0.5 s in its SRDF's `standing` pose and then trotting 1.5 s as the ant
/// does, μ = 0.8, Δt = 5 ms: hip pitch ±0.3 rad, the knee bent 0.2 rad further while the foot
/// swings forward (hip pitch decreasing: the legs' pitch axes are +y, and a turn about +y
/// moves a hanging foot back), front left and hind right legs against the other two. The
/// abduction joints hold their standing angles. Tracks the root link.
fn quadruped_trot(q: &Quadruped) -> Result<Workload> {
    let (model, sim, start, robot) = urdf_on_ground(q.robot, ROBOT_FRICTION)?;
    // The DoF of a leg's joint and its standing angle.
    let standing = |leg: &str, joint: &str| -> Result<(usize, f64)> {
        let dof = model.dof_offset(model.joint_link(&format!("{leg}{joint}"))?);
        Ok((dof, start.state.q[dof]))
    };
    let (mut legs, mut held) = (Vec::new(), Vec::new());
    for (i, leg) in q.legs.iter().enumerate() {
        let [abduction, swing, knee] = q.joints.map(|joint| standing(leg, joint));
        let ((swing, swing0), (knee, knee0)) = (swing?, knee?);
        held.push(abduction?);
        legs.push(TrotLeg {
            swing: (swing, [swing0, -1.0]),
            lift: (knee, [knee0, knee0.signum()]),
            phase: if i == 0 || i == 3 { 0.0 } else { PI },
        });
    }
    let (stiffness, damping) = q.gains;
    Ok(Workload {
        tracked: robot.root().index(),
        name: q.name,
        what: format!(
            "{}'s URDF stands 0.5 s, trots 1.5 s under joint PD {stiffness} N·m/rad, \
             {damping} N·m·s/rad; μ 0.8",
            q.robot
        ),
        schedule: trot_schedule(legs, held, q.gains),
        model,
        sim,
        start,
        steps: STEPS,
    })
}

/// Unitree A1 (example-robot-data's `a1.urdf`: 18 DoF, 13.7 kg, boxes, cylinders and sphere
/// feet) trotting under joint PD 100 N·m/rad, 3 N·m·s/rad (`quadruped_trot`, [`A1_GAINS`]).
/// The URDF gives its IMU link a 1 mm collision box, welded inside the trunk: `World` scales
/// the barrier to the thinnest rigid body, not link, so the support is 1% of the 16 mm calves
/// (0.16 mm). MuJoCo loads the same URDF (its COLLADA meshes are visual only).
pub fn a1_trot() -> Result<Workload> {
    a1_trot_with(A1_GAINS)
}

/// [`a1_trot`] under joint PD `(stiffness, damping)` (N·m/rad, N·m·s/rad).
pub fn a1_trot_with(gains: (f64, f64)) -> Result<Workload> {
    quadruped_trot(&Quadruped {
        robot: "a1",
        name: "a1_trot",
        legs: ["FL", "FR", "RL", "RR"],
        joints: ["_hip_joint", "_thigh_joint", "_calf_joint"],
        gains,
    })
}

/// Solo-12 (example-robot-data's `solo12.urdf`: 18 DoF, 2.5 kg, STL meshes, one hull each)
/// trotting under joint PD 5 N·m/rad, 0.15 N·m·s/rad (`quadruped_trot`, [`SOLO12_GAINS`]).
/// MuJoCo loads the same URDF and collides each mesh by its convex hull.
pub fn solo12_trot() -> Result<Workload> {
    quadruped_trot(&Quadruped {
        robot: "solo12",
        name: "solo12_trot",
        legs: ["FL", "FR", "HL", "HR"],
        joints: ["_HAA", "_HFE", "_KFE"],
        gains: SOLO12_GAINS,
    })
}

/// The gymnasium humanoid (`humanoid.xml`: 27 DoF, capsules) released at `qpos0` just above
/// the ground: it collapses and lies there (2 s, μ = 0.8, its joints' springs and dampers as
/// PD, motors off).
pub fn humanoid_lying() -> Result<Workload> {
    let (model, sim, start, mjcf) = mjcf_on_ground("humanoid.xml", ROBOT_FRICTION, None)?;
    let passive = mjcf.step_control(None)?;
    let schedule: Schedule = Box::new(move |_, control| {
        control
            .write_at(0, &passive)
            .expect("the humanoid's coordinates come first");
    });
    Ok(Workload {
        tracked: model.link_index("torso")?,
        name: "humanoid_lying",
        what: "humanoid.xml falls from qpos0 and lies on the ground; μ 0.8".into(),
        model,
        sim,
        start,
        steps: STEPS,
        schedule,
    })
}

/// A free box of half extent `half` and mass `mass` at `pose`.
fn free_box(world: &mut World, name: &str, half: f64, mass: f64, pose: Isometry3<f64>) {
    let hull = ConvexHull::cuboid(Vector3::repeat(half)).expect("positive extents");
    world.add_object(name, hull, mass, pose);
}

/// A fixed box (half extents `half`) at `pose`, e.g. a table or an incline.
fn fixed_box(world: &mut World, name: &str, half: Vector3<f64>, pose: Isometry3<f64>) {
    let hull = ConvexHull::cuboid(half).expect("positive extents");
    let link = Link::new(
        name,
        None,
        pose,
        JointKind::Fixed,
        vec![hull],
        MassModel::Lumped { mass: 1.0 },
    );
    world.add_robot(vec![link], Isometry3::identity());
}

/// A workload of free boxes built by `scene` (on the default ground if `ground`), run passively
/// or under a constant generalized force `force` (DoF, N).
fn box_workload(
    [name, what, tracked]: [&'static str; 3],
    (mu, ground): (f64, bool),
    scene: impl FnOnce(&mut World),
    force: Option<(usize, f64)>,
) -> Result<Workload> {
    let mut world = World::new(DT)?;
    if ground {
        world = world.with_ground();
    }
    let mut world = world.with_friction(mu)?;
    scene(&mut world);
    let (model, sim) = world.build()?;
    let start = Motion::at_rest(&model, State::zero(&model));
    let schedule: Schedule = Box::new(move |_, control| {
        if let Some((dof, f)) = force {
            control.force[dof] = f;
        }
    });
    Ok(Workload {
        tracked: model.link_index(tracked)?,
        name,
        what: what.into(),
        model,
        sim,
        start,
        steps: STEPS,
        schedule,
    })
}

/// Gap under a resting box at the start (m), about where the default barrier holds it.
const BOX_GAP: f64 = 0.0008;

/// A 20 cm, 1 kg box pushed along the ground by 5 N for 2 s, μ = 0.3 (it accelerates at
/// 5/1 − 0.3 g = 2.06 m/s²).
pub fn box_push() -> Result<Workload> {
    let pose = Isometry3::translation(0.0, 0.0, 0.1 + BOX_GAP);
    box_workload(
        [
            "box_push",
            "a 20 cm, 1 kg box pushed by 5 N along the ground, μ 0.3",
            "box",
        ],
        (0.3, true),
        |w| free_box(w, "box", 0.1, 1.0, pose),
        Some((0, 5.0)),
    )
}

/// A 20 cm, 1 kg box released on a 30° incline, μ = 0.3: it slides down at
/// g (sin 30° − 0.3 cos 30°) = 2.36 m/s².
pub fn box_incline() -> Result<Workload> {
    let tilt = Isometry3::rotation(Vector3::y() * (PI / 6.0));
    box_workload(
        [
            "box_incline",
            "a 20 cm, 1 kg box sliding down a 30° incline, μ 0.3",
            "box",
        ],
        (0.3, false),
        |w| {
            fixed_box(
                w,
                "incline",
                Vector3::new(20.0, 20.0, 0.5),
                tilt * Isometry3::translation(0.0, 0.0, -0.5),
            );
            free_box(
                w,
                "box",
                0.1,
                1.0,
                tilt * Isometry3::translation(0.0, 0.0, 0.1 + BOX_GAP),
            );
        },
        None,
    )
}

/// A 20 cm, 1 kg box resting on the ground, μ = 0.5.
pub fn resting_box() -> Result<Workload> {
    let pose = Isometry3::translation(0.0, 0.0, 0.1 + BOX_GAP);
    box_workload(
        [
            "resting_box",
            "a 20 cm, 1 kg box at rest on the ground, μ 0.5",
            "box",
        ],
        (0.5, true),
        |w| free_box(w, "box", 0.1, 1.0, pose),
        None,
    )
}

/// Five such boxes stacked, μ = 0.5.
pub fn stack_5() -> Result<Workload> {
    box_workload(
        [
            "stack_5",
            "five 20 cm, 1 kg boxes stacked on the ground, μ 0.5",
            "box4",
        ],
        (0.5, true),
        |w| {
            for k in 0..5 {
                let z = 0.1 + BOX_GAP + (0.2 + BOX_GAP) * k as f64;
                free_box(
                    w,
                    &format!("box{k}"),
                    0.1,
                    1.0,
                    Isometry3::translation(0.0, 0.0, z),
                );
            }
        },
        None,
    )
}

/// A box link of an arm: half extents `(length/2, 0.02, 0.02)` from its joint along x, solid
/// of mass `mass`.
fn arm_link(name: &str, parent: Option<usize>, at: Isometry3<f64>, length: f64, mass: f64) -> Link {
    let (hx, h) = (length / 2.0, 0.02);
    let corners = [-1.0, 1.0]
        .iter()
        .flat_map(|&sx| {
            [-1.0, 1.0].iter().flat_map(move |&sy| {
                [-1.0, 1.0]
                    .iter()
                    .map(move |&sz| Point3::new(hx + sx * hx, sy * h, sz * h))
            })
        })
        .collect();
    let hull = ConvexHull::new(corners).expect("a box");
    let density = mass / (length * 4.0 * h * h);
    Link::new(
        name,
        parent,
        at,
        JointKind::Revolute { axis: Vector3::z() },
        vec![hull],
        MassModel::Solid { density },
    )
}

/// A 3-link arm (yaw hinges, 0.3 + 0.3 + 0.2 m, 1 + 1 + 0.5 kg) at the edge of a table sweeps a
/// stack of three 10 cm, 0.5 kg cubes off it: the base joint's PD target (200 N·m/rad,
/// 5 N·m·s/rad) turns from −90° to +60° between 0.25 s and 1.25 s; μ = 0.5, 2 s.
pub fn arm_sweep() -> Result<Workload> {
    let mut world = World::new(DT)?.with_ground().with_friction(0.5)?;
    fixed_box(
        &mut world,
        "table",
        Vector3::new(0.4, 0.4, 0.2),
        Isometry3::translation(0.6, 0.0, 0.2),
    );
    let arm = world.add_robot(
        vec![
            arm_link(
                "link1",
                None,
                Isometry3::translation(0.0, 0.0, 0.45),
                0.3,
                1.0,
            ),
            arm_link(
                "link2",
                Some(0),
                Isometry3::translation(0.3, 0.0, 0.0),
                0.3,
                1.0,
            ),
            arm_link(
                "link3",
                Some(1),
                Isometry3::translation(0.3, 0.0, 0.0),
                0.2,
                0.5,
            ),
        ],
        Isometry3::identity(),
    );
    for k in 0..3 {
        let z = 0.451 + 0.101 * k as f64;
        free_box(
            &mut world,
            &format!("cube{k}"),
            0.05,
            0.5,
            Isometry3::translation(0.6, 0.0, z),
        );
    }
    let (model, sim) = world.build()?;
    let joints = arm.dofs();
    let mut state = State::zero(&model);
    state.q[joints.start] = -PI / 2.0;
    let start = Motion::at_rest(&model, state);
    // Joint PD: 200 N·m/rad, 5 N·m·s/rad.
    let (kp, kd) = (200.0, 5.0);
    let schedule: Schedule = Box::new(move |k, control| {
        let t = k as f64 * DT;
        let turn = ((t - 0.25) / 1.0).clamp(0.0, 1.0);
        for dof in joints.clone() {
            control.kp[dof] = kp;
            control.kd[dof] = kd;
            control.position[dof] = 0.0;
        }
        control.position[joints.start] = -PI / 2.0 + turn * (PI / 2.0 + PI / 3.0);
    });
    Ok(Workload {
        tracked: model.link_index("cube0")?,
        name: "arm_sweep",
        what: "a 3-link arm sweeps three stacked cubes off a table; PD 200 N·m/rad, 5 N·m·s/rad; μ 0.5".into(),
        model,
        sim,
        start,
        steps: STEPS,
        schedule,
    })
}

/// Every workload, in report order.
pub fn workloads() -> Result<Vec<Workload>> {
    Ok(vec![
        ant_trot()?,
        a1_trot()?,
        solo12_trot()?,
        humanoid_lying()?,
        box_push()?,
        box_incline()?,
        arm_sweep()?,
        resting_box()?,
        stack_5()?,
    ])
}
