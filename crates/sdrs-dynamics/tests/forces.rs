//! Forces as well as PD: joint torques and external wrenches against analytic cases, and
//! wrenches' generalized forces against finite differences of their work.

use nalgebra::{DVector, Isometry3, Matrix3, Point3, UnitQuaternion, Vector3};
use sdrs_dynamics::{
    Control, DynamicsError, JointKind, Kinematics, Link, LinkId, MassModel, Model, Motion,
    Simulator, State, StepSettings,
};
use sdrs_geometry::ConvexHull;
use sdrs_geometry::testing::{central_differences, relative_error};

fn settings(dt: f64, gravity: f64) -> StepSettings {
    let mut s = StepSettings::new(dt).unwrap();
    s.gravity = gravity;
    s.tolerance = 1e-10;
    s
}

/// The rotational inertia `tr(S₃) I − S₃` of link `i` about its origin (its frame's axes).
fn inertia_about_origin(model: &Model, i: usize) -> Matrix3<f64> {
    let s3 = model.second_moment(i).fixed_view::<3, 3>(0, 0).into_owned();
    Matrix3::identity() * s3.trace() - s3
}

#[test]
fn a_constant_torque_accelerates_a_pendulum_at_tau_over_i() {
    // A 1 kg box hanging 0.5 m below a horizontal hinge (axis y), at rest at the bottom.
    let vertices = (0..8)
        .map(|k| {
            let corner = |bit: usize| if k >> bit & 1 == 0 { -0.05 } else { 0.05 };
            Point3::new(corner(0), corner(1), corner(2) - 0.5)
        })
        .collect();
    let bob = ConvexHull::new(vertices).unwrap();
    let pendulum = Link::new(
        "pendulum",
        None,
        Isometry3::identity(),
        JointKind::Revolute { axis: Vector3::y() },
        vec![bob],
        MassModel::Lumped { mass: 1.0 },
    )
    .with_joint_name("hinge");
    let model = Model::new(vec![pendulum]).unwrap();
    let inertia = inertia_about_origin(&model, 0)[(1, 1)];
    // Σ m (x² + z²) over 8 corners at x = ±0.05, z = −0.5 ± 0.05.
    assert!((inertia - (0.25 + 2.0 * 0.05f64.powi(2))).abs() < 1e-12);
    let dt = 1e-3;
    let mut sim = Simulator::new(model.clone(), settings(dt, 9.81)).unwrap();
    let tau = 0.2;
    let mut control = Control::passive(&model);
    control.force[model.dofs(model.joint("hinge").unwrap()).start] = tau;
    // A pure torque about the hinge axis as a wrench is the same generalized force.
    let at_rest = Motion::at_rest(&model, State::neutral(&model));
    let kinematics = Kinematics::new(&model, &at_rest.state);
    let wrench = model
        .wrench_to_force(
            &kinematics,
            LinkId::new(0),
            &Point3::origin(),
            &Vector3::zeros(),
            &Vector3::new(0.0, tau, 0.0),
        )
        .unwrap();
    assert!((wrench - &control.force).amax() < 1e-15);
    // θ^{n+1} − 2θ^n + θ^{n−1} = α Δt² over the first steps (gravity's restoring torque stays
    // below 1e-4 τ while θ < 5e-6).
    let mut motion = at_rest;
    let mut angles = vec![0.0, 0.0];
    for _ in 0..3 {
        sim.advance(&mut motion, &control).unwrap();
        angles.push(motion.state.q[0]);
    }
    for n in 1..angles.len() - 1 {
        let alpha = (angles[n + 1] - 2.0 * angles[n] + angles[n - 1]) / (dt * dt);
        assert!(
            (alpha / (tau / inertia) - 1.0).abs() < 1e-3,
            "step {n}: α = {alpha}, τ/I = {}",
            tau / inertia
        );
    }
}

