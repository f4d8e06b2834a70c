//! What the SDRS paper's two locomotion benchmarks (sec. V-C quadruped, V-D biped) share:
//! capsule-shaped links as three convex pieces, the sine-wave controller's starting
//! parameters and boxes, the foot-vertex design, the walking distance and the fall test.
//!
//! Each foot (and each capsule link) is `3 · 4 · segments` vertices in three convex hulls
//! (`segments = 8`: the paper's 96 vertices, sec. V-C/V-D). The paper gets its 3 hulls from
//! V-HACD of a foot mesh; a capsule is convex, so a decomposition returns it whole: we cut it
//! ourselves into three pieces along its axis, each the hull of 4 rings of `segments` points
//! on the capsule's surface (consecutive pieces share their boundary ring's position, so the
//! union is the whole capsule up to the facets).

use sdrs::diff::{Loss, LossGradient, PointTarget, PolicyInput, StepRule, minimise_with};
use sdrs::prelude::*;
use std::f64::consts::PI;

/// Rings per capsule piece.
const RINGS: usize = 4;
/// Convex pieces per capsule.
pub const PIECES: usize = 3;

/// A capsule of `radius` and cylinder `half_height` from its joint at the origin along
/// `axis` (a unit vector), as [`PIECES`] convex hulls of `RINGS · segments` vertices each.
/// The end rings sit 15% of the radius in from the poles (a pole is a single point, which a
/// ring of distinct vertices cannot be).
pub fn capsule_pieces(
    radius: f64,
    half_height: f64,
    axis: Vector3<f64>,
    segments: usize,
) -> Result<Vec<ConvexHull>, Box<dyn std::error::Error>> {
    let axis = axis.normalize();
    let side = axis.cross(&if axis.x.abs() < 0.9 {
        Vector3::x()
    } else {
        Vector3::y()
    });
    let side = side.normalize();
    let up = axis.cross(&side);
    let length = 2.0 * (half_height + radius);
    let inset = 0.15 * radius;
    // The capsule's radius at distance `s` from the joint end.
    let profile = |s: f64| -> f64 {
        let from_end = s.min(length - s);
        if from_end >= radius {
            radius
        } else {
            (radius * radius - (radius - from_end).powi(2)).sqrt()
        }
    };
    let mut hulls = Vec::with_capacity(PIECES);
    for piece in 0..PIECES {
        let mut points = Vec::with_capacity(RINGS * segments);
        for ring in 0..RINGS {
            let k = piece * (RINGS - 1) + ring;
            let s = inset + (length - 2.0 * inset) * k as f64 / (PIECES * (RINGS - 1)) as f64;
            let rho = profile(s);
            for j in 0..segments {
                // Alternate rings turn by half a segment: rounder pieces.
                let a = 2.0 * PI * (j as f64 + 0.5 * (k % 2) as f64) / segments as f64;
                let p = axis * s + (side * a.cos() + up * a.sin()) * rho;
                points.push(Point3::from(p));
            }
        }
        hulls.push(ConvexHull::new(points)?);
    }
    Ok(hulls)
}

/// The step rule of the walkers' `--trust-region` and `--plateau N` flags: the paper's fixed
/// steps ([`StepRule::Fixed`]) unless one of them asks otherwise.
pub fn step_rule(trust_region: bool, plateau: Option<usize>) -> StepRule {
    match (trust_region, plateau) {
        (true, _) => StepRule::TrustRegion,
        (false, Some(patience)) => StepRule::Plateau { patience },
        (false, None) => StepRule::Fixed,
    }
}

/// The starting sine-wave parameters `(a, ω, φ)` of `waves` waves on each of `dofs` DoFs
/// (the layout of [`SineWaves`]): the distributions, amplitudes in U(0.01, 0.04),
/// frequencies 3 + N(0, 0.25²) clamped to [1.2, 7] rad/s, phases in U(−π, π), drawn from
/// deterministic low-discrepancy sequences (golden-ratio and √2 fractional parts) so runs
/// repeat exactly; the frequency's normal is replaced by the uniform of the same standard
/// deviation, 3 ± 0.433.
pub fn initial_waves(dofs: usize, waves: usize) -> DVector<f64> {
    initial_waves_drawn(dofs, waves, 0)
}

/// [`initial_waves`] drawn further along the same sequences: `draw` 0 gives
/// [`initial_waves`], each other `draw` a different controller from the same distributions
/// (the sequences' next `dofs · waves` points per `draw`).
pub fn initial_waves_drawn(dofs: usize, waves: usize, draw: usize) -> DVector<f64> {
    let golden = 0.5 * (5f64.sqrt() - 1.0);
    let root2 = 2f64.sqrt() - 1.0;
    let root3 = 3f64.sqrt() - 1.0;
    let mut c = DVector::zeros(3 * dofs * waves);
    for k in 0..dofs * waves {
        let u = |step: f64| ((draw * dofs * waves + k + 1) as f64 * step).fract();
        c[3 * k] = 0.01 + 0.03 * u(golden);
        c[3 * k + 1] = (3.0 + 0.25 * 3f64.sqrt() * (2.0 * u(root3) - 1.0)).clamp(1.2, 7.0);
        c[3 * k + 2] = -PI + 2.0 * PI * u(root2);
    }
    c
}

