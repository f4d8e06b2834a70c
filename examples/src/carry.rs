//! What the SDRS grasp-and-carry benchmarks share (sec. V-F universal parallel-jaw gripper,
//! sec. V-G three-fingered hand): a gripper whose palm slides in x, y, z on massless mounting
//! frames and whose fingers are held by stable PD (eq. 5) at their closed pose `θ_*`
//! throughout; objects resting on the ground within its open fingers; a trajectory per object
//! in which the palm holds still while the fingers close (the first [`Gripper::close`] of the
//! horizon) and then moves smoothly to a target drawn once from a fixed seed ([`targets`]);
//! the paper's loss, "relative motion between the object and the gripper", per trajectory;
//! and the design — the vertices of the fingers' convex blocks ([`JawBlocks`]) — shared by all
//! trajectories, whose losses and design gradients are summed ([`Carry::evaluate`], the
//! trajectories in parallel with rayon) and descended with Adam ([`Carry::optimise`]).
//!
//! The loss of a trajectory is `|R_palmᵀ (COM_object − t_palm) − r|²` at the end of the
//! horizon, with `r` the object's centre in the palm's frame at the start (the paper writes
//! `|COM_object − COM_gripper|²`; the palm's frame is used because a held object keeps a fixed
//! offset from the gripper, not its centre). There are no control parameters (the paper's
//! preset controller): the palm's PD targets follow a fixed spline script.

use crate::blocks::JawBlocks;
use crate::stages::scheduled_spline;
use rayon::prelude::*;
use sdrs::diff::{CubicSpline, Evaluation, LinkPoint, Objective, RelativePosition};
use sdrs::prelude::*;

/// Time step (s).
pub const DT: f64 = 0.01;
/// Mass of each object (kg).
pub const OBJECT_MASS: f64 = 0.1;
/// The objects, in the order of [`targets`].
pub const OBJECTS: [&str; 4] = ["ball", "cube", "cylinder", "cross"];
/// Spline control values per palm DoF (the script's resolution).
const POINTS: usize = 8;

/// One trajectory: the gripper and one object, the scripted palm spline and the loss.
pub type Grasp = Objective<CubicSpline, RelativePosition>;

/// A gripper to build the trajectories from.
#[derive(Debug, Clone)]
pub struct Gripper {
    /// Its links, parents first: the x and y mounts, the palm (named `palm`) on a z slide
    /// ([`palm_mounts`]), then the fingers.
    pub links: Vec<Link>,
    /// The design: each named link's hulls are these blocks (from hull 0), in this order in
    /// the design vector.
    pub parts: Vec<(String, JawBlocks)>,
    /// Where the palm's frame starts (world, m).
    pub start: Vector3<f64>,
    /// PD `(stiffness, damping)` of every DoF, the palm's three slides first (N/m and N·s/m
    /// on slides, N·m/rad and N·m·s/rad on hinges).
    pub gains: Vec<(f64, f64)>,
    /// The closed pose `θ_*` of the finger DoFs (after the palm's three).
    pub closed: Vec<f64>,
    /// Fraction of the horizon in which the palm holds still while the fingers close.
    pub close: f64,
    /// Friction coefficient.
    pub mu: f64,
}

/// One object's trajectory with what the examples report about it.
#[derive(Debug, Clone)]
pub struct Trajectory {
    /// The object's name ([`OBJECTS`]).
    pub name: &'static str,
    /// The objective `p → (L, dL/dp)` (its policy parameters are the fixed script).
    pub objective: Grasp,
    /// The scripted palm targets (spline control values, not optimised).
    pub script: DVector<f64>,
    /// Where the palm moves (displacement from its start, m).
    pub target: Vector3<f64>,
    /// The object's free-joint coordinates.
    pub object_dofs: std::ops::Range<usize>,
    /// The object's centre at the start.
    pub object_start: Vector3<f64>,
}

/// A benchmark: the trajectories sharing one design.
#[derive(Debug, Clone)]
pub struct Carry {
    /// The trajectories, one per object.
    pub trajectories: Vec<Trajectory>,
    /// The designed links and their blocks, in the design vector's order.
    pub parts: Vec<(String, JawBlocks)>,
}

/// The summed loss of the trajectories and its design gradient, with each trajectory's own.
#[derive(Debug)]
pub struct Summed {
    /// `Σ_i L_i`.
    pub loss: f64,
    /// `Σ_i dL_i/dp`.
    pub gradient: DVector<f64>,
    /// Each trajectory's evaluation, in order.
    pub each: Vec<Evaluation>,
}

