//! Real robots held by PD: a fixed-base arm holds a configuration, a floating-base robot is
//! dropped onto the ground in a standing configuration and holds it.
//!
//! A [`Trial`] loads a URDF (and its SRDF), puts the robot in a world with the default contact
//! settings and a ground, leaves out of contact what must be left out — the SRDF's
//! `<disable_collisions>` pairs, then every pair that touches or lies within the barrier's
//! support in the starting configuration (the automatic filter, whose list the trial keeps to
//! show the user) — and runs PD control towards the starting configuration. [`Trial::run`]
//! checks, step by step and with a distance independent of the contact model (GJK), what a
//! user expects of a robot standing still: no error, no NaN, no penetration, nothing flying
//! off, and (floating base) a base that settles near its standing height and does not tip over.
//!
//! Used by the `robots` example (any URDF), the real-robot tests and the `robots` benchmark.

use sdrs::dynamics::srdf::{Srdf, SrdfReport, SrdfWarning};
use sdrs::dynamics::{ExcludedPair, UrdfOptions, load_urdf};
use sdrs::geometry::gjk::{Proximity, distance};
use sdrs::prelude::*;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How to set a robot up.
#[derive(Debug, Clone)]
pub struct TrialOptions {
    /// Directories searched for `package://NAME/...` meshes.
    pub package_paths: Vec<PathBuf>,
    /// Load the root with a free joint (a floating base dropped onto the ground).
    pub floating: bool,
    /// The SRDF group state to start in, or `neutral` (`None`: the SRDF's
    /// `standing`/`half_sitting`/… if it has one of those, else the neutral configuration:
    /// the SRDF's state `neutral` if it has one, else zero; moved inside the joint limits).
    pub state: Option<String>,
    /// Height (m) above its standing height the floating base is dropped from.
    pub drop: f64,
    /// Time step (s).
    pub dt: f64,
    /// PD stiffness per DoF (N·m/rad or N/m) as a multiple of `m g h` (total mass, gravity,
    /// the robot's height).
    pub gain: f64,
}

impl Default for TrialOptions {
    /// No package paths, fixed base, drop 5 cm, Δt = 10 ms, stiffness twenty times `m g h`.
    fn default() -> Self {
        Self {
            package_paths: Vec::new(),
            floating: false,
            state: None,
            drop: 0.05,
            dt: 0.01,
            gain: 20.0,
        }
    }
}

/// What was left out of contact, and why.
#[derive(Debug, Clone)]
pub struct Filtered {
    /// SRDF pairs applied and those naming links the model does not have.
    pub srdf: Option<SrdfReport>,
    /// Pairs the automatic filter excluded (touching or within the support at the start).
    pub automatic: Vec<ExcludedPair>,
    /// Link pairs left in contact.
    pub active: usize,
}

/// A robot in a world, ready to run.
pub struct Trial {
    /// The world's model (ground first, then the robot).
    pub model: Model,
    /// Its simulator.
    pub simulator: Simulator,
    /// Where it starts.
    pub start: Motion,
    /// PD towards the starting configuration.
    pub control: Control,
    /// What was filtered.
    pub filtered: Filtered,
    /// The configuration held (name of the SRDF state, or `neutral`).
    pub configuration: String,
    /// Entries of the SRDF state skipped: joints the model does not have or fixes.
    pub skipped: Vec<SrdfWarning>,
    /// Joints the configuration had at (or beyond) a limit, moved inside by the limit
    /// barrier's support.
    pub moved: Vec<String>,
    /// The root link's index in the model.
    pub root: usize,
    /// Height of the root link's origin when the robot stands on the ground (floating base).
    pub standing_height: Option<f64>,
    /// Total hull count.
    pub hulls: usize,
}

/// What a run measured.
#[derive(Debug, Clone)]
pub struct TrialReport {
    /// Steps taken.
    pub steps: usize,
    /// Mean and largest wall time of a step.
    pub step_time: (Duration, Duration),
    /// Mean and largest Newton iterations of a step.
    pub iterations: (f64, usize),
    /// The root's final height (floating base).
    pub base_height: Option<f64>,
    /// The smallest GJK distance between link pairs in contact over the checked steps.
    pub min_distance: f64,
    /// What went wrong, if anything: an error, NaN, a penetration, a fall, a fly-off.
    pub failure: Option<String>,
    /// The start and the state after every step taken, for the animation.
    pub states: Vec<State>,
    /// The wall time of every step taken (ms).
    pub step_ms: Vec<f64>,
}