/// The box of the sine-wave parameters: amplitudes within ±`amplitude` rad, frequencies in
/// [1.2, 7] `unit` (the clamp; `unit` in rad/s: 1, or 2π for Hz), phases in [−2π, 2π].
pub fn wave_block(dofs: usize, waves: usize, amplitude: f64, radius: f64, unit: f64) -> Block {
    let n = 3 * dofs * waves;
    let lower = DVector::from_fn(n, |i, _| [-amplitude, 1.2 * unit, -2.0 * PI][i % 3]);
    let upper = DVector::from_fn(n, |i, _| [amplitude, 7.0 * unit, 2.0 * PI][i % 3]);
    Block {
        lower,
        upper,
        radius,
        max_radius: radius,
    }
}

/// A design map with one parameter per coordinate of every vertex of the named links' hulls
/// (x, y, z in the link's frame, vertices in hull order): the foot shapes as free vertices.
pub fn vertex_design(
    model: &Model,
    links: &[&str],
) -> Result<DesignMap, Box<dyn std::error::Error>> {
    let count: usize = links
        .iter()
        .map(|name| {
            model.link_index(name).map(|l| {
                model.links()[l]
                    .hulls
                    .iter()
                    .map(|h| h.vertices().len())
                    .sum::<usize>()
            })
        })
        .sum::<Result<usize, _>>()?;
    let mut design = DesignMap::new(model, 3 * count);
    let mut parameter = 0;
    for name in links {
        let link = &model.links()[model.link_index(name)?];
        for (h, hull) in link.hulls.iter().enumerate() {
            for v in 0..hull.vertices().len() {
                for axis in 0..3 {
                    let mut direction = Vector3::zeros();
                    direction[axis] = 1.0;
                    design.hull_vertices(model, name, h, &[v], &direction, parameter)?;
                    parameter += 1;
                }
            }
        }
    }
    Ok(design)
}

/// The box of a vertex design: every coordinate within ±`reach` m of where it starts.
pub fn vertex_block(parameters: usize, reach: f64, radius: f64) -> Block {
    Block {
        lower: DVector::from_element(parameters, -reach),
        upper: DVector::from_element(parameters, reach),
        radius,
        max_radius: radius,
    }
}

/// The centre of mass of the links `links` in state `state`: `Σ h_l / Σ m_l` with the world
/// first moments `h_l = R_l s_l + m_l t_l` of the links' local first moments `s_l`.
pub fn centre_of_mass(model: &Model, links: &[usize], state: &State) -> Point3<f64> {
    let kin = Kinematics::new(model, state);
    let mut total = 0.0;
    let mut sum = Vector3::zeros();
    for &l in links {
        let m = model.mass(l);
        let first = model.second_moment(l).fixed_view::<3, 1>(0, 3).into_owned();
        let pose = kin.poses()[l];
        sum += pose.rotation * first + pose.translation.vector * m;
        total += m;
    }
    Point3::from(sum / total)
}

/// How far the centre of mass of `links` moved along `direction` (a unit vector) over the
/// trajectory, at every state.
pub fn travel(
    model: &Model,
    links: &[usize],
    states: &[State],
    direction: &Vector3<f64>,
) -> Vec<f64> {
    let start = centre_of_mass(model, links, &states[0]);
    states
        .iter()
        .map(|s| (centre_of_mass(model, links, s) - start).dot(direction))
        .collect()
}

/// The smallest gap (m) between hulls of different, non-adjacent links within 5 cm of each
/// other, over the states: positive means every state was collision-free (GJK distances,
/// independent of the contact model; touching or overlapping hulls count as 0).
pub fn smallest_gap(model: &Model, states: &[State]) -> f64 {
    states
        .iter()
        .map(|state| crate::robots::min_distance(model, &Kinematics::new(model, state), true))
        .fold(f64::INFINITY, f64::min)
}

/// The same links with every vertex-lumped mass (SDRS eq. 4, [`MassModel::Lumped`]) spread
/// evenly through the solid instead ([`MassModel::Solid`] of the density that keeps each
/// link's mass): the two mass distributions of the ablation in SDRS sec. V-I (Fig. 21).
pub fn evenly_distributed(links: Vec<Link>) -> Result<Vec<Link>, Box<dyn std::error::Error>> {
    links
        .into_iter()
        .map(|mut link| {
            if let MassModel::Lumped { mass } = link.mass {
                let volume: f64 = link.hulls.iter().map(ConvexHull::volume).sum();
                if volume <= 0.0 {
                    return Err(
                        format!("link {} has no volume to spread its mass", link.name).into(),
                    );
                }
                link.mass = MassModel::Solid {
                    density: mass / volume,
                };
            }
            Ok(link)
        })
        .collect()
}

