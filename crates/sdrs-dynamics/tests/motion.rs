//! States as users think of them: `integrate`/`difference` on the configuration manifold, the
//! state behind link poses, and velocities set, stepped and read back.

use nalgebra::{DVector, Isometry3, UnitQuaternion, Vector3};
use proptest::prelude::*;
use sdrs_dynamics::{
    Control, DynamicsError, JointKind, Kinematics, Link, MassModel, Model, Motion, Simulator,
    State, StepSettings,
};
use sdrs_geometry::ConvexHull;
use sdrs_geometry::testing::{cases, pose, rotation, unit_vector};

/// Every joint kind with DoFs, in a tree: free root (0..6) → spherical (6..9) → revolute (9)
/// → universal (10..12), and a prismatic branch on the root (12).
const DOF: usize = 13;

fn all_joints(attachments: &[Isometry3<f64>], axes: &[Vector3<f64>]) -> Model {
    let kinds = [
        (None, JointKind::Free),
        (Some(0), JointKind::Spherical),
        (Some(1), JointKind::Revolute { axis: axes[0] }),
        (
            Some(2),
            JointKind::Universal {
                first: axes[1],
                second: axes[2],
            },
        ),
        (Some(0), JointKind::Prismatic { axis: axes[3] }),
    ];
    let links = kinds
        .into_iter()
        .zip(attachments)
        .enumerate()
        .map(|(k, ((parent, joint), at))| {
            Link::new(
                format!("l{k}"),
                parent,
                *at,
                joint,
                vec![ConvexHull::cuboid(Vector3::new(0.1, 0.2, 0.3)).unwrap()],
                MassModel::Lumped { mass: 1.0 },
            )
        })
        .collect();
    Model::new(links).unwrap()
}

#[derive(Debug, Clone)]
struct Case {
    model: Model,
    a: State,
    b: State,
    v: DVector<f64>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        proptest::collection::vec(pose(0.5), 5),
        proptest::collection::vec(unit_vector(), 4),
        proptest::collection::vec(-1.5..1.5f64, 2 * DOF),
        proptest::collection::vec(rotation(), 4),
        proptest::collection::vec(-1.0..1.0f64, DOF),
    )
        .prop_filter("universal axes not parallel", |(_, axes, _, _, _)| {
            axes[1].cross(&axes[2]).norm() > 0.1
        })
        .prop_map(|(attachments, axes, q, references, v)| {
            let model = all_joints(&attachments, &axes);
            let state = |q: &[f64], r: &[UnitQuaternion<f64>]| {
                let mut s = State::new(&model, DVector::from_column_slice(q)).unwrap();
                (s.references[0], s.references[1]) = (r[0], r[1]);
                s
            };
            let a = state(&q[..DOF], &references[..2]);
            let b = state(&q[DOF..], &references[2..]);
            Case {
                model,
                a,
                b,
                v: DVector::from_vec(v),
            }
        })
}

fn poses(model: &Model, state: &State) -> Vec<Isometry3<f64>> {
    Kinematics::new(model, state).poses().to_vec()
}

fn pose_distance(a: &[Isometry3<f64>], b: &[Isometry3<f64>]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(p, q)| {
            (p.translation.vector - q.translation.vector)
                .norm()
                .max(p.rotation.angle_to(&q.rotation))
        })
        .fold(0.0, f64::max)
}

