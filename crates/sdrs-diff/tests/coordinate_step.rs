//! One step as a function of coordinates (`step_coordinates`) and its vector-Jacobian
//! product against central differences, with contact, friction, a free body whose rotation
//! angles are away from zero, and the design; and a batch of steps against single ones.

use nalgebra::DVector;
use sdrs_diff::{LossGradient, Recording, StepBatch, adjoint, rollout, step_coordinates};
use sdrs_dynamics::scenes::{Scene, box_on_incline, rotating_chains};
use sdrs_dynamics::{Control, Model, Motion, Simulator, State};

/// `w · θ^{t+1}` of one step from a fresh simulator (no warm starts) of `model`.
fn loss(
    model: &Model,
    scene: &Scene,
    previous: &DVector<f64>,
    current: &DVector<f64>,
    control: &Control,
    w: &DVector<f64>,
) -> f64 {
    let mut sim = Simulator::new(model.clone(), scene.settings.clone()).unwrap();
    step_coordinates(&mut sim, previous, current, control)
        .unwrap()
        .next
        .dot(w)
}

/// Checks every entry of `g` (the step's cotangent for `L = w · θ^{t+1}`) against central
/// differences of step `h`, and the design entries `design_entries`; errors are relative to
/// the largest entry of the same kind.
fn check_against_differences(
    scene: &Scene,
    previous: &DVector<f64>,
    current: &DVector<f64>,
    w: &DVector<f64>,
    design_entries: &[usize],
    h: f64,
) {
    let model = &scene.model;
    let n = model.dof();
    let mut sim = Simulator::new(model.clone(), scene.settings.clone()).unwrap();
    let step = step_coordinates(&mut sim, previous, current, &scene.control).unwrap();
    assert!(step.active_pairs > 0, "the step is in contact");
    let g = step.vjp(model, w).unwrap();
    let mut worst = (0.0, String::new());
    let mut check = |what: String, analytic: f64, fd: f64, scale: f64| {
        let e = (analytic - fd).abs() / scale.max(1e-12);
        if e > worst.0 {
            worst = (e, format!("{what}: vjp {analytic}, differences {fd}"));
        }
    };
    let l = |p: &DVector<f64>, c: &DVector<f64>, u: &Control| loss(model, scene, p, c, u, w);
    for k in 0..n {
        let e = DVector::from_fn(n, |i, _| if i == k { h } else { 0.0 });
        let fd = (l(previous, &(current + &e), &scene.control)
            - l(previous, &(current - &e), &scene.control))
            / (2.0 * h);
        check(format!("current[{k}]"), g.current[k], fd, g.current.amax());
        let fd = (l(&(previous + &e), current, &scene.control)
            - l(&(previous - &e), current, &scene.control))
            / (2.0 * h);
        check(
            format!("previous[{k}]"),
            g.previous[k],
            fd,
            g.previous.amax(),
        );
        for (name, analytic, scale, field) in [
            ("force", g.force[k], g.force.amax(), 0),
            (
                "position",
                g.target_position[k],
                g.target_position.amax(),
                1,
            ),
        ] {
            let at = |s: f64| {
                let mut u = scene.control.clone();
                let target = if field == 0 {
                    &mut u.force
                } else {
                    &mut u.position
                };
                target[k] += s;
                l(previous, current, &u)
            };
            check(
                format!("{name}[{k}]"),
                analytic,
                (at(h) - at(-h)) / (2.0 * h),
                scale,
            );
        }
    }
    let design = model.design();
    let dg = g.design.as_ref().expect("lumped masses: design blocks");
    for &k in design_entries {
        let at = |s: f64| {
            let mut d = design.clone();
            d[k] += s;
            loss(
                &model.with_design(&d).unwrap(),
                scene,
                previous,
                current,
                &scene.control,
                w,
            )
        };
        check(
            format!("design[{k}]"),
            dg[k],
            (at(h) - at(-h)) / (2.0 * h),
            dg.amax(),
        );
    }
    assert!(
        worst.0 < 1e-4,
        "worst relative error {:e} at {}",
        worst.0,
        worst.1
    );
}