/// What can go wrong building or evaluating a grasp-and-carry benchmark.
#[derive(Debug, thiserror::Error)]
pub enum CarryError {
    /// A horizon too short to close and carry, no object, or gains that do not match the DoFs.
    #[error("grasp-and-carry setting {name} = {value}: {allowed}")]
    Setting {
        /// The setting.
        name: &'static str,
        /// Its value.
        value: usize,
        /// What is allowed.
        allowed: &'static str,
    },
    /// A closing fraction outside `[0, 1)`.
    #[error("closing fraction {0}: it must be in [0, 1) (the palm moves after it)")]
    Close(f64),
    /// An object name not in [`OBJECTS`].
    #[error("unknown object {0:?}: the objects are {OBJECTS:?}")]
    UnknownObject(String),
    /// The design vector has the wrong length.
    #[error("design vector of {actual} parameters, expected {expected}")]
    DesignLength {
        /// Given.
        actual: usize,
        /// Expected.
        expected: usize,
    },
    /// Building the blocks failed.
    #[error(transparent)]
    Blocks(#[from] crate::blocks::BlocksError),
    /// Building or stepping the scene failed.
    #[error(transparent)]
    Dynamics(#[from] sdrs::dynamics::DynamicsError),
    /// The rollout, loss or adjoint failed.
    #[error(transparent)]
    Diff(#[from] sdrs::diff::DiffError),
    /// A hull or model could not be built.
    #[error("{0}")]
    Scene(String),
}

/// The hulls of object `name` centred on the origin (m), with the height of its lowest point
/// below its centre. Every object is at most 6.4 cm across the jaws (y) and 7 cm tall.
pub fn object_hulls(name: &str) -> Result<(Vec<ConvexHull>, f64), CarryError> {
    let scene = |e: sdrs::geometry::GeometryError| CarryError::Scene(e.to_string());
    let hulls = match name {
        "ball" => {
            // A polyhedral ball of radius 3 cm: 6 rings of 8 points at latitudes ±15°, ±45°,
            // ±75°, alternate rings turned by half a segment. Its lowest ring is a flat face,
            // so it rests on the ground (a ball balanced on one vertex would topple whichever
            // way the first contact pushes it: a trajectory not smooth in the design).
            let points = (0..6)
                .flat_map(|ring| {
                    let latitude = (-75.0 + 30.0 * ring as f64).to_radians();
                    (0..8).map(move |j| {
                        let a = std::f64::consts::FRAC_PI_4 * (j as f64 + 0.5 * (ring % 2) as f64);
                        Point3::new(
                            latitude.cos() * a.cos(),
                            latitude.cos() * a.sin(),
                            latitude.sin(),
                        ) * 0.03
                    })
                })
                .collect();
            vec![ConvexHull::new(points).map_err(scene)?]
        }
        "cube" => vec![ConvexHull::cuboid(Vector3::repeat(0.027)).map_err(scene)?],
        "cylinder" => {
            // An octagonal prism of radius 2.8 cm and length 6 cm lying along x.
            let points = (0..16)
                .map(|i| {
                    let a = std::f64::consts::FRAC_PI_4 * ((i % 8) as f64 + 0.5);
                    let x = if i < 8 { -0.03 } else { 0.03 };
                    Point3::new(x, 0.028 * a.cos(), 0.028 * a.sin())
                })
                .collect();
            vec![ConvexHull::new(points).map_err(scene)?]
        }
        "cross" => {
            // Two bars (4 cm deep along x, 7.6 cm long, 1.6 cm thick) crossed at ±45° in the
            // yz plane: the arms' ends press on the jaws.
            let bar = ConvexHull::cuboid(Vector3::new(0.02, 0.038, 0.008)).map_err(scene)?;
            [1.0, -1.0]
                .into_iter()
                .map(|s: f64| {
                    let turn = UnitQuaternion::from_axis_angle(
                        &Vector3::x_axis(),
                        s * std::f64::consts::FRAC_PI_4,
                    );
                    ConvexHull::new(bar.vertices().iter().map(|v| turn * v).collect())
                        .map_err(scene)
                })
                .collect::<Result<_, _>>()?
        }
        other => return Err(CarryError::UnknownObject(other.to_string())),
    };
    let lowest = hulls
        .iter()
        .flat_map(|h| h.vertices().iter().map(|v| v.z))
        .fold(f64::INFINITY, f64::min);
    Ok((hulls, -lowest))
}

/// The palm's target displacements, one per object: raised 8-12 cm and moved 4-8 cm sideways
/// in a random direction, drawn from a fixed-seed generator (splitmix64) so runs repeat.
pub fn targets() -> Vec<Vector3<f64>> {
    let mut state: u64 = 0x5d12_f00d_2024_0917;
    let mut uniform = || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..OBJECTS.len())
        .map(|_| {
            let angle = 2.0 * std::f64::consts::PI * uniform();
            let side = 0.04 + 0.04 * uniform();
            let up = 0.08 + 0.04 * uniform();
            Vector3::new(side * angle.cos(), side * angle.sin(), up)
        })
        .collect()
}

/// The palm on massless x and y mounts: links `mount_x`, `mount_y` (slides along x and y) and
/// `palm` (a slide along z) with hulls `hulls` and mass `mass` (kg).
pub fn palm_mounts(hulls: Vec<ConvexHull>, mass: f64) -> Vec<Link> {
    let massless =
        || MassModel::SecondMoment(DMatrix::zeros(4, 4).fixed_view::<4, 4>(0, 0).into_owned());
    let slide = |axis: Vector3<f64>| JointKind::Prismatic { axis };
    vec![
        Link::new(
            "mount_x",
            None,
            Isometry3::identity(),
            slide(Vector3::x()),
            Vec::new(),
            massless(),
        ),
        Link::new(
            "mount_y",
            Some(0),
            Isometry3::identity(),
            slide(Vector3::y()),
            Vec::new(),
            massless(),
        ),
        Link::new(
            "palm",
            Some(1),
            Isometry3::identity(),
            slide(Vector3::z()),
            hulls,
            MassModel::Lumped { mass },
        ),
    ]
}

/// The palm's scripted displacement at horizon fraction `u`: still until `close`, then a
/// smooth (cubic smoothstep) move to `target`.
fn palm_schedule(target: Vector3<f64>, close: f64, u: f64) -> Vec<f64> {
    let s = ((u - close) / (1.0 - close)).clamp(0.0, 1.0);
    let smooth = s * s * (3.0 - 2.0 * s);
    (target * smooth).iter().copied().collect()
}

/// The trajectories of `gripper` for the named objects (from [`OBJECTS`]; object `OBJECTS[i]`
/// always gets target `targets()[i]`), `steps` steps each.
pub fn build(gripper: &Gripper, objects: &[&str], steps: usize) -> Result<Carry, CarryError> {
    if steps < 10 {
        return Err(CarryError::Setting {
            name: "steps",
            value: steps,
            allowed: "at least 10 (the fingers close, then the palm moves)",
        });
    }
    if objects.is_empty() {
        return Err(CarryError::Setting {
            name: "objects",
            value: 0,
            allowed: "at least one object",
        });
    }
    if !(0.0..1.0).contains(&gripper.close) {
        return Err(CarryError::Close(gripper.close));
    }
    let dof: usize = gripper.links.iter().map(|l| l.joint.dof()).sum();
    if gripper.gains.len() != dof || gripper.closed.len() + 3 != dof {
        return Err(CarryError::Setting {
            name: "gains",
            value: gripper.gains.len(),
            allowed: "one (stiffness, damping) per DoF and a closed target per finger DoF",
        });
    }
    let chosen = objects
        .iter()
        .map(|name| {
            OBJECTS
                .iter()
                .position(|o| o == name)
                .ok_or_else(|| CarryError::UnknownObject(name.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let targets = targets();
    let start = gripper.start;
    let mass: f64 = gripper
        .links
        .iter()
        .map(|l| match l.mass {
            MassModel::Lumped { mass } => mass,
            _ => 0.0,
        })
        .sum();
    let parameters: usize = gripper.parts.iter().map(|(_, b)| b.parameters()).sum();
    let trajectories = chosen
        .into_iter()
        .map(|i| -> Result<Trajectory, CarryError> {
            let (name, target) = (OBJECTS[i], targets[i]);
            let mut world = World::new(DT)?.with_ground().with_friction(gripper.mu)?;
            let robot = world.add_robot(
                gripper.links.clone(),
                Isometry3::translation(start.x, start.y, start.z),
            );
            let (hulls, below) = object_hulls(name)?;
            // Resting on the ground, 0.2 mm beyond the barrier's 0.4 mm support: it settles
            // in the first steps.
            let object_start = Vector3::new(0.0, 0.0, below + 6e-4);
            let object = world.add_object(
                "object",
                hulls[0].clone(),
                OBJECT_MASS,
                Isometry3::translation(object_start.x, object_start.y, object_start.z),
            );
            world.settings_mut().backward = true;
            let (mut model, sim) = world.build()?;
            if hulls.len() > 1 {
                // The cross's second bar: built with one hull, then given both.
                let mut links = model.links().to_vec();
                links[object.link().index()].hulls = hulls;
                model = Model::new(links)?;
            }
            let settings = sim.settings().clone();
            let dofs: Vec<usize> = robot.dofs().collect();
            let mut base = Control::passive(&model);
            for (a, &j) in dofs.iter().enumerate() {
                (base.kp[j], base.kd[j]) = gripper.gains[a];
                if a >= 3 {
                    base.position[j] = gripper.closed[a - 3];
                }
            }
            // Gravity compensation on the palm's vertical slide.
            base.force[dofs[2]] = mass * settings.gravity;
            let policy = CubicSpline::new(base, dofs[..3].to_vec(), POINTS, steps as f64 * DT)?;
            let script = scheduled_spline(POINTS, 3, |u| palm_schedule(target, gripper.close, u));
            let centre = LinkPoint::fixed(&model, "object", Point3::origin())?;
            let loss = RelativePosition::new(&model, centre, "palm", object_start - start)?;
            let mut design = DesignMap::new(&model, parameters);
            let mut next = 0;
            for (link, blocks) in &gripper.parts {
                next = blocks.add_to(&mut design, &model, link, next)?;
            }
            Ok(Trajectory {
                name,
                objective: Objective {
                    policy,
                    loss,
                    start: State::zero(&model),
                    steps,
                    design,
                    settings,
                    recording: Recording::Blocks,
                    model,
                },
                script,
                target,
                object_dofs: object.dofs(),
                object_start,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Carry {
        trajectories,
        parts: gripper.parts.clone(),
    })
}

impl Carry {
    /// The number of design parameters (every part's blocks).
    pub fn parameters(&self) -> usize {
        self.parts.iter().map(|(_, b)| b.parameters()).sum()
    }

    /// Bounds of the design parameters: each part's [`JawBlocks::bounds`], in order.
    pub fn bounds(&self) -> (DVector<f64>, DVector<f64>) {
        let (mut lower, mut upper) = (Vec::new(), Vec::new());
        for (_, blocks) in &self.parts {
            let (l, u) = blocks.bounds();
            lower.extend(l.iter());
            upper.extend(u.iter());
        }
        (DVector::from_vec(lower), DVector::from_vec(upper))
    }

    /// The fraction of its blocks' initial volume each part keeps under design `p`
    /// ([`JawBlocks::volume_fraction`]), in order; an error if `p` has the wrong length.
    pub fn volume_fractions(&self, p: &DVector<f64>) -> Result<Vec<f64>, CarryError> {
        self.check(p)?;
        let mut at = 0;
        Ok(self
            .parts
            .iter()
            .map(|(_, blocks)| {
                let n = blocks.parameters();
                let kept = blocks.volume_fraction(&p.rows(at, n).into_owned());
                at += n;
                kept
            })
            .collect())
    }

    /// An error unless `p` has [`Carry::parameters`] entries.
    fn check(&self, p: &DVector<f64>) -> Result<(), CarryError> {
        if p.len() == self.parameters() {
            Ok(())
        } else {
            Err(CarryError::DesignLength {
                actual: p.len(),
                expected: self.parameters(),
            })
        }
    }

    /// The summed loss and design gradient of all trajectories for design `p`, the
    /// trajectories evaluated in parallel (rayon; the sum is taken in trajectory order, so it
    /// does not depend on the thread count).
    pub fn evaluate(&self, p: &DVector<f64>) -> Result<Summed, CarryError> {
        self.check(p)?;
        let each = self
            .trajectories
            .par_iter()
            .map(|t| t.objective.evaluate(&t.script, p))
            .collect::<Result<Vec<_>, _>>()?;
        let mut gradient = DVector::zeros(p.len());
        for e in &each {
            let g = e.design.as_ref().ok_or_else(|| {
                CarryError::Scene("the steps gave no design gradient".to_string())
            })?;
            gradient += g;
        }
        Ok(Summed {
            loss: each.iter().map(|e| e.loss).sum(),
            gradient,
            each,
        })
    }

    /// `iterations` Adam steps (learning rate `learning_rate`, the usual moment decays
    /// 0.9 and 0.999) on the design from `p`, each projected onto [`Carry::bounds`].
    /// `progress` sees each iteration's index and loss.
    ///
    /// A step to a design whose rollout fails (Newton does not converge in a step: blocks
    /// moved into a configuration the stepper cannot resolve) is halved back towards the
    /// last design that rolled out, up to [`HALVINGS`] times, and counted in
    /// [`Optimised::halved`]; the error is returned if even the last halving fails.
    pub fn optimise(
        &self,
        mut p: DVector<f64>,
        iterations: usize,
        learning_rate: f64,
        mut progress: impl FnMut(usize, f64),
    ) -> Result<Optimised, CarryError> {
        let (lower, upper) = self.bounds();
        let mut adam = sdrs::diff::Adam::new(p.len(), learning_rate);
        let mut history = Vec::with_capacity(iterations + 1);
        let mut best: Option<(DVector<f64>, Summed)> = None;
        let mut halved = 0;
        let mut good = p.clone();
        for iteration in 0..=iterations {
            let mut attempt = 0;
            let at = loop {
                match self.evaluate(&p) {
                    Ok(at) => break at,
                    Err(CarryError::Diff(sdrs::diff::DiffError::Step { .. }))
                        if iteration > 0 && attempt < HALVINGS =>
                    {
                        attempt += 1;
                        halved += 1;
                        p = (&p + &good) * 0.5;
                    }
                    Err(e) => return Err(e),
                }
            };
            good = p.clone();
            history.push(at.loss);
            progress(iteration, at.loss);
            let gradient = at.gradient.clone();
            if best.as_ref().is_none_or(|(_, b)| at.loss < b.loss) {
                best = Some((p.clone(), at));
            }
            if iteration == iterations {
                break;
            }
            adam.step(&mut p, &gradient)?;
            for i in 0..p.len() {
                p[i] = p[i].clamp(lower[i], upper[i]);
            }
        }
        let (design, end) = best.ok_or_else(|| CarryError::Scene("no evaluation".to_string()))?;
        Ok(Optimised {
            history,
            design,
            end,
            halved,
        })
    }
}

/// How many times [`Carry::optimise`] halves a step whose rollout fails.
pub const HALVINGS: usize = 4;

/// What [`Carry::optimise`] returns.
#[derive(Debug)]
pub struct Optimised {
    /// The summed loss at the start and after each step (`iterations + 1` values).
    pub history: Vec<f64>,
    /// The design with the lowest loss.
    pub design: DVector<f64>,
    /// Its evaluation.
    pub end: Summed,
    /// Steps halved because their rollout failed.
    pub halved: usize,
}

impl Trajectory {
    /// How far the object ended from where a firm grasp puts it (m): the square root of this
    /// trajectory's loss, `|R_palmᵀ (COM_object − t_palm) − r|`.
    pub fn slip(e: &Evaluation) -> f64 {
        e.loss.sqrt()
    }

    /// How far the object's centre ended from its target (its start moved by
    /// [`Trajectory::target`], where the palm's script takes a held object) at the last of
    /// `states` (m); `None` without states.
    pub fn miss(&self, states: &[State]) -> Option<f64> {
        let q = &states.last()?.q;
        // The free joint's first three coordinates translate the object from its start.
        let moved = Vector3::new(
            q[self.object_dofs.start],
            q[self.object_dofs.start + 1],
            q[self.object_dofs.start + 2],
        );
        Some((moved - self.target).norm())
    }

    /// The smallest GJK distance between hulls that may touch over `states`, for the gripper
    /// of design `p` (m; positive: collision-free).
    pub fn clearance(&self, p: &DVector<f64>, states: &[State]) -> Result<f64, CarryError> {
        let model = self.objective.design.model(&self.objective.model, p)?;
        Ok(crate::walker::smallest_gap(&model, states))
    }
}

/// A held object stays within this distance of where the grasp put it (m).
pub const HELD: f64 = 0.01;

/// What an example reports beside its run: its name and figure, and the paper's result.
#[derive(Debug, Clone, Copy)]
pub struct Report<'a> {
    /// The benchmark's title, e.g. "Universal parallel-jaw gripper".
    pub title: &'a str,
    /// The paper's figure of the result and of the convergence, e.g. ("Fig. 16", "Fig. 18").
    pub figures: (&'a str, &'a str),
    /// Output folder (created).
    pub out: &'a std::path::Path,
    /// The paper's result, printed beside ours.
    pub paper: &'a str,
}

/// Runs an example: evaluates the initial design, optimises `iterations` Adam steps at
/// `learning_rate` under a progress bar, prints each object's slip (held when below [`HELD`]),
/// its distance to its target and the smallest clearance before and after, the material each
/// part keeps and the wall time; writes the convergence history (`convergence.{csv,svg,png}`)
/// and every trajectory before and after with the gripper's shapes (`start_NAME`,
/// `optimised_NAME`, GLB + HTML) into `report.out`. Returns the run.
pub fn run_example(
    task: &Carry,
    iterations: usize,
    learning_rate: f64,
    report: Report<'_>,
) -> Result<Optimised, Box<dyn std::error::Error>> {
    use std::time::Instant;
    let p0 = DVector::zeros(task.parameters());
    let clock = Instant::now();
    let first = task.evaluate(&p0)?;
    println!(
        "one evaluation ({} rollouts + adjoints, in parallel on {} threads): {:.1} s",
        task.trajectories.len(),
        rayon::current_num_threads(),
        clock.elapsed().as_secs_f64()
    );
    let bar = sdrs_report::Progress::new(
        "design",
        iterations as u64,
        sdrs_report::ProgressMode::auto(),
    );
    let clock = Instant::now();
    let run = task.optimise(p0.clone(), iterations, learning_rate, |k, loss| {
        bar.set_message(&format!("loss {loss:.3e}"));
        if k > 0 {
            bar.inc(1);
        }
    })?;
    bar.finish();
    let seconds = clock.elapsed().as_secs_f64();
    if run.halved > 0 {
        println!("{} steps halved because their rollout failed", run.halved);
    }
    let show = |name: &str, p: &DVector<f64>, s: &Summed| -> Result<usize, CarryError> {
        println!("{name}: summed loss {:.4e} m²", s.loss);
        let mut held = 0;
        for (t, e) in task.trajectories.iter().zip(&s.each) {
            let slip = Trajectory::slip(e);
            let states = &e.trajectory.states;
            held += usize::from(slip < HELD);
            println!(
                "  {:<9} slip {:.4} m ({}), object {:.4} m from its target, smallest clearance {:.2e} m",
                t.name,
                slip,
                if slip < HELD { "held" } else { "dropped" },
                t.miss(states).unwrap_or(f64::NAN),
                t.clearance(p, states)?
            );
        }
        Ok(held)
    };
    let n = task.trajectories.len();
    let before = show("initial design  ", &p0, &first)?;
    let after = show("optimised design", &run.design, &run.end)?;
    println!(
        "objects held (slip < {HELD} m): ours {before}/{n} before, {after}/{n} after; paper: {}",
        report.paper
    );
    let kept: Vec<String> = task
        .volume_fractions(&run.design)?
        .iter()
        .zip(&task.parts)
        .map(|(k, (name, _))| format!("{name} {:.0}%", 100.0 * k))
        .collect();
    println!("material kept (of the initial blocks): {}", kept.join(", "));
    println!(
        "{iterations} iterations in {seconds:.0} s ({:.1} s per iteration); best loss {:.4e} of the start's {:.4e} (iteration {})",
        seconds / iterations.max(1) as f64,
        run.end.loss,
        first.loss,
        run.history
            .iter()
            .position(|&l| l == run.end.loss)
            .unwrap_or(0)
    );
    let dir = report.out;
    let mut written = sdrs_report::LinePlot::new(&format!(
        "{}: convergence (SDRS {})",
        report.title, report.figures.1
    ))
    .x_label("Adam iteration")
    .y_label("Σ |relative motion|² (m²)")
    .log_y(true)
    .history("ours (blocks)", &run.history)
    .write_all(dir, "convergence")?;
    for (stage, design, summed) in [("start", &p0, &first), ("optimised", &run.design, &run.end)] {
        for (t, e) in task.trajectories.iter().zip(&summed.each) {
            let model = t.objective.design.model(&t.objective.model, design)?;
            let animation =
                sdrs_view::glb::Animation::from_states(&model, DT, &e.trajectory.states)?;
            let plots = sdrs_view::Plots {
                loss: sdrs_report::indexed(&run.history),
                step_ms: Vec::new(),
            };
            let title = format!(
                "{} (SDRS {}): {}, {stage}",
                report.title, report.figures.0, t.name
            );
            written.extend(sdrs_view::write_run(
                &animation,
                &title,
                &plots,
                dir,
                &format!("{stage}_{}", t.name),
            )?);
        }
    }
    for path in &written {
        println!("wrote {}", sdrs_report::display_path(path));
    }
    Ok(run)
}
