//! Joint-space terms of the step: dry joint friction ([`Link::friction`], MJCF `frictionloss`)
//! and rotor inertia ([`Link::armature`]): the objective's derivatives and the step's mixed
//! blocks against differences, a joint that holds below its friction and slides above it at
//! the analytic rate, an armature that slows a joint as the inertia it adds says, and the MJCF
//! mapping (the step's inertia against MuJoCo's mass matrix is in `mjcf.rs`).

use crate::backward::check;
use nalgebra::{DVector, Isometry3, Vector3};
use sdrs_dynamics::scenes::{chain, rotating_chains};
use sdrs_dynamics::{
    Control, DynamicsError, JointKind, Link, MassModel, MjcfOptions, Model, Motion, Simulator,
    State, StepSettings, UrdfOptions, mjcf_from_str, urdf_from_str,
};
use sdrs_geometry::ConvexHull;
use std::path::Path;

/// A 1 kg box (vertex-lumped, half extents 0.1) turning about the vertical axis through its
/// centre, so gravity exerts no torque: its inertia about the axis is `m (a² + b²)` = 0.02 kg·m².
fn turntable(friction: f64) -> Model {
    let cube = ConvexHull::cuboid(Vector3::repeat(0.1)).unwrap();
    let link = Link::new(
        "table",
        None,
        Isometry3::identity(),
        JointKind::Revolute { axis: Vector3::z() },
        vec![cube],
        MassModel::Lumped { mass: 1.0 },
    )
    .with_friction(friction);
    Model::new(vec![link]).unwrap()
}

/// The turntable's angle after `steps` steps of 10 ms from rest under a constant torque
/// (Newton to 1e-10, so that the runs compare to that).
fn turn(friction: f64, torque: f64, steps: usize) -> f64 {
    let model = turntable(friction);
    let mut settings = StepSettings::new(0.01).unwrap();
    settings.tolerance = 1e-10;
    let mut sim = Simulator::new(model.clone(), settings).unwrap();
    let mut control = Control::passive(&model);
    control.force[0] = torque;
    let mut motion = Motion::at_rest(&model, State::zero(&model));
    for _ in 0..steps {
        sim.advance(&mut motion, &control).unwrap();
    }
    motion.state.q[0]
}

#[test]
fn a_joint_holds_below_its_friction_and_slides_above_it_at_the_net_torque() {
    let (f, inertia, dt, n) = (0.1, 0.02, 0.01, 50);
    // Half the friction: it creeps at about ε τ/√(f² − τ²) (ε = 1e-4 rad/s), 0.5 s × 5.8e-5.
    let held = turn(f, 0.5 * f, n);
    assert!(held.abs() < 1e-4, "held joint moved {held} rad");
    // Twice the friction: it turns as the frictionless joint does under the net torque τ − f
    // (the smoothing's force deficit f (1 − v/√(v² + ε²)) is below 1e-5 f at v ≥ 0.05 rad/s).
    let slid = turn(f, 2.0 * f, n);
    let net = turn(0.0, f, n);
    assert!((slid - net).abs() < 1e-5 * net, "{slid} rad vs {net}");
    // And that is the implicit step's turn under a constant torque from rest, α Δt² n(n + 1)/2
    // (as free fall, one step behind ½ α t²), up to the position-level step's chord
    // prediction of a rotation (second order in the turn per step).
    let expected = f / inertia * dt * dt * (n * (n + 1)) as f64 / 2.0;
    assert!(
        (net - expected).abs() < 5e-3 * expected,
        "{net} vs {expected}"
    );
}

#[test]
fn the_objective_with_joint_friction_has_its_gradient_and_hessian() {
    let model = turntable(0.3);
    let mut sim = Simulator::new(model.clone(), StepSettings::new(0.01).unwrap()).unwrap();
    let current = State::zero(&model);
    let previous = vec![Isometry3::identity()];
    let control = Control::passive(&model);
    // Moves of the joint from below the smoothing velocity (ε Δt = 1e-6 rad) to well above.
    for dq in [0.0, 3e-7, -2e-6, 4e-5, -1e-3] {
        let mut at = |q: f64| {
            let next = State::new(&model, DVector::from_element(1, q)).unwrap();
            sim.objective(&next, &current, &previous, &control)
                .unwrap()
                .expect("finite")
        };
        let o = at(dq);
        let h = 1e-9;
        let (up, down) = (at(dq + h), at(dq - h));
        let gradient = (up.value - down.value) / (2.0 * h);
        let hessian = (up.gradient[0] - down.gradient[0]) / (2.0 * h);
        assert!(
            (gradient - o.gradient[0]).abs() < 1e-5 * o.gradient[0].abs().max(1.0),
            "dq {dq}: gradient {} vs differences {gradient}",
            o.gradient[0]
        );
        assert!(
            (hessian - o.hessian[(0, 0)]).abs() < 1e-5 * o.hessian[(0, 0)].abs(),
            "dq {dq}: Hessian {} vs differences {hessian}",
            o.hessian[(0, 0)]
        );
    }
}

#[test]
fn step_blocks_match_differences_with_joint_friction_on_colliding_chains() {
    let mut scene = rotating_chains(3, 0.01).unwrap();
    // A smoothing far above the differences' velocity steps (1e-6 rad / 10 ms), so that they
    // resolve the friction's curvature at every joint speed.
    scene.settings.joint_friction_velocity = 0.05;
    let links: Vec<Link> = scene
        .model
        .links()
        .iter()
        .map(|l| l.clone().with_friction(0.2))
        .collect();
    scene.model = Model::new(links).unwrap();
    assert!(!scene.model.joint_friction().is_empty());
    let n = scene.model.dof();
    scene.control.kp = DVector::from_element(n, 1.0);
    scene.control.position = DVector::from_fn(n, |k, _| 0.1 * (k as f64).sin());
    check(scene, 60);
}