/// How far the link `root` has tipped (rad: the angle between its z axis and that axis in
/// `states[0]`, so turning about the vertical is no tip) and how far it has sunk (m, positive
/// down) below its height in `states[0]`, at every state.
pub fn tilt_and_drop(model: &Model, root: usize, states: &[State]) -> Vec<(f64, f64)> {
    let Some(first) = states.first() else {
        return Vec::new();
    };
    let start = Kinematics::new(model, first).poses()[root];
    states
        .iter()
        .map(|state| {
            let pose = Kinematics::new(model, state).poses()[root];
            (
                (start.rotation * Vector3::z()).angle(&(pose.rotation * Vector3::z())),
                start.translation.vector.z - pose.translation.vector.z,
            )
        })
        .collect()
}

/// The first state (index into `states`) at which the link `root` has tipped more than
/// `tilt` rad from its orientation in `states[0]` or sunk more than `drop` m below its height
/// there ([`tilt_and_drop`]): the robot fell. `None` if it never did.
pub fn first_fall(
    model: &Model,
    root: usize,
    states: &[State],
    tilt: f64,
    drop: f64,
) -> Option<usize> {
    tilt_and_drop(model, root, states)
        .iter()
        .position(|&(a, d)| a > tilt || d > drop)
}

/// A walker's loss: the paper's `|COM(θ^H) − goal|²` ([`CentreOfMass`] of the robot), plus,
/// once [`Walker::upright`] sets a weight `w > 0`, the level-root term
/// `w · (1/H Σ_{t=1…H} e(θ^t) + e(θ^H))`, `e(θ) = 1/K Σ_k (z_k(θ) − z_k(θ^0))²` over the
/// root's K hull vertices: the mean squared height change of the root's corners, over the
/// steps and at the end. It is zero for a root that stays level at its starting height
/// whatever it does horizontally (it penalises tipping and sinking, a fall, and nothing
/// else); the final-state part makes a fall in the last steps as costly as one at the start.
/// Once [`Walker::progress`] sets a weight `v > 0`, also the progress term
/// `v · 1/H Σ_{t=1…H} |COM(θ^t) − goal|²`: the paper's term at every step, averaged, which
/// rewards getting ahead early and staying ahead rather than only where the last state is.
///
/// [`Walker::as_written`] negates the paper's term (and the progress term): the paper writes
/// its locomotion losses as `R(θ^H) = −|COM(θ^H) − goal|²`, which, minimised, drives the
/// centre of mass *away* from the goal (see [`Walker::as_written`]).
#[derive(Debug, Clone)]
pub struct WalkLoss {
    /// The paper's term, `|COM(θ^H) − goal|²` (unsigned: [`Walker::paper_loss`] applies the
    /// sign of [`Walker::as_written`]).
    pub paper: CentreOfMass,
    /// The paper's term's sign: 1 (towards the goal) or −1 (away from it, as written).
    sign: f64,
    /// The level-root terms with their weights: each corner every step and at the end.
    upright: Vec<(f64, PointTarget)>,
    /// The progress term with its weight per step (`v / H`).
    progress: Option<(f64, CentreOfMass)>,
}

impl Loss for WalkLoss {
    fn evaluate(
        &self,
        model: &Model,
        trajectory: &Trajectory,
    ) -> sdrs::diff::Result<(f64, LossGradient)> {
        // A weighted sum, as `sdrs::diff::Sum` adds its terms.
        let (v, g) = self.paper.evaluate(model, trajectory)?;
        let mut value = self.sign * v;
        let mut gradient = LossGradient::zeros(model, trajectory.steps());
        gradient.add_scaled(self.sign, &g)?;
        for (weight, corner) in &self.upright {
            let (v, g) = corner.evaluate(model, trajectory)?;
            value += weight * v;
            gradient.add_scaled(*weight, &g)?;
        }
        if let Some((weight, com)) = &self.progress {
            let (v, g) = com.evaluate(model, trajectory)?;
            value += self.sign * weight * v;
            gradient.add_scaled(self.sign * weight, &g)?;
        }
        Ok((value, gradient))
    }
}

/// A locomotion task: the objective (scene, sine-wave controller, foot design, loss on the
/// robot's centre of mass), the robot's links, the walking direction and the feet.
#[derive(Debug, Clone)]
pub struct Walker {
    /// The objective; its design map is empty (control only) until [`Walker::codesign`].
    pub objective: Objective<SineWaves, WalkLoss>,
    /// The robot's links (the ground is not one of them).
    pub robot: Vec<usize>,
    /// The root link (the floating base).
    pub root: usize,
    /// The walking direction (unit, world frame).
    pub direction: Vector3<f64>,
    /// The feet's link names.
    pub feet: Vec<String>,
    /// Actuated DoFs, in the controller's order.
    pub dofs: Vec<usize>,
    /// Sines per DoF.
    pub waves: usize,
    /// How far below its foot's lowest starting vertex (along the foot's z axis) a foot vertex
    /// may move, if that is less than the reach (`None`: the reach alone bounds it). A vertex
    /// moved below the contact's support distance at t = 0 starts pressed into the ground.
    pub floor: Option<f64>,
    /// The unit of the wave frequencies (3 ± 0.43, within [1.2, 7]) in rad/s: 1
    /// (rad/s, the default) or 2π ([`Walker::in_hertz`]).
    pub frequency_unit: f64,
}