proptest! {
    #![proptest_config(cases(64))]

    #[test]
    fn integrate_and_difference_are_inverse(c in case()) {
        let m = &c.model;
        // difference(a, integrate(a, v)) = v (rotations below half a turn).
        let moved = m.integrate(&c.a, &c.v).unwrap();
        prop_assert!((m.difference(&c.a, &moved).unwrap() - &c.v).amax() < 1e-12);
        // integrate(a, difference(a, b)) has b's poses.
        let d = m.difference(&c.a, &c.b).unwrap();
        let reached = m.integrate(&c.a, &d).unwrap();
        prop_assert!(pose_distance(&poses(m, &reached), &poses(m, &c.b)) < 1e-12);
        // Integrating zero keeps the poses; the difference of a state to itself is zero.
        let same = m.integrate(&c.a, &DVector::zeros(DOF)).unwrap();
        prop_assert!(pose_distance(&poses(m, &same), &poses(m, &c.a)) < 1e-12);
        prop_assert!(m.difference(&c.a, &c.a).unwrap().amax() < 1e-12);
        // A small step agrees with the coordinates to first order at a re-centred state.
        let centred = c.a.recentred(m);
        let h = 1e-6;
        let by_coordinates = State { q: &centred.q + &c.v * h, references: centred.references.clone() };
        let tangent = m.difference(&centred, &by_coordinates).unwrap() / h;
        prop_assert!((tangent - &c.v).amax() < 1e-5);
    }

    #[test]
    fn poses_give_back_their_state(c in case()) {
        let m = &c.model;
        let given = poses(m, &c.a);
        // Revolute and universal angles come back within half a turn of `near`.
        let near = c.b.clone();
        let back = m.state_from_poses(&given, &near).unwrap();
        prop_assert!(pose_distance(&poses(m, &back), &given) < 1e-10);
        for j in 9..12 {
            prop_assert!((back.q[j] - near.q[j]).abs() <= std::f64::consts::PI + 1e-9);
            let turns = (back.q[j] - c.a.q[j]) / std::f64::consts::TAU;
            prop_assert!((turns - turns.round()).abs() < 1e-9);
        }
        prop_assert!((back.q[12] - c.a.q[12]).abs() < 1e-12);
        // Velocities from poses: a motion made from v reads v back.
        let dt = 0.01;
        let motion = Motion::from_velocity(m, c.a.clone(), &c.v, dt).unwrap();
        prop_assert!((motion.velocity(m, dt).unwrap() - &c.v).amax() < 1e-9);
    }
}

#[test]
fn revolute_angles_unwrap_across_half_a_turn() {
    let model = all_joints(
        &[Isometry3::identity(); 5],
        &[Vector3::x(), Vector3::y(), Vector3::z(), Vector3::x()],
    );
    let mut state = State::zero(&model);
    state.q[9] = 3.1;
    let v = DVector::from_fn(DOF, |j, _| if j == 9 { -10.0 } else { 0.0 });
    // The previous angle is 3.2 rad, which the poses alone give as 3.2 − 2π.
    let motion = Motion::from_velocity(&model, state, &v, 0.01).unwrap();
    assert!((motion.velocity(&model, 0.01).unwrap() - v).amax() < 1e-9);
}

#[test]
fn unreachable_poses_and_bad_inputs_are_errors() {
    let model = all_joints(
        &[Isometry3::identity(); 5],
        &[Vector3::x(), Vector3::y(), Vector3::z(), Vector3::x()],
    );
    let state = State::zero(&model);
    let mut given = poses(&model, &state);
    // The revolute link moved along its own axis: no revolute angle gives that.
    given[2].translation.vector.x += 0.01;
    let err = model.state_from_poses(&given, &state).unwrap_err();
    assert!(
        matches!(&err, DynamicsError::UnreachablePose { link, error } if link == "l2" && (error - 0.01).abs() < 1e-9),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.starts_with("link 'l2' is ")
            && message.contains("m or rad away from any pose its joint allows"),
        "{message}"
    );
    assert!(model.state_from_poses(&given[..3], &state).is_err());
    let short = DVector::zeros(3);
    assert!(matches!(
        model.integrate(&state, &short),
        Err(DynamicsError::LengthMismatch { expected: DOF, .. })
    ));
    let mut nan = DVector::zeros(DOF);
    nan[4] = f64::NAN;
    assert!(matches!(
        model.integrate(&state, &nan),
        Err(DynamicsError::NonFinite { index: 4, .. })
    ));
    assert!(Motion::from_velocity(&model, state.clone(), &DVector::zeros(DOF), 0.0).is_err());
    let motion = Motion::at_rest(&model, state);
    let l2 = model.link("l2").unwrap();
    let err = motion
        .with_body_velocity(&model, l2, Vector3::x(), Vector3::zeros(), 0.01)
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("joint 'l2 joint' is revolute: a body velocity needs a free joint"),
        "{err}"
    );
}