/// A 2 kg box (half extents 0.1, 0.2, 0.3; centre of mass at its origin) on a free joint
/// whose frame is turned, and also turned by its reference rotation.
fn free_box() -> (Model, State) {
    let hull = ConvexHull::cuboid(Vector3::new(0.1, 0.2, 0.3)).unwrap();
    let frame = Isometry3::from_parts(
        Vector3::new(0.3, -0.2, 1.0).into(),
        UnitQuaternion::from_euler_angles(0.3, 0.5, -0.2),
    );
    let body = Link::new(
        "box",
        None,
        frame,
        JointKind::Free,
        vec![hull],
        MassModel::Lumped { mass: 2.0 },
    );
    let model = Model::new(vec![body]).unwrap();
    let mut state = State::neutral(&model);
    state.references[0] = UnitQuaternion::from_euler_angles(-0.7, 0.2, 1.1);
    (model, state)
}

#[test]
fn a_force_through_the_centre_of_mass_gives_f_over_m() {
    let (model, state) = free_box();
    let dt = 0.01;
    let mut sim = Simulator::new(model.clone(), settings(dt, 0.0)).unwrap();
    let mut motion = Motion::at_rest(&model, state);
    let force = Vector3::new(3.0, -1.0, 2.0);
    let mut control = Control::passive(&model);
    let kinematics = Kinematics::new(&model, &motion.state);
    let body = model.link("box").unwrap();
    control
        .add_wrench(
            &model,
            &kinematics,
            body,
            &Point3::origin(),
            &force,
            &Vector3::zeros(),
        )
        .unwrap();
    sim.advance(&mut motion, &control).unwrap();
    // From rest, a = (x¹ − x⁰) / Δt² = v¹ / Δt.
    let (linear, angular) = motion.body_velocity(&model, body, dt).unwrap();
    let expected = force / 2.0;
    assert!((linear / dt - expected).norm() < 1e-3 * expected.norm());
    assert!(angular.norm() < 1e-12);
}

#[test]
fn a_pure_torque_gives_the_inverse_inertia_times_the_torque() {
    let (model, state) = free_box();
    let dt = 1e-3;
    let mut sim = Simulator::new(model.clone(), settings(dt, 0.0)).unwrap();
    let mut motion = Motion::at_rest(&model, state);
    let torque = Vector3::new(0.02, -0.01, 0.03);
    let mut control = Control::passive(&model);
    let kinematics = Kinematics::new(&model, &motion.state);
    let body = model.link("box").unwrap();
    control
        .add_wrench(
            &model,
            &kinematics,
            body,
            &Point3::origin(),
            &Vector3::zeros(),
            &torque,
        )
        .unwrap();
    let rotation = kinematics.poses()[0]
        .rotation
        .to_rotation_matrix()
        .into_inner();
    let world_inertia = rotation * inertia_about_origin(&model, 0) * rotation.transpose();
    let expected = world_inertia.try_inverse().unwrap() * torque;
    sim.advance(&mut motion, &control).unwrap();
    let (linear, angular) = motion.body_velocity(&model, body, dt).unwrap();
    assert!(
        (angular / dt - expected).norm() < 1e-3 * expected.norm(),
        "α = {}, I⁻¹τ = {expected}",
        angular / dt
    );
    assert!(linear.norm() < 1e-12);
}

/// revolute (z) → prismatic (x) → spherical → free (turned frame) → fixed child: 11 DoF.
const DOF: usize = 11;

fn tree() -> (Model, State) {
    let hull = ConvexHull::cuboid(Vector3::new(0.05, 0.1, 0.15)).unwrap();
    let kinds = [
        JointKind::Revolute { axis: Vector3::z() },
        JointKind::Prismatic { axis: Vector3::x() },
        JointKind::Spherical,
        JointKind::Free,
        JointKind::Fixed,
    ];
    let links = kinds
        .into_iter()
        .enumerate()
        .map(|(k, joint)| {
            let at = Isometry3::from_parts(
                Vector3::new(0.1, -0.05 * k as f64, 0.2).into(),
                UnitQuaternion::from_euler_angles(0.1 * k as f64, -0.2, 0.3),
            );
            Link::new(
                format!("l{k}"),
                k.checked_sub(1),
                at,
                joint,
                vec![hull.clone()],
                MassModel::Lumped { mass: 1.0 },
            )
        })
        .collect();
    let model = Model::new(links).unwrap();
    let q = DVector::from_fn(DOF, |j, _| 0.3 * (j as f64 + 1.0).sin());
    let mut state = State::new(&model, q).unwrap();
    state.references[2] = UnitQuaternion::from_euler_angles(0.4, 0.1, -0.6);
    state.references[3] = UnitQuaternion::from_euler_angles(-1.0, 0.5, 0.2);
    (model, state)
}