/// How a walker's trajectory moves ([`Walker::gait`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Gait {
    /// `feet_down[k]`: the states with exactly `k` feet on the ground.
    pub feet_down: Vec<usize>,
    /// The centre of mass's highest speed along the walking direction between two states (m/s).
    pub top_speed: f64,
}

impl std::fmt::Display for Gait {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let states: usize = self.feet_down.iter().sum();
        let shares: Vec<String> = self
            .feet_down
            .iter()
            .enumerate()
            .map(|(k, &n)| format!("{k}: {:.0}%", 100.0 * n as f64 / states.max(1) as f64))
            .collect();
        write!(
            f,
            "feet down over the states {}; top speed {:.2} m/s",
            shares.join(", "),
            self.top_speed
        )
    }
}

/// One optimisation run: the loss after each iteration and where it ended.
#[derive(Debug, Clone)]
pub struct Run {
    /// The best loss after each iteration (the first entry is the start's).
    pub history: Vec<f64>,
    /// The controller's parameters at the end.
    pub controller: DVector<f64>,
    /// The design parameters at the end (empty for control only).
    pub design: DVector<f64>,
    /// The loss, gradients and trajectory at the end.
    pub end: sdrs::diff::Evaluation,
}

impl Walker {
    /// A control-only locomotion task on `world` (the model, settings and robot links of
    /// [`build_world`]) over `steps` steps: every DoF after the free joint of the link named
    /// `root` under PD `gains` (stiffness N·m/rad, damping N·m·s/rad) with `waves` sines each ([`SineWaves`]), scored by the
    /// robot's centre of mass against `goal` (the paper's loss, [`WalkLoss`]), walking along
    /// `direction`; the feet are the links whose names end in `_foot`.
    pub fn new(
        world: (Model, StepSettings, Vec<usize>),
        root: &str,
        gains: (f64, f64),
        goal: Vector3<f64>,
        direction: Vector3<f64>,
        steps: usize,
        waves: usize,
    ) -> Result<Self, Box<dyn std::error::Error>> {
        let (model, settings, robot) = world;
        let root = model.link_index(root)?;
        let dofs: Vec<usize> =
            (model.dof_offset(root) + model.links()[root].joint.dof()..model.dof()).collect();
        let mut base = Control::passive(&model);
        for &j in &dofs {
            base.kp[j] = gains.0;
            base.kd[j] = gains.1;
        }
        let names: Vec<&str> = robot
            .iter()
            .map(|&l| model.links()[l].name.as_str())
            .collect();
        let loss = WalkLoss {
            paper: CentreOfMass::links(&model, &names, goal)?,
            sign: 1.0,
            upright: Vec::new(),
            progress: None,
        };
        let feet = names
            .iter()
            .filter(|n| n.ends_with("_foot"))
            .map(|n| n.to_string())
            .collect();
        Ok(Self {
            objective: Objective::control_only(
                model,
                settings,
                SineWaves::new(base, dofs.clone(), waves)?,
                loss,
                steps,
            ),
            robot,
            root,
            direction,
            feet,
            dofs,
            waves,
            floor: None,
            frequency_unit: 1.0,
        })
    }

    /// The smallest gap between hulls that may touch over `run`'s last trajectory, on the
    /// robot of its design (m; positive: collision-free, [`smallest_gap`]).
    pub fn clearance(&self, run: &Run) -> Result<f64, Box<dyn std::error::Error>> {
        let model = self
            .objective
            .design
            .model(&self.objective.model, &run.design)?;
        Ok(smallest_gap(&model, &run.end.trajectory.states))
    }

    /// How `run`'s last trajectory moves ([`Gait`]): how many feet are down at each state and
    /// how fast the centre of mass goes along [`Walker::direction`], on the robot of its
    /// design. A foot is down when one of its vertices is within the contact's support
    /// distance of the top face of the link `ground` (as [`build_world`] builds it).
    pub fn gait(&self, run: &Run) -> Result<Gait, Box<dyn std::error::Error>> {
        let model = self
            .objective
            .design
            .model(&self.objective.model, &run.design)?;
        let support = self
            .objective
            .settings
            .contact
            .as_ref()
            .map_or(0.0, |c| c.support_distance());
        let (ground, top) = ground_top(&model)?;
        let feet = self
            .feet
            .iter()
            .map(|name| model.link_index(name))
            .collect::<Result<Vec<_>, _>>()?;
        let states = &run.end.trajectory.states;
        let mut feet_down = vec![0usize; feet.len() + 1];
        for state in states {
            let kinematics = Kinematics::new(&model, state);
            let to_ground = kinematics.poses()[ground].inverse();
            let down = feet
                .iter()
                .filter(|&&foot| {
                    let pose = to_ground * kinematics.poses()[foot];
                    model.links()[foot]
                        .hulls
                        .iter()
                        .any(|h| h.vertices().iter().any(|v| (pose * v).z - top < support))
                })
                .count();
            feet_down[down] += 1;
        }
        let travel = travel(&model, &self.robot, states, &self.direction);
        let dt = self.objective.settings.dt;
        let top_speed = travel
            .windows(2)
            .map(|w| (w[1] - w[0]).abs() / dt)
            .fold(0.0, f64::max);
        Ok(Gait {
            feet_down,
            top_speed,
        })
    }