/// A box sliding down a 30° incline with friction, turned about all three axes (its XYZ
/// angles away from zero, so the chart maps matter): the step's cotangent against
/// differences for its previous and current coordinates, forces and design.
#[test]
fn a_sliding_turned_box_steps_with_the_cotangent_of_its_differences() {
    let mut scene = box_on_incline(std::f64::consts::FRAC_PI_6, 0.3, 0.01).unwrap();
    scene.settings.backward = true;
    scene.settings.tolerance = 1e-11;
    // Turned 0.6 rad about the incline's normal, tipped 0.01 rad on the other axes (which
    // the barrier's gap allows), sliding down at 0.2 m/s.
    let current = DVector::from_vec(vec![0.05, 0.02, 0.0, 0.01, -0.012, 0.6]);
    let mut previous = current.clone();
    previous[0] -= 0.002;
    previous[5] -= 0.001;
    let w = DVector::from_vec(vec![0.7, -0.4, 1.1, 0.3, 0.5, -0.9]);
    // The box's attachment and a few of its vertices (the ground's are fixed in space).
    let links = scene.model.links().len();
    let entries = [3, 4, 5, 3 * links, 3 * links + 5, 3 * links + 10];
    // A small step: the barrier's curvature makes differences at 1e-6 off by 1e-4 in the
    // normal direction (truncation: at 3e-7 they agree to 1e-6).
    check_against_differences(&scene, &previous, &current, &w, &entries, 3e-7);
}

/// Four chains on a spinning hub (17 DoF, universal joints) in contact under PD: the same
/// check for PD targets and attachments.
#[test]
fn chains_on_a_spinning_hub_step_with_the_cotangent_of_their_differences() {
    let mut scene = rotating_chains(2, 0.01).unwrap();
    let n = scene.model.dof();
    scene.settings.backward = true;
    scene.settings.tolerance = 1e-11;
    scene.control.kp = DVector::from_element(n, 10.0);
    scene.control.position = DVector::from_fn(n, |k, _| 0.2 * (k as f64).sin());
    let current = DVector::from_fn(n, |k, _| 0.05 * (k as f64).cos());
    let previous = DVector::from_fn(n, |k, _| current[k] - 0.004 * (k as f64 + 1.0).sin());
    let w = DVector::from_fn(n, |k, _| ((k + 1) as f64).sin());
    let entries: Vec<usize> = (0..9).collect();
    // Gradients here are small (1e-3 and below for the previous poses): a larger step keeps
    // the solves' round-off (1e-11 / h) out of the differences.
    check_against_differences(&scene, &previous, &current, &w, &entries, 1e-5);
}

/// Steps chained by hand, and their vector-Jacobian products chained backwards, give the
/// rollout and the trajectory adjoint of the same motion: the states bit for bit, the
/// gradient with respect to the start (at rest) to round-off.
#[test]
fn chained_steps_and_their_products_are_the_rollout_and_its_adjoint() {
    const H: usize = 8;
    let mut scene = rotating_chains(2, 0.01).unwrap();
    let model = scene.model.clone();
    let n = model.dof();
    scene.settings.backward = true;
    scene.control.kp = DVector::from_element(n, 10.0);
    scene.control.position = DVector::from_fn(n, |k, _| 0.2 * (k as f64).sin());
    let q0 = DVector::from_fn(n, |k, _| 0.05 * (k as f64).cos());
    let w = DVector::from_fn(n, |k, _| ((k + 1) as f64).sin());
    let mut sim = Simulator::new(model.clone(), scene.settings.clone()).unwrap();
    let (mut previous, mut current) = (q0.clone(), q0.clone());
    let mut steps = Vec::new();
    for _ in 0..H {
        let step = step_coordinates(&mut sim, &previous, &current, &scene.control).unwrap();
        (previous, current) = (current, step.next.clone());
        steps.push(step);
    }
    let start = Motion::at_rest(&model, State::new(&model, q0.clone()).unwrap());
    let mut sim = Simulator::new(model.clone(), scene.settings.clone()).unwrap();
    let controls = vec![scene.control.clone(); H];
    let trajectory = rollout(&mut sim, &start, &controls, Recording::Blocks).unwrap();
    assert_eq!(trajectory.last().q, current);
    let mut g = adjoint(
        &mut sim,
        &trajectory,
        &LossGradient::final_state(&model, H, w.clone()),
    )
    .unwrap();
    g.start_at_rest(&model, &start.state);
    // λ[t] = dL/dθ^t, with θ^{−1} = θ^0 (at rest) at index 0.
    let mut lambda = vec![DVector::zeros(n); H + 2];
    lambda[H + 1] = w;
    for (t, step) in steps.iter().enumerate().rev() {
        let c = step.vjp(&model, &lambda[t + 2]).unwrap();
        lambda[t + 1] += c.current;
        lambda[t] += c.previous;
    }
    let by_steps = &lambda[0] + &lambda[1];
    let error = (&by_steps - &g.initial).amax() / g.initial.amax();
    assert!(
        error < 1e-9,
        "relative difference {error:e}: {by_steps} vs {}",
        g.initial
    );
}

