//! A small sweep of contact settings on the scenes that decide `World`'s defaults: resting
//! boxes from 5 cm to 2 m (heavy: 1000 kg/m³; light: 1 kg/m³, the book-stack plank's
//! density) and a block held by friction on a 30° incline (μ = 0.8). For each candidate it
//! prints the resting gap (GJK distance to the ground after settling) next to the gap the
//! barrier's force balance predicts, the incline creep over 10 s and the Newton iterations
//! per step.
//!
//! ```text
//! cargo run --release -p sdrs-examples --example contact_defaults [CANDIDATE...]
//! ```
//!
//! A candidate is `world` (the `World` defaults as they are) or `S:KAPPA:EPS_V` (barrier
//! support in m, contact stiffness in N·m², friction velocity smoothing in m²/s²), e.g.
//! `0.01:1:1e-6` (the authors' settings). Without arguments, a built-in list is swept.
//!
//! **Force balance.** A box of mass `m` resting flat on the ground presses its four bottom
//! vertices with `F = m g / 4` each against the separating plane, which sits midway: with
//! `x = y s` the vertex-to-plane distance, `κ |P_s'(x)| = F`, i.e.
//! `(1 − y)³ (5 − y) / y⁶ = F s² / κ`, and the gap is `2x / |n| ≈ 2 y s / (1 − s)`.

use sdrs::dynamics::ContactKind;
use sdrs::geometry::gjk::distance;
use sdrs::prelude::*;
use std::error::Error;
use std::time::{Duration, Instant};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const DT: f64 = 0.01;
const G: f64 = 9.81;

/// Contact settings to try; `None` fields keep the `World` default.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    support: Option<f64>,
    stiffness: Option<f64>,
    velocity_epsilon: Option<f64>,
}

impl Candidate {
    fn world() -> Self {
        Self {
            support: None,
            stiffness: None,
            velocity_epsilon: None,
        }
    }

    fn parse(text: &str) -> Result<Self> {
        if text == "world" {
            return Ok(Self::world());
        }
        let parts: Vec<f64> = text
            .split(':')
            .map(str::parse)
            .collect::<std::result::Result<_, _>>()?;
        let [s, k, e] = parts[..] else {
            return Err(format!("a candidate is `world` or S:KAPPA:EPS_V, not {text}").into());
        };
        Ok(Self {
            support: Some(s),
            stiffness: Some(k),
            velocity_epsilon: Some(e),
        })
    }

    /// Overrides the world's contact settings where this candidate says so.
    fn apply(&self, world: &mut World) -> Result<()> {
        let contact = world
            .settings_mut()
            .contact
            .as_mut()
            .ok_or("the world has no contact")?;
        if let Some(s) = self.support {
            contact.kind = ContactKind::Hulls(PlaneBarrier::new(s)?);
        }
        if let Some(k) = self.stiffness {
            contact.stiffness = k;
        }
        if let Some(e) = self.velocity_epsilon {
            contact.friction = contact
                .friction
                .take()
                .map(|f| f.with_velocity_epsilon(e))
                .transpose()?;
        }
        Ok(())
    }

    fn label(&self) -> String {
        match (self.support, self.stiffness, self.velocity_epsilon) {
            (Some(s), Some(k), Some(e)) => format!("s = {s:e} m, κ = {k:e} N·m², ε_v = {e:e}"),
            _ => "World defaults".into(),
        }
    }
}

/// Newton iterations and wall time over many steps.
#[derive(Debug, Default, Clone, Copy)]
struct Stats {
    steps: usize,
    iterations: usize,
    max_iterations: usize,
    time: Duration,
}

impl Stats {
    fn add(&mut self, iterations: usize, time: Duration) {
        self.steps += 1;
        self.iterations += iterations;
        self.max_iterations = self.max_iterations.max(iterations);
        self.time += time;
    }

    fn merge(&mut self, other: &Stats) {
        self.steps += other.steps;
        self.iterations += other.iterations;
        self.max_iterations = self.max_iterations.max(other.max_iterations);
        self.time += other.time;
    }

    fn mean(&self) -> f64 {
        self.iterations as f64 / self.steps.max(1) as f64
    }
}

/// `(1 − y)³ (5 − y) / y⁶`: the barrier force `|P_s'(y s)|` in units of `1 / s²`.
fn unit_force(y: f64) -> f64 {
    (1.0 - y).powi(3) * (5.0 - y) / y.powi(6)
}

