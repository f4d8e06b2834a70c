//! SRDF import, and the seven real robots of `sdrs-robot-data` loaded with their SRDFs.

use sdrs_dynamics::srdf::Srdf;
use sdrs_dynamics::{DynamicsError, JointKind, Model, State, UrdfOptions, load_urdf};
use sdrs_robot_data::{ROBOTS, Robot, package_path};

/// A robot's model with its SRDF applied.
struct Loaded {
    model: Model,
    srdf: Srdf,
    applied: usize,
    unknown: usize,
}

fn load(robot: &Robot) -> Loaded {
    let options = UrdfOptions {
        package_paths: vec![package_path().unwrap()],
        floating_base: robot.floating_base,
        ..UrdfOptions::default()
    };
    let mut model = load_urdf(robot.urdf_path().unwrap(), &options)
        .unwrap_or_else(|e| panic!("{}: {e}", robot.name));
    let srdf = Srdf::from_file(robot.srdf_path().unwrap()).unwrap();
    let report = srdf.apply(&mut model).unwrap();
    Loaded {
        model,
        srdf,
        applied: report.applied,
        unknown: report.unknown.len(),
    }
}

/// The DoFs of `state` outside their joint's limits, by name.
fn outside_limits(model: &Model, state: &State) -> Vec<String> {
    model
        .links()
        .iter()
        .enumerate()
        .filter_map(|(i, link)| {
            let (lower, upper) = link.limits?;
            let v = state.q[model.dof_offset(i)];
            (!(v >= lower && v <= upper))
                .then(|| format!("{} = {v} outside ({lower}, {upper})", link.joint_label()))
        })
        .collect()
}

/// The lowest hull vertex (world z) in `state`.
fn lowest_point(model: &Model, state: &State) -> f64 {
    let (poses, _) =
        sdrs_dynamics::forward_kinematics(model, state.q.as_slice(), &state.references);
    model
        .links()
        .iter()
        .zip(&poses)
        .flat_map(|(link, pose)| {
            link.hulls
                .iter()
                .flat_map(move |h| h.vertices().iter().map(move |v| (pose * v).z))
        })
        .fold(f64::INFINITY, f64::min)
}

/// Per robot: links, DoF, hulls, SRDF pairs applied (none is unknown in these seven).
const EXPECTED: &[(&str, usize, usize, usize, usize)] = &[
    ("ur5", 11, 6, 21, 10),
    ("panda", 13, 9, 32, 35),
    ("solo12", 17, 18, 44, 12),
    ("a1", 23, 18, 22, 164),
    ("anymal", 78, 18, 45, 270),
    ("talos", 60, 38, 130, 459),
    ("hyq", 19, 18, 66, 45),
];

/// Every robot loads with its SRDF; its named state builds, respects the joint limits, and
/// (for the legged robots) puts the feet on the ground.
#[test]
fn every_robot_loads_with_its_srdf_and_stands() {
    assert_eq!(ROBOTS.len(), EXPECTED.len());
    for (robot, &(name, links, dof, hulls, pairs)) in ROBOTS.iter().zip(EXPECTED) {
        assert_eq!(robot.name, name);
        let start = std::time::Instant::now();
        let Loaded {
            model,
            srdf,
            applied,
            unknown,
        } = load(robot);
        let counted: usize = model.links().iter().map(|l| l.hulls.len()).sum();
        eprintln!(
            "{name}: {} links, {} DoF, {counted} hulls, SRDF pairs {applied} applied / {unknown} unknown ({:.1} s)",
            model.links().len(),
            model.dof(),
            start.elapsed().as_secs_f64()
        );
        assert_eq!(
            (model.links().len(), model.dof(), counted),
            (links, dof, hulls),
            "{name}"
        );
        assert_eq!((applied, unknown), (pairs, 0), "{name}");
        assert_eq!(
            model.links()[0].joint == JointKind::Free,
            robot.floating_base,
            "{name}"
        );
        assert!(model.links().iter().all(|l| l.hulls.iter().all(|h| {
            h.vertices()
                .iter()
                .all(|v| v.coords.iter().all(|x| x.is_finite()))
        })));
        let Some(standing) = robot.standing else {
            assert!(srdf.states.is_empty(), "{name}");
            continue;
        };
        let state = srdf.state(&model, standing).unwrap();
        state.check(&model).unwrap();
        assert_eq!(
            outside_limits(&model, &state),
            Vec::<String>::new(),
            "{name} '{standing}'"
        );
        let lowest = lowest_point(&model, &state);
        eprintln!("  '{standing}': within limits, lowest point z = {lowest:.4} m");
        assert!(
            lowest.abs() < 0.03,
            "{name} '{standing}': lowest point {lowest}"
        );
    }
}

