//! Suite `dynamics`: per-step cost of the position-level Newton time step (SDRS eq. 14).
//!
//! - `chain_step`: serial chains of 2..64 revolute links, no contact (articulated dynamics
//!   alone: kinematics, inertia, dense Newton).
//! - `arm7_step`: a 7-DoF arm under stable PD, no contact.
//! - `rotating_chains_step`: the SDRS performance scene (sec. V-A) with N links per chain,
//!   after 100 steps of motion, with SDRS contact and friction.
//!
//! Every iteration steps from the same state (the simulator keeps its warm-start caches), so
//! the time is that of one step of a running simulation.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use sdrs_benches::report_section;
use sdrs_dynamics::scenes::{Scene, arm7, chain, rotating_chains};
use sdrs_dynamics::{Motion, Simulator, State, StepTimings};

/// A scene run for `warmup` steps from rest: the simulator, the scene and where it got to.
fn warmed_up(scene: Scene, warmup: usize) -> (Simulator, Scene, Motion) {
    let mut sim = Simulator::new(scene.model.clone(), scene.settings.clone()).expect("valid scene");
    let mut motion = Motion::at_rest(&scene.model, State::zero(&scene.model));
    for _ in 0..warmup {
        sim.advance(&mut motion, &scene.control)
            .expect("scene steps converge");
    }
    (sim, scene, motion)
}

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

fn chains(c: &mut Criterion) {
    bench_scene(
        c,
        "chain_step",
        &[2, 4, 8, 16, 32, 64],
        |n| chain(n, 0.01).expect("valid chain"),
        5,
    );
}

fn arm(c: &mut Criterion) {
    bench_scene(c, "arm7_step", &[7], |_| arm7(0.01).expect("valid arm"), 5);
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

criterion_group!(benches, chains, arm, rotating);
criterion_main!(benches);
