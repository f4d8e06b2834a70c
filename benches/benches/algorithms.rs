//! The rigid-body algorithms of `sdrs_dynamics::algorithms` per call on UR5, Solo-12 (floating
//! base) and TALOS reduced (floating base), the robots `benches/reference/pinocchio_reference.py`
//! times Pinocchio on (its numbers, `benches/reference/pinocchio_timings.json`, appear beside
//! these in the report): `aba`, `aba_derivatives`, `rnea`, `rnea_derivatives`, `crba`, and one
//! ABA + semi-implicit Euler step (`v += Δt q̈`, `q = integrate(q, Δt v)`, Δt = 1 ms).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nalgebra::{DVector, Vector3};
use sdrs_dynamics::{Model, RigidBodyData, State, UrdfOptions, load_urdf};

const ROBOTS: [&str; 3] = ["ur5", "solo12", "talos"];

/// A robot's model and a state with velocity, acceleration and joint forces, reproducible.
struct Case {
    name: &'static str,
    model: Model,
    state: State,
    v: DVector<f64>,
    a: DVector<f64>,
    tau: DVector<f64>,
}

fn cases() -> Vec<Case> {
    let package = sdrs_robot_data::package_path().expect("the robot data");
    ROBOTS
        .iter()
        .map(|&name| {
            let robot = sdrs_robot_data::robot(name).expect("a known robot");
            let options = UrdfOptions {
                package_paths: vec![package.clone()],
                floating_base: robot.floating_base,
                ..UrdfOptions::default()
            };
            let model = load_urdf(robot.urdf_path().expect("robot data"), &options)
                .expect("the robot loads");
            let n = model.dof();
            let wave = |phase: f64, scale: f64| {
                DVector::from_fn(n, |k, _| scale * (1.7 * k as f64 + phase).sin())
            };
            let state = State::new(&model, wave(0.3, 0.5)).expect("a state");
            Case {
                name,
                v: wave(1.1, 1.0),
                a: wave(2.3, 1.0),
                tau: wave(0.7, 5.0),
                state,
                model,
            }
        })
        .collect()
}

fn algorithms(c: &mut Criterion) {
    let gravity = Vector3::new(0.0, 0.0, -9.81);
    let cases = cases();
    type Call = fn(&mut RigidBodyData, &Case, &Vector3<f64>);
    let calls: [(&str, Call); 5] = [
        ("aba", |d, c, g| {
            d.aba(&c.model, &c.state, &c.v, &c.tau, g).expect("aba");
        }),
        ("aba_derivatives", |d, c, g| {
            d.aba_derivatives(&c.model, &c.state, &c.v, &c.tau, g)
                .expect("aba derivatives");
        }),
        ("rnea", |d, c, g| {
            d.rnea(&c.model, &c.state, &c.v, &c.a, g).expect("rnea");
        }),
        ("rnea_derivatives", |d, c, g| {
            d.rnea_derivatives(&c.model, &c.state, &c.v, &c.a, g)
                .expect("rnea derivatives");
        }),
        ("crba", |d, c, _| {
            d.crba(&c.model, &c.state).expect("crba");
        }),
    ];
    for (name, call) in calls {
        let mut group = c.benchmark_group(name);
        for case in &cases {
            let mut data = RigidBodyData::new(&case.model);
            group.bench_function(BenchmarkId::from_parameter(case.name), |b| {
                b.iter(|| call(&mut data, case, &gravity))
            });
        }
        group.finish();
    }
    let mut group = c.benchmark_group("aba_euler_step");
    let dt = 1e-3;
    for case in &cases {
        let mut data = RigidBodyData::new(&case.model);
        group.bench_function(BenchmarkId::from_parameter(case.name), |b| {
            b.iter(|| {
                let ddq = data
                    .aba(&case.model, &case.state, &case.v, &case.tau, &gravity)
                    .expect("aba");
                let v = &case.v + ddq * dt;
                case.model
                    .integrate(&case.state, &(v * dt))
                    .expect("integrate")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, algorithms);
criterion_main!(benches);
