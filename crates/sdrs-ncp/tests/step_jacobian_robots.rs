//! Step Jacobians of robots against central differences: Solo-12 standing on its feet and the
//! UR5 pressing its wrist on the ground, with the contact modes asserted.

use crate::robot::{load, lowest_vertex, solo12};
use crate::step_jacobian::{Check, check_step};
use nalgebra::{DVector, Vector3};
use sdrs_dynamics::Control;
use sdrs_ncp::{ContactMode, NcpSettings, NcpSimulator, SolverSettings};

/// Solves to 1e-11 (ADMM's reach on these patches within 20000 iterations), steps of 1e-6:
/// errors up to 1e-3 of each block's scale.
const ROBOT: Check = Check {
    eps: 1e-6,
    tolerance: 1e-3,
};

#[test]
fn solo12_standing() {
    let (mut sim, mut state, control) = solo12(1e-11);
    let mut v = DVector::zeros(sim.model().dof());
    for _ in 0..200 {
        sim.step(&mut state, &mut v, &control).unwrap();
    }
    // Resting feet settle at depth ε, exactly on the kink of the drift correction (c = 0,
    // slope 1 above, β below): lift the base by 30 µm into the speculative side.
    state.q[2] += 3e-5;
    let cold = NcpSimulator::new(sim.model().clone(), sim.settings().with_warm_start(false));
    let (modes, _) = check_step(&cold, &state, &v, &control, ROBOT);
    // Four points per foot: one sticking, three lifted off (breaking) within the margin.
    let count = |mode| modes.iter().filter(|m| **m == mode).count();
    assert_eq!(count(ContactMode::Sticking), 4, "{modes:?}");
    assert_eq!(count(ContactMode::Breaking), 12, "{modes:?}");
}

#[test]
fn ur5_wrist_on_the_ground() {
    // The arm bent down (shoulder lift 1.2, elbow 1.0, wrist 1 0.5 rad) with its lowest
    // vertex (on wrist 1) 150 µm into the ground (Baumgarte region), held by PD and pressed by gravity.
    let (model, mut state, _) = load("ur5", None);
    for (k, q) in [0.0, 1.2, 1.0, 0.5, 0.0, 0.0].iter().enumerate() {
        state.q[k] = *q;
    }
    let ground = lowest_vertex(&model, &state) + 1.5e-4;
    let n = model.dof();
    let mut control = Control::passive(&model);
    control.kp = DVector::from_element(n, 50.0);
    control.kd = DVector::from_element(n, 1.0);
    control.position = state.q.clone();
    control.force = DVector::from_fn(n, |k, _| 0.1 * (k as f64 + 1.0).sin());
    let settings = NcpSettings::new(1e-3)
        .unwrap()
        .with_friction(0.8)
        .unwrap()
        .with_ground(Vector3::z(), ground)
        .unwrap()
        .with_warm_start(false)
        .with_solver(
            SolverSettings::builder()
                .tolerance(1e-13)
                .max_iterations(200_000)
                .adaptive_rho(false)
                .build()
                .unwrap(),
        );
    let sim = NcpSimulator::new(model.clone(), settings);
    let v = DVector::from_fn(n, |k, _| 0.05 * (k as f64 * 1.7).cos());
    let (modes, _) = check_step(&sim, &state, &v, &control, ROBOT);
    eprintln!("UR5 modes: {modes:?}");
    assert!(!modes.is_empty());
    assert!(
        modes.iter().any(|m| *m != ContactMode::Breaking),
        "{modes:?}"
    );
}
