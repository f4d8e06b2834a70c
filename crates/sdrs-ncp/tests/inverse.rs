//! Reduced versions of the Gauss-Newton experiments (examples `thrown_cube_estimation` and
//! `solo12_inverse_dynamics`): a thrown cube's initial velocity from its pose after landing
//! and sliding (horizontal velocity; the vertical one known), and Solo-12's standing torques, with implicit and finite-difference Jacobians.

use crate::robot::solo12;
use crate::step_jacobian::{cube, tight_solver};
use nalgebra::{DVector, Vector3};
use sdrs_dynamics::{Control, State};
use sdrs_ncp::inverse::{JacobianSource, contact_inverse_dynamics, estimate_initial_velocity};
use sdrs_ncp::{ContactMode, NcpSettings, NcpSimulator};

#[test]
fn thrown_cube_initial_velocity() {
    let model = cube();
    let settings = NcpSettings::new(1e-3)
        .unwrap()
        .with_friction(0.4)
        .unwrap()
        .with_ground(Vector3::z(), 0.0)
        .unwrap()
        .with_solver(tight_solver(1e-12, 100_000))
        .with_warm_start(false);
    let sim = NcpSimulator::new(model.clone(), settings);
    let start = State::new(
        &model,
        DVector::from_row_slice(&[0.0, 0.0, 0.15, 0.0, 0.0, 0.0]),
    )
    .unwrap();
    // Lands after about 50 ms and slides for the remaining 100.
    let steps = 150;
    let truth = DVector::from_row_slice(&[3.0, 0.5, -1.0, 0.0, 0.0, 0.0]);
    let controls = vec![Control::passive(&model); steps];
    let rollout = sim
        .clone()
        .rollout_with_jacobians(&start, &truth, &controls)
        .unwrap();
    let last = &rollout.reports[steps - 1];
    assert!(last.contacts.iter().any(|c| c.mode == ContactMode::Sliding));
    let target = rollout.states[steps].clone();
    let guess = DVector::from_row_slice(&[2.0, 0.0, -1.0, 0.0, 0.0, 0.0]);
    for source in [
        JacobianSource::Implicit,
        JacobianSource::FiniteDifferences(1e-6),
    ] {
        let trace =
            estimate_initial_velocity(&sim, &start, &guess, &controls, &target, &[0, 1], 5, source)
                .unwrap();
        let error = (trace.estimates.last().unwrap() - truth.rows(0, 2)).norm();
        assert!(error < 1e-6, "{source:?}: error {error:e}, trace {trace:?}");
    }
}

#[test]
fn solo12_standing_torques() {
    let (mut sim, mut state, mut control) = solo12(1e-11);
    let n = sim.model().dof();
    let mut v = DVector::zeros(n);
    for _ in 0..100 {
        sim.step(&mut state, &mut v, &control).unwrap();
    }
    // No drift correction in the inverse problem: the settled feet sit some 1e-8 m off the
    // resting depth, which would ask for a foot velocity and so a residual acceleration
    // (about 1e-2) no torque removes.
    let settings = sim
        .settings()
        .with_drift_correction(0.0, 0.0)
        .unwrap()
        .with_warm_start(false);
    let cold = NcpSimulator::new(sim.model().clone(), settings);
    control.kp.fill(0.0);
    control.kd.fill(0.0);
    control.force.fill(0.0);
    let v = DVector::zeros(n);
    let actuated: Vec<usize> = (6..n).collect();
    let trace = contact_inverse_dynamics(
        &cold,
        &state,
        &v,
        &control,
        &actuated,
        6,
        JacobianSource::Implicit,
    )
    .unwrap();
    let (first, last) = (
        trace.residual_norms[0],
        *trace.residual_norms.last().unwrap(),
    );
    assert!(first > 1.0, "{first}");
    assert!(last < 1e-5, "{:?}", trace.residual_norms);
}
