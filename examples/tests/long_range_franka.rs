//! The long-range paper's Franka Push, reduced (appendix A.6.5, Fig. 15): from the trivial
//! start (the Panda held at its neutral pose, the box out of reach of contact) the long-range
//! gradient of the loss with respect to the arm's PD targets is non-zero and gradient
//! descent lowers the loss, while the SDRS hull barrier's gradient there is exactly zero;
//! the window gradient from a moving state matches central differences; the arm stays
//! inside its joint limits.

use sdrs::diff::GradientSource;
use sdrs::prelude::*;
use sdrs_examples::long_range::franka::{
    LEARNING_RATE, PandaFiles, START, arm_lowest, franka_box, limit_clearance,
};
use sdrs_examples::long_range::mpc::Window;
use sdrs_examples::long_range::tabletop::{Contact, TabletopProblem, optimise};

fn panda() -> PandaFiles {
    let robot = sdrs_robot_data::robot("panda").expect("the panda is in the table");
    PandaFiles {
        urdf: robot.urdf_path().unwrap(),
        srdf: Some(robot.srdf_path().unwrap()),
        package_paths: vec![sdrs_robot_data::package_path().unwrap()],
    }
}

fn problem(contact: Contact) -> TabletopProblem {
    franka_box(&panda(), contact).unwrap()
}

/// Steps of the reduced window.
const STEPS: usize = 4;

#[test]
fn the_scene_is_the_panda_with_seven_driven_joints_and_a_free_box() {
    let problem = problem(Contact::LongRange);
    let model = &problem.scene.model;
    assert_eq!(model.dof(), 7 + 6);
    assert_eq!(problem.driven, (0..7).collect::<Vec<_>>());
    let q: Vec<f64> = problem
        .driven
        .iter()
        .map(|&d| problem.scene.start.q[d])
        .collect();
    assert_eq!(q, START.to_vec());
    assert!(limit_clearance(model, &problem.scene.start) > 0.0);
    // The hand hovers above the ground; the arm touches the box, not the ground or itself.
    let lowest = arm_lowest(model, &problem.scene.pieces, &problem.scene.start);
    assert!(lowest > 0.03 && lowest < 0.1, "{lowest}");
    let [hand, link3, ground, object] =
        ["panda_hand", "panda_link3", "ground", "box"].map(|n| model.link_index(n).unwrap());
    assert!(model.may_touch(hand, object, true) && model.may_touch(ground, object, true));
    assert!(!model.may_touch(hand, ground, true) && !model.may_touch(hand, link3, true));
    // The box starts 20 cm from its target: loss 0.2² − 0.05².
    let misses = problem.misses(&problem.scene.start);
    assert!((misses[0] - 0.2).abs() < 2e-3, "{misses:?}");
}

#[test]
fn long_range_gradient_is_non_zero_and_the_loss_falls_from_the_trivial_start() {
    let task = problem(Contact::LongRange).task(STEPS).unwrap();
    let start = task.policy.initial();
    let run = optimise(&task, start, 3, LEARNING_RATE, |k, loss| {
        eprintln!("iteration {k}: loss {loss:.12e}")
    })
    .unwrap();
    let (first, last) = (run.history[0], *run.history.last().unwrap());
    eprintln!(
        "franka: loss {first:.12e} -> {last:.12e}, {:.2} s per evaluation",
        run.seconds_per_iteration
    );
    assert!(
        run.end.parameters.amax() > 0.0,
        "the long-range gradient vanishes"
    );
    assert!(last < first, "loss {first} -> {last}");
}

#[test]
fn the_sdrs_barrier_gives_no_gradient_from_the_trivial_start() {
    let task = problem(Contact::Hulls).task(STEPS).unwrap();
    let e = task
        .evaluate(&task.policy.initial(), &DVector::zeros(0))
        .unwrap();
    assert!(e.loss > 0.0);
    assert_eq!(e.parameters.amax(), 0.0, "{:?}", e.parameters);
}

/// The Franka start set in motion: two steps with the shoulder and elbow driven to reach
/// towards the box.
fn moving_start(problem: &TabletopProblem) -> Motion {
    let model = &problem.scene.model;
    let mut sim = Simulator::new(model.clone(), problem.scene.settings.clone()).unwrap();
    let mut motion = Motion::at_rest(model, problem.scene.start.clone());
    let mut control = problem.scene.control.clone();
    control.position[1] += 0.1;
    control.position[3] += 0.1;
    for _ in 0..2 {
        sim.advance(&mut motion, &control).unwrap();
    }
    motion
}

#[test]
fn the_window_gradient_from_a_moving_state_matches_central_differences() {
    let problem = problem(Contact::LongRange);
    let start = moving_start(&problem);
    assert!(start.state.q != problem.scene.start.q);
    let mut task = problem.task(3).unwrap();
    // Converged steps, so that finite differences see the adjoint's exact function.
    task.settings.tolerance = 1e-10;
    let mut window = Window::new(&task, start).unwrap();
    // The trivial plan with the shoulder and elbow reaching further each step.
    let mut plan = task.policy.initial();
    for step in 0..3 {
        plan[7 * step + 1] += 0.1 + 0.05 * step as f64;
        plan[7 * step + 3] += 0.1;
    }
    let (value, gradient) = window.value_and_gradient(&plan).unwrap();
    assert!(value > 0.0 && gradient.amax() > 0.0);
    let h = 1e-5;
    for k in [1, 3, 7 + 5, 14 + 1] {
        let mut up = plan.clone();
        up[k] += h;
        let mut down = plan.clone();
        down[k] -= h;
        let fd = (window.value_and_gradient(&up).unwrap().0
            - window.value_and_gradient(&down).unwrap().0)
            / (2.0 * h);
        eprintln!(
            "component {k}: adjoint {:.9e}, central differences {fd:.9e}",
            gradient[k]
        );
        let error = (gradient[k] - fd).abs();
        assert!(
            error <= 1e-4 * fd.abs().max(gradient.abs().max()),
            "component {k}: adjoint {} vs central differences {fd}",
            gradient[k]
        );
    }
}

#[test]
fn the_arm_stays_inside_its_joint_limits_when_driven_past_them() {
    // Every target 1 rad beyond the upper limit of its joint: the limit barrier holds.
    let problem = problem(Contact::LongRange);
    let model = &problem.scene.model;
    let mut sim = Simulator::new(model.clone(), problem.scene.settings.clone()).unwrap();
    let mut motion = Motion::at_rest(model, problem.scene.start.clone());
    let mut control = problem.scene.control.clone();
    for &dof in &problem.driven {
        let link = (0..model.links().len())
            .find(|&l| model.dof_offset(l) == dof && model.links()[l].limits.is_some())
            .unwrap();
        control.position[dof] = model.links()[link].limits.unwrap().1 + 1.0;
    }
    let mut clearance = f64::INFINITY;
    for _ in 0..10 {
        sim.advance(&mut motion, &control).unwrap();
        clearance = clearance.min(limit_clearance(model, &motion.state));
    }
    eprintln!("smallest clearance to a limit: {clearance:.3e} rad");
    assert!(clearance > 0.0, "a joint left its range: {clearance}");
}
