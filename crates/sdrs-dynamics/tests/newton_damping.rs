//! The step's damped second round ([`Simulator::step`]): a step whose undamped Newton
//! iterations run out goes on damped from where they stopped, to the same solution and the same
//! Hessian the backward pass uses.

use crate::newton_start::run_with;
use sdrs_dynamics::scenes::rotating_chains;
use sdrs_dynamics::{DynamicsError, Motion, Simulator, State};

#[test]
fn steps_beyond_the_iteration_cap_finish_damped_at_the_same_solution() {
    // Two chains of two links swung round and colliding: contact, friction and universal
    // joints, solved tightly so that a step is its minimiser to round-off on either path.
    let mut scene = rotating_chains(2, 0.01).unwrap();
    scene.settings.tolerance = 1e-7;
    let steps = 80;
    let run = |cap| {
        run_with(&scene, steps, |settings| {
            settings.max_iterations = cap;
            settings.backward = true;
        })
    };
    let (free, free_reports) = run(100);
    let most = free_reports.iter().map(|r| r.iterations).max().unwrap();
    assert!(free_reports.iter().all(|r| !r.damped));
    // A cap just below what some steps need: those finish damped, in the round as long again.
    let cap = most - 2;
    let (capped, capped_reports) = run(cap);
    let damped: Vec<usize> = (0..steps).filter(|&t| capped_reports[t].damped).collect();
    eprintln!(
        "undamped at most {most} iterations; cap {cap}: {} steps damped, at most {} iterations",
        damped.len(),
        capped_reports.iter().map(|r| r.iterations).max().unwrap()
    );
    assert!(
        !damped.is_empty(),
        "no step needed more than {cap} iterations"
    );
    // Until the first damped step the runs are the same, iteration for iteration (after it the
    // warm starts differ by round-off, and so may the iteration counts).
    for t in 0..damped[0] {
        assert_eq!(free_reports[t].iterations, capped_reports[t].iterations);
        assert_eq!(free[t], capped[t]);
    }
    for t in 0..steps {
        let (a, b) = (&free_reports[t], &capped_reports[t]);
        let apart = (&free[t].q - &capped[t].q).amax();
        assert!(apart < 1e-9, "step {t}: states {apart:.1e} apart");
        let (ha, hb) = (
            &a.linearization.as_ref().unwrap().hessian,
            &b.linearization.as_ref().unwrap().hessian,
        );
        let gap = (ha - hb).amax() / ha.amax();
        assert!(gap < 1e-6, "step {t}: Hessians {gap:.1e} apart");
    }
}

/// With [`StepSettings::damped_round`] off the first step beyond the cap fails, as before the
/// damped round existed.
///
/// [`StepSettings::damped_round`]: sdrs_dynamics::StepSettings::damped_round
#[test]
fn without_the_damped_round_a_step_beyond_the_cap_fails() {
    let mut scene = rotating_chains(2, 0.01).unwrap();
    scene.settings.tolerance = 1e-7;
    scene.settings.max_iterations = 6;
    scene.settings.damped_round = false;
    let mut sim = Simulator::new(scene.model.clone(), scene.settings.clone()).unwrap();
    let mut motion = Motion::at_rest(&scene.model, State::zero(&scene.model));
    let failed = (0..80).find_map(|_| sim.advance(&mut motion, &scene.control).err());
    assert!(
        matches!(
            failed,
            Some(DynamicsError::NotConverged { iterations: 6, .. })
        ),
        "{failed:?}"
    );
}

#[test]
fn a_step_out_of_iterations_names_the_coordinate_and_the_terms_that_do_not_balance() {
    // A box thrown down onto a slab at 3 m/s: the impact's step needs more than the one
    // undamped and one damped iteration a cap of 1 allows.
    let scene = sdrs_dynamics::scenes::box_on_incline(0.0, 0.5, 0.01).unwrap();
    let mut settings = scene.settings.clone();
    settings.max_iterations = 1;
    let mut sim = Simulator::new(scene.model.clone(), settings).unwrap();
    let mut v = nalgebra::DVector::zeros(6);
    v[2] = -3.0;
    let mut motion =
        Motion::from_velocity(&scene.model, State::zero(&scene.model), &v, 0.01).unwrap();
    let error = sim.advance(&mut motion, &scene.control).unwrap_err();
    let DynamicsError::NotConverged {
        iterations, hint, ..
    } = &error
    else {
        panic!("{error}");
    };
    assert_eq!(*iterations, 2, "{error}");
    assert!(
        hint.contains("the largest residual is on 'box joint[2]'")
            && hint.contains("inertia, gravity, PD, tendons, welds and limits give")
            && hint.contains("between 'ground' and 'box'"),
        "{error}"
    );
}
