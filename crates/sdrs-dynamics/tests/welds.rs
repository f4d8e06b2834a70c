//! Welds and connections ([`Weld`]): the objective's derivatives and the step's mixed blocks
//! against differences, a box hung from the world by one corner that settles under it with the
//! spring's static stretch, a weld that holds a box's orientation, and bad welds refused.
//! (MJCF `<connect>` and `<weld>` against MuJoCo are in `mjcf_couplings.rs`.)

use crate::backward::{check, objective_differences};
use nalgebra::{DVector, Isometry3, Point3, UnitQuaternion, Vector3};
use sdrs_dynamics::scenes::chain;
use sdrs_dynamics::{
    Control, DynamicsError, JointKind, Kinematics, Link, MassModel, Model, Motion, Simulator,
    State, StepSettings, Weld,
};
use sdrs_geometry::ConvexHull;

fn free_box(name: &str, at: Vector3<f64>) -> Link {
    Link::new(
        name,
        None,
        Isometry3::translation(at.x, at.y, at.z),
        JointKind::Free,
        vec![ConvexHull::cuboid(Vector3::new(0.1, 0.05, 0.02)).unwrap()],
        MassModel::Lumped { mass: 1.0 },
    )
}

#[test]
fn the_objective_with_welds_has_its_gradient_and_hessian() {
    // A chain of two hinges and a free box: the box welded (with torsion) to the chain's tip
    // and connected to the world, at a configuration where both springs are stretched and the
    // frames turned well apart, so every second-order term counts.
    let mut links = chain(2, 0.01).unwrap().model.links().to_vec();
    links.push(free_box("box", Vector3::new(0.3, 0.1, -0.4)));
    let model = Model::new(links)
        .unwrap()
        .with_welds(vec![
            Weld::new(
                "tip",
                1,
                Isometry3::new(Vector3::new(0.0, 0.02, -0.1), Vector3::new(0.3, -0.2, 0.1)),
                Some(2),
                Isometry3::new(Vector3::new(0.1, 0.0, 0.0), Vector3::new(-0.1, 0.4, 0.2)),
                (300.0, 20.0),
            ),
            Weld::connect(
                "pin",
                2,
                Point3::new(-0.1, 0.05, 0.0),
                None,
                Point3::new(0.5, 0.0, -0.2),
                150.0,
            ),
        ])
        .unwrap();
    let mut sim = Simulator::new(model.clone(), StepSettings::new(0.01).unwrap()).unwrap();
    let current = State::zero(&model);
    let previous = Kinematics::new(&model, &current).poses().to_vec();
    let control = Control::passive(&model);
    let n = model.dof();
    let q = DVector::from_fn(n, |k, _| 0.3 * ((k as f64) * 1.7 + 0.4).sin());
    let (o, gradient, hessian) =
        objective_differences(&mut sim, (&current, &previous, &control), &q);
    let g_err = (&gradient - &o.gradient).amax() / o.gradient.amax();
    let h_err = (&hessian - &o.hessian).amax() / o.hessian.amax();
    assert!(g_err < 1e-7, "gradient error {g_err:e}");
    assert!(h_err < 1e-6, "Hessian error {h_err:e}");
}

#[test]
fn step_blocks_match_differences_with_welds() {
    let mut scene = chain(4, 0.01).unwrap();
    scene.model = scene
        .model
        .with_welds(vec![
            Weld::connect(
                "loop",
                3,
                Point3::new(0.0, 0.0, -0.05),
                Some(0),
                Point3::new(0.05, 0.0, -0.1),
                50.0,
            ),
            Weld::new(
                "hold",
                1,
                Isometry3::identity(),
                None,
                Isometry3::translation(0.0, 0.0, -0.1),
                (20.0, 2.0),
            ),
        ])
        .unwrap();
    scene.control.kp = DVector::from_element(4, 5.0);
    check(scene, 12);
}

