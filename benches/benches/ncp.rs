//! Step time of the velocity-level hard-contact stepper (`sdrs_ncp::NcpSimulator`, issue 19,
//! item 5a; the NCP paper's Tab. II-III "Simulation" row): UR5 (its base on the ground slab),
//! Solo-12, A1 (a Go1-class quadruped) and TALOS from example-robot-data under PD towards
//! their standing configuration, and MuJoCo's half-cheetah and humanoid through the MJCF
//! importer (passive, on their floor). Each is stepped 100 times at Δt = 1 ms first so its
//! contacts are established; the numbers of collision pairs (link pairs the filter lets touch)
//! and contact points at the timed state are printed to stderr.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nalgebra::DVector;
use sdrs_dynamics::{Control, MjcfOptions, Model, State, load_mjcf};
use sdrs_examples::robots::{Trial, TrialOptions};
use sdrs_ncp::{NcpSettings, NcpSimulator};
use std::path::Path;

const DT: f64 = 1e-3;
const SETTLE: usize = 100;

/// A scenario: its model, start state and control.
fn scenarios() -> Vec<(String, Model, State, Control)> {
    let mut out = Vec::new();
    let package = sdrs_robot_data::package_path().expect("the robot data");
    for name in ["ur5", "solo12", "a1", "talos"] {
        let robot = sdrs_robot_data::robot(name).expect("a known robot");
        let options = TrialOptions {
            package_paths: vec![package.clone()],
            floating: robot.floating_base,
            state: robot.standing.map(str::to_string),
            dt: DT,
            ..TrialOptions::default()
        };
        let urdf = robot.urdf_path().expect("robot data");
        let srdf = robot.srdf_path().expect("robot data");
        let trial = Trial::new(&urdf, Some(&srdf), &options).expect("the robot loads");
        out.push((
            name.to_string(),
            trial.model,
            trial.start.state,
            trial.control,
        ));
    }
    let mjcf =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/sdrs-dynamics/tests/data/mjcf");
    for name in ["half_cheetah", "humanoid"] {
        let mj = load_mjcf(mjcf.join(format!("{name}.xml")), &MjcfOptions::default())
            .expect("the MJCF model loads");
        let state = State::neutral(&mj.model);
        let control = Control::passive(&mj.model);
        out.push((name.to_string(), mj.model, state, control));
    }
    out
}

fn ncp_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("ncp_step");
    group.sample_size(10);
    for (name, model, mut state, control) in scenarios() {
        let settings = NcpSettings::new(DT).expect("a valid time step");
        let mut sim = NcpSimulator::new(model.clone(), settings);
        let mut v = DVector::zeros(model.dof());
        let mut contacts = 0;
        let mut failed = None;
        for _ in 0..SETTLE {
            match sim.step(&mut state, &mut v, &control) {
                Ok(report) => contacts = report.contacts.len(),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        if let Some(e) = failed {
            eprintln!("{name}: not timed, the settling steps failed: {e}");
            continue;
        }
        eprintln!(
            "{name}: {} DoFs, {} collision pairs (+ ground), {contacts} contact points",
            model.dof(),
            sim.collision_pairs()
        );
        group.bench_function(BenchmarkId::from_parameter(&name), |b| {
            b.iter(|| {
                let (mut s, mut w) = (state.clone(), v.clone());
                sim.step(&mut s, &mut w, &control)
                    .map(|r| r.contacts.len())
                    .unwrap_or(usize::MAX)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, ncp_step);
criterion_main!(benches);
