//! The velocity stepper against analytic cases: free fall, a resting box, a box on an incline
//! (sticking below atan μ, sliding with g (sin θ − μ cos θ) above), a stack of boxes, and
//! Newton's cradle.

use nalgebra::{DVector, Isometry3, Vector3};
use sdrs_dynamics::{Control, JointKind, Link, MassModel, Model, State};
use sdrs_geometry::ConvexHull;
use sdrs_ncp::{ContactMode, NcpSettings, NcpSimulator};

const G: f64 = 9.81;

fn cubes(heights: &[f64], half: f64) -> Model {
    let links = heights
        .iter()
        .enumerate()
        .map(|(i, _)| {
            Link::new(
                format!("box{i}"),
                None,
                Isometry3::identity(),
                JointKind::Free,
                vec![ConvexHull::cuboid(Vector3::repeat(half)).unwrap()],
                MassModel::Lumped { mass: 1.0 },
            )
        })
        .collect();
    Model::new(links).unwrap()
}

fn start(model: &Model, positions: &[Vector3<f64>]) -> State {
    let mut q = DVector::zeros(model.dof());
    for (i, p) in positions.iter().enumerate() {
        q.fixed_rows_mut::<3>(6 * i).copy_from(p);
    }
    State::new(model, q).unwrap()
}

#[test]
fn free_fall_matches_symplectic_euler() {
    let model = cubes(&[0.0], 0.1);
    let dt = 1e-2;
    let mut sim = NcpSimulator::new(model.clone(), NcpSettings::new(dt).unwrap());
    let mut state = start(&model, &[Vector3::new(0.0, 0.0, 5.0)]);
    let mut v = DVector::from_vec(vec![1.0, 0.0, 2.0, 0.0, 0.0, 0.0]);
    for _ in 0..50 {
        let report = sim
            .step(&mut state, &mut v, &Control::passive(&model))
            .unwrap();
        assert!(report.contacts.is_empty());
    }
    // v_k = v_0 − g k Δt, z_k = z_0 + Δt Σ_{j=1..k} v_j.
    let k = 50.0;
    assert!((v[2] - (2.0 - G * k * dt)).abs() < 1e-10);
    let z = 5.0 + dt * (2.0 * k - G * dt * k * (k + 1.0) / 2.0);
    assert!((state.q[2] - z).abs() < 1e-10, "{} vs {z}", state.q[2]);
    assert!((state.q[0] - 0.5).abs() < 1e-10);
}

#[test]
fn resting_box_does_not_drift() {
    let model = cubes(&[0.0], 0.1);
    let settings = NcpSettings::new(1e-3)
        .unwrap()
        .with_ground(Vector3::z(), 0.0)
        .unwrap();
    let mut sim = NcpSimulator::new(model.clone(), settings);
    let mut state = start(&model, &[Vector3::new(0.0, 0.0, 0.1)]);
    let mut v = DVector::zeros(6);
    for step in 0..1000 {
        let report = sim
            .step(&mut state, &mut v, &Control::passive(&model))
            .unwrap();
        assert_eq!(report.contacts.len(), 4);
        if step > 100 {
            assert!(
                report
                    .contacts
                    .iter()
                    .all(|c| c.mode == ContactMode::Sticking)
            );
            let normal: f64 = report.contacts.iter().map(|c| c.impulse.z).sum();
            assert!(
                (normal - G * 1e-3).abs() < 1e-8,
                "step {step}: normal impulse {normal}, z = {}, v = {}",
                state.q[2],
                v.transpose()
            );
        }
    }
    // It settles at the penetration tolerance (0.1 mm) and stays there.
    assert!(
        (state.q[2] - (0.1 - 1e-4)).abs() < 1e-6,
        "z = {}",
        state.q[2]
    );
    assert!(state.q.rows(0, 2).norm() < 1e-9);
    assert!(v.norm() < 1e-6);
}

