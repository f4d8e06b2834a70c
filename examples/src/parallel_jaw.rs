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
//! Four objects ([`OBJECTS`]: a polyhedral ball, a cube, a lying octagonal cylinder and an X of two
//! crossed bars) start on the ground between the open jaws; trajectory `i` grasps object `i`
//! and carries it to a target drawn once from a fixed seed ([`targets`]: raised 8-12 cm and
//! moved up to 8 cm sideways in a random direction). Its loss is the paper's "relative motion
//! between the object and the gripper", `|R_palmᵀ (COM_object − t_palm) − r|²` at the end
//! of the horizon, with `r` the object's centre in the palm's frame at the start (the paper
//! writes `|COM_object − COM_gripper|²`; the palm's frame is used because a held object keeps
//! a fixed offset from the gripper, not its centre). The optimised loss is the sum over the
//! four trajectories, evaluated in parallel ([`ParallelJaw::evaluate`], rayon), and the design
//! descends it with Adam (the paper: H = 180, α_d = 5e-3), each step projected onto the blocks'
//! bounds ([`JawBlocks::bounds`]).
//!
//! Ours, not the paper's (it gives no sizes): the jaws (8 cm square plates, 2 cm thick,
//! opening 9 cm), masses (palm 0.3 kg, jaws 0.05 kg, objects 0.1 kg), the gains (palm
//! k_p = 1e3; jaws k_p = 50 with closed targets 3.5 cm in from the open pose, squeezing a
//! 6 cm object with ≈ 2 N), the friction μ = 0.1 ([`MU`], "low": two flat jaws squeezing with
//! 2 N hold 0.4 N, less than the objects' 0.98 N weight, so none is lifted by the initial
//! gripper, as in the paper), the objects and the targets.

use crate::blocks::JawBlocks;
use crate::stages::scheduled_spline;
use rayon::prelude::*;
use sdrs::diff::{CubicSpline, Evaluation, LinkPoint, Objective, RelativePosition};
use sdrs::prelude::*;

/// Time step (s).
pub const DT: f64 = 0.01;
/// The paper's horizon per trajectory.
pub const STEPS: usize = 180;
/// The paper's learning rate (Adam, design).
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
/// Mass of each object (kg).
pub const OBJECT_MASS: f64 = 0.1;
/// Spline control values per palm DoF (the script's resolution).
const POINTS: usize = 8;
/// Height of the jaws' lower edge above the ground at the start (m).
const JAW_BOTTOM: f64 = 0.008;
/// The objects, in trajectory order.
pub const OBJECTS: [&str; 4] = ["ball", "cube", "cylinder", "cross"];

/// One trajectory: the gripper and one object, the scripted palm spline and the loss.
pub type Grasp = Objective<CubicSpline, RelativePosition>;

/// One object's trajectory with what the example reports about it.
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