    /// The same task with the feet's vertices as the design ([`vertex_design`]).
    pub fn codesign(mut self) -> Result<Self, Box<dyn std::error::Error>> {
        let feet: Vec<&str> = self.feet.iter().map(String::as_str).collect();
        self.objective.design = vertex_design(&self.objective.model, &feet)?;
        self.objective.settings.design_derivatives = true;
        Ok(self)
    }

    /// The same task with the level-root term of weight `weight` per unit of mean squared
    /// corner height change ([`WalkLoss`]; 0 removes it).
    pub fn upright(mut self, weight: f64) -> Result<Self, Box<dyn std::error::Error>> {
        if !(weight.is_finite() && weight >= 0.0) {
            return Err(format!("upright weight {weight}: must be finite and non-negative").into());
        }
        let objective = &mut self.objective;
        let model = &objective.model;
        let link = &model.links()[self.root];
        let pose = Kinematics::new(model, &objective.start).poses()[self.root];
        let count: usize = link.hulls.iter().map(|h| h.vertices().len()).sum();
        let mut upright = Vec::new();
        if weight > 0.0 {
            let per_corner = weight / count as f64;
            for v in link.hulls.iter().flat_map(|h| h.vertices()) {
                let height = Vector3::new(0.0, 0.0, (pose * v).z);
                let corner =
                    PointTarget::new(model, &link.name, *v, height)?.weighted(Vector3::z())?;
                upright.push((
                    per_corner / objective.steps as f64,
                    corner.clone().every_step(),
                ));
                upright.push((per_corner, corner));
            }
        }
        objective.loss.upright = upright;
        Ok(self)
    }

    /// The same task with the paper's loss as it is written, `R(θ^H) = −|COM(θ^H) − goal|²`
    /// (SDRS sec. V-C and V-D), minimised: the centre of mass is driven *away* from the goal.
    /// The paper's own distances support this reading: the spider's moving distance is
    /// −4.890 ± 0.097 m (sec. V-I) and −5.063 m (Fig. 21), the biped's −7.666 m, against
    /// goals 10 m up the slope and 3 m along y. By default (this not called) the loss is
    /// `+|COM(θ^H) − goal|²`, the reading of "reach a target position".
    pub fn as_written(mut self) -> Self {
        self.objective.loss.sign = -1.0;
        self
    }

    /// The same task with the progress term of weight `weight` ([`WalkLoss`]: the paper's term
    /// at every step, averaged over the horizon; 0 removes it).
    pub fn progress(mut self, weight: f64) -> Result<Self, Box<dyn std::error::Error>> {
        if !(weight.is_finite() && weight >= 0.0) {
            return Err(
                format!("progress weight {weight}: must be finite and non-negative").into(),
            );
        }
        let steps = self.objective.steps as f64;
        let loss = &mut self.objective.loss;
        loss.progress = (weight > 0.0).then(|| (weight / steps, loss.paper.clone().every_step()));
        Ok(self)
    }

    /// The paper's loss of a trajectory of the robot built from design parameters `p`:
    /// `|COM(θ^H) − goal|²`, or `−|COM(θ^H) − goal|²` after [`Walker::as_written`] (without
    /// the level-root and progress terms).
    pub fn paper_loss(
        &self,
        p: &DVector<f64>,
        trajectory: &Trajectory,
    ) -> Result<f64, Box<dyn std::error::Error>> {
        let model = self.objective.design.model(&self.objective.model, p)?;
        let loss = &self.objective.loss;
        Ok(loss.sign * loss.paper.evaluate(&model, trajectory)?.0)
    }

    /// Raises the lower bounds `lower` of the foot vertices' z coordinates (the layout of
    /// [`vertex_design`]) so that no vertex can move more than `floor` below its foot's lowest
    /// starting vertex (z in the foot's frame).
    fn floor_bounds(
        &self,
        floor: f64,
        lower: &mut DVector<f64>,
    ) -> Result<(), Box<dyn std::error::Error>> {
        let model = &self.objective.model;
        let mut parameter = 0;
        for foot in &self.feet {
            let hulls = &model.links()[model.link_index(foot)?].hulls;
            let vertices = || hulls.iter().flat_map(|h| h.vertices());
            let lowest = vertices().map(|v| v.z).fold(f64::INFINITY, f64::min);
            for v in vertices() {
                let z = &mut lower[parameter + 2];
                *z = z.max(lowest - floor - v.z);
                parameter += 3;
            }
        }
        if parameter != lower.len() {
            return Err(format!(
                "the feet have {} vertex coordinates, the design {}",
                parameter,
                lower.len()
            )
            .into());
        }
        Ok(())
    }

