//! URDF import on the test arm in `tests/data`.

use nalgebra::{DVector, Matrix3};
use sdrs_dynamics::{
    Control, DynamicsError, JointKind, Motion, Simulator, State, StepSettings, UrdfOptions,
    load_urdf, urdf_from_str,
};
use std::path::{Path, PathBuf};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn options() -> UrdfOptions {
    UrdfOptions {
        package_paths: vec![data()],
        ..UrdfOptions::default()
    }
}

#[test]
fn the_test_arm_loads_with_its_joints_limits_hulls_and_inertials() {
    let model = load_urdf(data().join("arm.urdf"), &options()).unwrap();
    let names: Vec<&str> = model.links().iter().map(|l| l.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "base_link",
            "shoulder",
            "upper_arm",
            "forearm",
            "hand",
            "tool_frame"
        ]
    );
    assert_eq!(model.dof(), 4);
    let links = model.links();
    assert_eq!(links[0].joint, JointKind::Fixed);
    assert!(
        matches!(links[1].joint, JointKind::Revolute { axis } if axis == nalgebra::Vector3::z())
    );
    assert!(matches!(links[3].joint, JointKind::Prismatic { .. }));
    assert_eq!(links[1].limits, Some((-2.5, 2.5)));
    assert_eq!(links[3].limits, Some((0.0, 0.2)));
    assert_eq!(links[4].limits, None, "continuous joints have no limits");
    // Every geometry became at least one hull; the L-shaped mesh is decomposed.
    let hulls: Vec<usize> = links.iter().map(|l| l.hulls.len()).collect();
    assert_eq!(&hulls[..2], &[1, 1]);
    assert!(
        hulls[2] >= 2,
        "the L-shaped bracket needs several hulls, got {}",
        hulls[2]
    );
    assert_eq!(&hulls[3..], &[1, 1, 0]);
    // The collision geometry is also kept as one triangle mesh per link (for mesh contact).
    assert!(
        links[..5]
            .iter()
            .all(|l| l.mesh.as_ref().is_some_and(|m| !m.triangles().is_empty()))
    );
    assert!(links[5].mesh.is_none());
    // The mesh scale (1, 0.5, 1) halves the bracket's 0.12 m height.
    let top = links[2]
        .hulls
        .iter()
        .flat_map(|h| h.vertices())
        .map(|v| v.y)
        .fold(f64::MIN, f64::max);
    assert!((top - 0.06).abs() < 0.01, "scaled bracket height {top}");
    // Shoulder inertial: m = 2 at (0.1, 0, 0), I = diag(0.01, 0.02, 0.03):
    // Σ m x xᵀ = (½ tr I − I) + m c cᵀ = diag(0.02 + 0.02, 0.01, 0).
    let s = model.second_moment(1);
    assert!((s[(3, 3)] - 2.0).abs() < 1e-12);
    assert!((s.fixed_view::<3, 1>(0, 3) - nalgebra::Vector3::new(0.2, 0.0, 0.0)).norm() < 1e-12);
    let expected = Matrix3::from_diagonal(&nalgebra::Vector3::new(0.04, 0.01, 0.0));
    assert!((s.fixed_view::<3, 3>(0, 0) - expected).norm() < 1e-12);
    assert_eq!(
        model.mass(5),
        0.0,
        "a link without inertial is a massless frame"
    );
}

#[test]
fn the_test_arm_simulates_within_its_limits() {
    let model = load_urdf(data().join("arm.urdf"), &options()).unwrap();
    let mut sim = Simulator::new(model.clone(), StepSettings::new(0.01).unwrap()).unwrap();
    let start = State::new(&model, DVector::from_vec(vec![0.3, 0.2, 0.1, 0.0])).unwrap();
    let mut motion = Motion::at_rest(&model, start);
    for _ in 0..200 {
        sim.advance(&mut motion, &Control::passive(&model)).unwrap();
        let state = &motion.state;
        assert!(state.q.iter().all(|v| v.is_finite()));
        assert!(state.q[1] > -1.5 && state.q[1] < 1.5 && state.q[2] > 0.0 && state.q[2] < 0.2);
    }
}