/// A free cube (centre of mass at its origin, isotropic inertia) and a prismatic slider, at
/// zero gravity and without contact.
fn cube_and_slider(dt: f64) -> (Model, Simulator) {
    let cube = ConvexHull::cuboid(Vector3::repeat(0.1)).unwrap();
    let model = Model::new(vec![
        Link::new(
            "cube",
            None,
            Isometry3::identity(),
            JointKind::Free,
            vec![cube.clone()],
            MassModel::Lumped { mass: 2.0 },
        ),
        Link::new(
            "slider",
            None,
            Isometry3::translation(3.0, 0.0, 0.0),
            JointKind::Prismatic {
                axis: Vector3::new(1.0, 1.0, 0.0),
            },
            vec![cube],
            MassModel::Lumped { mass: 0.5 },
        ),
    ])
    .unwrap();
    let mut settings = StepSettings::new(dt).unwrap();
    settings.gravity = 0.0;
    settings.tolerance = 1e-10;
    let sim = Simulator::new(model.clone(), settings).unwrap();
    (model, sim)
}

/// The rotation angle a free body with isotropic inertia turns through in one step when it
/// turned through `phi` in the last: the step's rotation minimises `|R − (2R^t − R^{t−1})|`
/// over the vertices, the polar factor of `2I − Exp(−φn)`, a turn by `atan2(sin φ, 2 − cos φ)`.
fn next_turn(phi: f64) -> f64 {
    phi.sin().atan2(2.0 - phi.cos())
}

#[test]
fn a_free_body_keeps_its_velocity_through_a_step() {
    let dt = 0.01;
    let (model, mut sim) = cube_and_slider(dt);
    let cube = model.link("cube").unwrap();
    let linear = Vector3::new(1.0, -2.0, 0.5);
    let angular = Vector3::new(0.3, -0.2, 0.7);
    let mut start = State::neutral(&model);
    start.references[0] = UnitQuaternion::from_euler_angles(0.4, -0.3, 1.2);
    let mut motion = Motion::at_rest(&model, start)
        .with_body_velocity(&model, cube, linear, angular, dt)
        .unwrap();
    let (l0, w0) = motion.body_velocity(&model, cube, dt).unwrap();
    assert!((l0 - linear).norm() < 1e-12 && (w0 - angular).norm() < 1e-12);
    sim.advance(&mut motion, &Control::passive(&model)).unwrap();
    let (l1, w1) = motion.body_velocity(&model, cube, dt).unwrap();
    assert!((l1 - linear).norm() < 1e-9, "linear {l1} vs {linear}");
    let phi = angular.norm() * dt;
    let expected = angular * (next_turn(phi) / phi);
    assert!((w1 - expected).norm() < 1e-9, "angular {w1} vs {expected}");
    // The implicit step slows a spin by a relative φ² (here 6e-5 per step).
    assert!((w1.norm() / angular.norm() - 1.0).abs() > 1e-5);
}

#[test]
fn a_generalized_velocity_is_set_stepped_and_read_back() {
    let dt = 0.01;
    let (model, mut sim) = cube_and_slider(dt);
    let v = DVector::from_vec(vec![0.5, 1.0, -1.5, 0.2, 0.4, -0.6, 0.8]);
    let mut motion = Motion::from_velocity(&model, State::neutral(&model), &v, dt).unwrap();
    assert!((motion.velocity(&model, dt).unwrap() - &v).amax() < 1e-12);
    sim.advance(&mut motion, &Control::passive(&model)).unwrap();
    let read = motion.velocity(&model, dt).unwrap();
    // Translations and the slider keep their velocity exactly; the spin keeps its axis (in the
    // cube's axes, which turn about it) and slows as `next_turn` says.
    for j in [0, 1, 2, 6] {
        assert!(
            (read[j] - v[j]).abs() < 1e-9,
            "DoF {j}: {} vs {}",
            read[j],
            v[j]
        );
    }
    let spin = v.fixed_rows::<3>(3).into_owned();
    let phi = spin.norm() * dt;
    let expected = spin * (next_turn(phi) / phi);
    assert!((read.fixed_rows::<3>(3) - expected).norm() < 1e-9);
}