    /// The controller's starting parameters ([`initial_waves`], frequencies in
    /// [`Walker::frequency_unit`]).
    pub fn initial(&self) -> DVector<f64> {
        self.initial_drawn(0)
    }

    /// [`Walker::initial`] from draw `draw` of the starting distributions
    /// ([`initial_waves_drawn`]; 0 is [`Walker::initial`]).
    pub fn initial_drawn(&self, draw: usize) -> DVector<f64> {
        let mut c = initial_waves_drawn(self.dofs.len(), self.waves, draw);
        for k in (1..c.len()).step_by(3) {
            c[k] *= self.frequency_unit;
        }
        c
    }

    /// The task with the wave frequencies read as Hz (`sin(2π f t + φ)`) instead of
    /// rad/s: starting frequencies and bounds 2π times higher.
    pub fn in_hertz(self) -> Self {
        Self {
            frequency_unit: 2.0 * PI,
            ..self
        }
    }

    /// How far the robot's centre of mass moved along [`Walker::direction`] at every state
    /// of `trajectory`, for the robot built from design parameters `p`.
    pub fn travel(
        &self,
        p: &DVector<f64>,
        trajectory: &Trajectory,
    ) -> Result<Vec<f64>, Box<dyn std::error::Error>> {
        let model = self.objective.design.model(&self.objective.model, p)?;
        Ok(travel(
            &model,
            &self.robot,
            &trajectory.states,
            &self.direction,
        ))
    }

    /// The forward rollout (no derivatives) under controller `c` with the base design: how far
    /// the centre of mass moved along [`Walker::direction`] at every state.
    pub fn rollout_travel(&self, c: &DVector<f64>) -> Result<Vec<f64>, Box<dyn std::error::Error>> {
        let objective = &self.objective;
        let mut settings = objective.settings.clone();
        settings.backward = false;
        let mut sim = Simulator::new(objective.model.clone(), settings)?;
        let start = Motion::at_rest(&objective.model, objective.start.clone());
        let trajectory = rollout_policy(
            &mut sim,
            &start,
            &objective.policy,
            c,
            objective.steps,
            Recording::States,
        )?;
        self.travel(&DVector::zeros(0), &trajectory)
    }

    /// Minimises the loss from `c` and design `p` (`None`: the base design) for `iterations`
    /// iterations of SDRS eq. 15 with step lengths `control` and `design` (the paper's ᾱ_c,
    /// ᾱ_d; a control length of 0 holds the controller at `c`) under `rule` (the paper takes
    /// every step, [`StepRule::Fixed`]), wave amplitudes
    /// within ±`amplitude` rad and vertices within ±`reach` m (and above the [`Walker::floor`]);
    /// `progress` sees every iteration.
    #[allow(clippy::too_many_arguments)]
    pub fn optimise(
        &self,
        c: DVector<f64>,
        p: Option<DVector<f64>>,
        iterations: usize,
        amplitude: f64,
        control: f64,
        design: f64,
        reach: f64,
        rule: StepRule,
        progress: impl FnMut(&Progress),
    ) -> Result<Run, Box<dyn std::error::Error>> {
        let m = self.objective.design.parameters();
        let held = control == 0.0;
        let radius = if held { 1.0 } else { control };
        let mut waves = wave_block(
            self.dofs.len(),
            self.waves,
            amplitude,
            radius,
            self.frequency_unit,
        );
        if held {
            // A box of the one point `c`: any step length projects onto it.
            waves.lower = c.clone();
            waves.upper = c.clone();
        }
        let mut blocks = vec![waves];
        let mut start = vec![c];
        if m > 0 {
            let mut block = vertex_block(m, reach, design);
            if let Some(floor) = self.floor {
                self.floor_bounds(floor, &mut block.lower)?;
            }
            blocks.push(block);
            start.push(p.unwrap_or_else(|| DVector::zeros(m)));
        }
        let objective = |x: &[DVector<f64>]| -> Result<_, Box<dyn std::error::Error>> {
            let p = x.get(1).cloned().unwrap_or_else(|| DVector::zeros(0));
            let e = self.objective.evaluate(&x[0], &p)?;
            let mut gradient = vec![e.parameters.clone()];
            if m > 0 {
                gradient.push(
                    e.design
                        .clone()
                        .ok_or("the steps gave no design gradient")?,
                );
            }
            Ok((e.loss, gradient, e))
        };
        let best = minimise_with(start, blocks, objective, iterations, rule, progress)?;
        Ok(Run {
            history: best.history,
            controller: best.parameters[0].clone(),
            design: best
                .parameters
                .get(1)
                .cloned()
                .unwrap_or_else(|| DVector::zeros(0)),
            end: best.data,
        })
    }
}