/// A box tumbling through the air about all three axes for 20 steps (its XYZ angles moving
/// by tenths of a radian): the cotangents chained backwards against differences of the
/// chained steps, so the chart maps compose across steps.
#[test]
fn a_tumbling_box_chains_steps_with_the_cotangent_of_their_differences() {
    const H: usize = 20;
    let mut scene = box_on_incline(0.0, 0.3, 0.01).unwrap();
    scene.settings.backward = true;
    scene.settings.tolerance = 1e-12;
    let model = scene.model.clone();
    let q0 = DVector::from_vec(vec![0.0, 0.0, 1.0, 0.2, -0.3, 0.4]);
    // Moving up and turning at (1.5, −2, 3) rad/s in angle rates.
    let q1 = &q0 + DVector::from_vec(vec![0.0, 0.01, 0.02, 0.015, -0.02, 0.03]);
    let w = DVector::from_vec(vec![0.3, -0.2, 0.1, 0.7, 0.5, -0.9]);
    let run = |q0: &DVector<f64>, q1: &DVector<f64>| {
        let mut sim = Simulator::new(model.clone(), scene.settings.clone()).unwrap();
        let (mut previous, mut current) = (q0.clone(), q1.clone());
        let mut steps = Vec::new();
        for _ in 0..H {
            let step = step_coordinates(&mut sim, &previous, &current, &scene.control).unwrap();
            (previous, current) = (current, step.next.clone());
            steps.push(step);
        }
        (current, steps)
    };
    let (last, steps) = run(&q0, &q1);
    assert!((&last - &q1).rows(3, 3).amin() > 0.2, "turned far: {last}");
    let mut lambda = vec![DVector::zeros(6); H + 2];
    lambda[H + 1] = w.clone();
    for (t, step) in steps.iter().enumerate().rev() {
        let c = step.vjp(&model, &lambda[t + 2]).unwrap();
        lambda[t + 1] += c.current;
        lambda[t] += c.previous;
    }
    let h = 1e-6;
    for k in 0..6 {
        let e = DVector::from_fn(6, |i, _| if i == k { h } else { 0.0 });
        for (which, analytic) in [(0, lambda[0][k]), (1, lambda[1][k])] {
            let at = |s: f64| {
                let (a, b) = if which == 0 {
                    (&q0 + &e * s, q1.clone())
                } else {
                    (q0.clone(), &q1 + &e * s)
                };
                run(&a, &b).0.dot(&w)
            };
            let fd = (at(1.0) - at(-1.0)) / (2.0 * h);
            assert!(
                (analytic - fd).abs() < 1e-6 * (1.0 + fd.abs()),
                "d L / d q{which}[{k}]: chained products {analytic}, differences {fd}"
            );
        }
    }
}

/// A batch gives each environment the step a single simulator gives it, bit for bit, and
/// names the environment that fails.
#[test]
fn a_batch_steps_each_environment_as_alone_and_names_the_one_that_fails() {
    let mut scene = box_on_incline(std::f64::consts::FRAC_PI_6, 0.3, 0.01).unwrap();
    scene.settings.backward = true;
    let sim = Simulator::new(scene.model.clone(), scene.settings.clone()).unwrap();
    let mut batch = StepBatch::new(&sim, 4).unwrap();
    let current: Vec<DVector<f64>> = (0..4)
        .map(|b| DVector::from_vec(vec![0.1 * b as f64, 0.0, 0.0, 0.0, 0.0, 0.2 * b as f64]))
        .collect();
    let controls = vec![scene.control.clone(); 4];
    let steps = batch.step(&current, &current, &controls).unwrap();
    for (b, step) in steps.iter().enumerate() {
        let mut alone = Simulator::new(scene.model.clone(), scene.settings.clone()).unwrap();
        let single = step_coordinates(&mut alone, &current[b], &current[b], &controls[b]).unwrap();
        assert_eq!(single.next, step.next, "environment {b}");
    }
    let mut sunk = current.clone();
    sunk[2][2] = -0.5; // the third box deep inside the incline
    let error = batch.step(&sunk, &sunk, &controls).unwrap_err().to_string();
    assert!(error.starts_with("environment 2:"), "{error}");
    let short = batch.step(&current[..3], &current[..3], &controls[..3]);
    assert!(short.unwrap_err().to_string().contains("expected 4"));
}

/// Angles at gimbal lock are refused with a message that says why.
#[test]
fn gimbal_lock_is_refused() {
    let scene = box_on_incline(0.0, 0.3, 0.01).unwrap();
    let mut sim = Simulator::new(scene.model.clone(), scene.settings.clone()).unwrap();
    let q = DVector::from_vec(vec![0.0, 0.0, 0.5, 0.0, std::f64::consts::FRAC_PI_2, 0.0]);
    let error = step_coordinates(&mut sim, &q, &q, &scene.control)
        .unwrap_err()
        .to_string();
    assert!(error.contains("gimbal lock"), "{error}");
}
