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
use nalgebra::Isometry3;
use sdrs_dynamics::scenes::{Scene, arm7, chain, rotating_chains};
use sdrs_dynamics::{Kinematics, Simulator, State};

/// A scene run for `warmup` steps: the simulator, the state and the previous poses.
fn warmed_up(scene: Scene, warmup: usize) -> (Simulator, Scene, State, Vec<Isometry3<f64>>) {
    let model = scene.model.clone();
    let mut sim = Simulator::new(model.clone(), scene.settings.clone()).expect("valid scene");
    let mut state = State::zero(&model);
    let mut previous = Kinematics::new(&model, &state).poses().to_vec();
    for _ in 0..warmup {
        let poses = Kinematics::new(&model, &state).poses().to_vec();
        state = sim
            .step(&state, &previous, &scene.control)
            .expect("scene steps converge")
            .0;
        previous = poses;
    }
    (sim, scene, state, previous)
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
        let (mut sim, scene, state, previous) = warmed_up(make(n), warmup);
        group.bench_function(BenchmarkId::new("step", n), |b| {
            b.iter(|| {
                sim.step(&state, &previous, &scene.control)
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

fn rotating(c: &mut Criterion) {
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