/// A 1 kg box hung from the world by one corner: the corner stays at the pin, stretched by the
/// box's weight `m g / k`, and the box swings down to hang under it.
#[test]
fn a_box_hung_by_a_corner_settles_under_the_pin() {
    let corner = Point3::new(0.1, 0.05, 0.02);
    let pin = Point3::new(0.1, 0.05, 1.02);
    let k = 2e4;
    let model = Model::new(vec![free_box("box", Vector3::new(0.0, 0.0, 1.0))])
        .unwrap()
        .with_welds(vec![Weld::connect("pin", 0, corner, None, pin, k)])
        .unwrap();
    let mut sim = Simulator::new(model.clone(), StepSettings::new(0.01).unwrap()).unwrap();
    let mut motion = Motion::at_rest(&model, State::zero(&model));
    let control = Control::passive(&model);
    for _ in 0..1500 {
        sim.advance(&mut motion, &control).unwrap();
    }
    let pose = Kinematics::new(&model, &motion.state).poses()[0];
    let held = pose * corner;
    let stretch = pin.z - held.z;
    let expected = 9.81 / k;
    assert!(
        (stretch - expected).abs() < 1e-3 * expected,
        "stretch {stretch} vs {expected}"
    );
    // The swing (damped by the implicit step alone) has died down to a few µm.
    let off = (held - Point3::new(pin.x, pin.y, held.z)).norm();
    assert!(off < 1e-5, "the corner is {off} m beside the pin");
    // The box swings about its corner (from 0.11 m beside the pin at the start, damped by the
    // implicit step alone): its centre hangs under the pin within a few mm.
    let centre = pose.translation.vector;
    assert!(
        (centre.xy() - pin.coords.xy()).norm() < 5e-3 && centre.z < held.z - 0.1,
        "centre {centre} under the pin {pin}"
    );
}

/// Welded to the world with torsion, a box turned about its centre turns back; connected at
/// its centre only, it keeps turning freely.
#[test]
fn a_weld_holds_the_orientation_a_connection_leaves_free() {
    let turned = |torsion: f64| {
        let model = Model::new(vec![free_box("box", Vector3::zeros())])
            .unwrap()
            .with_welds(vec![Weld::new(
                "hold",
                0,
                Isometry3::identity(),
                None,
                Isometry3::identity(),
                (1e3, torsion),
            )])
            .unwrap();
        let mut settings = StepSettings::new(0.01).unwrap();
        settings.gravity = 0.0;
        let mut sim = Simulator::new(model.clone(), settings).unwrap();
        let mut start = State::zero(&model);
        start.references[0] = UnitQuaternion::from_scaled_axis(Vector3::new(0.0, 0.0, 0.3));
        let mut motion = Motion::at_rest(&model, start);
        for _ in 0..400 {
            sim.advance(&mut motion, &Control::passive(&model)).unwrap();
        }
        Kinematics::new(&model, &motion.state).poses()[0]
            .rotation
            .angle()
    };
    assert!(turned(5.0) < 1e-3, "{}", turned(5.0));
    assert!((turned(0.0) - 0.3).abs() < 1e-9, "{}", turned(0.0));
}

#[test]
fn bad_welds_are_refused_by_name() {
    let model = chain(2, 0.01).unwrap().model;
    let refused = |weld: Weld| match model.clone().with_welds(vec![weld]) {
        Err(DynamicsError::BadWeld { weld, message }) => format!("{weld}: {message}"),
        other => panic!("expected a BadWeld error, got {other:?}"),
    };
    let p = Point3::origin();
    assert!(refused(Weld::connect("w", 7, p, None, p, 1.0)).contains("link index 7"));
    assert!(refused(Weld::connect("w", 1, p, Some(1), p, 1.0)).contains("to itself"));
    assert!(refused(Weld::connect("w", 1, p, None, p, -1.0)).contains("stiffness -1"));
    assert!(
        refused(Weld::connect(
            "w",
            1,
            Point3::new(f64::NAN, 0.0, 0.0),
            None,
            p,
            1.0
        ))
        .contains("finite")
    );
    let twice = model
        .with_welds(vec![
            Weld::connect("w", 0, p, None, p, 1.0),
            Weld::connect("w", 1, p, None, p, 1.0),
        ])
        .unwrap_err()
        .to_string();
    assert!(
        twice.contains("weld name 'w' is used twice (welds 0 and 1)"),
        "{twice}"
    );
}
