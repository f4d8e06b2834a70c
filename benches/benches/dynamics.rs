//! Suite `dynamics`: per-step cost of the position-level Newton time step (SDRS eq. 14).
//!
//! - `chain_step`: serial chains of 2..64 revolute links, no contact (articulated dynamics
//!   alone: kinematics, inertia, dense Newton). The report gives the log-log slope over 8-64.
//! - `arm7_step`: a 7-DoF arm under stable PD, no contact.
//! - `robot_free_step`: robots of example-robot-data (UR5, Solo-12, ANYmal C, which imports as
//!   78 links for 18 DoF, most of them joined by fixed joints, and TALOS reduced) without
//!   contact, passive, from their neutral state; the report lists links, rigid bodies (links
//!   joined by fixed joints are one body, whose cost the step pays) and DoFs.
//! - `box_step`: a 20 cm, 1 kg box resting on the ground and a stack of 5 such boxes, SDRS hull
//!   contact with friction μ = 0.5 (MuJoCo's `mj_step` on the same scenes:
//!   `benches/reference/mujoco_step.py`).
//! - `rotating_chains_step`: the SDRS performance scene (sec. V-A) with N links per chain,
//!   after 100 steps of motion, with SDRS contact and friction.
//!
//! Every iteration steps from the same state (the simulator keeps its warm-start caches), so
//! the time is that of one step of a running simulation.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use sdrs_benches::{box_stack, free_robot, report_section, warmed_up, warmed_up_from};
use sdrs_dynamics::StepTimings;
use sdrs_dynamics::scenes::{Scene, arm7, chain, rotating_chains};
use std::time::Instant;

fn bench_scene(
    c: &mut Criterion,
    group: &str,
    inputs: &[usize],
    make: impl Fn(usize) -> Scene,
    warmup: usize,
) {
    let mut group = c.benchmark_group(group);
    for &n in inputs {
        let (mut sim, scene, motion) = warmed_up(make(n), warmup);
        group.bench_function(BenchmarkId::new("step", n), |b| {
            b.iter(|| {
                sim.step(&motion.state, &motion.previous, &scene.control)
                    .expect("scene steps converge")
                    .1
                    .iterations
            })
        });
    }
    group.finish();
}

const CHAIN_LINKS: [usize; 6] = [2, 4, 8, 16, 32, 64];

/// Mean wall time of one step of the chain of `n` links (in seconds), over a fixed number of
/// steps from the same state: a quick figure for the log-log slope in the report.
fn chain_step_seconds(n: usize) -> f64 {
    let (mut sim, scene, motion) = warmed_up(chain(n, 0.01).expect("valid chain"), 5);
    let repeats = (4096 / n).max(16);
    let mut best = f64::INFINITY;
    // The best of five rounds: the minimum is the least disturbed by other load.
    for _ in 0..5 {
        let clock = Instant::now();
        for _ in 0..repeats {
            sim.step(&motion.state, &motion.previous, &scene.control)
                .expect("chain steps converge");
        }
        best = best.min(clock.elapsed().as_secs_f64() / repeats as f64);
    }
    best
}

/// The least-squares slope of `ln t` against `ln n`.
fn log_log_slope(points: &[(usize, f64)]) -> f64 {
    let xs: Vec<f64> = points.iter().map(|(n, _)| (*n as f64).ln()).collect();
    let ys: Vec<f64> = points.iter().map(|(_, t)| t.ln()).collect();
    let (mx, my) = (
        xs.iter().sum::<f64>() / xs.len() as f64,
        ys.iter().sum::<f64>() / ys.len() as f64,
    );
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    sxy / sxx
}