/// The resting `y = x / s` under a vertex load `force` (bisection; `unit_force` decreases).
fn resting_y(force: f64, support: f64, stiffness: f64) -> f64 {
    let target = force * support * support / stiffness;
    let (mut lo, mut hi) = (1e-9, 1.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if unit_force(mid) > target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Drops a cube of side `size` and `density` from `drop` m above the ground, lets it settle for
/// `seconds` and returns its GJK gap to the ground, its last vertical speed and the stats.
fn rest(
    candidate: &Candidate,
    size: f64,
    density: f64,
    drop: f64,
    seconds: f64,
) -> Result<(f64, f64, Stats)> {
    let mut world = World::new(DT)?.with_ground();
    candidate.apply(&mut world)?;
    let half = 0.5 * size;
    let cube = ConvexHull::cuboid(Vector3::repeat(half))?;
    let mass = density * size.powi(3);
    world.add_object(
        "box",
        cube,
        mass,
        Isometry3::translation(0.0, 0.0, half + drop),
    );
    let (model, mut sim) = world.build()?;
    let mut motion = Motion::at_rest(&model, State::zero(&model));
    let control = Control::passive(&model);
    let mut stats = Stats::default();
    let steps = (seconds / DT).round() as usize;
    let mut speed = 0.0;
    for _ in 0..steps {
        let z = motion.state.q[2];
        let clock = Instant::now();
        let report = sim.advance(&mut motion, &control)?;
        stats.add(report.iterations, clock.elapsed());
        speed = (motion.state.q[2] - z) / DT;
    }
    let poses = Kinematics::new(&model, &motion.state).poses().to_vec();
    let links = model.links();
    let gap = distance(&links[0].hulls[0], &poses[0], &links[1].hulls[0], &poses[1])
        .separation()
        .ok_or("the box penetrates the ground")?
        .distance;
    Ok((gap, speed, stats))
}

/// A 20 cm, 1 kg block on a fixed slope tilted by `tilt`, friction `mu`, starting `start_gap`
/// above it at rest: its displacement along the slope after `seconds`, and after the first
/// second (the creep once it has settled), with the stats.
fn incline(
    candidate: &Candidate,
    tilt: f64,
    mu: f64,
    start_gap: f64,
    seconds: f64,
) -> Result<(f64, f64, Stats)> {
    let mut world = World::new(DT)?.with_friction(mu)?;
    candidate.apply(&mut world)?;
    let turn = Isometry3::rotation(Vector3::y() * tilt);
    let slab = ConvexHull::cuboid(Vector3::new(20.0, 20.0, 0.5))?;
    world.add_robot(
        vec![Link::new(
            "slope",
            None,
            turn * Isometry3::translation(0.0, 0.0, -0.5),
            JointKind::Fixed,
            vec![slab],
            MassModel::Lumped { mass: 1.0 },
        )],
        Isometry3::identity(),
    );
    let cube = ConvexHull::cuboid(Vector3::repeat(0.1))?;
    world.add_object(
        "block",
        cube,
        1.0,
        turn * Isometry3::translation(0.0, 0.0, 0.1 + start_gap),
    );
    let (model, mut sim) = world.build()?;
    let mut motion = Motion::at_rest(&model, State::zero(&model));
    let control = Control::passive(&model);
    let normal = turn * Vector3::z();
    let position = |state: &State| Kinematics::new(&model, state).poses()[1].translation.vector;
    let along = |d: Vector3<f64>| (d - normal * normal.dot(&d)).norm();
    let start = position(&motion.state);
    let mut settled = start;
    let mut stats = Stats::default();
    let steps = (seconds / DT).round() as usize;
    for k in 0..steps {
        let clock = Instant::now();
        let report = sim.advance(&mut motion, &control)?;
        stats.add(report.iterations, clock.elapsed());
        if k + 1 == (1.0 / DT).round() as usize {
            settled = position(&motion.state);
        }
    }
    let end = position(&motion.state);
    Ok((along(end - start), along(end - settled), stats))
}

fn sweep(candidate: &Candidate) -> Result<()> {
    println!("\n== {}", candidate.label());
    // The defaults the candidate leaves open, for the force-balance prediction.
    let (s, k) = {
        let mut world = World::new(DT)?;
        candidate.apply(&mut world)?;
        let c = world.settings_mut().contact.clone().ok_or("no contact")?;
        (c.barrier().ok_or("no hull contact")?.support(), c.stiffness)
    };
    let mut total = Stats::default();
    println!(
        "{:>8} {:>8} {:>11} {:>11} {:>11} {:>11} {:>9} {:>6}",
        "size m", "kg/m³", "mass kg", "gap mm", "predict mm", "v_z m/s", "mean it", "max it"
    );
    for size in [0.05, 0.2, 2.0] {
        for density in [1000.0, 1.0] {
            let (gap, speed, stats) = rest(candidate, size, density, 2e-3, 2.0)?;
            let force = density * size.powi(3) * G / 4.0;
            let predicted = 2.0 * resting_y(force, s, k) * s / (1.0 - s);
            println!(
                "{size:>8} {density:>8} {:>11.4e} {:>11.4} {:>11.4} {speed:>11.1e} {:>9.2} {:>6}",
                density * size.powi(3),
                gap * 1e3,
                predicted * 1e3,
                stats.mean(),
                stats.max_iterations
            );
            total.merge(&stats);
        }
    }
    // The block starts at the gap the force balance predicts for its normal load.
    let tilt = 30f64.to_radians();
    let start = 2.0 * resting_y(G * tilt.cos() / 4.0, s, k) * s / (1.0 - s);
    let (creep, settled_creep, stats) = incline(candidate, tilt, 0.8, start, 10.0)?;
    println!(
        "incline 30°, μ 0.8, 10 s: moved {:.4} mm ({:.4} mm after the first second); \
         Newton mean {:.2}, max {}, {:.3} ms/step",
        creep * 1e3,
        settled_creep * 1e3,
        stats.mean(),
        stats.max_iterations,
        stats.time.as_secs_f64() * 1e3 / stats.steps as f64
    );
    total.merge(&stats);
    println!(
        "all runs: {} steps, Newton iterations mean {:.2}, max {}",
        total.steps,
        total.mean(),
        total.max_iterations
    );
    Ok(())
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let candidates: Vec<Candidate> = if args.is_empty() {
        [
            "0.01:1:1e-6",
            "1e-3:1:1e-6",
            "5e-4:7e-9:1e-10",
            "4e-4:4.4e-9:1e-10",
            "world",
        ]
        .iter()
        .map(|c| Candidate::parse(c))
        .collect::<Result<_>>()?
    } else {
        args.iter()
            .map(|c| Candidate::parse(c))
            .collect::<Result<_>>()?
    };
    for c in &candidates {
        sweep(c)?;
    }
    Ok(())
}