#[test]
fn step_blocks_match_differences_with_armature() {
    // Colliding chains (a revolute hub at the root), and a swinging chain of revolute and
    // prismatic joints below parents (both of θ^{t−1}'s dependences on the parent's pose).
    let mut chains = rotating_chains(3, 0.01).unwrap();
    chains.model = with_armature(&chains.model, 0.05);
    let n = chains.model.dof();
    chains.control.kp = DVector::from_element(n, 1.0);
    chains.control.position = DVector::from_fn(n, |k, _| 0.1 * (k as f64).sin());
    check(chains, 60);
    let mut swing = chain(4, 0.01).unwrap();
    let mut links = swing.model.links().to_vec();
    links[2].joint = JointKind::Prismatic {
        axis: Vector3::new(1.0, 0.0, 1.0).normalize(),
    };
    swing.model = with_armature(&Model::new(links).unwrap(), 0.01);
    swing.control.kp = DVector::from_element(4, 5.0);
    assert_eq!(swing.model.joint_armature().len(), 4);
    check(swing, 12);
}

/// `model` with rotor inertia `armature` on every revolute and prismatic joint.
fn with_armature(model: &Model, armature: f64) -> Model {
    let links = model
        .links()
        .iter()
        .map(|l| match l.joint {
            JointKind::Revolute { .. } | JointKind::Prismatic { .. } => {
                l.clone().with_armature(armature)
            }
            _ => l.clone(),
        })
        .collect();
    Model::new(links).unwrap()
}

#[test]
fn armature_adds_its_inertia_to_the_joints() {
    // The turntable (0.02 kg·m²) with a rotor of 0.02 kg·m² turns half as far under a torque.
    let turn_with = |armature: f64| {
        let link = turntable(0.0).links()[0].clone().with_armature(armature);
        let model = Model::new(vec![link]).unwrap();
        let mut sim = Simulator::new(model.clone(), StepSettings::new(0.01).unwrap()).unwrap();
        let mut control = Control::passive(&model);
        control.force[0] = 0.01;
        let mut motion = Motion::at_rest(&model, State::zero(&model));
        for _ in 0..20 {
            sim.advance(&mut motion, &control).unwrap();
        }
        motion.state.q[0]
    };
    let (bare, geared) = (turn_with(0.0), turn_with(0.02));
    assert!(
        (geared - 0.5 * bare).abs() < 1e-3 * bare,
        "{geared} vs {bare}"
    );
    let bad = turntable(0.0).links()[0].clone().with_armature(-1.0);
    assert!(matches!(
        Model::new(vec![bad]),
        Err(DynamicsError::BadArmature { .. })
    ));
}

#[test]
fn mjcf_frictionloss_is_the_joints_friction_and_bad_friction_is_refused() {
    let xml = r#"<mujoco><worldbody><body name="arm" pos="0 0 1">
        <joint name="swing" axis="0 1 0" frictionloss="0.2"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.05"/>
        <body name="hand" pos="0 0 -0.5"><joint name="wrist" axis="0 1 0"/><geom size="0.05"/></body>
      </body></worldbody></mujoco>"#;
    let mj = mjcf_from_str(xml, Path::new("."), &MjcfOptions::default()).unwrap();
    assert_eq!(mj.joints[0].frictionloss, 0.2);
    assert_eq!(mj.model.joint_friction(), [(0, 0.2)]);
    let message = mjcf_from_str(
        &xml.replace("0.2", "-0.2"),
        Path::new("."),
        &MjcfOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        message.contains("frictionloss = -0.2 must be non-negative"),
        "{message}"
    );
    let link = turntable(0.0).links()[0].clone().with_friction(f64::NAN);
    assert!(matches!(
        Model::new(vec![link]),
        Err(DynamicsError::BadFriction { .. })
    ));
}

#[test]
fn urdf_dynamics_friction_is_read_when_asked() {
    let urdf = |friction: &str| {
        format!(
            r#"<robot name="arm">
              <link name="base"/>
              <link name="upper"><inertial><mass value="1"/>
                <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
              <link name="tool"><inertial><mass value="0.5"/>
                <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
              <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
                <limit lower="-1" upper="1" effort="1" velocity="1"/>
                <dynamics damping="0.3" friction="{friction}"/></joint>
              <joint name="flange" type="fixed"><parent link="upper"/><child link="tool"/>
                <dynamics friction="5"/></joint>
            </robot>"#
        )
    };
    let load = |friction: &str, read: bool| {
        let options = UrdfOptions {
            joint_friction: read,
            ..UrdfOptions::default()
        };
        urdf_from_str(&urdf(friction), Path::new("."), &options)
    };
    // Off by default; on, the moving joint's friction (the fixed joint's is left alone).
    assert!(load("0.7", false).unwrap().joint_friction().is_empty());
    assert_eq!(load("0.7", true).unwrap().joint_friction(), [(0, 0.7)]);
    let message = load("-0.7", true).unwrap_err().to_string();
    assert!(
        message.contains(":9:") && message.contains("friction=\"-0.7\" must be >= 0"),
        "{message}"
    );
}