/// The whole benchmark: the four trajectories sharing one jaw design.
#[derive(Debug, Clone)]
pub struct ParallelJaw {
    /// The trajectories, one per object.
    pub trajectories: Vec<Trajectory>,
    /// One jaw's blocks (both jaws have the same grid); the design vector holds the left
    /// jaw's parameters, then the right jaw's.
    pub jaw: JawBlocks,
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

/// What can go wrong building or evaluating the benchmark.
#[derive(Debug, thiserror::Error)]
pub enum ParallelJawError {
    /// A horizon too short to close and carry, or no object.
    #[error("parallel-jaw setting {name} = {value}: {allowed}")]
    Setting {
        /// The setting.
        name: &'static str,
        /// Its value.
        value: usize,
        /// What is allowed.
        allowed: &'static str,
    },
    /// An object name not in [`OBJECTS`].
    #[error("unknown object {0:?}: the objects are {OBJECTS:?}")]
    UnknownObject(String),
    /// The design vector has the wrong length.
    #[error("design vector of {actual} parameters, expected {expected} (two jaws)")]
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
fn object_hulls(name: &str) -> Result<(Vec<ConvexHull>, f64), ParallelJawError> {
    let scene = |e: sdrs::geometry::GeometryError| ParallelJawError::Scene(e.to_string());
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
        other => return Err(ParallelJawError::UnknownObject(other.to_string())),
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

/// The gripper's links: massless x and y mounts, the palm on a z slide, and two jaws of
/// `jaw`'s blocks sliding along ∓y (joint value: how far the jaw has closed).
fn gripper(jaw: &JawBlocks) -> Result<Vec<Link>, ParallelJawError> {
    let massless =
        || MassModel::SecondMoment(DMatrix::zeros(4, 4).fixed_view::<4, 4>(0, 0).into_owned());
    let slide = |axis: Vector3<f64>| JointKind::Prismatic { axis };
    let palm = ConvexHull::cuboid(Vector3::new(0.05, OPEN + PLATE.y, 0.01))
        .map_err(|e| ParallelJawError::Scene(e.to_string()))?;
    // The palm's frame is at the jaws' centre; its plate sits above them.
    let palm_plate = ConvexHull::new(
        palm.vertices()
            .iter()
            .map(|v| v + Vector3::new(0.0, 0.0, PLATE.z / 2.0 + 0.012))
            .collect(),
    )
    .map_err(|e| ParallelJawError::Scene(e.to_string()))?;
    let jaw_at = |side: f64| Isometry3::translation(0.0, side * (OPEN + PLATE.y / 2.0), 0.0);
    Ok(vec![
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
            vec![palm_plate],
            MassModel::Lumped { mass: PALM_MASS },
        ),
        Link::new(
            "jaw_left",
            Some(2),
            jaw_at(1.0),
            slide(-Vector3::y()),
            jaw.hulls.clone(),
            MassModel::Lumped { mass: JAW_MASS },
        ),
        Link::new(
            "jaw_right",
            Some(2),
            jaw_at(-1.0),
            slide(Vector3::y()),
            jaw.hulls.clone(),
            MassModel::Lumped { mass: JAW_MASS },
        ),
    ])
}

/// The palm's scripted displacement at horizon fraction `u`: still while the jaws close, then
/// a smooth (cubic smoothstep) move to `target`.
fn palm_schedule(target: Vector3<f64>, u: f64) -> Vec<f64> {
    let s = ((u - CLOSE) / (1.0 - CLOSE)).clamp(0.0, 1.0);
    let smooth = s * s * (3.0 - 2.0 * s);
    (target * smooth).iter().copied().collect()
}

/// Builds the benchmark with `grid` blocks per jaw (width × height; the paper: [`PAPER_GRID`])
/// and a horizon of `steps` per trajectory (the paper: [`STEPS`]), one trajectory per named
/// object (names from [`OBJECTS`]; the paper: all 4). Object `OBJECTS[i]` always gets
/// target `targets()[i]`, whichever objects are chosen.
pub fn parallel_jaw(
    grid: [usize; 2],
    steps: usize,
    objects: &[&str],
) -> Result<ParallelJaw, ParallelJawError> {
    if steps < 10 {
        return Err(ParallelJawError::Setting {
            name: "steps",
            value: steps,
            allowed: "at least 10 (the jaws close, then the palm moves)",
        });
    }
    if objects.is_empty() {
        return Err(ParallelJawError::Setting {
            name: "objects",
            value: 0,
            allowed: "at least one object",
        });
    }
    let chosen = objects
        .iter()
        .map(|name| {
            OBJECTS
                .iter()
                .position(|o| o == name)
                .ok_or_else(|| ParallelJawError::UnknownObject(name.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let targets = targets();
    let block = PLATE.component_div(&Vector3::new(grid[0] as f64, 1.0, grid[1] as f64));
    let jaw = JawBlocks::grid([grid[0], 1, grid[1]], block)?;
    let start = Vector3::new(0.0, 0.0, JAW_BOTTOM + PLATE.z / 2.0);
    let trajectories = chosen
        .into_iter()
        .map(|i| -> Result<Trajectory, ParallelJawError> {
            let (name, target) = (OBJECTS[i], targets[i]);
            let mut world = World::new(DT)?.with_ground().with_friction(MU)?;
            let robot = world.add_robot(
                gripper(&jaw)?,
                Isometry3::translation(start.x, start.y, start.z),
            );
            let (hulls, below) = object_hulls(name)?;
            // Resting on the ground, 0.1 mm into the barrier's range (as the single jaw's X).
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
            let carried = PALM_MASS + 2.0 * JAW_MASS;
            for (a, &j) in dofs.iter().enumerate() {
                // Palm: 2 k_p = 2000 N/m on 0.4 kg, near-critical damping; jaws: 2 k_p = 100 N/m
                // on 0.05 kg, damping 2√(2 k_p m) ≈ 4.5 N·s/m.
                let (kp, damping) = if a < 3 {
                    (1e3, 60.0)
                } else {
                    (JAW_KP, 2.0 * (2.0 * JAW_KP * JAW_MASS).sqrt())
                };
                base.kp[j] = kp;
                base.kd[j] = 0.5 * damping * DT;
                if a >= 3 {
                    base.position[j] = CLOSED;
                }
            }
            // Gravity compensation on the palm's vertical slide.
            base.force[dofs[2]] = carried * settings.gravity;
            let policy = CubicSpline::new(base, dofs[..3].to_vec(), POINTS, steps as f64 * DT)?;
            let script = scheduled_spline(POINTS, 3, |u| palm_schedule(target, u));
            let centre = LinkPoint::fixed(&model, "object", Point3::origin())?;
            let loss = RelativePosition::new(&model, centre, "palm", object_start - start)?;
            let mut design = DesignMap::new(&model, 2 * jaw.parameters());
            let next = jaw.add_to(&mut design, &model, "jaw_left", 0)?;
            jaw.add_to(&mut design, &model, "jaw_right", next)?;
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
    Ok(ParallelJaw { trajectories, jaw })
}

impl ParallelJaw {
    /// The number of design parameters (both jaws).
    pub fn parameters(&self) -> usize {
        2 * self.jaw.parameters()
    }

    /// Bounds of the design parameters: each jaw's [`JawBlocks::bounds`].
    pub fn bounds(&self) -> (DVector<f64>, DVector<f64>) {
        let (lower, upper) = self.jaw.bounds();
        let twice =
            |v: &DVector<f64>| DVector::from_iterator(2 * v.len(), v.iter().chain(v).copied());
        (twice(&lower), twice(&upper))
    }

    /// The summed loss and design gradient of all trajectories for design `p`, the
    /// trajectories evaluated in parallel (rayon; the sum is taken in trajectory order, so it
    /// does not depend on the thread count).
    pub fn evaluate(&self, p: &DVector<f64>) -> Result<Summed, ParallelJawError> {
        if p.len() != self.parameters() {
            return Err(ParallelJawError::DesignLength {
                actual: p.len(),
                expected: self.parameters(),
            });
        }
        let each = self
            .trajectories
            .par_iter()
            .map(|t| t.objective.evaluate(&t.script, p))
            .collect::<Result<Vec<_>, _>>()?;
        let mut gradient = DVector::zeros(p.len());
        for e in &each {
            let g = e.design.as_ref().ok_or_else(|| {
                ParallelJawError::Scene("the steps gave no design gradient".to_string())
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
    /// 0.9 and 0.999) on the design from `p`, each projected onto [`ParallelJaw::bounds`].
    /// Returns the summed loss before each step and at the end (the convergence history),
    /// the design with the lowest loss and its evaluation. `progress` sees each iteration's
    /// index and loss.
    pub fn optimise(
        &self,
        mut p: DVector<f64>,
        iterations: usize,
        learning_rate: f64,
        mut progress: impl FnMut(usize, f64),
    ) -> Result<(Vec<f64>, DVector<f64>, Summed), ParallelJawError> {
        let (lower, upper) = self.bounds();
        let mut adam = sdrs::diff::Adam::new(p.len(), learning_rate);
        let mut history = Vec::with_capacity(iterations + 1);
        let mut best: Option<(DVector<f64>, Summed)> = None;
        for iteration in 0..=iterations {
            let at = self.evaluate(&p)?;
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
        let (p, at) = best.ok_or_else(|| ParallelJawError::Scene("no evaluation".to_string()))?;
        Ok((history, p, at))
    }
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
    pub fn clearance(&self, p: &DVector<f64>, states: &[State]) -> Result<f64, ParallelJawError> {
        let model = self.objective.design.model(&self.objective.model, p)?;
        Ok(crate::walker::smallest_gap(&model, states))
    }
}
