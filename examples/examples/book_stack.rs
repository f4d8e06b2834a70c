//! The book-stacking experiment of the SDRS paper (sec. V-J, Fig. 24): 20 planks
//! (2.0 x 0.4 x 0.2 m, 0.16 kg each) stacked on the ground, the k-th from the top
//! overhanging the one below it by the harmonic maximum `L / (2k)` plus `OFFSET · L`
//! (`OFFSET = −0.001`: 0.1% inward, the paper's setting, which must stand; `+0.01`: 1% beyond
//! the maximum, which must fall), simulated with the `World` defaults and plane friction.
//!
//! ```text
//! cargo run --release -p sdrs-examples --example book_stack -- \
//!     [DURATION_S=60] [OFFSET=-0.001] [--expect stand|fall] [--mu MU=0.5] [--contact S:KAPPA:EPS_V]
//!     [--trace]
//! ```
//!
//! `--mu 0` turns friction off; `--trace` prints every plank's x/z displacement and pitch every
//! 0.05 s. Each plank starts at the resting gap the barrier's force balance predicts for the
//! weight it carries (spread over four vertices).
//!
//! Prints whether the stack stood (at the end no plank's centre is more than 1 cm from where
//! it started, and none was ever 5 cm away), fell (a plank's centre moved more than 5 cm; the
//! run stops there) or neither, the top plank's drift, the
//! wall time per step and the Newton iterations per step. With `--expect`, exits with status 1
//! when the verdict differs. `--contact` overrides the barrier support `s` (m), the stiffness
//! `κ` (N·m²) and the friction smoothing `ε_v` (m²/s²), e.g. `--contact 0.01:1:1e-6` for the
//! authors' settings.

use sdrs::dynamics::ContactKind;
use sdrs::prelude::*;
use std::error::Error;
use std::time::{Duration, Instant};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const DT: f64 = 0.01;
const PLANKS: usize = 20;
const LENGTH: f64 = 2.0;
const WIDTH: f64 = 0.4;
const HEIGHT: f64 = 0.2;
const MASS: f64 = 0.16;
/// A plank whose centre moved less than this stood.
const STOOD: f64 = 0.01;
/// A plank whose centre moved more than this fell.
const FELL: f64 = 0.05;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Verdict {
    Stood,
    Fell,
    Undecided,
}

struct Options {
    duration: f64,
    offset: f64,
    expect: Option<Verdict>,
    mu: f64,
    contact: Option<(f64, f64, f64)>,
    trace: bool,
}

fn parse() -> Result<Options> {
    let mut options = Options {
        duration: 60.0,
        offset: -0.001,
        expect: None,
        mu: 0.5,
        contact: None,
        trace: false,
    };
    let mut positional = 0;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--expect" => {
                options.expect = Some(match value()?.as_str() {
                    "stand" => Verdict::Stood,
                    "fall" => Verdict::Fell,
                    other => return Err(format!("--expect stand|fall, not {other}").into()),
                })
            }
            "--trace" => options.trace = true,
            "--mu" => options.mu = value()?.parse()?,
            "--contact" => {
                let parts: Vec<f64> = value()?
                    .split(':')
                    .map(str::parse)
                    .collect::<std::result::Result<_, _>>()?;
                let [s, k, e] = parts[..] else {
                    return Err("--contact S:KAPPA:EPS_V".into());
                };
                options.contact = Some((s, k, e));
            }
            _ => {
                match positional {
                    0 => options.duration = arg.parse()?,
                    1 => options.offset = arg.parse()?,
                    _ => return Err(format!("unexpected argument {arg}").into()),
                }
                positional += 1;
            }
        }
    }
    Ok(options)
}

/// The resting gap of the barrier (support `s`, stiffness `κ`) under a load `weight` spread
/// over four vertices on each side: `κ |P_s'(x)| = weight / 4` with `x = y s` the distance of
/// each vertex to the plane midway, solved for `y` by bisection, and the gap is `2x / (1 − s)`.
fn resting_gap(weight: f64, support: f64, stiffness: f64) -> f64 {
    let unit_force = |y: f64| (1.0 - y).powi(3) * (5.0 - y) / y.powi(6);
    let target = 0.25 * weight * support * support / stiffness;
    let (mut lo, mut hi) = (1e-9, 1.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if unit_force(mid) > target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) * support / (1.0 - support)
}

/// Centres of the planks, bottom first: the k-th from the top overhangs the one below by
/// `L / (2k) + offset · L`; each plank starts at the resting gap (`gap(planks it carries,
/// itself included)`) above the one below, the bottom plank above the ground.
fn centres(offset: f64, gap: impl Fn(usize) -> f64) -> Vec<Vector3<f64>> {
    let (mut x, mut bottom) = (0.0, 0.0);
    (0..PLANKS)
        .map(|i| {
            if i > 0 {
                let k = (PLANKS - i) as f64;
                x += LENGTH / (2.0 * k) + offset * LENGTH;
            }
            bottom += gap(PLANKS - i);
            let centre = Vector3::new(x, 0.0, bottom + 0.5 * HEIGHT);
            bottom += HEIGHT;
            centre
        })
        .collect()
}

