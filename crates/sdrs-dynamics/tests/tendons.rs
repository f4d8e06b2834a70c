//! Fixed tendons ([`Tendon`]): the objective's derivatives and the step's mixed blocks against
//! differences, two free turntables tied by a tendon spring that turn together with the
//! stretch the shared torque needs, a length limit that holds, and bad tendons refused by name.
//! (MJCF tendons, actuators through them and equality constraints are in `mjcf.rs`.)

use crate::backward::{check, objective_differences};
use nalgebra::{DVector, Isometry3, Vector3};
use sdrs_dynamics::scenes::chain;
use sdrs_dynamics::{
    Control, DynamicsError, JointKind, Link, MassModel, Model, Motion, Simulator, State,
    StepSettings, Tendon,
};
use sdrs_geometry::ConvexHull;

/// Two 1 kg boxes (half extents 0.1, 0.02 kg·m² about z) on vertical hinges side by side, so
/// gravity exerts no torque, tied by the tendon `L = θ₀ − θ₁`.
fn turntables(tendon: Tendon) -> Model {
    let cube = ConvexHull::cuboid(Vector3::repeat(0.1)).unwrap();
    let table = |name: &str, x: f64| {
        Link::new(
            name,
            None,
            Isometry3::translation(x, 0.0, 0.0),
            JointKind::Revolute { axis: Vector3::z() },
            vec![cube.clone()],
            MassModel::Lumped { mass: 1.0 },
        )
    };
    Model::new(vec![table("a", 0.0), table("b", 1.0)])
        .unwrap()
        .with_tendons(vec![Tendon {
            joints: vec![(0, 1.0), (1, -1.0)],
            ..tendon
        }])
        .unwrap()
}

/// The turntables after `steps` steps of 10 ms from rest under torque `torque` on the first.
fn driven(model: &Model, torque: f64, steps: usize) -> State {
    let mut settings = StepSettings::new(0.01).unwrap();
    settings.tolerance = 1e-10;
    let mut sim = Simulator::new(model.clone(), settings).unwrap();
    let mut control = Control::passive(model);
    control.force[0] = torque;
    let mut motion = Motion::at_rest(model, State::zero(model));
    for _ in 0..steps {
        sim.advance(&mut motion, &control).unwrap();
    }
    motion.state
}

#[test]
fn a_tendon_spring_makes_two_free_joints_turn_together_at_the_shared_torque() {
    // Each table takes half the torque, so they accelerate at τ/(2I) and the spring carries
    // τ/2: L → τ/(2k) once the damper has taken out the transient.
    let (torque, k, inertia) = (0.02, 5.0, 0.02);
    let model = turntables(
        Tendon::new("tie", vec![])
            .with_spring(k, 0.0)
            .with_damping(0.5),
    );
    let state = driven(&model, torque, 200);
    let stretch = model.tendon_length(0, &state.q);
    assert!(
        (stretch - torque / (2.0 * k)).abs() < 1e-6 * stretch,
        "stretch {stretch} vs {}",
        torque / (2.0 * k)
    );
    // Together they turn as one body of twice the inertia: α Δt² n(n + 1)/2 at the midpoint
    // (up to the chord prediction of the position-level step, as for one turntable).
    let n = 200.0;
    let expected = torque / (2.0 * inertia) * 1e-4 * n * (n + 1.0) / 2.0;
    let mean = 0.5 * (state.q[0] + state.q[1]);
    assert!(
        (mean - expected).abs() < 5e-3 * expected,
        "{mean} vs {expected}"
    );
}

#[test]
fn a_tendon_limit_holds_the_length_inside_its_range() {
    let model = turntables(Tendon::new("tie", vec![]).with_limits(-0.05, 0.05));
    let state = driven(&model, 0.5, 100);
    let length = model.tendon_length(0, &state.q);
    assert!(length > 0.04 && length < 0.05, "length {length}");
    // Without the limit the first table runs away from the second.
    let free = driven(&turntables(Tendon::new("tie", vec![])), 0.5, 100);
    assert!(free.q[0] - free.q[1] > 1.0);
}

