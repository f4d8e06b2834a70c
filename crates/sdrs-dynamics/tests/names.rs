//! Names and handles: lookup, DoF ranges, bodies, frames, and the errors for unknown and
//! duplicate names.

use nalgebra::{Isometry3, Vector3};
use sdrs_dynamics::{
    BodyId, DynamicsError, JointKind, Kinematics, Link, LinkId, MassModel, Model, State,
};
use sdrs_geometry::ConvexHull;

fn link(name: &str, parent: Option<usize>, joint: JointKind) -> Link {
    Link::new(
        name,
        parent,
        Isometry3::translation(0.0, 0.0, -0.2),
        joint,
        vec![ConvexHull::cuboid(Vector3::repeat(0.05)).unwrap()],
        MassModel::Lumped { mass: 1.0 },
    )
}

/// base (free) → shoulder (spherical) → elbow (revolute) → wrist (prismatic) → tool (fixed).
fn arm() -> Model {
    Model::new(vec![
        link("base", None, JointKind::Free).with_joint_name("floating"),
        link("shoulder", Some(0), JointKind::Spherical).with_joint_name("shoulder_ball"),
        link("elbow", Some(1), JointKind::Revolute { axis: Vector3::y() })
            .with_joint_name("elbow_joint"),
        link(
            "wrist",
            Some(2),
            JointKind::Prismatic { axis: Vector3::z() },
        )
        .with_joint_name("wrist_joint"),
        link("tool", Some(3), JointKind::Fixed),
    ])
    .unwrap()
}

#[test]
fn links_and_joints_are_found_by_name() {
    let model = arm();
    let elbow = model.link("elbow").unwrap();
    assert_eq!(elbow, LinkId::new(2));
    assert_eq!(usize::from(elbow), 2);
    assert_eq!(model.joint("elbow_joint").unwrap(), elbow.joint());
    assert_eq!(model.joint("elbow_joint").unwrap().link(), elbow);
    // A joint without a name is called after its link.
    assert_eq!(
        model.joint("tool joint").unwrap().link(),
        model.link("tool").unwrap()
    );
    let dofs = |name: &str| model.dofs(model.joint(name).unwrap());
    assert_eq!(dofs("floating"), 0..6);
    assert_eq!(dofs("shoulder_ball"), 6..9);
    assert_eq!(dofs("elbow_joint"), 9..10);
    assert_eq!(dofs("wrist_joint"), 10..11);
    assert_eq!(dofs("tool joint"), 11..11);
    assert_eq!(model.link_id(4).unwrap(), model.link("tool").unwrap());
}

#[test]
fn fixed_children_share_their_parents_body_and_frames_follow_their_link() {
    let model = arm();
    let wrist = model.link("wrist").unwrap();
    let tool = model.link("tool").unwrap();
    assert_eq!(model.body_of(tool), model.body_of(wrist));
    assert_eq!(model.body_of(wrist), BodyId::new(3));
    assert_ne!(
        model.body_of(wrist),
        model.body_of(model.link("elbow").unwrap())
    );
    assert_eq!(
        model.body_links(model.body_of(tool)).collect::<Vec<_>>(),
        vec![wrist, tool]
    );
    let offset = Isometry3::translation(0.1, 0.0, 0.0);
    let frame = model.frame("tool", offset).unwrap();
    let kinematics = Kinematics::new(&model, &State::zero(&model));
    let expected = kinematics.poses()[4] * offset;
    assert!(
        (frame.pose(&kinematics).translation.vector - expected.translation.vector).norm() < 1e-15
    );
    // At zero, every attachment hangs 0.2 m below the last; the tool frame sits 0.1 m aside.
    assert!((expected.translation.vector - Vector3::new(0.1, 0.0, -1.0)).norm() < 1e-12);
}

#[test]
fn unknown_names_list_the_closest_names_first() {
    let model = arm();
    let err = model.link("elbw").unwrap_err();
    let DynamicsError::UnknownName { kind, name, known } = &err else {
        panic!("expected UnknownName, got {err:?}");
    };
    assert_eq!((*kind, name.as_str()), ("link", "elbw"));
    assert!(known.starts_with("elbow, "), "{known}");
    assert!(
        err.to_string()
            .starts_with("no link named 'elbw' (known: elbow, "),
        "{err}"
    );

    let err = model.joint("wrist_jiont").unwrap_err();
    let DynamicsError::UnknownName { kind, known, .. } = &err else {
        panic!("expected UnknownName, got {err:?}");
    };
    assert_eq!(*kind, "joint");
    assert!(known.starts_with("wrist_joint, "), "{known}");
    // Joints are not links: a link name is no joint name.
    assert!(model.joint("elbow").is_err());

    let err = model.link_id(5).unwrap_err();
    assert_eq!(err, DynamicsError::LinkIndex { index: 5, links: 5 });
}

#[test]
fn duplicate_link_or_joint_names_are_refused() {
    let err = Model::new(vec![
        link("base", None, JointKind::Fixed),
        link("arm", Some(0), JointKind::Revolute { axis: Vector3::x() }),
        link("arm", Some(0), JointKind::Revolute { axis: Vector3::y() }),
    ])
    .unwrap_err();
    assert_eq!(
        err,
        DynamicsError::DuplicateName {
            kind: "link",
            name: "arm".into(),
            first: 1,
            second: 2,
        }
    );
    let message = err.to_string();
    assert!(
        message.contains("link name 'arm' is used twice (links 1 and 2)")
            && message.contains("add_robot_as"),
        "{message}"
    );

    let err = Model::new(vec![
        link("base", None, JointKind::Fixed).with_joint_name("j"),
        link("left", Some(0), JointKind::Revolute { axis: Vector3::x() }).with_joint_name("hinge"),
        link("right", Some(0), JointKind::Revolute { axis: Vector3::x() }).with_joint_name("hinge"),
    ])
    .unwrap_err();
    assert!(
        matches!(&err, DynamicsError::DuplicateName { kind: "joint", name, first: 1, second: 2 } if name == "hinge"),
        "{err:?}"
    );
}