impl Walker {
    /// [`Walker::optimise`] under a progress bar labelled `label` (the loss, gradient norm
    /// and step length of every iteration), with step lengths `radii` = (ᾱ_c, ᾱ_d), and the
    /// wall time it took (s).
    #[allow(clippy::too_many_arguments)]
    pub fn optimise_timed(
        &self,
        c: DVector<f64>,
        p: Option<DVector<f64>>,
        iterations: usize,
        amplitude: f64,
        radii: (f64, f64),
        reach: f64,
        rule: StepRule,
        label: &str,
    ) -> Result<(Run, f64), Box<dyn std::error::Error>> {
        let clock = std::time::Instant::now();
        let bar =
            sdrs_report::Progress::new(label, iterations as u64, sdrs_report::ProgressMode::auto());
        let run = self.optimise(
            c,
            p,
            iterations,
            amplitude,
            radii.0,
            radii.1,
            reach,
            rule,
            |p: &Progress| bar.tick_noting(p, p.failure_note()),
        )?;
        bar.finish();
        Ok((run, clock.elapsed().as_secs_f64()))
    }
}

/// Builds a walker's world: a fixed 40 m x 40 m slab whose top face passes through the
/// origin, tilted by `slope` (rad) about −y so that +x climbs, and the robot `links` (root
/// first, a free joint) standing on it with its lowest vertex `clearance` beyond the contact's
/// support distance above the slab; then everything is shifted so that the robot's centre of
/// mass starts at the origin. Contact `contact` (`None`: the default SDRS contact of
/// [`World`]), with friction `mu` unless it has friction of its own.
///
/// Nothing may start pressed: a vertex inside the barrier's support at t = 0 feels its full
/// force in the first step's lagged friction frame (a foot 0.5 mm above the slab, inside the
/// 0.6 mm support, carried 65 kN of normal force there and glued the feet), which also made
/// the design gradient of the lowest foot vertices disagree with finite differences.
pub fn build_world(
    links: Vec<Link>,
    slope: f64,
    clearance: f64,
    mu: f64,
    dt: f64,
    contact: Option<ContactSettings>,
) -> Result<(Model, StepSettings, Vec<usize>), Box<dyn std::error::Error>> {
    let turn = Isometry3::from_parts(
        Translation3::identity(),
        UnitQuaternion::from_scaled_axis(Vector3::y() * -slope),
    );
    let lowest = links
        .iter()
        .scan(Vec::<Isometry3<f64>>::new(), |frames, link| {
            let frame = match link.parent {
                Some(p) => frames[p] * link.attachment,
                None => link.attachment,
            };
            frames.push(frame);
            Some(
                link.hulls
                    .iter()
                    .flat_map(|h| h.vertices().iter().map(move |v| (frame * v).z))
                    .fold(f64::INFINITY, f64::min),
            )
        })
        .fold(f64::INFINITY, f64::min);
    // The support distance `build` chooses by default depends only on the links, not on where
    // they are.
    let support = match &contact {
        Some(c) => c.support_distance(),
        None => {
            let mut world = World::new(dt)?;
            world.add_robot(links.clone(), Isometry3::identity());
            let (_, sim) = world.build()?;
            sim.settings()
                .contact
                .as_ref()
                .map_or(0.0, |c| c.support_distance())
        }
    };
    let gap = support + clearance;
    let build = |shift: Vector3<f64>| -> Result<(Model, StepSettings), Box<dyn std::error::Error>> {
        let mut world = World::new(dt)?;
        if let Some(c) = &contact {
            world.set_contact(Some(c.clone()));
        }
        let mut world = match &contact {
            Some(c) if c.friction.is_some() => world,
            _ => world.with_friction(mu)?,
        };
        let shift = Isometry3::translation(shift.x, shift.y, shift.z);
        let slab = Link::new(
            "ground",
            None,
            Isometry3::translation(0.0, 0.0, -0.5),
            JointKind::Fixed,
            vec![ConvexHull::cuboid(Vector3::new(20.0, 20.0, 0.5))?],
            MassModel::Lumped { mass: 1.0 },
        );
        world.add_robot(vec![slab], shift * turn);
        world.add_robot(
            links.clone(),
            shift * turn * Isometry3::translation(0.0, 0.0, gap - lowest),
        );
        world.settings_mut().backward = true;
        let (model, sim) = world.build()?;
        Ok((model, sim.settings().clone()))
    };
    let (model, _) = build(Vector3::zeros())?;
    let robot: Vec<usize> = (1..model.links().len()).collect();
    let com = centre_of_mass(&model, &robot, &State::zero(&model));
    let (model, mut settings) = build(-com.coords)?;
    settings.design_derivatives = false;
    Ok((model, settings, robot))
}

/// The ground link of [`build_world`] (named `ground`) and the height of its top face in its
/// own frame.
fn ground_top(model: &Model) -> Result<(usize, f64), Box<dyn std::error::Error>> {
    let ground = model.link_index("ground")?;
    let top = model.links()[ground]
        .hulls
        .iter()
        .flat_map(|h| h.vertices().iter().map(|v| v.z))
        .fold(f64::NEG_INFINITY, f64::max);
    Ok((ground, top))
}