#[test]
fn a_wrench_does_the_work_of_its_point_and_rotation() {
    let (model, state) = tree();
    let point = Point3::new(0.1, -0.2, 0.3);
    let force = Vector3::new(1.5, -0.5, 2.0);
    let torque = Vector3::new(-0.3, 0.8, 0.1);
    let kinematics = Kinematics::new(&model, &state);
    for link in [2, 4] {
        let analytic = model
            .wrench_to_force(&kinematics, LinkId::new(link), &point, &force, &torque)
            .unwrap();
        // The work f·δp + τ·δφ of a small change of the coordinates, δφ the rotation vector of
        // R(q) R(q⁰)ᵀ.
        let start = kinematics.poses()[link];
        let work = |q: &[f64; DOF]| {
            let moved = State {
                q: DVector::from_column_slice(q),
                references: state.references.clone(),
            };
            let pose = Kinematics::new(&model, &moved).poses()[link];
            force.dot(&(pose * point).coords)
                + torque.dot(&(pose.rotation * start.rotation.inverse()).scaled_axis())
        };
        let q0: [f64; DOF] = state.q.as_slice().try_into().unwrap();
        let numeric = central_differences(work, &q0, 1e-3);
        let error = relative_error(analytic.as_slice(), &numeric, 1e-9);
        assert!(
            error < 1e-8,
            "link {link}: {error:e}\n{analytic}\n{numeric:?}"
        );
        // Coordinates that do not move the link get no force.
        if link == 2 {
            assert!(analytic.rows(5, 6).amax() == 0.0);
        }
    }
}

#[test]
fn wrenches_accumulate_into_the_control_and_bad_input_is_refused() {
    let (model, state) = tree();
    let kinematics = Kinematics::new(&model, &state);
    let link = model.link("l4").unwrap();
    let (point, force, torque) = (
        Point3::new(0.0, 0.1, 0.0),
        Vector3::new(0.0, 0.0, -9.81),
        Vector3::x(),
    );
    let mut control = Control::passive(&model);
    control.force[0] = 1.0;
    control
        .add_wrench(&model, &kinematics, link, &point, &force, &torque)
        .unwrap();
    control
        .add_wrench(&model, &kinematics, link, &point, &force, &torque)
        .unwrap();
    let once = model
        .wrench_to_force(&kinematics, link, &point, &force, &torque)
        .unwrap();
    let mut expected = once * 2.0;
    expected[0] += 1.0;
    assert!((control.force - expected).amax() < 1e-14);

    let err = model
        .wrench_to_force(&kinematics, LinkId::new(9), &point, &force, &torque)
        .unwrap_err();
    assert_eq!(err, DynamicsError::LinkIndex { index: 9, links: 5 });
    let err = model
        .wrench_to_force(
            &kinematics,
            link,
            &point,
            &Vector3::new(0.0, f64::INFINITY, 0.0),
            &torque,
        )
        .unwrap_err();
    assert!(
        matches!(err, DynamicsError::NonFinite { index: 4, .. }),
        "{err:?}"
    );
    let other = Model::new(vec![model.links()[0].clone()]).unwrap();
    let err = other
        .wrench_to_force(&kinematics, LinkId::new(0), &point, &force, &torque)
        .unwrap_err();
    assert!(
        matches!(
            err,
            DynamicsError::LengthMismatch {
                actual: 5,
                expected: 1,
                ..
            }
        ),
        "{err:?}"
    );
}
