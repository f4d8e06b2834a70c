//! Per-step time of every robot of example-robot-data under the default contact settings:
//! arms holding their configuration, floating bases standing on the ground after a drop
//! (the `robots` example's trial, 50 steps in so contact is established).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use sdrs_examples::robots::{Trial, TrialOptions};

fn robot_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("robot_step");
    group.sample_size(10);
    let package = sdrs_robot_data::package_path().expect("the robot data");
    for robot in sdrs_robot_data::ROBOTS {
        let options = TrialOptions {
            package_paths: vec![package.clone()],
            floating: robot.floating_base,
            state: robot.standing.map(str::to_string),
            ..TrialOptions::default()
        };
        let urdf = robot.urdf_path().expect("robot data");
        let srdf = robot.srdf_path().expect("robot data");
        let mut trial = Trial::new(&urdf, Some(&srdf), &options).expect("the robot loads");
        let mut motion = trial.start.clone();
        for _ in 0..50 {
            trial
                .simulator
                .advance(&mut motion, &trial.control)
                .expect("the robot steps");
        }
        let (sim, control) = (&mut trial.simulator, &trial.control);
        group.bench_function(BenchmarkId::from_parameter(robot.name), |b| {
            b.iter(|| {
                sim.step(&motion.state, &motion.previous, control)
                    .expect("the robot steps")
                    .1
                    .iterations
            })
        });
    }
    group.finish();
}

criterion_group!(benches, robot_step);
criterion_main!(benches);
