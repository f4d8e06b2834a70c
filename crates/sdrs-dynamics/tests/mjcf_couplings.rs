//! MJCF fixed tendons, motors on tendons, equality constraints between joints and tendons,
//! and `springdamper`: MuJoCo's compiled stiffness and damping, MuJoCo's motion of a coupled
//! model (`coupled.xml`, recorded by `benches/reference/mjcf_coupling.py`), the manipulator's
//! fingers held together by their equality constraint while its grasp motor closes them, and
//! what stays refused.

use crate::mjcf::{Json, MODELS, data, load, reference};
use nalgebra::{DVector, Isometry3, Point3};
use sdrs_dynamics::{
    Kinematics, MjcfJointKind, MjcfOptions, Motion, Simulator, StepSettings, Transmission,
    mjcf_from_str,
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

/// `loop.xml` under the same controls as MuJoCo: a four-bar linkage closed by `<connect>` and
/// a block carried by its crank through `<weld>`, swinging down 3.3 rad in 1 s. The paths
/// differ by the implicit step's first-order error, which shrinks with the step: 2.9% of the
/// motion at MuJoCo's Δt = 2 ms, 0.65% at Δt/4 (run here, MuJoCo's control held over its
/// step), 0.39% at Δt/10 (MuJoCo's own discretisation error at 2 ms is 0.2%). The loop and the weld hold about as tightly as
/// MuJoCo's soft constraints.
#[test]
fn mjcf_loop_closures_move_as_in_mujoco() {
    let text = std::fs::read_to_string(data("loop_reference.json")).expect("reference");
    let r = Json::parse(&text);
    let mj = load("loop");
    let welds: Vec<(&str, bool)> = mj
        .model
        .welds()
        .iter()
        .map(|w| (w.name.as_str(), w.torsion > 0.0))
        .collect();
    assert_eq!(welds, [("equality close", false), ("equality carry", true)]);
    // `<flag contact="disable"/>`: no link touches another (the connected ends overlap).
    let n = mj.model.links().len();
    assert!((0..n).all(|a| (0..n).all(|b| a == b || !mj.model.may_touch(a, b, false))));
    let substeps = 4;
    let dt = mj.timestep / substeps as f64;
    let mut settings = StepSettings::new(dt).unwrap();
    settings.tolerance = 1e-10;
    let mut sim = Simulator::new(mj.model.clone(), settings).unwrap();
    let mut motion = Motion::at_rest(&mj.model, mj.initial_state());
    let link = |name: &str| mj.body(name).unwrap();
    let (coupler, rocker, block, crank) = (
        link("coupler"),
        link("rocker"),
        link("block"),
        link("crank"),
    );
    let anchor = Point3::new(0.5, 0.0, 0.3);
    let rocker_end = Point3::new(0.1, 0.0, 0.3);
    let world = |kin: &Kinematics, (l, offset): (usize, Isometry3<f64>)| kin.poses()[l] * offset;
    let start = Kinematics::new(&mj.model, &motion.state);
    let carried = world(&start, crank).inverse() * world(&start, block);
    let every = r.get("every").number() as usize;
    let (mut worst, mut scale) = (0.0f64, 0.0f64);
    let (mut gap, mut shift, mut turn) = (0.0f64, 0.0f64, 0.0f64);
    let qpos0 = DVector::from_vec(r.get("qpos0").numbers());
    for (k, sample) in r.get("samples").list().iter().enumerate() {
        for s in 0..every * substeps {
            // MuJoCo's control, held over its step.
            let time = ((k * every + s / substeps) as f64) * mj.timestep;
            let u = 0.5 * (2.0 * std::f64::consts::PI * time).sin();
            sim.advance(&mut motion, &mj.step_control(Some(&[u])).unwrap())
                .unwrap();
            let kin = Kinematics::new(&mj.model, &motion.state);
            let ends = world(&kin, coupler) * anchor - world(&kin, rocker) * rocker_end;
            gap = gap.max(ends.norm());
            let error = (world(&kin, crank) * carried).inverse() * world(&kin, block);
            shift = shift.max(error.translation.vector.norm());
            turn = turn.max(error.rotation.angle());
        }
        // The hinges and the block's position (its quaternion's sign is a convention).
        let ours = mj.qpos(&motion.state).unwrap();
        let theirs = DVector::from_vec(sample.get("qpos").numbers());
        worst = worst.max((ours.rows(0, 6) - theirs.rows(0, 6)).amax());
        scale = scale.max((theirs.rows(0, 6) - qpos0.rows(0, 6)).amax());
    }
    let (mj_gap, mj_shift, mj_turn) = (
        r.get("largest_gap").number(),
        r.get("largest_shift").number(),
        r.get("largest_turn").number(),
    );
    eprintln!(
        "loop: largest difference {worst:.3e} over a motion of {scale:.3}; connect gap \
         {gap:.2e} (MuJoCo {mj_gap:.2e}), weld shift {shift:.2e} ({mj_shift:.2e}), turn \
         {turn:.2e} rad ({mj_turn:.2e})"
    );
    assert!(scale > 1.0, "the linkage moved {scale}");
    assert!(
        worst < 0.02 * scale,
        "paths differ by {worst} over a motion of {scale}"
    );
    for (ours, theirs, what) in [
        (gap, mj_gap, "gap"),
        (shift, mj_shift, "shift"),
        (turn, mj_turn, "turn"),
    ] {
        assert!(
            ours > 0.3 * theirs && ours < 3.0 * theirs,
            "{what}: {ours:e} against MuJoCo's {theirs:e}"
        );
    }
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
            "<equality><distance geom1='a' geom2='b'/></equality>",
            "distance equality constraints are not supported (allowed: joint, tendon, connect, \
             weld)",
        ),
        (
            "<equality><connect body1='nope' anchor='0 0 0'/></equality>",
            "body 'nope' is not defined",
        ),
        (
            "<equality><weld site1='a' site2='b'/></equality>",
            "site-based connect and weld constraints are not supported",
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