impl Trial {
    /// Loads `urdf` (and `srdf`) and sets the robot up as the options say.
    pub fn new(urdf: &Path, srdf: Option<&Path>, options: &TrialOptions) -> anyhow::Result<Self> {
        let urdf_options = UrdfOptions {
            package_paths: options.package_paths.clone(),
            floating_base: options.floating,
            ..UrdfOptions::default()
        };
        let robot = load_urdf(urdf, &urdf_options)?;
        let srdf = srdf.map(Srdf::from_file).transpose()?;
        let mut world = World::new(options.dt)?.with_ground();
        let robot_handle = world.add_robot(robot.links().to_vec(), Isometry3::identity());
        let root = robot_handle.root().index();
        let hulls = robot.links().iter().map(|l| l.hulls.len()).sum();
        if options.floating && hulls == 0 {
            anyhow::bail!(
                "{} has no collision geometry (no <collision> elements), so nothing of it can \
                 stand on the ground: run it with a fixed base (without --floating)",
                urdf.display()
            );
        }
        // The configuration: an SRDF state, else the neutral one.
        let wanted = options.state.clone().or_else(|| {
            srdf.as_ref().and_then(|s| {
                ["standing", "half_sitting", "default", "ready", "home"]
                    .into_iter()
                    .find(|n| s.state_names().contains(n))
                    .map(str::to_string)
            })
        });
        if let (None, Some(name)) = (&srdf, &wanted)
            && name != "neutral"
        {
            anyhow::bail!("state '{name}' asked for, but no SRDF given");
        }
        let configuration = wanted.unwrap_or_else(|| "neutral".to_string());
        let mut prepared = None;
        let mut skipped = Vec::new();
        let (model, simulator) = world.build_with(|model, settings| {
            let mut state = match &srdf {
                // `neutral` is the zero configuration unless the SRDF defines a state so named.
                Some(s)
                    if configuration != "neutral"
                        || s.state_names().contains(&configuration.as_str()) =>
                {
                    let configured = s.configuration(model, &configuration, &State::zero(model))?;
                    skipped = configured.skipped;
                    configured.state
                }
                _ => State::zero(model),
            };
            let moved = model.clamp_inside_limits(&mut state, settings.limit_support);
            // A floating base stands on the ground, then is lifted by the drop height.
            let standing_height = options.floating.then(|| {
                let first = model.dof_offset(root);
                state.q[first + 2] = 0.0;
                let height = -vertical_extent(model, &state, root).0;
                state.q[first + 2] = height + options.drop;
                height
            });
            let srdf_report = srdf.as_ref().map(|s| s.apply(model)).transpose()?;
            let support = settings
                .contact
                .as_ref()
                .map_or(0.0, |c| c.support_distance());
            let automatic = model.exclude_touching(&state, support)?;
            let skip = settings.contact.as_ref().is_some_and(|c| c.skip_adjacent);
            let n = model.links().len();
            let active = (0..n)
                .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
                .filter(|&(a, b)| {
                    model.may_touch(a, b, skip)
                        && !model.links()[a].hulls.is_empty()
                        && !model.links()[b].hulls.is_empty()
                })
                .count();
            let filtered = Filtered {
                srdf: srdf_report,
                automatic,
                active,
            };
            prepared = Some((state, moved, standing_height, filtered));
            Ok(())
        })?;
        let Some((state, moved, standing_height, filtered)) = prepared else {
            anyhow::bail!("the world was built without preparing the robot");
        };
        let control = hold(&model, &state, options, root);
        let start = Motion::at_rest(&model, state);
        Ok(Self {
            model,
            simulator,
            start,
            control,
            filtered,
            configuration,
            skipped,
            moved,
            root,
            standing_height,
            hulls,
        })
    }

    /// Runs `seconds` of simulated time, checking every step (distances every `check_every`
    /// steps), and stops at the first failure.
    pub fn run(&mut self, seconds: f64, check_every: usize) -> TrialReport {
        let dt = self.simulator.settings().dt;
        let steps = (seconds / dt).round() as usize;
        let mut motion = self.start.clone();
        let (mut total, mut longest) = (Duration::ZERO, Duration::ZERO);
        let (mut iterations, mut most) = (0usize, 0usize);
        let mut min_distance = f64::INFINITY;
        let mut failure = None;
        let mut taken = 0;
        let mut states = vec![motion.state.clone()];
        let mut step_ms = Vec::with_capacity(steps);
        let start_root = Kinematics::new(&self.model, &motion.state).poses()[self.root];
        for step in 0..steps {
            let clock = Instant::now();
            let result = self.simulator.advance(&mut motion, &self.control);
            let elapsed = clock.elapsed();
            let report = match result {
                Ok(r) => r,
                Err(e) => {
                    failure = Some(format!("step {step}: {e}"));
                    break;
                }
            };
            taken += 1;
            states.push(motion.state.clone());
            step_ms.push(1e3 * elapsed.as_secs_f64());
            total += elapsed;
            longest = longest.max(elapsed);
            iterations += report.iterations;
            most = most.max(report.iterations);
            if motion.state.q.iter().any(|v| !v.is_finite()) {
                failure = Some(format!("step {step}: NaN in the state"));
                break;
            }
            let kin = Kinematics::new(&self.model, &motion.state);
            if step % check_every == 0 || step + 1 == steps {
                let d = self.min_distance(&kin);
                min_distance = min_distance.min(d);
                if d <= 0.0 {
                    failure = Some(format!("step {step}: links penetrate (GJK)"));
                    break;
                }
            }
            if let Some(why) = self.fell(&kin, &start_root) {
                failure = Some(format!("step {step}: {why}"));
                break;
            }
        }
        let kin = Kinematics::new(&self.model, &motion.state);
        let base_height = self
            .standing_height
            .map(|_| kin.poses()[self.root].translation.vector.z);
        if failure.is_none()
            && let (Some(h), Some(standing)) = (base_height, self.standing_height)
            && (h - standing).abs() > 0.02
        {
            failure = Some(format!(
                "the base settled at {h:.4} m, more than 2 cm from its standing height {standing:.4} m"
            ));
        }
        TrialReport {
            steps: taken,
            step_time: (total / taken.max(1) as u32, longest),
            iterations: (iterations as f64 / taken.max(1) as f64, most),
            base_height,
            min_distance,
            failure,
            states,
            step_ms,
        }
    }

