//! Robots in motion: the workloads of `cargo xtask bench motion`.
//!
//! A step at rest converges in no Newton iteration and says little about a simulator's cost.
//! These workloads move: a quadruped trotting under joint PD, a humanoid falling and lying,
//! boxes pushed and sliding, an arm sweeping boxes off a table. Each is a rollout from a fixed
//! start under controls that are a function of the step index only, so the same rollout can be
//! run by a peer simulator: `benches/reference/mujoco_motion.py` builds the same scenes in
//! MuJoCo (the same MJCF files, PD gains, time step and friction) and times them through
//! `mujoco.rollout`.
//!
//! Users give PD gains in SI units (stiffness N·m/rad, damping N·m·s/rad); [`pd_gains`]
//! converts them to the paper's form that [`Control`] holds (`k_p = K/2`, `k_d = D Δt/2`).

use nalgebra::{DVector, Isometry3, UnitQuaternion, Vector3};
use sdrs::World;
use sdrs_dynamics::{
    Control, DynamicsError, MjcfModel, MjcfOptions, Model, Motion, Simulator, State, StepReport,
    load_mjcf,
};
use sdrs_geometry::ConvexHull;
use std::f64::consts::PI;
use std::path::PathBuf;
use std::time::Instant;

type Result<T> = std::result::Result<T, DynamicsError>;

/// The step's control as a function of the step index (and the model, for offsets).
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
    /// The final state's coordinates.
    pub final_q: Vec<f64>,
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
    pub fn run(&mut self) -> Result<Measured> {
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
        measured.final_q = motion.state.q.as_slice().to_vec();
        Ok(measured)
    }
}

/// The paper's PD gains of [`Control`] from SI ones: stiffness `K` (N·m/rad) and damping `D`
/// (N·m·s/rad) at time step `dt`.
pub fn pd_gains(stiffness: f64, damping: f64, dt: f64) -> (f64, f64) {
    (stiffness / 2.0, damping * dt / 2.0)
}

/// The gymnasium models vendored for the MJCF importer's tests.
pub fn mjcf_path(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../crates/sdrs-dynamics/tests/data/mjcf")
        .join(file)
}

/// Time step of every workload (s).
pub const DT: f64 = 0.005;
/// The trot's PD stiffness (N·m/rad) and damping (N·m·s/rad).
pub const TROT_GAINS: (f64, f64) = (40.0, 1.0);
/// Friction coefficient of the trot and the humanoid.
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

/// An MJCF robot on the default ground with friction `mu`, its start at `qpos` (the base height
/// replaced so that the lowest point is [`CLEARANCE`] above the ground), at rest.
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
    let mut world = World::new(DT)?.with_ground().with_friction(mu)?;
    let robot = world.add_mjcf_model_as("", &mjcf, Isometry3::identity());
    let (model, sim) = world.build()?;
    let own = match qpos {
        Some(qpos) => mjcf.state_from_qpos(qpos)?,
        None => mjcf.initial_state(),
    };
    let mut state = State::zero(&model);
    let dofs = robot.dofs();
    state.q.rows_mut(dofs.start, dofs.len()).copy_from(&own.q);
    for (link, reference) in robot.link_range().zip(own.references.iter()) {
        state.references[link] = *reference;
    }
    model.clamp_inside_limits(&mut state, 2.0 * sim.settings().limit_support);
    let lowest = lowest_point(&model, &state, robot.link_range());
    // The free joint's z translation is the robot's third DoF.
    state.q[dofs.start + 2] += CLEARANCE - lowest;
    Ok((model.clone(), sim, Motion::at_rest(&model, state), mjcf))
}

/// The lowest hull vertex of the links `links` at `state` (m).
fn lowest_point(model: &Model, state: &State, links: std::ops::Range<usize>) -> f64 {
    let kin = sdrs_dynamics::Kinematics::new(model, state);
    links
        .flat_map(|i| {
            let pose = kin.poses()[i];
            model.links()[i]
                .hulls
                .iter()
                .flat_map(move |h| h.vertices().iter().map(move |v| (pose * v).z))
                .collect::<Vec<_>>()
        })
        .fold(f64::INFINITY, f64::min)
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

/// The gymnasium ant (`ant.xml`: 14 DoF, capsule legs) standing 0.5 s and then trotting 1.5 s
/// under joint PD (40 N·m/rad, 1 N·m·s/rad), μ = 0.8, Δt = 5 ms.
pub fn ant_trot() -> Result<Workload> {
    let mut qpos = vec![0.0, 0.0, 0.55, 1.0, 0.0, 0.0, 0.0];
    for (k, a) in ANT_ANKLES.iter().enumerate() {
        let _ = k;
        qpos.extend([0.0, *a]);
    }
    let (model, sim, start, mjcf) = mjcf_on_ground("ant.xml", ROBOT_FRICTION, Some(&qpos))?;
    // Hip and ankle DoF of legs 1-4 (MuJoCo order of the joints after the root).
    let dofs: Vec<(usize, usize)> = (0..4)
        .map(|leg| {
            let hip = &mjcf.joints[1 + 2 * leg];
            let ankle = &mjcf.joints[2 + 2 * leg];
            (hip.dof, ankle.dof)
        })
        .collect();
    let (kp, kd) = pd_gains(TROT_GAINS.0, TROT_GAINS.1, DT);
    let schedule: Schedule = Box::new(move |k, control| {
        let t = k as f64 * DT;
        for (leg, &(hip, ankle)) in dofs.iter().enumerate() {
            // Legs 1 and 3 (front left, back right) against 2 and 4.
            let phase = if leg % 2 == 0 { 0.0 } else { PI };
            // A hip turn about z moves the foot of the leg at angle ψ from +x along
            // (−sin ψ, cos ψ): the front legs (1, 2) and the back ones (3, 4) stroke along x
            // with opposite signs of the turn.
            let swing = if leg < 2 { -1.0 } else { 1.0 };
            let lift = ANT_ANKLES[leg].signum() * LIFT;
            let (h, a) = trot_targets(t, phase, [0.0, swing], [ANT_ANKLES[leg], lift]);
            for (dof, target) in [(hip, h), (ankle, a)] {
                control.kp[dof] = kp;
                control.kd[dof] = kd;
                control.position[dof] = target;
            }
        }
    });
    Ok(Workload {
        name: "ant_trot",
        what: "ant.xml stands 0.5 s, trots 1.5 s under joint PD 40 N·m/rad, 1 N·m·s/rad; μ 0.8"
            .into(),
        model,
        sim,
        start,
        steps: (2.0 / DT).round() as usize,
        schedule,
    })
}

/// Every workload, in report order.
pub fn workloads() -> Result<Vec<Workload>> {
    Ok(vec![ant_trot()?])
}

#[allow(dead_code)]
fn unused(_: UnitQuaternion<f64>, _: Vector3<f64>, _: ConvexHull, _: DVector<f64>) {}