impl Walker {
    /// Writes the walker built from design parameters `p` as URDF with OBJ meshes
    /// ([`export_urdf`]) into `folder`, and beside it `replay.json`: what a replay in another
    /// simulator needs (time step, steps, gravity, friction, the slope as a plane through a
    /// point, the robot's links and its root (the floating base), the PD gains, and per
    /// actuated joint its sine waves `(a, ω, φ)` of
    /// [`SineWaves`] under controller `c`, targets taken at the end of each step) and the
    /// distance sdrs walked, `travel`. `benches/reference/mujoco_replay.py` reads it.
    pub fn export(
        &self,
        c: &DVector<f64>,
        p: &DVector<f64>,
        travel: f64,
        folder: &std::path::Path,
    ) -> Result<std::path::PathBuf, Box<dyn std::error::Error>> {
        let model = self.objective.design.model(&self.objective.model, p)?;
        // The whole robot: from the root's topmost ancestor (a base of joint frames above it).
        let mut topmost = self.root;
        while let Some(parent) = model.links()[topmost].parent {
            topmost = parent;
        }
        let (ground, top) = ground_top(&model)?;
        let slab = model.links()[ground].attachment;
        let surface = slab * Point3::new(0.0, 0.0, top);
        let normal = slab.rotation * Vector3::z();
        let base = &self.objective.policy;
        let control = base.control(
            &DVector::zeros(c.len()),
            &PolicyInput {
                step: 0,
                time: 0.0,
                current: &self.objective.start,
                previous: None,
            },
        );
        let joints: Vec<serde_json::Value> = self
            .dofs
            .iter()
            .enumerate()
            .map(|(a, &j)| -> Result<serde_json::Value, String> {
                let link = (0..model.links().len())
                    .find(|&l| model.dof_offset(l) == j && model.links()[l].joint.dof() == 1)
                    .ok_or_else(|| {
                        format!(
                            "replay export: actuated DoF {j} is not a one-DoF joint's; the replay \
                             drives hinges and sliders only"
                        )
                    })?;
                let waves: Vec<[f64; 3]> = (0..self.waves)
                    .map(|w| {
                        let at = 3 * (a * self.waves + w);
                        [c[at], c[at + 1], c[at + 2]]
                    })
                    .collect();
                Ok(serde_json::json!({
                    "joint": model.links()[link].joint_label(),
                    "kp": control.kp[j],
                    "kd": control.kd[j],
                    "base_target": control.position[j],
                    "waves": waves,
                }))
            })
            .collect::<Result<_, _>>()?;
        let export = export_urdf(&model, &model.links()[topmost].name, folder, "walker")?;
        let settings = &self.objective.settings;
        let spec = serde_json::json!({
            "urdf": export.urdf.file_name().map(|f| f.to_string_lossy().into_owned()),
            "dt": settings.dt,
            "steps": self.objective.steps,
            "gravity": settings.gravity,
            "mu": settings.contact.as_ref().and_then(|c| c.friction.as_ref()).map(|f| f.mu),
            "ground": { "point": [surface.x, surface.y, surface.z], "normal": [normal.x, normal.y, normal.z] },
            "direction": [self.direction.x, self.direction.y, self.direction.z],
            "links": self.robot.iter().map(|&l| model.links()[l].name.clone()).collect::<Vec<_>>(),
            "root": model.links()[self.root].name,
            "joints": joints,
            "sdrs_travel_m": travel,
        });
        let path = folder.join("replay.json");
        std::fs::write(&path, serde_json::to_string_pretty(&spec)?)?;
        Ok(path)
    }
}

/// Writes a locomotion benchmark's two runs into `out`: their convergence overlaid
/// (`convergence.{csv,svg,png}`, titled `"{name}: convergence ({figure})"`) and each run's
/// last trajectory as an animation (`control_only`, `codesign`, titled `"{name} ({section}): …"`)
/// with the robot of its design and its loss history, `dt` s per frame. Returns the files.
pub fn write_results(
    (name, section, figure): (&str, &str, &str),
    dt: f64,
    control: (&Walker, &Run),
    codesign: (&Walker, &Run),
    out: &std::path::Path,
) -> Result<Vec<std::path::PathBuf>, Box<dyn std::error::Error>> {
    let mut written = sdrs_report::LinePlot::new(&format!("{name}: convergence ({figure})"))
        .x_label("iteration")
        .y_label("loss (m²)")
        .history("control only", &control.1.history)
        .history("co-design", &codesign.1.history)
        .write_all(out, "convergence")?;
    for (stem, label, (walker, run)) in [
        ("control_only", "control only", control),
        ("codesign", "co-design", codesign),
    ] {
        let model = walker
            .objective
            .design
            .model(&walker.objective.model, &run.design)?;
        let states = &run.end.trajectory.states;
        let animation = sdrs_view::glb::Animation::from_states(&model, dt, states)?;
        let plots = sdrs_view::Plots {
            loss: sdrs_report::indexed(&run.history),
            step_ms: Vec::new(),
        };
        let title = format!("{name} ({section}): {label}");
        written.extend(sdrs_view::write_run(&animation, &title, &plots, out, stem)?);
    }
    Ok(written)
}
