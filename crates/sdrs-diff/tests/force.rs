//! Gradients with respect to generalized forces (torques) against central differences, in
//! contact with friction: one step's `∂θ^{t+1}/∂τ` on colliding chains; on a box pushed
//! down an incline (sliding and sticking), the adjoint's per-step `dL/dτ^t` (and forward
//! tangents seeded with forces), an open-loop torque policy's parameters, and forward
//! tangents through it.

use nalgebra::{DMatrix, DVector, Point3, Vector3};
use sdrs_diff::{
    DiffError, Effort, Loss, OpenLoop, PointTarget, Recording, Seeds, Sum, adjoint, rollout,
    rollout_policy, step_jacobian, tangent,
};
use sdrs_dynamics::scenes::{Scene, box_on_incline, rotating_chains};
use sdrs_dynamics::{Control, Motion, Simulator, State};

const STEPS: usize = 30;
const H: f64 = 1e-6;

/// The box on a 0.3 rad incline with μ = 0.5 (it sticks unless pushed), solved tightly so
/// that differences of trajectories are clean.
fn scene() -> Scene {
    let mut scene = box_on_incline(0.3, 0.5, 0.01).unwrap();
    scene.settings.tolerance = 1e-9;
    scene.settings.backward = true;
    let contact = scene.settings.contact.as_mut().unwrap();
    let barrier = contact.barrier().unwrap().clone().with_tolerance(1e-12);
    contact.kind = sdrs_dynamics::ContactKind::Hulls(barrier.unwrap());
    scene
}

/// Forces that push the box down the slope and sideways, changing with the step.
fn forces(base: &Control) -> Vec<Control> {
    (0..STEPS)
        .map(|t| {
            let mut u = base.clone();
            u.force[0] = 3.0 + 2.0 * (0.2 * t as f64).sin();
            u.force[1] = 1.5 * (0.3 * t as f64).cos();
            u.force[5] = 0.05;
            u
        })
        .collect()
}

/// The corner's squared miss of a target plus some effort.
fn loss(scene: &Scene) -> Sum {
    let corner = PointTarget::new(
        &scene.model,
        "box",
        Point3::new(0.1, 0.1, -0.1),
        Vector3::new(0.2, 0.1, 0.0),
    )
    .unwrap();
    Sum::new().with(1.0, corner).with(1e-3, Effort::torque(1.0))
}

/// One step's `∂θ^{t+1}/∂τ = H⁻¹`, on the rotating chains (universal joints, every pair of
/// non-adjacent links in contact with friction), every row and column. (The box's free joint
/// re-centres its rotation coordinates after each step, so its output is not comparable in
/// them.)
#[test]
fn one_step_force_jacobian_matches_differences() {
    let mut scene = rotating_chains(2, 0.01).unwrap();
    scene.settings.backward = true;
    scene.settings.tolerance = 1e-9;
    scene.control.kp = DVector::from_element(scene.model.dof(), 10.0);
    let model = scene.model.clone();
    let mut sim = Simulator::new(model.clone(), scene.settings.clone()).unwrap();
    let mut u = scene.control.clone();
    u.force = DVector::from_fn(model.dof(), |k, _| 0.02 * (k as f64).cos());
    let start = Motion::at_rest(&model, State::zero(&model));
    let t = rollout(&mut sim, &start, &vec![u.clone(); 30], Recording::Blocks).unwrap();
    let s = 29;
    assert!(t.active_pairs[s] > 0, "in contact");
    let (now, previous) = (&t.states[s], t.previous_poses(&model, s));
    let jac = step_jacobian(&model, &t.linearizations[s], s).unwrap();
    // The response is linear in τ up to the contact's change: a larger step is cleaner.
    let h = 1e-4;
    for k in 0..model.dof() {
        let mut step = |by: f64| {
            let mut pushed = u.clone();
            pushed.force[k] += by;
            sim.step(now, &previous, &pushed).unwrap().0.q
        };
        let fd = (step(h) - step(-h)) / (2.0 * h);
        let error = (jac.force.column(k) - &fd).amax() / jac.force.amax();
        assert!(error < 1e-5, "∂θ^(t+1)/∂τ column {k}: {error:e}");
    }
}

