//! MJCF fixed tendons, motors on tendons, equality constraints between joints and tendons,
//! and `springdamper`: MuJoCo's compiled stiffness and damping, MuJoCo's motion of a coupled
//! model (`coupled.xml`, recorded by `benches/reference/mjcf_coupling.py`), the manipulator's
//! fingers held together by their equality constraint while its grasp motor closes them, and
//! what stays refused.

use crate::mjcf::{Json, MODELS, data, load, reference};
use nalgebra::DVector;
use sdrs_dynamics::{
    MjcfJointKind, MjcfOptions, Motion, Simulator, StepSettings, Transmission, mjcf_from_str,
};
use std::path::Path;

/// Every hinge and slide joint's stiffness and damping are MuJoCo's compiled ones, including
/// those `springdamper` derives from the inertia at `qpos0` (two joints of `features.xml`).
#[test]
fn mjcf_springdamper_gives_mujocos_stiffness_and_damping() {
    let reference = reference();
    let mut derived = 0;
    for name in MODELS {
        let mj = load(name);
        let r = reference.get("models").get(name);
        let (stiffness, damping) = (r.get("stiffness").numbers(), r.get("damping").numbers());
        for (index, j) in mj.joints.iter().enumerate() {
            if !matches!(j.kind, MjcfJointKind::Hinge | MjcfJointKind::Slide) {
                continue;
            }
            derived += usize::from(j.springdamper.is_some());
            let close = |ours: f64, theirs: f64| (ours - theirs).abs() <= 1e-9 * theirs.abs();
            assert!(
                close(j.stiffness, stiffness[index]),
                "{name} joint {:?}: stiffness {} vs MuJoCo {}",
                j.name,
                j.stiffness,
                stiffness[index]
            );
            assert!(
                close(j.damping, damping[j.dof]),
                "{name} joint {:?}: damping {} vs MuJoCo {}",
                j.name,
                j.damping,
                damping[j.dof]
            );
        }
    }
    assert_eq!(derived, 2, "features.xml's two springdamper joints");
}

/// `coupled.xml` under the same controls as MuJoCo: the equality constraint (b = 0.1 + 0.5 a),
/// the tendon spring and damper between the first pendulum and the cart, and the motor on a
/// second tendon. The two integrators differ (MuJoCo's semi-implicit Euler, sdrs's implicit
/// position-level step) and so do the soft constraints (module docs of the importer's
/// couplings), so the paths agree to about a per cent of the motion (0.63% measured), not to
/// round-off; the constraint holds loads as tightly in both (violation 3.3e-4 against
/// MuJoCo's 3.9e-4).
#[test]
fn mjcf_coupled_joints_move_as_in_mujoco() {
    let text = std::fs::read_to_string(data("coupled_reference.json")).expect("reference");
    let r = Json::parse(&text);
    let mj = load("coupled");
    assert_eq!(
        mj.model
            .tendons()
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["tie", "drive", "equality pair"]
    );
    assert!(matches!(
        mj.actuators[0].transmission,
        Transmission::Tendon { index: 1 }
    ));
    let mut qpos = r.get("qpos0").numbers();
    qpos[1] = r.get("start_b").number();
    let state = mj.state_from_qpos(&qpos).unwrap();
    let mut settings = StepSettings::new(mj.timestep).unwrap();
    settings.tolerance = 1e-10;
    let mut sim = Simulator::new(mj.model.clone(), settings).unwrap();
    let mut motion = Motion::at_rest(&mj.model, state);
    let every = r.get("every").number() as usize;
    let (mut worst, mut scale, mut violation) = (0.0f64, 0.0f64, 0.0f64);
    for (k, sample) in r.get("samples").list().iter().enumerate() {
        for s in 0..every {
            let time = ((k * every + s) as f64) * mj.timestep;
            let u = (2.0 * std::f64::consts::PI * time).sin();
            let control = mj.step_control(Some(&[u])).unwrap();
            sim.advance(&mut motion, &control).unwrap();
            let q = &motion.state.q;
            violation = violation.max((q[1] - 0.1 - 0.5 * q[0]).abs());
        }
        let ours = mj.qpos(&motion.state).unwrap();
        let theirs = DVector::from_vec(sample.get("qpos").numbers());
        worst = worst.max((&ours - &theirs).amax());
        scale = scale.max((&theirs - DVector::from_vec(r.get("qpos0").numbers())).amax());
    }
    let mujoco_violation = r.get("largest_violation").number();
    eprintln!(
        "coupled: largest difference {worst:.3e} over a motion of {scale:.3}; constraint \
         violation {violation:.2e} (MuJoCo {mujoco_violation:.2e})"
    );
    assert!(scale > 0.3, "the model moved {scale}");
    assert!(
        worst < 0.015 * scale,
        "paths differ by {worst} over a motion of {scale}"
    );
    assert!(
        violation > 0.5 * mujoco_violation && violation < 1.5 * mujoco_violation,
        "constraint violated by {violation}"
    );
}

