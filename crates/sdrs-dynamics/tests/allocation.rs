//! Heap allocations of the step's objective evaluation, counted by the global allocator of
//! `allocation_counter` (its own test binary, so that the allocator is local to it). Counts are
//! per thread: the test harness runs tests on several threads at once.

use nalgebra::{DVector, Isometry3, Vector3};
use sdrs_dynamics::scenes::chain;
use sdrs_dynamics::{
    Control, JointKind, Link, MassModel, Model, Motion, Simulator, State, StepSettings,
};
use sdrs_geometry::ConvexHull;

/// The allocations `f` makes on this thread (`allocation_counter` replaces the global
/// allocator of this test binary), and its result.
fn counted<T>(f: impl FnOnce() -> T) -> (u64, T) {
    let mut out = None;
    let info = allocation_counter::measure(|| out = Some(f()));
    (info.count_total, out.expect("measure runs the closure"))
}

/// A free box under a revolute pendulum with a universal joint: a floating base and every
/// joint kind with a reference or not, no contact, PD on every DoF.
fn floating_tree() -> (Model, Control) {
    let cube = || ConvexHull::cuboid(Vector3::new(0.1, 0.2, 0.05)).expect("a box");
    let base = Link::new(
        "base",
        None,
        Isometry3::translation(0.0, 0.0, 1.0),
        JointKind::Free,
        vec![cube()],
        MassModel::Lumped { mass: 3.0 },
    );
    let arm = Link::new(
        "arm",
        Some(0),
        Isometry3::translation(0.2, 0.0, 0.0),
        JointKind::Revolute { axis: Vector3::y() },
        vec![cube()],
        MassModel::Lumped { mass: 1.0 },
    );
    let hand = Link::new(
        "hand",
        Some(1),
        Isometry3::translation(0.0, 0.0, -0.3),
        JointKind::Universal {
            first: Vector3::x(),
            second: Vector3::z(),
        },
        vec![cube()],
        MassModel::Lumped { mass: 0.5 },
    );
    let model = Model::new(vec![base, arm, hand]).expect("a valid tree");
    let mut control = Control::passive(&model);
    control.kp = DVector::from_element(model.dof(), 10.0);
    control.kd = DVector::from_element(model.dof(), 100.0);
    (model, control)
}

/// Steps `model` twice, then evaluates the objective at the step's solution and at a nearby
/// state: the evaluations allocate nothing. Prints the allocations of a third whole step.
fn evaluation_allocates_nothing_after_a_step(model: Model, control: Control, start: State) {
    let settings = StepSettings::new(0.01).expect("a valid time step");
    let mut sim = Simulator::new(model.clone(), settings).expect("no contact");
    let mut motion = Motion::at_rest(&model, start);
    sim.advance(&mut motion, &control)
        .expect("the step converges");
    let before = motion.clone();
    sim.advance(&mut motion, &control)
        .expect("the step converges");
    let mut nearby = motion.state.clone();
    nearby.q.add_scalar_mut(1e-3);
    for at in [&motion.state, &nearby] {
        let (allocations, residual) = counted(|| {
            sim.objective_view(at, &before.state, &before.previous, &control)
                .expect("valid inputs")
                .expect("finite without contact or limits")
                .gradient
                .amax()
        });
        assert!(residual.is_finite());
        assert_eq!(
            allocations,
            0,
            "evaluating the objective of a {}-DoF model allocated {allocations} times",
            model.dof()
        );
    }
    let (step_allocations, _) = counted(|| sim.advance(&mut motion, &control));
    // What a whole step still allocates (the Newton direction's factorisation, the trial states
    // of the line search, the report's Hessian): printed for the record, not a target.
    eprintln!(
        "a whole step of the {}-DoF model allocates {step_allocations} times",
        model.dof()
    );
}

#[test]
fn evaluating_a_chain_allocates_nothing_after_the_first_step() {
    let scene = chain(12, 0.01).expect("a valid chain");
    let mut start = State::zero(&scene.model);
    start.q.fill(0.2);
    evaluation_allocates_nothing_after_a_step(scene.model, scene.control, start);
}

#[test]
fn evaluating_a_floating_tree_allocates_nothing_after_the_first_step() {
    let (model, control) = floating_tree();
    let mut start = State::zero(&model);
    start.q[7] = 0.3;
    evaluation_allocates_nothing_after_a_step(model, control, start);
}