/// A box on a plane tilted by `tilt` about x with friction `mu`, released at rest; returns
/// its displacement along the slope over `steps` of 1 ms after 20 settling steps (it starts
/// touching and first falls vertically into the 0.1 mm penetration tolerance, which moves it
/// by 0.1 mm · tan θ along the slope) and the modes of the last step.
fn incline(tilt: f64, mu: f64, steps: usize) -> (f64, Vec<ContactMode>) {
    let model = cubes(&[0.0], 0.1);
    let normal = Vector3::new(0.0, -tilt.sin(), tilt.cos());
    let settings = NcpSettings::new(1e-3)
        .unwrap()
        .with_friction(mu)
        .unwrap()
        .with_ground(normal, 0.0)
        .unwrap();
    let mut sim = NcpSimulator::new(model.clone(), settings);
    // The box's faces aligned with the slope, resting on it.
    let rotation = nalgebra::UnitQuaternion::from_axis_angle(&Vector3::x_axis(), tilt);
    let mut state = start(&model, &[normal * 0.1]);
    state.references[0] = rotation;
    let down = Vector3::new(0.0, -tilt.cos(), -tilt.sin());
    let mut v = DVector::zeros(6);
    let mut modes = Vec::new();
    for _ in 0..20 {
        sim.step(&mut state, &mut v, &Control::passive(&model))
            .unwrap();
    }
    let origin = Vector3::new(state.q[0], state.q[1], state.q[2]);
    for _ in 0..steps {
        let report = sim
            .step(&mut state, &mut v, &Control::passive(&model))
            .unwrap();
        modes = report.contacts.iter().map(|c| c.mode).collect();
    }
    let position = Vector3::new(state.q[0], state.q[1], state.q[2]);
    ((position - origin).dot(&down), modes)
}

#[test]
fn box_on_incline_sticks_below_the_friction_angle() {
    // tan 0.3 = 0.309 < μ = 0.5: no drift over 1 s.
    let (travel, modes) = incline(0.3, 0.5, 1000);
    assert!(travel.abs() < 1e-6, "drifted {travel} m");
    assert!(!modes.is_empty() && modes.iter().all(|m| *m == ContactMode::Sticking));
}

#[test]
fn box_on_incline_slides_with_the_analytic_acceleration() {
    // tan 0.5 = 0.546 > μ = 0.3: a = g (sin θ − μ cos θ).
    let (tilt, mu, steps) = (0.5f64, 0.3, 500);
    let (travel, modes) = incline(tilt, mu, steps);
    let a = G * (tilt.sin() - mu * tilt.cos());
    // From speed 20 a Δt after the settling steps, symplectic Euler travels
    // Δt² a (20 k + k (k + 1) / 2) in k more steps.
    let k = steps as f64;
    let expected = a * 1e-6 * (20.0 * k + k * (k + 1.0) / 2.0);
    assert!(
        (travel - expected).abs() < 1e-3 * expected,
        "travel {travel} vs {expected}"
    );
    assert!(!modes.is_empty() && modes.iter().all(|m| *m == ContactMode::Sliding));
}

#[test]
fn stack_of_three_boxes_stands() {
    let model = cubes(&[0.0; 3], 0.1);
    let settings = NcpSettings::new(1e-3)
        .unwrap()
        .with_ground(Vector3::z(), 0.0)
        .unwrap();
    let mut sim = NcpSimulator::new(model.clone(), settings);
    let heights = [0.1, 0.3, 0.5];
    let mut state = start(&model, &heights.map(|z| Vector3::new(0.0, 0.0, z)));
    let mut v = DVector::zeros(18);
    for _ in 0..1000 {
        let report = sim
            .step(&mut state, &mut v, &Control::passive(&model))
            .unwrap();
        assert_eq!(report.contacts.len(), 12);
    }
    for (i, z) in heights.iter().enumerate() {
        let p = state.q.fixed_rows::<3>(6 * i);
        // Each contact layer settles at the penetration tolerance.
        let expected = z - (i + 1) as f64 * 1e-4;
        assert!(
            (p.z - expected).abs() < 1e-5,
            "box {i} at {} vs {expected}",
            p.z
        );
        assert!(p.xy().norm() < 1e-6);
    }
    assert!(v.amax() < 1e-5);
}