#[test]
fn srdf_extras_are_read_and_errors_name_the_line() {
    let talos = Srdf::from_file(
        sdrs_robot_data::robot("talos")
            .unwrap()
            .srdf_path()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(talos.passive_joints.len(), 12);
    assert!(
        talos
            .rotors
            .iter()
            .any(|r| r.joint == "arm_left_1_joint" && r.gear_ratio == 100.0)
    );
    assert_eq!(talos.floating_base(), None);
    let a1 = Srdf::from_file(sdrs_robot_data::robot("a1").unwrap().srdf_path().unwrap()).unwrap();
    assert_eq!(a1.floating_base(), Some(true));
    assert_eq!(a1.state_names(), ["standing"]);
    // Unknown state names list the ones there are.
    let robot = sdrs_robot_data::robot("hyq").unwrap();
    let Loaded { model, srdf, .. } = load(robot);
    let err = srdf.state(&model, "sitting").unwrap_err();
    assert!(
        matches!(&err, DynamicsError::UnknownName { known, .. } if known == "standing, straight_standing"),
        "{err}"
    );
    // Joints not listed keep the base state's values.
    let mut base = State::zero(&model);
    let last = model.dof() - 1;
    base.q[last] = -0.25;
    let partial = Srdf::from_str(r#"<robot name="hyq"><group_state name="up" group="g"><joint name="lf_haa_joint" value="0.1"/></group_state></robot>"#).unwrap();
    let up = partial.state_from(&model, "up", &base).unwrap();
    assert_eq!(up.q[last], -0.25);
    assert_eq!(
        up.q[model.dof_offset(model.joint_link("lf_haa_joint").unwrap())],
        0.1
    );
    // Bad values, counts and names say where.
    for (body, line, what) in [
        (
            r#"<joint name="lf_haa_joint" value="0.1 0.2"/>"#,
            3,
            "a revolute joint takes 1",
        ),
        (
            r#"<joint name="root_joint" value="0 0 1 0 0 0 0"/>"#,
            3,
            "must be non-zero",
        ),
        (
            r#"<joint name="lf_haa_joint" value="nan"/>"#,
            3,
            "finite numbers",
        ),
    ] {
        let text = format!(
            "<robot name=\"r\">\n<group_state name=\"s\" group=\"g\">\n{body}\n</group_state>\n</robot>"
        );
        let err = Srdf::from_str(&text)
            .and_then(|s| s.state(&model, "s"))
            .unwrap_err();
        assert!(
            matches!(&err, DynamicsError::UrdfElement { format: "SRDF", line: l, .. } if *l == line)
                && err.to_string().contains(what),
            "{body}: {err}"
        );
    }
    // Entries the model cannot take are skipped with a warning, as Pinocchio does: a joint
    // the URDF does not have (romeo.srdf's toes for romeo_small.urdf), values for a joint it
    // fixes (icub.srdf's neck); the rest of the state applies.
    let fixed = model
        .links()
        .iter()
        .find(|l| l.parent.is_some() && l.joint == JointKind::Fixed)
        .expect("hyq has fixed joints")
        .joint_label();
    let text = format!(
        "<robot name=\"r\">\n<group_state name=\"s\" group=\"g\">\n\
         <joint name=\"LToePitch\" value=\"0.2\"/>\n\
         <joint name=\"lf_haa_joint\" value=\"0.1\"/>\n\
         <joint name=\"{fixed}\" value=\"1\"/>\n</group_state>\n</robot>"
    );
    let srdf = Srdf::from_str(&text).unwrap();
    let configured = srdf.configuration(&model, "s", &base).unwrap();
    assert_eq!(
        configured.state.q[model.dof_offset(model.joint_link("lf_haa_joint").unwrap())],
        0.1
    );
    assert_eq!(
        configured.state,
        srdf.state_from(&model, "s", &base).unwrap()
    );
    let skipped: Vec<(u32, String)> = configured
        .skipped
        .iter()
        .map(|w| (w.line, w.to_string()))
        .collect();
    assert_eq!(skipped.len(), 2, "{skipped:?}");
    assert_eq!(skipped[0].0, 3);
    assert!(
        skipped[0]
            .1
            .starts_with("SRDF <string>:3: group_state 's' joint 'LToePitch': ")
            && skipped[0].1.contains("no joint named 'LToePitch'")
            && skipped[0].1.ends_with("entry skipped"),
        "{}",
        skipped[0].1
    );
    assert_eq!(skipped[1].0, 5);
    assert!(
        skipped[1]
            .1
            .contains("1 values given for a joint the model fixes"),
        "{}",
        skipped[1].1
    );
    let err = Srdf::from_str("<robot>\n<disable_collisions link1=\"a\"/>\n</robot>").unwrap_err();
    assert_eq!(
        err.to_string(),
        "SRDF <string>:2: <disable_collisions>: attribute 'link2' is missing (<disable_collisions> needs it)"
    );
    let err = Srdf::from_file("/no/such.srdf").unwrap_err();
    assert!(err.to_string().contains("/no/such.srdf"), "{err}");
}