fn chain_scaling() {
    let points: Vec<(usize, f64)> = CHAIN_LINKS
        .iter()
        .map(|&n| (n, chain_step_seconds(n)))
        .collect();
    let mut md = String::from(
        "## chain_step scaling (no contact, best of 5 rounds)\n\n| links | step |\n|---|---|\n",
    );
    for (n, t) in &points {
        md.push_str(&format!("| {n} | {:.2} µs |\n", t * 1e6));
    }
    let large: Vec<(usize, f64)> = points.iter().copied().filter(|(n, _)| *n >= 8).collect();
    md.push_str(&format!(
        "\nlog-log slope over 8-64 links: {:.2}\n\n",
        log_log_slope(&large)
    ));
    report_section(&md);
}

fn chains(c: &mut Criterion) {
    chain_scaling();
    bench_scene(
        c,
        "chain_step",
        &CHAIN_LINKS,
        |n| chain(n, 0.01).expect("valid chain"),
        5,
    );
}

fn arm(c: &mut Criterion) {
    bench_scene(c, "arm7_step", &[7], |_| arm7(0.01).expect("valid arm"), 5);
}

/// The robots of the no-contact step, by their `sdrs_robot_data` names.
const FREE_ROBOTS: [&str; 4] = ["ur5", "solo12", "anymal", "talos"];

fn robots(c: &mut Criterion) {
    let mut group = c.benchmark_group("robot_free_step");
    let mut md = String::from(
        "## robot_free_step models\n\n| robot | links | bodies | DoF |\n|---|---|---|---|\n",
    );
    for name in FREE_ROBOTS {
        let (scene, start) = free_robot(name);
        let links = scene.model.links().len();
        // Links joined by fixed joints are one body: the step costs what the bodies cost.
        let bodies = (0..links).filter(|&i| scene.model.body(i) == i).count();
        md.push_str(&format!(
            "| {name} | {links} | {bodies} | {} |\n",
            scene.model.dof()
        ));
        let (mut sim, scene, motion) = warmed_up_from(scene, start, 5);
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| {
                sim.step(&motion.state, &motion.previous, &scene.control)
                    .expect("the robot steps")
                    .1
                    .iterations
            })
        });
    }
    md.push('\n');
    report_section(&md);
    group.finish();
}

fn boxes(c: &mut Criterion) {
    let mut group = c.benchmark_group("box_step");
    for (name, count) in [("resting_box", 1), ("stack_5", 5)] {
        // One second of settling: the boxes are at rest on each other when timed.
        let (mut sim, scene, motion) = warmed_up(box_stack(count), 100);
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| {
                sim.step(&motion.state, &motion.previous, &scene.control)
                    .expect("the boxes step")
                    .1
                    .iterations
            })
        });
    }
    group.finish();
}

/// SDRS Table II's breakdown for the rotating chains: 100 steps from rest, then 100 more
/// timed by part (`StepReport::timings`).
fn rotating_breakdown() {
    let mut md = String::from(
        "## rotating_chains breakdown (steps 100-200 from rest)\n\n\
         | N | mean step | Newton iterations per step | normal contact | friction | Newton directions | other |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for n in [2, 4, 8, 16] {
        let (mut sim, scene, mut motion) =
            warmed_up(rotating_chains(n, 0.01).expect("valid scene"), 100);
        let mut total = StepTimings::default();
        let mut iterations = 0;
        let steps = 100;
        for _ in 0..steps {
            let report = sim
                .advance(&mut motion, &scene.control)
                .expect("scene steps converge");
            iterations += report.iterations;
            total += report.timings;
        }
        let [normal, friction, newton, other] = total.percentages();
        md.push_str(&format!(
            "| {n} | {:.2} ms | {:.1} | {normal:.1}% | {friction:.1}% | {newton:.1}% | {other:.1}% |\n",
            total.total.as_secs_f64() * 1e3 / steps as f64,
            iterations as f64 / steps as f64,
        ));
    }
    md.push('\n');
    report_section(&md);
}

fn rotating(c: &mut Criterion) {
    rotating_breakdown();
    bench_scene(
        c,
        "rotating_chains_step",
        &[2, 4, 8, 16],
        |n| rotating_chains(n, 0.01).expect("valid scene"),
        100,
    );
}

criterion_group!(benches, chains, arm, robots, boxes, rotating);
criterion_main!(benches);