#[test]
fn the_objective_with_tendons_has_its_gradient_and_hessian() {
    let tendon = Tendon::new("tie", vec![])
        .with_spring(30.0, 0.1)
        .with_damping(0.7)
        .with_limits(-1.0, 1.0);
    let model = turntables(tendon);
    let mut sim = Simulator::new(model.clone(), StepSettings::new(0.01).unwrap()).unwrap();
    let current = State::new(&model, DVector::from_vec(vec![0.05, -0.2])).unwrap();
    let previous = vec![Isometry3::identity(); 2];
    let control = Control::passive(&model);
    let q = DVector::from_vec(vec![0.6, -0.35]);
    let (o, gradient, hessian) =
        objective_differences(&mut sim, (&current, &previous, &control), &q);
    assert!(
        (&gradient - &o.gradient).amax() < 1e-6 * o.gradient.amax(),
        "gradient {} vs differences {gradient}",
        o.gradient
    );
    assert!(
        (&hessian - &o.hessian).amax() < 1e-6 * o.hessian.amax(),
        "Hessian {} vs differences {hessian}",
        o.hessian
    );
    // The tendon couples the two roots, which the tree alone leaves apart.
    assert!(o.hessian[(0, 1)] < 0.0);
}

#[test]
fn step_blocks_match_differences_with_tendons() {
    // A hanging chain whose first and last joints are tied by a spring and damper, and the
    // middle two by a limited tendon.
    let mut scene = chain(4, 0.01).unwrap();
    scene.model = scene
        .model
        .with_tendons(vec![
            Tendon::new("ends", vec![(0, 0.7), (3, -1.3)])
                .with_spring(4.0, 0.05)
                .with_damping(0.3),
            Tendon::new("middle", vec![(1, 1.0), (2, 0.5)])
                .with_damping(0.1)
                .with_limits(-2.0, 2.0),
        ])
        .unwrap();
    scene.control.kp = DVector::from_element(4, 5.0);
    check(scene, 12);
}

#[test]
fn bad_tendons_are_refused_by_name() {
    let model = chain(2, 0.01).unwrap().model;
    let refused = |tendon: Tendon| match model.clone().with_tendons(vec![tendon]) {
        Err(DynamicsError::BadTendon { tendon, message }) => format!("{tendon}: {message}"),
        other => panic!("expected a BadTendon error, got {other:?}"),
    };
    assert!(refused(Tendon::new("t", vec![])).contains("spans no joint"));
    assert!(refused(Tendon::new("t", vec![(5, 1.0)])).contains("link index 5 is out of range"));
    assert!(refused(Tendon::new("t", vec![(0, f64::NAN)])).contains("must be finite"));
    assert!(
        refused(Tendon::new("t", vec![(0, 1.0)]).with_spring(-1.0, 0.0))
            .contains("stiffness -1 must be finite and >= 0")
    );
    assert!(
        refused(Tendon::new("t", vec![(0, 1.0)]).with_limits(1.0, -1.0)).contains("lower < upper")
    );
    let free = Model::new(vec![Link::new(
        "box",
        None,
        Isometry3::identity(),
        JointKind::Free,
        vec![ConvexHull::cuboid(Vector3::repeat(0.1)).unwrap()],
        MassModel::Lumped { mass: 1.0 },
    )])
    .unwrap();
    let message = free
        .with_tendons(vec![Tendon::new("t", vec![(0, 1.0)])])
        .unwrap_err()
        .to_string();
    assert!(message.contains("not revolute or prismatic"), "{message}");
    let twice = model
        .with_tendons(vec![
            Tendon::new("t", vec![(0, 1.0)]),
            Tendon::new("t", vec![(1, 1.0)]),
        ])
        .unwrap_err()
        .to_string();
    assert!(
        twice.contains("tendon name 't' is used twice (tendons 0 and 1)"),
        "{twice}"
    );
}
