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
        DynamicsError::UrdfElement { element, message } => {
            assert_eq!(element, "link 'upper_arm' collision 0");
            assert!(message.contains("bracket.obj"), "{message}");
        }
        other => panic!("unexpected {other:?}"),
    }
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
