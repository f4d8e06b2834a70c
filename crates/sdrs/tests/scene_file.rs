//! Scene files: example scenes load, build and run; descriptions round-trip through TOML;
//! malformed files are refused with their line and key; robots come from URDF or MJCF.

use nalgebra::{UnitQuaternion, Vector3};
use sdrs::contact::long_range::FarField;
use sdrs::dynamics::{ContactKind, Control, Kinematics, NewtonStart, State};
use sdrs::scene::{
    ContactDescription, ContactModelName, JointControlDescription, ObjectDescription,
    PoseDescription, RobotDescription, Scene, SceneDescription, SceneError, SceneSetup,
    ShapeDescription, SolverDescription,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn example(name: &str) -> PathBuf {
    workspace().join("examples/scenes").join(name)
}

fn test_data() -> PathBuf {
    workspace().join("crates/sdrs-dynamics/tests/data")
}

/// The scene's TOML read back gives the same description.
fn assert_round_trip(scene: &Scene) {
    let text = scene.to_toml().unwrap();
    let again = Scene::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(again.description, scene.description, "{text}");
}

#[test]
fn box_stack_example_stands() {
    let scene = Scene::from_file(example("box_stack.toml")).unwrap();
    assert_round_trip(&scene);
    let d = &scene.description;
    assert_eq!((d.dt, d.steps, d.ground), (0.01, Some(100), true));
    assert_eq!(d.contact.friction, Some(0.5));
    let mut setup = scene.build().unwrap();
    // The ground, then the three boxes.
    assert_eq!(
        setup
            .object_links
            .iter()
            .map(|l| l.index())
            .collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
    assert_eq!(setup.model.link_index("top").unwrap(), 3);
    // The top box is solid: 500 kg/m³ × (0.2 m)³ = 4 kg.
    assert!((setup.model.mass(3) - 4.0).abs() < 1e-9);
    let start = setup.motion.state.q.clone();
    let yaw = UnitQuaternion::from_euler_angles(0.0, 0.0, 0.3);
    assert!(setup.motion.state.references[3].angle_to(&UnitQuaternion::identity()) < 1e-12);
    assert!(setup.model.links()[3].attachment.rotation.angle_to(&yaw) < 1e-12);
    for _ in 0..setup.steps.unwrap() {
        setup
            .simulator
            .advance(&mut setup.motion, &setup.control)
            .unwrap();
    }
    // One second later the stack still stands where it was put.
    let moved = (&setup.motion.state.q - start).amax();
    assert!(moved < 2e-3, "moved {moved}");
}

#[test]
fn ur5_example_is_held_by_pd() {
    let data = sdrs_robot_data::package_path().unwrap();
    let scene = Scene::from_file(example("ur5_pd.toml"))
        .unwrap()
        .with_package_path(data);
    assert_round_trip(&scene);
    let mut setup = scene.build().unwrap();
    let model = &setup.model;
    assert_eq!(model.dof(), 6);
    let lift = model.dof_offset(model.joint_link("shoulder_lift_joint").unwrap());
    let elbow = model.dof_offset(model.joint_link("elbow_joint").unwrap());
    assert_eq!(setup.motion.state.q[lift], -1.0);
    assert_eq!(setup.motion.state.q[elbow], 1.2);
    // "*" holds every joint at its start; the shoulder's own entry overrides it.
    assert!(setup.control.kp.iter().all(|&k| k == 20000.0));
    assert_eq!(setup.control.position[elbow], 1.2);
    assert_eq!(setup.control.position[lift], -1.1);
    for _ in 0..setup.steps.unwrap() {
        setup
            .simulator
            .advance(&mut setup.motion, &setup.control)
            .unwrap();
    }
    // The PD spring of 2e4 N·m/rad outweighs gravity's tens of N·m: every joint ends
    // within 0.05 rad of its target.
    let error = (&setup.motion.state.q - &setup.control.position).amax();
    assert!(error < 0.05, "error {error}");
}

#[test]
fn robot_from_urdf_and_srdf_with_prefix_group_state_and_object() {
    let text = r#"
        dt = 0.01
        gravity = 0.0
        package_paths = ["."]

        [[robot]]
        urdf = "arm.urdf"
        srdf = "arm.srdf"
        prefix = "left_"
        group_state = "home"
        start = { slide = 0.15 }
        base = { xyz = [0.0, 0.5, 0.0], quaternion = [0.0, 0.0, 0.0, 1.0] }
        control = { wrist = { kp = 3.0, kd = 0.5, force = 0.25 } }

        [[object]]
        name = "ball"
        shape = { type = "sphere", radius = 0.05, subdivisions = 1 }
        mass = 0.2
        pose = { xyz = [1.0, 0.0, 1.0] }
    "#;
    let scene = Scene::from_str(text).unwrap().with_directory(test_data());
    assert_round_trip(&scene);
    let setup = scene.build().unwrap();
    assert!(
        setup.mjcf.len() == 1 && setup.mjcf[0].is_none(),
        "a URDF robot has no MJCF file"
    );
    let model = &setup.model;
    let q = |joint: &str| {
        let dof = model.dof_offset(model.joint_link(joint).unwrap());
        (dof, setup.motion.state.q[dof])
    };
    // The SRDF's "home" state, with the scene's own start value over it.
    assert_eq!(q("left_base_yaw").1, 0.3);
    assert_eq!(q("left_shoulder_pitch").1, -0.5);
    assert_eq!(q("left_slide").1, 0.15);
    let (wrist, _) = q("left_wrist");
    assert_eq!(setup.control.kp[wrist], 3.0);
    assert_eq!(setup.control.force[wrist], 0.25);
    assert_eq!(setup.control.position[wrist], 1.5);
    assert_eq!(setup.control.kp.iter().filter(|&&k| k != 0.0).count(), 1);
    // The SRDF's disabled pairs apply under the prefixed names.
    let base = model.link_index("left_base_link").unwrap();
    let upper = model.link_index("left_upper_arm").unwrap();
    assert!(!model.may_touch(base, upper, false));
    // The base stands at (0, 0.5, 0), turned half a turn about z.
    let root = &model.links()[base].attachment;
    assert!((root.translation.vector - Vector3::new(0.0, 0.5, 0.0)).norm() < 1e-12);
    assert!((root.rotation.angle() - std::f64::consts::PI).abs() < 1e-12);
    assert_eq!(
        setup
            .object_links
            .iter()
            .map(|l| l.index())
            .collect::<Vec<_>>(),
        vec![model.links().len() - 1]
    );
}

/// The scene `text` built with its relative paths starting at `dir`.
fn built_in(dir: &Path, text: &str) -> SceneSetup {
    Scene::from_str(text)
        .unwrap()
        .with_directory(dir)
        .build()
        .unwrap()
}

/// A group-state entry the robot cannot take is skipped, and the build says so under the
/// robot's key.
#[test]
fn skipped_group_state_entries_are_the_builds_warnings() {
    let dir = std::env::temp_dir().join(format!("sdrs-scene-srdf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let srdf = std::fs::read_to_string(test_data().join("arm.srdf"))
        .unwrap()
        .replace(
            r#"<joint name="slide" value="0.1"/>"#,
            r#"<joint name="slide" value="0.1"/><joint name="elbow_roll" value="0.4"/>"#,
        );
    assert!(srdf.contains("elbow_roll"));
    std::fs::write(dir.join("arm.srdf"), srdf).unwrap();
    let text = format!(
        "dt = 0.01\npackage_paths = [\"{data}\"]\n[[robot]]\nurdf = \"{data}/arm.urdf\"\n\
         srdf = \"arm.srdf\"\ngroup_state = \"home\"\n",
        data = test_data().display()
    );
    let setup = built_in(&dir, &text);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(setup.warnings.len(), 1, "{:?}", setup.warnings);
    assert!(
        setup.warnings[0].starts_with("robot[0].group_state: SRDF ")
            && setup.warnings[0].contains("joint 'elbow_roll': the model has no joint named"),
        "{}",
        setup.warnings[0]
    );
    let model = &setup.model;
    let yaw = model.dof_offset(model.joint_link("base_yaw").unwrap());
    assert_eq!(
        setup.motion.state.q[yaw], 0.3,
        "the rest of the state applies"
    );
}

#[test]
fn object_start_velocities_carry_it_in_free_flight() {
    let text = r#"
        dt = 0.01
        gravity = 0.0
        [solver]
        tolerance = 1e-10
        [contact]
        model = "none"
        [[object]]
        name = "capsule"
        shape = { type = "capsule", radius = 0.05, half_height = 0.1 }
        mass = 1.0
        velocity = [0.5, 0.0, -0.2]
        angular_velocity = [0.0, 0.0, 2.0]
    "#;
    let mut setup = Scene::from_str(text).unwrap().build().unwrap();
    let steps = 20;
    for _ in 0..steps {
        setup
            .simulator
            .advance(&mut setup.motion, &setup.control)
            .unwrap();
    }
    // No force acts: x = v t. The spin about z (a principal axis of the capsule) follows the
    // implicit step exactly: each step turns by the rotation closest to the extrapolated
    // vertices 2x^t − x^{t−1}, the angle φ maximising 2 cos φ − cos(φ + θ) after a turn θ,
    // tan φ = sin θ / (2 − cos θ), starting from θ = ω Δt.
    let t = steps as f64 * 0.01;
    let q = &setup.motion.state.q;
    let x = Vector3::new(q[0], q[1], q[2]);
    assert!(
        (x - Vector3::new(0.5 * t, 0.0, -0.2 * t)).norm() < 1e-9,
        "{x}"
    );
    let mut turn: f64 = 2.0 * 0.01;
    let mut yaw = 0.0;
    for _ in 0..steps {
        turn = turn.sin().atan2(2.0 - turn.cos());
        yaw += turn;
    }
    let rotation = setup.motion.state.recentred(&setup.model).references[0];
    let expected = UnitQuaternion::from_scaled_axis(Vector3::z() * yaw);
    assert!(rotation.angle_to(&expected) < 1e-9, "{rotation:?} {yaw}");
}

#[test]
fn mesh_object_from_an_obj_file() {
    let dir = std::env::temp_dir().join(format!("sdrs-scene-mesh-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A unit cube as OBJ.
    let mut obj = String::new();
    for v in 0..8 {
        let c = |bit: usize| if v & bit == 0 { -0.5 } else { 0.5 };
        obj += &format!("v {} {} {}\n", c(1), c(2), c(4));
    }
    for f in [
        [1, 3, 4, 2],
        [5, 6, 8, 7],
        [1, 2, 6, 5],
        [3, 7, 8, 4],
        [1, 5, 7, 3],
        [2, 4, 8, 6],
    ] {
        obj += &format!(
            "f {} {} {}\nf {} {} {}\n",
            f[0], f[1], f[2], f[0], f[2], f[3]
        );
    }
    std::fs::write(dir.join("cube.obj"), obj).unwrap();
    let text = r#"
        dt = 0.01
        [[object]]
        name = "crate"
        shape = { type = "mesh", path = "cube.obj", scale = [0.2, 0.2, 0.4] }
        density = 1000.0
    "#;
    let scene = Scene::from_str(text).unwrap().with_directory(&dir);
    assert_round_trip(&scene);
    let setup = scene.build().unwrap();
    // 0.2 × 0.2 × 0.4 m of water.
    assert!((setup.model.mass(0) - 16.0).abs() < 1e-6 * 16.0);
    assert!(setup.model.links()[0].mesh.is_some());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn full_description_round_trips() {
    let description = SceneDescription {
        dt: 0.005,
        gravity: 3.7,
        steps: Some(12),
        ground: true,
        package_paths: vec!["packages".into()],
        solver: SolverDescription {
            tolerance: Some(1e-6),
            max_iterations: Some(40),
            eigenvalue_floor: Some(1e-4),
            start: Some(NewtonStart::Current),
            damped_round: Some(false),
        },
        contact: ContactDescription {
            model: ContactModelName::Hulls,
            support: Some(1e-3),
            epsilon: None,
            far_field: None,
            stiffness: Some(0.5),
            friction: Some(0.8),
        },
        robots: vec![RobotDescription {
            urdf: Some("package://robots/arm.urdf".into()),
            mjcf: None,
            srdf: Some("arm.srdf".into()),
            floating_base: Some(false),
            joint_friction: Some(true),
            base: PoseDescription {
                xyz: [1.0, 2.0, 3.0],
                rpy: Some([0.1, 0.2, 0.3]),
                quaternion: None,
            },
            group_state: Some("home".into()),
            start: BTreeMap::from([("slide".to_string(), 0.1)]),
            prefix: Some("a_".into()),
            control: BTreeMap::from([(
                "*".to_string(),
                JointControlDescription {
                    kp: 1.0,
                    kd: 2.0,
                    target: Some(0.5),
                    velocity: 0.25,
                    force: -1.0,
                },
            )]),
            ctrl: Some(vec![0.5]),
        }],
        objects: vec![
            ObjectDescription {
                name: "ball".into(),
                shape: ShapeDescription::Sphere {
                    radius: 0.1,
                    subdivisions: 3,
                },
                mass: Some(2.0),
                density: None,
                pose: PoseDescription {
                    xyz: [0.0, 0.0, 1.0],
                    rpy: None,
                    quaternion: Some([0.5, 0.5, 0.5, 0.5]),
                },
                velocity: [1.0, 0.0, 0.0],
                angular_velocity: [0.0, 1.0, 0.0],
            },
            ObjectDescription {
                name: "bolt".into(),
                shape: ShapeDescription::Mesh {
                    path: "bolt.stl".into(),
                    scale: [1.0, 1.0, 2.0],
                },
                mass: None,
                density: Some(7800.0),
                pose: PoseDescription::default(),
                velocity: [0.0; 3],
                angular_velocity: [0.0; 3],
            },
        ],
    };
    assert_round_trip(&Scene::new(description));
}

/// The message of the error loading (and, if that succeeds, building) `text` from the
/// test-data folder; checks it names `<string>`, `line` and `key`.
fn refused(text: &str, line: usize, key: &str) -> String {
    let error = Scene::from_str(text)
        .and_then(|s| s.with_directory(test_data()).build().map(|_| ()))
        .expect_err("the scene must be refused");
    let message = error.to_string();
    match &error {
        SceneError::Malformed {
            file,
            line: l,
            key: k,
            ..
        } => {
            assert_eq!(
                (file.as_str(), *l, k.as_str()),
                ("<string>", line, key),
                "{message}"
            );
        }
        other => panic!("not a located error: {other:?}"),
    }
    assert!(
        message.starts_with(&format!("<string>:{line}:")),
        "{message}"
    );
    assert!(message.contains(key), "{message}");
    message
}

#[test]
fn the_newton_start_and_damped_round_reach_the_simulator() {
    for (text, start) in [
        ("", NewtonStart::Extrapolated),
        ("[solver]\nstart = \"current\"\n", NewtonStart::Current),
        (
            "[solver]\nstart = \"extrapolated\"\n",
            NewtonStart::Extrapolated,
        ),
    ] {
        let setup = Scene::from_str(&format!("dt = 0.01\nground = true\n{text}"))
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(setup.simulator.settings().start, start, "{text}");
        assert!(setup.simulator.settings().damped_round, "{text}");
    }
    let setup = Scene::from_str(
        "dt = 0.01
ground = true
[solver]
damped_round = false
",
    )
    .unwrap()
    .build()
    .unwrap();
    assert!(!setup.simulator.settings().damped_round);
}

#[test]
fn malformed_files_name_line_and_key() {
    // A value of the wrong type.
    let m = refused(
        "dt = 0.01\n[solver]\nmax_iterations = \"many\"\n",
        3,
        "solver.max_iterations",
    );
    assert!(m.contains("\"many\", expected usize"), "{m}");
    // A missing key.
    let m = refused(
        "dt = 0.01\n\n[[robot]]\nsrdf = \"arm.srdf\"\n",
        3,
        "robot[0]",
    );
    assert!(m.contains("needs its file: `urdf"), "{m}");
    // An unknown key lists the allowed ones.
    let m = refused(
        "dt = 0.01\n[contact]\nfriction = 0.5\nstiff = 2.0\n",
        4,
        "contact.stiff",
    );
    assert!(
        m.contains("expected one of") && m.contains("`stiffness`"),
        "{m}"
    );
    let m = refused("dt = 0.01\n[solver]\nstart = \"zero\"\n", 3, "solver.start");
    assert!(
        m.contains("`extrapolated`") && m.contains("`current`"),
        "{m}"
    );
    let m = refused("dt = 0.01\ngrund = true\n", 2, "grund");
    assert!(m.contains("`ground`"), "{m}");
    // A wrong array length.
    let m = refused(
        "dt = 0.01\npackage_paths = [\".\"]\n[[robot]]\nurdf = \"arm.urdf\"\n[[robot]]\nurdf = \"arm.urdf\"\nbase = { xyz = [0.0, 1.0] }\n",
        7,
        "robot[1].base.xyz",
    );
    assert!(m.contains("3"), "{m}");
    // A shape that does not exist, or lacks a dimension.
    let m = refused(
        "dt = 0.01\n[[object]]\nname = \"a\"\nmass = 1.0\nshape = { type = \"cone\", radius = 1.0 }\n",
        5,
        "object[0].shape.type",
    );
    assert!(m.contains("cone") && m.contains("box"), "{m}");
    // Not TOML at all.
    refused("dt = 0.01\n[[robot]\n", 2, "(document)");
    // A mesh contact model without its parameters, or with another model's.
    let m = refused(
        "dt = 0.01\n[contact]\nmodel = \"ipc\"\n",
        2,
        "contact.support",
    );
    assert!(m.contains("contact model \"ipc\" needs `support`"), "{m}");
    let m = refused(
        "dt = 0.01\n[contact]\nmodel = \"long_range\"\nepsilon = 0.1\nsupport = 0.1\n",
        5,
        "contact.support",
    );
    assert!(
        m.contains("allowed with it: model, epsilon, stiffness, friction"),
        "{m}"
    );
    // The far field belongs to the long-range model, by one of its names.
    let m = refused(
        "dt = 0.01\n[contact]\nmodel = \"hulls\"\nfar_field = \"counted\"\n",
        4,
        "contact.far_field",
    );
    assert!(m.contains("only \"long_range\" does"), "{m}");
    let m = refused(
        "dt = 0.01\n[contact]\nmodel = \"long_range\"\nepsilon = 0.1\nfar_field = \"near\"\n",
        5,
        "contact.far_field",
    );
    assert!(m.contains("`centred`") && m.contains("`counted`"), "{m}");
}

#[test]
fn refused_values_name_line_and_key() {
    // A missing URDF names the path it resolved.
    let m = refused(
        "dt = 0.01\n[[robot]]\nurdf = \"nowhere.urdf\"\n",
        3,
        "robot[0].urdf",
    );
    let resolved = test_data().join("nowhere.urdf");
    assert!(m.contains(&resolved.display().to_string()), "{m}");
    // A joint the robot does not have lists those it has.
    let m = refused(
        "dt = 0.01\npackage_paths = [\".\"]\n[[robot]]\nurdf = \"arm.urdf\"\n[robot.start]\nelbow = 0.2\n",
        6,
        "robot[0].start.elbow",
    );
    assert!(m.contains("shoulder_pitch"), "{m}");
    // A start outside the joint's limits.
    let m = refused(
        "dt = 0.01\npackage_paths = [\".\"]\n[[robot]]\nurdf = \"arm.urdf\"\nstart = { slide = 0.5 }\n",
        5,
        "robot[0].start",
    );
    assert!(m.contains("slide"), "{m}");
    // Mass and density together.
    refused(
        "dt = 0.01\n[[object]]\nname = \"a\"\nmass = 1.0\ndensity = 2.0\nshape = { type = \"box\", half_extents = [1.0, 1.0, 1.0] }\n",
        5,
        "object[0].density",
    );
    // Non-finite numbers, which TOML can spell.
    refused("dt = 0.01\ngravity = nan\n", 2, "gravity");
    refused("dt = -0.01\n", 1, "dt");
    refused(
        "dt = 0.01\n[[object]]\nname = \"a\"\nmass = 1.0\nshape = { type = \"sphere\", radius = -1.0 }\n",
        5,
        "object[0].shape.radius",
    );
    refused(
        "dt = 0.01\n[[object]]\nname = \"a\"\nmass = 1.0\nshape = { type = \"box\", half_extents = [1.0, 0.0, 1.0] }\n",
        5,
        "object[0].shape.half_extents",
    );
    refused(
        "dt = 0.01\n[[object]]\nname = \"a\"\nmass = 1.0\nshape = { type = \"sphere\", radius = 1.0, subdivisions = 9 }\n",
        5,
        "object[0].shape.subdivisions",
    );
    refused(
        "dt = 0.01\n[contact]\nsupport = 2.0\n",
        3,
        "contact.support",
    );
    // A group state without an SRDF.
    refused(
        "dt = 0.01\npackage_paths = [\".\"]\n[[robot]]\nurdf = \"arm.urdf\"\ngroup_state = \"home\"\n",
        5,
        "robot[0].group_state",
    );
    // Gains below 0 or not finite, named with their units.
    let arm = "dt = 0.01\npackage_paths = [\".\"]\n[[robot]]\nurdf = \"arm.urdf\"\n";
    let m = refused(
        &format!("{arm}[robot.control.slide]\nkp = -60.0\n"),
        6,
        "robot[0].control.slide.kp",
    );
    assert!(
        m.contains("stiffness in N·m/rad (N/m on a prismatic"),
        "{m}"
    );
    let m = refused(
        &format!("{arm}[robot.control.\"*\"]\nkd = nan\n"),
        6,
        "robot[0].control.*.kd",
    );
    assert!(m.contains("damping in N·m·s/rad"), "{m}");
}

#[test]
fn a_scene_made_in_code_names_its_key() {
    let mut scene = Scene::from_str("dt = 0.01").unwrap();
    scene.description.gravity = f64::INFINITY;
    let scene = Scene::new(scene.description);
    let error = scene.build().unwrap_err();
    assert!(
        matches!(&error, SceneError::Invalid { file, key, .. } if file == "<code>" && key == "gravity"),
        "{error:?}"
    );
}

#[test]
fn unreadable_file_names_its_path() {
    let error = Scene::from_file("/no/such/scene.toml")
        .unwrap_err()
        .to_string();
    assert!(error.contains("/no/such/scene.toml"), "{error}");
}

#[test]
fn mesh_contact_models_are_selected_by_name() {
    // Two 10 cm boxes 5 cm apart, the first sliding into the second at 1 m/s, no gravity.
    let text = |contact: &str| {
        format!(
            r#"
            dt = 0.01
            gravity = 0.0
            [contact]
            {contact}
            [[object]]
            name = "a"
            shape = {{ type = "box", half_extents = [0.05, 0.05, 0.05] }}
            mass = 1.0
            velocity = [1.0, 0.0, 0.0]
            [[object]]
            name = "b"
            shape = {{ type = "box", half_extents = [0.05, 0.05, 0.05] }}
            mass = 1.0
            pose = {{ xyz = [0.15, 0.0, 0.0] }}
            "#
        )
    };
    let ipc = Scene::from_str(&text("model = \"ipc\"\nsupport = 2e-3\nstiffness = 1e8")).unwrap();
    assert_round_trip(&ipc);
    let mut setup = ipc.build().unwrap();
    let contact = setup.simulator.settings().contact.clone().unwrap();
    assert!(matches!(contact.kind, ContactKind::Ipc(_)), "{contact:?}");
    assert_eq!(contact.stiffness, 1e8);
    for _ in 0..10 {
        setup
            .simulator
            .advance(&mut setup.motion, &setup.control)
            .unwrap();
    }
    // After 0.1 s the first box has reached the second and pushed it along x; they never
    // overlap.
    let q = &setup.motion.state.q;
    assert!(q[6] > 1e-3, "b moved {}", q[6]);
    assert!(0.15 + q[6] - q[0] > 0.1, "gap {}", 0.15 + q[6] - q[0] - 0.1);

    let long_range = Scene::from_str(&text(
        "model = \"long_range\"\nepsilon = 0.1\nstiffness = 1e-7\nfriction = 0.5",
    ))
    .unwrap();
    assert_round_trip(&long_range);
    let setup = long_range.build().unwrap();
    let contact = setup.simulator.settings().contact.clone().unwrap();
    assert!(
        matches!(contact.kind, ContactKind::LongRange(_)),
        "{contact:?}"
    );
    assert_eq!(contact.friction.unwrap().mu, 0.5);
    // The paper's far field unless the file asks for the counted one.
    let far_field = |extra: &str| {
        let scene = Scene::from_str(&text(&format!(
            "model = \"long_range\"\nepsilon = 0.5\nstiffness = 1e-7{extra}"
        )))
        .unwrap();
        assert_round_trip(&scene);
        match scene
            .build()
            .unwrap()
            .simulator
            .settings()
            .contact
            .clone()
            .unwrap()
            .kind
        {
            ContactKind::LongRange(potential) => potential.far_field(),
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(far_field(""), FarField::Centred);
    assert_eq!(far_field("\nfar_field = \"centred\""), FarField::Centred);
    assert_eq!(far_field("\nfar_field = \"counted\""), FarField::Counted);
}

#[test]
fn robot_from_mjcf_starts_inside_its_limits_and_lands_on_the_ground() {
    // `examples/scenes/hopper_mjcf.toml` for 60 of its steps.
    let scene = Scene::from_file(example("hopper_mjcf.toml")).unwrap();
    assert_round_trip(&scene);
    let mut setup = scene.build().unwrap();
    let model = &setup.model;
    assert_eq!(model.dof(), 6);
    let q =
        |state: &State, joint: &str| state.q[model.dof_offset(model.joint_link(joint).unwrap())];
    // qpos0 is 0, the upper limit of the thigh and the leg: both start just inside it.
    let limit = setup.simulator.settings().limit_support;
    for joint in ["thigh_joint", "leg_joint"] {
        let start = q(&setup.motion.state, joint);
        assert!(
            start < 0.0 && start >= -2.0 * limit,
            "{joint} starts at {start}"
        );
    }
    assert_eq!(q(&setup.motion.state, "foot_joint"), 0.2);
    // The scene drives the three hinges; the root's slides and hinge are free (the file's
    // root joints have no damping and no actuator).
    let dof = |joint: &str| model.dof_offset(model.joint_link(joint).unwrap());
    for joint in ["rootx", "rootz", "rooty"] {
        assert_eq!(
            (setup.control.kp[dof(joint)], setup.control.kd[dof(joint)]),
            (0.0, 0.0)
        );
    }
    for joint in ["thigh_joint", "leg_joint", "foot_joint"] {
        assert_eq!(
            (setup.control.kp[dof(joint)], setup.control.kd[dof(joint)]),
            (40.0, 200.0)
        );
    }
    let torso = model.link_index("torso").unwrap();
    let height = |state: &State| Kinematics::new(model, state).poses()[torso].translation.z;
    let start = height(&setup.motion.state);
    for _ in 0..60 {
        setup
            .simulator
            .advance(&mut setup.motion, &setup.control)
            .unwrap();
    }
    // The foot's capsule starts 4 cm above the ground: the hopper drops onto it and is caught
    // there, its free root tipping 0.2 rad forward (free fall would take it 0.44 m down in
    // these 0.3 s). Measured: 5.9 cm down.
    let end = height(&setup.motion.state);
    eprintln!("torso height {start} -> {end} m");
    let drop = start - end;
    assert!(drop > 0.045 && drop < 0.08, "torso from {start} to {end} m");
}

/// `joint_friction = true` reads a URDF's `<dynamics friction>` into the joints' friction;
/// without it the file's values are not read.
#[test]
fn a_urdf_robots_joint_friction_is_read_when_the_scene_asks() {
    let dir = std::env::temp_dir().join(format!("sdrs-scene-friction-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let urdf = std::fs::read_to_string(test_data().join("arm.urdf"))
        .unwrap()
        .replacen("</joint>", "<dynamics friction=\"0.25\"/></joint>", 1);
    std::fs::write(dir.join("arm.urdf"), urdf).unwrap();
    let friction = |setting: &str| {
        let text = format!(
            "dt = 0.01\npackage_paths = [\"{data}\"]\n[[robot]]\nurdf = \"arm.urdf\"\n{setting}",
            data = test_data().display()
        );
        built_in(&dir, &text).model.joint_friction().to_vec()
    };
    let (read, unread) = (friction("joint_friction = true\n"), friction(""));
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(read.iter().map(|f| f.1).collect::<Vec<_>>(), [0.25]);
    assert!(unread.is_empty());
}

#[test]
fn a_robot_names_exactly_one_file_and_mjcf_takes_no_srdf() {
    for (text, key, needle) in [
        (
            "dt = 0.01\n[[robot]]\nurdf = \"arm.urdf\"\nmjcf = \"mjcf/hopper.xml\"\n",
            "robot[0]",
            "not both",
        ),
        (
            "dt = 0.01\n[[robot]]\nprefix = \"a_\"\n",
            "robot[0]",
            "needs its file",
        ),
        (
            "dt = 0.01\n[[robot]]\nmjcf = \"mjcf/hopper.xml\"\nsrdf = \"arm.srdf\"\n",
            "robot[0].srdf",
            "URDF robot only",
        ),
        (
            "dt = 0.01\n[[robot]]\nmjcf = \"mjcf/hopper.xml\"\njoint_friction = true\n",
            "robot[0].joint_friction",
            "URDF robot only",
        ),
    ] {
        let error = Scene::from_str(text)
            .and_then(|s| s.with_directory(test_data()).build().map(|_| ()))
            .expect_err("the scene must be refused");
        let message = error.to_string();
        assert!(
            message.contains(key) && message.contains(needle),
            "{message}"
        );
    }
}

/// A 2 kg block on a slide joint along x with the joint's `damping` and the `actuators`
/// (MJCF elements), in a scene without gravity or contact; `extra` ends the robot's table.
fn slider_scene(name: &str, damping: f64, actuators: &str, extra: &str) -> Scene {
    let dir = std::env::temp_dir().join(format!("sdrs-slider-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("slider.xml"),
        format!(
            r#"<mujoco model="slider">
  <worldbody>
    <body name="block">
      <joint name="slide" type="slide" axis="1 0 0" damping="{damping}"/>
      <geom type="box" size="0.1 0.1 0.1" mass="2"/>
    </body>
  </worldbody>
  <actuator>{actuators}</actuator>
</mujoco>"#
        ),
    )
    .unwrap();
    let text = format!(
        "dt = 0.01\ngravity = 0.0\n[contact]\nmodel = \"none\"\n[[robot]]\nmjcf = \"slider.xml\"\n{extra}\n"
    );
    Scene::from_str(&text).unwrap().with_directory(dir)
}

/// A motor (gear 2, ctrl within ±1) and a position servo (kp 50, kv 20) on the slide.
const MOTOR_AND_SERVO: &str = r#"<motor name="push" joint="slide" gear="2" ctrlrange="-1 1"/>
    <position name="hold" joint="slide" kp="50" kv="20"/>"#;

fn run(setup: &mut sdrs::scene::SceneSetup, steps: usize) {
    for _ in 0..steps {
        setup
            .simulator
            .advance(&mut setup.motion, &setup.control)
            .unwrap();
    }
}

#[test]
fn an_mjcf_robot_feels_its_actuators_under_ctrl_and_its_joint_damper() {
    // ctrl = [motor, servo target]: the motor's 1.5 is clamped to its range: 2 N.
    let scene = slider_scene("gains", 1.0, MOTOR_AND_SERVO, "ctrl = [1.5, 0.3]");
    assert_round_trip(&scene);
    let mut setup = scene.build().unwrap();
    let c = &setup.control;
    assert_eq!(c.force[0], 2.0);
    // MuJoCo's gains are SI, as sdrs's: the servo's 50 N/m, its 20 N·s/m and the joint's
    // damping 1 N·s/m.
    assert_eq!((c.kp[0], c.position[0], c.kd[0]), (50.0, 0.3, 21.0));
    // The block settles where the servo's spring balances the motor: 50 (0.3 − x) + 2 = 0.
    run(&mut setup, 400);
    let x = setup.motion.state.q[0];
    assert!((x - (0.3 + 2.0 / 50.0)).abs() < 1e-4, "x = {x}");

    // The file comes with the setup: a new ctrl gives what the scene's ctrl would.
    let file = setup.mjcf[0].as_ref().expect("an MJCF robot's file");
    let mut again = Control::passive(&setup.model);
    let offset = setup.robots[0].dofs().start;
    again
        .write_at(offset, &file.step_control(Some(&[1.5, 0.3])).unwrap())
        .unwrap();
    assert_eq!(again, setup.control);

    // Without ctrl every control is 0: the servo holds the block at 0, the damper stays.
    let c = slider_scene("zero", 1.0, MOTOR_AND_SERVO, "")
        .build()
        .unwrap()
        .control;
    assert_eq!(
        (c.force[0], c.kp[0], c.position[0], c.kd[0]),
        (0.0, 50.0, 0.0, 21.0)
    );

    // A `control` entry replaces what the file applies on its joint.
    let c = slider_scene(
        "entry",
        1.0,
        MOTOR_AND_SERVO,
        "ctrl = [1.0, 0.3]\n[robot.control.slide]\nkp = 3.0",
    )
    .build()
    .unwrap()
    .control;
    assert_eq!((c.force[0], c.kp[0], c.kd[0]), (0.0, 3.0, 0.0));
}

#[test]
fn a_second_mjcf_robots_actuators_act_at_its_own_dofs() {
    // Two sliders: the first without ctrl (its servo holds at 0), the second, prefixed, at
    // DoF 1 with its motor at 0.5 (1 N) and its servo's target 0.2.
    let scene = slider_scene("two", 1.0, MOTOR_AND_SERVO, "prefix = \"a_\"");
    let mut description = scene.description.clone();
    let mut second = description.robots[0].clone();
    second.prefix = Some("b_".into());
    second.ctrl = Some(vec![0.5, 0.2]);
    description.robots.push(second);
    let directory = scene.directory().to_path_buf();
    let c = Scene::new(description)
        .with_directory(directory)
        .build()
        .unwrap()
        .control;
    assert_eq!((c.force[0], c.position[0]), (0.0, 0.0));
    assert_eq!((c.force[1], c.position[1], c.kp[1]), (1.0, 0.2, 50.0));
}

#[test]
fn an_mjcf_motor_accelerates_its_block_by_force_over_mass() {
    let motor = r#"<motor joint="slide" gear="2"/>"#;
    let mut setup = slider_scene("motor", 0.0, motor, "ctrl = [0.5]")
        .build()
        .unwrap();
    let (force, mass, dt, steps) = (1.0, 2.0, 0.01, 100);
    run(&mut setup, steps);
    // The position-level step from rest, q^{t+1} − 2q^t + q^{t−1} = Δt² F / m, gives
    // x_n = (F Δt² / m) n (n + 1) / 2.
    let n = steps as f64;
    let expected = force * dt * dt / mass * n * (n + 1.0) / 2.0;
    let x = setup.motion.state.q[0];
    assert!(
        (x - expected).abs() < 1e-6 * expected,
        "x = {x}, expected {expected}"
    );

    // With the joint's damper c, the block tends to the speed F / c (time constant m / c).
    let mut setup = slider_scene("damped", 4.0, motor, "ctrl = [0.5]")
        .build()
        .unwrap();
    run(&mut setup, 1000);
    let speed = setup.motion.velocity(&setup.model, dt).unwrap()[0];
    assert!((speed - force / 4.0).abs() < 1e-6, "speed {speed}");
}

#[test]
fn ctrl_is_refused_for_a_urdf_robot_and_must_give_every_actuator_its_control() {
    let error = slider_scene("count", 0.0, MOTOR_AND_SERVO, "ctrl = [0.5]")
        .build()
        .expect_err("one control for two actuators");
    let message = error.to_string();
    assert!(
        message.contains("robot[0].ctrl")
            && message.contains("1 control given; the file has 2 actuators")
            && message.contains("push on slide, hold on slide"),
        "{message}"
    );
    let error = slider_scene("empty", 0.0, MOTOR_AND_SERVO, "ctrl = []")
        .build()
        .expect_err("an empty ctrl for two actuators");
    assert!(error.to_string().contains("0 controls given"), "{error}");
    let error = slider_scene("none", 0.0, "", "ctrl = [1.0]")
        .build()
        .expect_err("a file without actuators");
    assert!(
        error.to_string().contains("declares no actuators"),
        "{error}"
    );
    let error = Scene::from_str("dt = 0.01\n[[robot]]\nurdf = \"arm.urdf\"\nctrl = []\n")
        .and_then(|s| s.with_directory(test_data()).build().map(|_| ()))
        .expect_err("a URDF robot has no actuators");
    let message = error.to_string();
    assert!(
        message.contains("robot[0].ctrl") && message.contains("MJCF robot only"),
        "{message}"
    );
}

/// MuJoCo's walker2d dropped on the ground with friction μ = 0.8 and joint PD (80 N·m/rad,
/// 400 N·m·s/rad) on its thighs and legs, at the scene's default tolerance. At step 166 a foot
/// sticks: Newton, damped by then, reached a state whose own Newton step (1e-10) promises a
/// decrease below the energy's round-off, with |∇O|∞ = 3e-4 at 2.6 times its round-off floor,
/// and the step failed with `NotConverged`. Such an iterate is converged (the test asks of
/// Newton's step, not the damped one).
#[test]
fn a_walker_falling_with_friction_steps_through_a_sticking_foot() {
    let text = r#"
dt = 0.005
ground = true

[contact]
model = "hulls"
friction = 0.8

[[robot]]
mjcf = "mjcf/walker2d.xml"

[robot.control.thigh_joint]
kp = 80.0
kd = 400.0

[robot.control.leg_joint]
kp = 80.0
kd = 400.0

[robot.control.thigh_left_joint]
kp = 80.0
kd = 400.0

[robot.control.leg_left_joint]
kp = 80.0
kd = 400.0
"#;
    let scene = Scene::from_str(text).unwrap().with_directory(test_data());
    let mut setup = scene.build().unwrap();
    run(&mut setup, 200);
    let model = &setup.model;
    let torso = model.link_index("torso").unwrap();
    let height = Kinematics::new(model, &setup.motion.state).poses()[torso]
        .translation
        .z;
    assert!(height > 0.05, "the torso at {height} m is above the ground");
}