#[test]
fn newtons_cradle_with_zero_restitution_shares_the_momentum() {
    // Three boxes in a row along x on frictionless ice (no gravity), the first moving at
    // 1 m/s. With restitution 0 (the NCP's σ_N = 0 at contact) an impact is perfectly
    // inelastic: the bodies in contact move on together at the momentum-conserving speed
    // 1/3 m/s, so the last one does not take all the impulse as in the elastic cradle.
    let model = cubes(&[0.0; 3], 0.1);
    let settings = NcpSettings::new(1e-3)
        .unwrap()
        .with_gravity(Vector3::zeros())
        .unwrap()
        .with_friction(0.0)
        .unwrap();
    let mut sim = NcpSimulator::new(model.clone(), settings);
    let mut state = start(
        &model,
        &[
            Vector3::new(-0.25, 0.0, 0.0),
            Vector3::new(0.0, 0.0, 0.0),
            Vector3::new(0.2, 0.0, 0.0),
        ],
    );
    let mut v = DVector::zeros(18);
    v[0] = 1.0;
    for _ in 0..200 {
        sim.step(&mut state, &mut v, &Control::passive(&model))
            .unwrap();
    }
    let momentum: f64 = (0..3).map(|i| v[6 * i]).sum();
    assert!((momentum - 1.0).abs() < 1e-9, "momentum {momentum}");
    // Within 1e-5 m/s: the Baumgarte push-out of the impacts' overshoot below the
    // penetration tolerance moves a little momentum between the boxes.
    for i in 0..3 {
        assert!(
            (v[6 * i] - 1.0 / 3.0).abs() < 1e-5,
            "box {i} at {}",
            v[6 * i]
        );
    }
}

#[test]
fn pendulum_matches_the_analytic_period() {
    // A point-like 1 kg bob (a 2 cm cube) on a massless-looking 1 m arm: small swings have
    // period 2π √(l/g) (the cube's own inertia adds (2/3)(0.01)² to l² — a 7e-5 relative
    // change, below the tolerance).
    let corners = ConvexHull::cuboid(Vector3::repeat(0.01)).unwrap();
    let bob = ConvexHull::new(
        corners
            .vertices()
            .iter()
            .map(|p| p - Vector3::new(0.0, 0.0, 1.0))
            .collect(),
    )
    .unwrap();
    let arm = Link::new(
        "bob",
        None,
        Isometry3::identity(),
        JointKind::Revolute { axis: Vector3::x() },
        vec![bob],
        MassModel::Lumped { mass: 1.0 },
    );
    let model = Model::new(vec![arm]).unwrap();
    let dt = 1e-4;
    let mut sim = NcpSimulator::new(model.clone(), NcpSettings::new(dt).unwrap());
    let mut state = State::new(&model, DVector::from_vec(vec![0.05])).unwrap();
    let mut v = DVector::zeros(1);
    // Times of the downward zero crossings of q, interpolated within the step.
    let mut crossings = Vec::new();
    let mut previous = state.q[0];
    for step in 1..40_000 {
        sim.step(&mut state, &mut v, &Control::passive(&model))
            .unwrap();
        let q = state.q[0];
        if previous > 0.0 && q <= 0.0 {
            crossings.push(step as f64 * dt - dt * q / (q - previous));
        }
        previous = q;
    }
    let period = crossings[1] - crossings[0];
    let analytic = 2.0 * std::f64::consts::PI * (1.0 / G).sqrt();
    assert!(
        (period - analytic).abs() < 1e-3 * analytic,
        "period {period} vs {analytic}"
    );
}

#[test]
fn bad_step_inputs_are_typed_errors() {
    let model = cubes(&[0.0], 0.1);
    let mut sim = NcpSimulator::new(model.clone(), NcpSettings::new(1e-3).unwrap());
    let mut state = State::zero(&model);
    let mut short = DVector::zeros(3);
    assert!(matches!(
        sim.step(&mut state, &mut short, &Control::passive(&model)),
        Err(sdrs_ncp::NcpError::SizeMismatch { .. })
    ));
    let mut nan = DVector::from_element(6, f64::NAN);
    assert!(matches!(
        sim.step(&mut state, &mut nan, &Control::passive(&model)),
        Err(sdrs_ncp::NcpError::NonFinite { .. })
    ));
    let mut control = Control::passive(&model);
    control.force[2] = f64::INFINITY;
    let mut v = DVector::zeros(6);
    assert!(matches!(
        sim.step(&mut state, &mut v, &control),
        Err(sdrs_ncp::NcpError::NonFinite { .. })
    ));
    for bad in [
        NcpSettings::new(f64::NAN).err(),
        NcpSettings::new(1e-3).unwrap().with_friction(-0.1).err(),
        NcpSettings::new(1e-3).unwrap().with_margin(-1.0).err(),
        NcpSettings::new(1e-3)
            .unwrap()
            .with_drift_correction(1e-4, 1.5)
            .err(),
        NcpSettings::new(1e-3)
            .unwrap()
            .with_ground(Vector3::zeros(), 0.0)
            .err(),
    ] {
        assert!(matches!(
            bad,
            Some(sdrs_ncp::NcpError::InvalidSetting { .. })
        ));
    }
}
