//! The motion suite's workloads are physics before they are timings: each one runs through at
//! the default tolerance and at tight ones (the round-off floor of the convergence test), and
//! ends where mechanics says it should.

use sdrs_benches::motion::{Measured, Workload, workloads};
use sdrs_dynamics::Simulator;

fn workload(name: &str) -> Workload {
    workloads()
        .expect("the workloads build")
        .into_iter()
        .find(|w| w.name == name)
        .expect("a known workload")
}

/// `w` with its Newton tolerance set to `tolerance`.
fn at_tolerance(mut w: Workload, tolerance: f64) -> Workload {
    let settings = w.sim.settings().clone().with_tolerance(tolerance).unwrap();
    w.sim = Simulator::new(w.model.clone(), settings).unwrap();
    w
}

fn run(name: &str) -> Measured {
    let mut w = workload(name);
    w.run()
        .unwrap_or_else(|e| panic!("{name} failed at the default tolerance: {e}"))
}

#[test]
fn a_box_pushed_along_the_ground_accelerates_as_coulomb_friction_says() {
    // 5 N against μ m g = 2.943 N: a = 2.057 m/s², x(2 s) = 4.114 m.
    let x = run("box_push").final_position[0];
    assert!((x - 4.114).abs() < 0.05 * 4.114, "x = {x}");
}

#[test]
fn a_box_slides_down_a_30_degree_incline_as_coulomb_friction_says() {
    // g (sin 30° − 0.3 cos 30°) = 2.357 m/s²: 4.713 m along the slope in 2 s.
    let p = run("box_incline").final_position;
    let along = (p[0] * p[0] + p[2] * p[2]).sqrt();
    assert!((along - 4.713).abs() < 0.05 * 4.713, "slid {along} m");
}

#[test]
fn resting_boxes_stay_put() {
    let p = run("resting_box").final_position;
    assert!(p[0].abs() < 1e-3 && (p[2] - 0.1).abs() < 1e-3, "{p:?}");
    let top = run("stack_5").final_position;
    assert!(
        top[0].abs() < 1e-3 && (top[2] - 0.9).abs() < 1e-2,
        "{top:?}"
    );
}

#[test]
fn the_arm_sweeps_the_bottom_cube_off_the_table_and_the_humanoid_ends_lying() {
    let cube = run("arm_sweep").final_position;
    assert!(cube[2] < 0.1, "the bottom cube is still up: {cube:?}");
    let torso = run("humanoid_lying").final_position;
    assert!(torso[2] < 0.2, "the humanoid's torso is at {torso:?}");
}

#[test]
fn the_ant_trots_forward() {
    let m = run("ant_trot");
    assert!(m.final_position[0] > 0.2, "{:?}", m.final_position);
}

#[test]
fn every_workload_runs_through_at_tolerances_down_to_1e_10() {
    // A step whose gradient reaches its round-off floor is converged, not an error.
    for tolerance in [1e-6, 1e-8, 1e-10] {
        for w in workloads().unwrap() {
            let name = w.name;
            let mut w = at_tolerance(w, tolerance);
            if let Err(e) = w.run() {
                panic!("{name} at tolerance {tolerance:e}: {e}");
            }
        }
    }
}