/// The manipulator's grasp motor pushes along `thumb + finger` while the equality constraint
/// holds `finger − thumb` at its `qpos0` value: the fingers close together.
#[test]
fn mjcf_manipulator_fingers_close_together() {
    let mj = load("dm_control/manipulator");
    let dof = |name: &str| mj.model.dof_offset(mj.model.joint_link(name).unwrap());
    let (thumb, finger) = (dof("thumb"), dof("finger"));
    let mut settings = StepSettings::new(mj.timestep).unwrap();
    settings.gravity = 0.0;
    let mut sim = Simulator::new(mj.model.clone(), settings).unwrap();
    let mut state = mj.initial_state();
    mj.model
        .clamp_inside_limits(&mut state, sim.settings().limit_support);
    let mut motion = Motion::at_rest(&mj.model, state);
    let control = mj.step_control(Some(&[0.0, 0.0, 0.0, 0.0, 1.0])).unwrap();
    for _ in 0..100 {
        sim.advance(&mut motion, &control).unwrap();
    }
    let q = &motion.state.q;
    eprintln!("thumb {:.4} rad, finger {:.4} rad", q[thumb], q[finger]);
    assert!(
        q[thumb] > 0.05 && q[finger] > 0.05,
        "the grasp closed the fingers"
    );
    assert!(
        (q[thumb] - q[finger]).abs() < 0.02 * q[thumb],
        "thumb {} and finger {} move together",
        q[thumb],
        q[finger]
    );
}

/// Tendons and constraints sdrs does not model are refused by name, with the line.
#[test]
fn mjcf_unsupported_couplings_are_refused() {
    let body = "<worldbody><body><joint name='a'/><geom size='0.1'/><body pos='0 0 -0.3'>\
                <joint name='b'/><geom size='0.1'/></body></body></worldbody>";
    let message = |rest: &str| {
        mjcf_from_str(
            &format!("<mujoco>\n{body}\n{rest}</mujoco>"),
            Path::new("."),
            &MjcfOptions::default(),
        )
        .unwrap_err()
        .to_string()
    };
    let cases = [
        (
            "<tendon><spatial name='s'><site site='x'/></spatial></tendon>",
            "<spatial name='s'>: spatial tendons are not supported (allowed: fixed)",
        ),
        (
            "<equality><connect body1='a' anchor='0 0 0'/></equality>",
            "connect equality constraints are not supported (allowed: joint, tendon)",
        ),
        (
            "<equality><joint joint1='a' joint2='b' polycoef='0 1 0.5 0 0'/></equality>",
            "quadratic or higher terms is not supported",
        ),
        (
            "<tendon><fixed name='t'><joint joint='a' coef='1'/></fixed></tendon>\
             <actuator><position tendon='t'/></actuator>",
            "<position> actuators on tendons are not supported (allowed on a tendon: motor)",
        ),
        (
            "<tendon><fixed name='t' frictionloss='1'><joint joint='a'/></fixed></tendon>",
            "tendon frictionloss is not supported (allowed: 0)",
        ),
        (
            "<tendon><fixed name='t'><joint joint='nope'/></fixed></tendon>",
            "joint 'nope' is not defined",
        ),
        (
            "<equality><tendon tendon1='t'/></equality>",
            "tendon 't' is not defined",
        ),
    ];
    for (xml, expected) in cases {
        let m = message(xml);
        assert!(
            m.contains(expected) && m.contains("<string>:3"),
            "{xml}: {m}"
        );
    }
}