#[test]
fn per_step_force_gradients_match_differences() {
    let scene = scene();
    let model = scene.model.clone();
    let loss = loss(&scene);
    let controls = forces(&scene.control);
    let start = Motion::at_rest(&model, State::zero(&model));
    let run = |controls: &[Control]| {
        let mut sim = Simulator::new(model.clone(), scene.settings.clone()).unwrap();
        let t = rollout(&mut sim, &start, controls, Recording::Blocks).unwrap();
        let value = loss.evaluate(&model, &t).unwrap().0;
        (value, t, sim)
    };
    let (_, t, mut sim) = run(&controls);
    // It slides: the corner moves by more than a centimetre.
    assert!((t.last().q[0] - t.states[0].q[0]).abs() > 0.01);
    let (_, partials) = loss.evaluate(&model, &t).unwrap();
    let g = adjoint(&mut sim, &t, &partials).unwrap();
    let scale = g.force.iter().map(|f| f.amax()).fold(0.0, f64::max);
    assert!(scale > 0.0);
    // Forward mode with per-step force seeds agrees with the adjoint's dL/dτ.
    let k = 2;
    let mut seeds = Seeds::zeros(&model, 0, k).with_forces(STEPS);
    for (step, seed) in seeds.force.iter_mut().enumerate() {
        *seed = DMatrix::from_fn(model.dof(), k, |i, j| ((i + 3 * j + 5 * step) as f64).sin());
    }
    let short = Seeds::zeros(&model, 0, k).with_forces(STEPS - 1);
    assert!(matches!(
        tangent(&mut sim, &t, &short),
        Err(DiffError::LengthMismatch { actual, expected, .. }) if actual == STEPS - 1 && expected == STEPS
    ));
    let jac = tangent(&mut sim, &t, &seeds).unwrap();
    let forward = jac[STEPS].tr_mul(&partials.states[STEPS])
        + (0..STEPS)
            .map(|s| seeds.force[s].tr_mul(&partials.force[s]))
            .fold(DVector::zeros(k), |a, b| a + b);
    let reverse = (0..STEPS)
        .map(|s| seeds.force[s].tr_mul(&g.force[s]))
        .fold(DVector::zeros(k), |a, b| a + b);
    assert!(
        (&forward - &reverse).amax() < 1e-9 * reverse.amax(),
        "tangent {forward} vs adjoint {reverse}"
    );
    for (step, k) in [(0, 0), (3, 1), (10, 2), (17, 5), (29, 0), (29, 4)] {
        let shifted = |by: f64| {
            let mut u = controls.clone();
            u[step].force[k] += by;
            run(&u).0
        };
        let fd = (shifted(H) - shifted(-H)) / (2.0 * H);
        let error = (g.force[step][k] - fd).abs() / scale;
        assert!(
            error < 1e-5,
            "dL/dτ^{step}[{k}]: adjoint {}, differences {fd}",
            g.force[step][k]
        );
    }
}

#[test]
fn open_loop_torque_policies_differentiate_both_ways() {
    let scene = scene();
    let model = scene.model.clone();
    let loss = loss(&scene);
    let policy = OpenLoop::forces(scene.control.clone(), vec![0, 1], STEPS).unwrap();
    let c = DVector::from_fn(2 * STEPS, |k, _| {
        if k % 2 == 0 {
            3.0 + (0.1 * k as f64).sin()
        } else {
            (0.2 * k as f64).cos()
        }
    });
    let start = Motion::at_rest(&model, State::zero(&model));
    let run = |c: &DVector<f64>| {
        let mut sim = Simulator::new(model.clone(), scene.settings.clone()).unwrap();
        let t = rollout_policy(&mut sim, &start, &policy, c, STEPS, Recording::Blocks).unwrap();
        let (value, partials) = loss.evaluate(&model, &t).unwrap();
        (value, partials, t, sim)
    };
    let (_, partials, t, mut sim) = run(&c);
    let g = adjoint(&mut sim, &t, &partials).unwrap();
    // Along a direction: adjoint vs differences.
    let direction = DVector::from_fn(2 * STEPS, |k, _| ((3 * k + 1) as f64).sin());
    let fd = (run(&(&c + &direction * H)).0 - run(&(&c - &direction * H)).0) / (2.0 * H);
    let reverse = g.parameters.dot(&direction);
    assert!(
        (reverse - fd).abs() < 1e-5 * fd.abs().max(1e-3),
        "adjoint {reverse} vs differences {fd}"
    );
    // Forward mode: the final state's tangent along the same direction gives the same
    // derivative of the final-state part (the effort's direct part is added by hand).
    let mut seeds = Seeds::zeros(&model, 2 * STEPS, 1);
    seeds.parameters.set_column(0, &direction);
    let jac = tangent(&mut sim, &t, &seeds).unwrap();
    let through_states: f64 = (0..=STEPS)
        .map(|s| (jac[s].transpose() * &partials.states[s])[0])
        .sum();
    let direct: f64 = (0..STEPS)
        .map(|s| {
            let pd = t.policy_derivatives(s).expect("a policy step").parameters;
            (partials.force[s].transpose() * &pd.force * &direction)[0]
        })
        .sum();
    let forward = through_states + direct;
    assert!(
        (forward - reverse).abs() < 1e-9 * reverse.abs(),
        "tangent {forward} vs adjoint {reverse}"
    );
}