fn main() -> Result<()> {
    let options = parse()?;
    let mut world = World::new(DT)?.with_ground();
    if options.mu > 0.0 {
        world = world.with_friction(options.mu)?;
    }
    if let Some((s, k, e)) = options.contact {
        let contact = world.settings_mut().contact.as_mut().ok_or("no contact")?;
        contact.kind = ContactKind::Hulls(PlaneBarrier::new(s)?);
        contact.stiffness = k;
        if let Some(f) = contact.friction.take() {
            contact.friction = Some(f.with_velocity_epsilon(e)?);
        }
    }
    let contact = world.settings_mut().contact.clone().ok_or("no contact")?;
    let support = contact.barrier().ok_or("no hull contact")?.support();
    println!(
        "book stack: {PLANKS} planks {LENGTH} x {WIDTH} x {HEIGHT} m, {MASS} kg, overhang \
         L/(2k) {:+.3}% L, μ = {}, s = {support:e} m, κ = {:e} N·m², {} s at Δt = {DT} s",
        100.0 * options.offset,
        options.mu,
        contact.stiffness,
        options.duration
    );
    let start = centres(options.offset, |carried| {
        resting_gap(carried as f64 * MASS * 9.81, support, contact.stiffness)
    });
    let plank = ConvexHull::cuboid(Vector3::new(0.5 * LENGTH, 0.5 * WIDTH, 0.5 * HEIGHT))?;
    for (i, c) in start.iter().enumerate() {
        world.add_object(
            &format!("plank{i}"),
            plank.clone(),
            MASS,
            Isometry3::translation(c.x, c.y, c.z),
        );
    }
    let (model, mut sim) = world.build()?;
    let first = 1; // link index of the bottom plank: the ground is link 0
    let mut motion = Motion::at_rest(&model, State::zero(&model));
    let control = Control::passive(&model);
    let steps = (options.duration / DT).round() as usize;
    let (mut iterations, mut max_iterations, mut time) = (0usize, 0usize, Duration::ZERO);
    let mut verdict = Verdict::Undecided;
    let mut fell_at = None;
    let mut top = Vec::with_capacity(steps);
    let mut moved = 0.0f64;
    let mut largest = 0.0f64;
    let mut taken = 0;
    for step in 0..steps {
        let clock = Instant::now();
        let report = sim.advance(&mut motion, &control)?;
        time += clock.elapsed();
        iterations += report.iterations;
        max_iterations = max_iterations.max(report.iterations);
        taken += 1;
        let poses = Kinematics::new(&model, &motion.state).poses().to_vec();
        let displacement = |i: usize| poses[first + i].translation.vector - start[i];
        moved = (0..PLANKS)
            .map(|i| displacement(i).norm())
            .fold(0.0, f64::max);
        largest = largest.max(moved);
        top.push(displacement(PLANKS - 1));
        if options.trace && (step + 1) % 5 == 0 {
            let worst = (0..PLANKS)
                .max_by(|&a, &b| displacement(a).norm().total_cmp(&displacement(b).norm()))
                .unwrap_or(0);
            let d: Vec<String> = (0..PLANKS)
                .map(|i| {
                    let (_, pitch, _) = poses[first + i].rotation.euler_angles();
                    format!(
                        "{:+.2}/{:+.2}/{:+.1}",
                        displacement(i).x * 1e3,
                        displacement(i).z * 1e3,
                        pitch * 1e3
                    )
                })
                .collect();
            println!(
                "t {:.2} s: largest displacement {:.3} mm (plank {worst} from the bottom); x/z mm / pitch mrad: {}",
                (step + 1) as f64 * DT,
                moved * 1e3,
                d.join(" ")
            );
        }
        if moved > FELL {
            verdict = Verdict::Fell;
            fell_at = Some((step + 1) as f64 * DT);
            break;
        }
    }
    if verdict != Verdict::Fell && moved < STOOD {
        verdict = Verdict::Stood;
    }
    let last = *top.last().ok_or("no steps")?;
    let per_second = (1.0 / DT).round() as usize;
    let rate = if top.len() > per_second {
        let before = top[top.len() - 1 - per_second];
        ((last - before).xy()).norm()
    } else {
        f64::NAN
    };
    match fell_at {
        Some(t) => println!("verdict: FELL after {t:.2} s (a plank's centre moved > {FELL} m)"),
        None => println!(
            "verdict: {} after {:.1} s (largest plank displacement at the end {:.3} mm, during \
             the run {:.3} mm)",
            if verdict == Verdict::Stood {
                "STOOD"
            } else {
                "UNDECIDED"
            },
            taken as f64 * DT,
            moved * 1e3,
            largest * 1e3
        ),
    }
    println!(
        "top plank: drift ({:+.4}, {:+.4}, {:+.4}) mm, horizontal drift over the last second \
         {:.3e} m/s",
        last.x * 1e3,
        last.y * 1e3,
        last.z * 1e3,
        rate
    );
    println!(
        "{taken} steps: {:.3} ms/step, wall {:.2} s; Newton iterations mean {:.2}, max {}",
        time.as_secs_f64() * 1e3 / taken as f64,
        time.as_secs_f64(),
        iterations as f64 / taken as f64,
        max_iterations
    );
    if let Some(expected) = options.expect
        && expected != verdict
    {
        eprintln!("expected {expected:?}, got {verdict:?}");
        std::process::exit(1);
    }
    Ok(())
}
