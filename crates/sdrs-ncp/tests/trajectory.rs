//! The rollout's reverse mode (gradient of a loss on all states with respect to the initial
//! state and the control forces) and forward mode (final-state Jacobian) against central
//! differences of rollouts: a cube sliding on the ground for 40 steps.

use crate::step_jacobian::{cube, tight_solver};
use nalgebra::{DVector, Vector3};
use sdrs_dynamics::{Control, State};
use sdrs_ncp::{ContactMode, NcpSettings, NcpSimulator};

const STEPS: usize = 40;
const EPS: f64 = 1e-5;

#[test]
fn rollout_gradients_match_finite_differences() {
    let model = cube();
    let n = model.dof();
    let settings = NcpSettings::new(1e-3)
        .unwrap()
        .with_friction(0.3)
        .unwrap()
        .with_ground(Vector3::z(), 0.0)
        .unwrap()
        .with_solver(tight_solver(1e-13, 200_000))
        .with_warm_start(false);
    let sim = NcpSimulator::new(model.clone(), settings);
    // Sliding flat without spin: the four points slip the same way, so the part of their
    // normal impulses the rank-deficient patch leaves open (+, −, +, − at the corners) moves
    // nothing. (With spin their friction moments would depend on it: the step is then not a
    // function of its inputs.)
    let state = State::new(
        &model,
        DVector::from_row_slice(&[0.0, 0.0, 0.09995, 0.0, 0.0, 0.2]),
    )
    .unwrap();
    let v = DVector::from_row_slice(&[1.0, 0.3, -0.2, 0.0, 0.0, 0.0]);
    let controls = vec![Control::passive(&model); STEPS];
    let rollout = sim
        .clone()
        .rollout_with_jacobians(&state, &v, &controls)
        .unwrap();
    for report in &rollout.reports {
        assert_eq!(report.contacts.len(), 4);
        assert!(
            report
                .contacts
                .iter()
                .all(|c| c.mode == ContactMode::Sliding)
        );
    }
    // A linear loss on every state: ℓ = Σ_k a_k · (q_k ⊖ q̄_k) + b_k · v_k.
    let weight = |k: usize, i: usize| ((7 * k + 3 * i + 1) as f64).sin();
    let cotangents: Vec<_> = (1..=STEPS)
        .map(|k| {
            (
                DVector::from_fn(n, |i, _| weight(k, i)),
                DVector::from_fn(n, |i, _| weight(k + 100, i)),
            )
        })
        .collect();
    let loss = |state: &State, v: &DVector<f64>, controls: &[Control]| {
        let (mut s, mut w) = (state.clone(), v.clone());
        let mut sim = sim.clone();
        let mut total = 0.0;
        for (k, control) in controls.iter().enumerate() {
            sim.step(&mut s, &mut w, control).unwrap();
            let dq = model.difference(&rollout.states[k + 1], &s).unwrap();
            total += cotangents[k].0.dot(&dq) + cotangents[k].1.dot(&w);
        }
        total
    };
    let gradient = rollout.vjp(&cotangents).unwrap();
    let unit = |k: usize| DVector::from_fn(n, |i, _| if i == k { EPS } else { 0.0 });
    let close = |fd: f64, an: f64, what: &str| {
        assert!(
            (fd - an).abs() <= 1e-5 * (1.0 + an.abs()),
            "{what}: finite differences {fd}, reverse mode {an}"
        );
    };
    for k in 0..n {
        let plus = model.integrate(&state, &unit(k)).unwrap();
        let minus = model.integrate(&state, &(-unit(k))).unwrap();
        let fd = (loss(&plus, &v, &controls) - loss(&minus, &v, &controls)) / (2.0 * EPS);
        close(fd, gradient.q0[k], &format!("∂ℓ/∂q0[{k}]"));
        let fd = (loss(&state, &(&v + unit(k)), &controls)
            - loss(&state, &(&v - unit(k)), &controls))
            / (2.0 * EPS);
        close(fd, gradient.v0[k], &format!("∂ℓ/∂v0[{k}]"));
    }
    for step in [0, STEPS / 2, STEPS - 1] {
        for k in [0, 2, 5] {
            let at = |sign: f64| {
                let mut c = controls.clone();
                c[step].force[k] += sign * EPS;
                loss(&state, &v, &c)
            };
            let fd = (at(1.0) - at(-1.0)) / (2.0 * EPS);
            close(fd, gradient.forces[step][k], &format!("∂ℓ/∂u{step}[{k}]"));
        }
    }
    // Forward mode: the final state's Jacobian against differences of the final state.
    let forward = rollout.final_state_jacobian();
    let last = |state: &State, v: &DVector<f64>| {
        let (mut s, mut w) = (state.clone(), v.clone());
        let mut sim = sim.clone();
        for control in &controls {
            sim.step(&mut s, &mut w, control).unwrap();
        }
        (model.difference(&rollout.states[STEPS], &s).unwrap(), w)
    };
    for k in 0..n {
        let (qp, vp) = last(&state, &(&v + unit(k)));
        let (qm, vm) = last(&state, &(&v - unit(k)));
        let fd_q = (qp - qm) / (2.0 * EPS);
        let fd_v = (vp - vm) / (2.0 * EPS);
        let an_q = forward.view((0, n + k), (n, 1));
        let an_v = forward.view((n, n + k), (n, 1));
        assert!(
            (&fd_q - an_q).amax() < 1e-5,
            "∂q_H/∂v0[{k}]: {fd_q} vs {an_q}"
        );
        assert!(
            (&fd_v - an_v).amax() < 1e-5,
            "∂v_H/∂v0[{k}]: {fd_v} vs {an_v}"
        );
    }
}