    /// The smallest GJK distance between hulls of link pairs in contact.
    fn min_distance(&self, kin: &Kinematics) -> f64 {
        let skip = self
            .simulator
            .settings()
            .contact
            .as_ref()
            .is_some_and(|c| c.skip_adjacent);
        min_distance(&self.model, kin, skip)
    }

    /// Why the robot counts as fallen or flown off, if it does: the root tipped more than
    /// 45°, dropped more than 2 cm below standing, or moved more than 0.5 m sideways.
    fn fell(&self, kin: &Kinematics, start: &Isometry3<f64>) -> Option<String> {
        let pose = kin.poses()[self.root];
        let tilt = (start.rotation.inverse() * pose.rotation).angle();
        if tilt > std::f64::consts::FRAC_PI_4 {
            return Some(format!("the base tipped over ({:.0}°)", tilt.to_degrees()));
        }
        let moved = pose.translation.vector - start.translation.vector;
        if moved.xy().norm() > 0.5 {
            return Some(format!("the base flew {:.2} m sideways", moved.xy().norm()));
        }
        if let Some(standing) = self.standing_height
            && pose.translation.vector.z < standing - 0.02
        {
            return Some(format!(
                "the base sank to {:.4} m, below its standing height {standing:.4} m",
                pose.translation.vector.z
            ));
        }
        None
    }
}

/// The lowest and highest world z of the robot's hulls (links from `root` on) at `state`.
pub fn vertical_extent(model: &Model, state: &State, root: usize) -> (f64, f64) {
    let kin = Kinematics::new(model, state);
    model.links()[root..]
        .iter()
        .zip(&kin.poses()[root..])
        .flat_map(|(l, p)| {
            l.hulls
                .iter()
                .flat_map(move |h| h.vertices().iter().map(move |v| (p * v).z))
        })
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), z| {
            (lo.min(z), hi.max(z))
        })
}

/// PD towards `state` on every actuated (non-root) DoF: stiffness `gain · m g h` per DoF, and
/// damping for a 0.1 s time constant (`c = 0.1 s · k`).
fn hold(model: &Model, state: &State, options: &TrialOptions, root: usize) -> Control {
    let mass: f64 = (root..model.links().len()).map(|i| model.mass(i)).sum();
    let (lo, hi) = vertical_extent(model, state, root);
    let height = if hi > lo { hi - lo } else { 1.0 };
    let kp = options.gain * mass * 9.81 * height;
    let mut control = Control::passive(model);
    let free = if model.links()[root].joint.dof() == 6 {
        model.dof_offset(root)..model.dof_offset(root) + 6
    } else {
        0..0
    };
    for j in 0..model.dof() {
        if free.contains(&j) {
            continue;
        }
        control.kp[j] = kp;
        control.kd[j] = 0.1 * kp;
        control.position[j] = state.q[j];
    }
    control
}

/// The smallest GJK distance between hulls of link pairs of `model` that may touch
/// (`skip_adjacent`: parent and child do not), at kinematics `kin`; 0 where hulls intersect,
/// infinite when no hulls are within 5 cm of each other.
pub fn min_distance(model: &Model, kin: &Kinematics, skip_adjacent: bool) -> f64 {
    let links = model.links();
    let mut best = f64::INFINITY;
    for a in 0..links.len() {
        for b in a + 1..links.len() {
            if !model.may_touch(a, b, skip_adjacent) {
                continue;
            }
            let (pa, pb) = (&kin.poses()[a], &kin.poses()[b]);
            for ha in &links[a].hulls {
                let near = ha.aabb(pa).inflated(0.05);
                for hb in &links[b].hulls {
                    if !near.intersects(&hb.aabb(pb)) {
                        continue;
                    }
                    let d = match distance(ha, pa, hb, pb) {
                        Proximity::Separated(s) => s.distance,
                        Proximity::Intersecting { .. } => 0.0,
                    };
                    best = best.min(d);
                }
            }
        }
    }
    best
}