#[test]
fn a_floating_base_adds_six_degrees_of_freedom() {
    let floating = UrdfOptions {
        floating_base: true,
        ..options()
    };
    let model = load_urdf(data().join("arm.urdf"), &floating).unwrap();
    assert_eq!(model.dof(), 10);
    assert_eq!(model.links()[0].joint, JointKind::Free);
}

#[test]
fn urdf_errors_name_the_element() {
    let text = std::fs::read_to_string(data().join("arm.urdf")).unwrap();
    // No package path: the mesh cannot be found.
    let err = urdf_from_str(&text, &data(), &UrdfOptions::default()).unwrap_err();
    match err {
        DynamicsError::UrdfElement {
            element,
            message,
            line,
            ..
        } => {
            assert_eq!(line, 34, "the <mesh> element's line");
            assert_eq!(element, "link 'upper_arm' collision 0 <mesh>");
            assert!(message.contains("bracket.obj"), "{message}");
        }
        other => panic!("unexpected {other:?}"),
    }
    // The message lists where the mesh was looked for.
    let err = urdf_from_str(&text, &data(), &UrdfOptions::default()).unwrap_err();
    assert!(
        err.to_string().contains("no ancestor folder of")
            && err.to_string().contains("named 'sdrs_test_robot'"),
        "{err}"
    );
    // Planar joints are refused by name.
    let planar = text.replace(
        r#"name="slide" type="prismatic""#,
        r#"name="slide" type="planar""#,
    );
    let err = urdf_from_str(&planar, &data(), &options()).unwrap_err();
    assert!(
        matches!(&err, DynamicsError::UrdfElement { element, .. } if element == "joint 'slide'"),
        "{err}"
    );
    // A joint naming an unknown link.
    let unknown = text.replace(r#"<child link="hand"/>"#, r#"<child link="palm"/>"#);
    let err = urdf_from_str(&unknown, &data(), &options()).unwrap_err();
    assert!(err.to_string().contains("'palm' is not defined"), "{err}");
    // Malformed XML and missing files say which file.
    assert!(matches!(
        urdf_from_str("<robot", &data(), &options()),
        Err(DynamicsError::Urdf { .. })
    ));
    let err = load_urdf(data().join("missing.urdf"), &options()).unwrap_err();
    assert!(err.to_string().contains("missing.urdf"), "{err}");
}

/// Regression: a URDF that urdf-rs could not parse (a `<texture/>` without `filename`) gave
/// `custom: missing field filename` with no location. Visual materials are not read any more,
/// and every element that is read reports its file, line and element.
#[test]
fn parse_errors_name_the_line_and_the_element() {
    let text = std::fs::read_to_string(data().join("arm.urdf")).unwrap();
    let textured = text.replace(
        "<link name=\"tool_frame\"/>",
        "<link name=\"tool_frame\"><visual><geometry><sphere radius=\"0.01\"/></geometry>\
         <material name=\"m\"><texture/></material></visual></link>",
    );
    assert!(urdf_from_str(&textured, &data(), &options()).is_ok());
    // A collision mesh without filename, on line 34.
    let nameless = text.replace(
        r#"<mesh filename="package://sdrs_test_robot/meshes/bracket.obj" scale="1 0.5 1"/>"#,
        "<mesh/>",
    );
    let err = load_from_text(&nameless).unwrap_err();
    assert_eq!(
        err,
        DynamicsError::UrdfElement {
            format: "URDF",
            file: "<string>".into(),
            line: 34,
            element: "link 'upper_arm' collision 0 <mesh>".into(),
            message: "attribute 'filename' is missing (<mesh> needs it)".into(),
        }
    );
    // A number that is not one, a vector of the wrong length, a non-finite mass.
    for (from, to, line, what) in [
        (
            r#"<axis xyz="0 1 0"/>"#,
            r#"<axis xyz="0 one 0"/>"#,
            69,
            "'one', not a number",
        ),
        (
            r#"<box size="0.3 0.3 0.1"/>"#,
            r#"<box size="0.3 0.3"/>"#,
            12,
            "has 2 values",
        ),
        (
            r#"<mass value="2.0"/>"#,
            r#"<mass value="NaN"/>"#,
            18,
            "not finite",
        ),
        (
            r#"<cylinder radius="0.05" length="0.2"/>"#,
            r#"<cylinder radius="-0.05" length="0.2"/>"#,
            23,
            "must be positive",
        ),
    ] {
        assert!(text.contains(from), "{from}");
        let err = load_from_text(&text.replacen(from, to, 1)).unwrap_err();
        let shown = err.to_string();
        assert!(
            matches!(&err, DynamicsError::UrdfElement { line: l, .. } if *l == line)
                && shown.contains(what),
            "{from} -> {to}: {shown}"
        );
    }
    // Not XML: the line of the syntax error.
    let err = load_from_text("<robot name=\"r\">\n  <link name=\"a\">\n</robot>").unwrap_err();
    assert!(
        matches!(&err, DynamicsError::Urdf { line: Some(3), .. }),
        "{err}"
    );
    // A file names itself.
    let dir = scratch("parse-error");
    std::fs::write(dir.join("bad.urdf"), &nameless).unwrap();
    let err = load_urdf(dir.join("bad.urdf"), &options()).unwrap_err();
    assert!(
        err.to_string().contains("bad.urdf:34: link 'upper_arm'"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

fn load_from_text(text: &str) -> sdrs_dynamics::Result<sdrs_dynamics::Model> {
    urdf_from_str(text, &data(), &options())
}

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sdrs-urdf-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `package://NAME/...` resolves through the nearest ancestor folder of the URDF named NAME
/// when no package path has it (as ROS tools do).
#[test]
fn package_uris_resolve_through_an_ancestor_folder_named_after_the_package() {
    let dir = scratch("ancestor");
    let package = dir.join("sdrs_test_robot");
    std::fs::create_dir_all(package.join("urdf")).unwrap();
    std::fs::create_dir_all(package.join("meshes")).unwrap();
    std::fs::copy(
        data().join("sdrs_test_robot/meshes/bracket.obj"),
        package.join("meshes/bracket.obj"),
    )
    .unwrap();
    std::fs::copy(data().join("arm.urdf"), package.join("urdf/arm.urdf")).unwrap();
    let model = load_urdf(package.join("urdf/arm.urdf"), &UrdfOptions::default()).unwrap();
    assert!(model.links()[2].hulls.len() >= 2);
    // A package path that has the package wins over the ancestor.
    let elsewhere = options();
    assert!(load_urdf(package.join("urdf/arm.urdf"), &elsewhere).is_ok());
    // Renamed, the package is found nowhere, and the message lists where it looked.
    let renamed = dir.join("other_name");
    std::fs::rename(&package, &renamed).unwrap();
    let err = load_urdf(renamed.join("urdf/arm.urdf"), &UrdfOptions::default()).unwrap_err();
    let shown = err.to_string();
    assert!(
        shown.contains("named 'sdrs_test_robot'") && shown.contains("no package paths"),
        "{shown}"
    );
    let err = load_urdf(
        renamed.join("urdf/arm.urdf"),
        &UrdfOptions {
            package_paths: vec![dir.clone()],
            ..UrdfOptions::default()
        },
    )
    .unwrap_err();
    assert!(
        err.to_string().contains(
            &dir.join("sdrs_test_robot/meshes/bracket.obj")
                .display()
                .to_string()
        ),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
