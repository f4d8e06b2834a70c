//! URDF export read back by the URDF loader: the same links, joints, limits, inertials and
//! hulls, and the same kinematics, for a model with every joint kind and for a real robot.

use nalgebra::{DVector, Isometry3, Translation3, UnitQuaternion, Vector3};
use sdrs_dynamics::{
    DynamicsError, JointKind, Kinematics, Link, MassModel, Model, State, UrdfOptions, export_urdf,
    load_urdf,
};
use sdrs_geometry::ConvexHull;
use std::path::PathBuf;

fn out(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("urdf-export-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn read_back(path: &std::path::Path) -> Model {
    let options = UrdfOptions {
        keep_convex_meshes: true,
        ..UrdfOptions::default()
    };
    load_urdf(path, &options).unwrap()
}

/// A hull with a vertex moved off the box, as a design step would move it.
fn shape(half: f64, bump: f64) -> ConvexHull {
    let mut vertices = ConvexHull::cuboid(Vector3::new(half, 0.7 * half, 1.3 * half))
        .unwrap()
        .vertices()
        .to_vec();
    vertices[0] += Vector3::new(-bump, 0.3 * bump, -bump);
    ConvexHull::new(vertices).unwrap()
}

fn pose(t: [f64; 3], rpy: [f64; 3]) -> Isometry3<f64> {
    Isometry3::from_parts(
        Translation3::new(t[0], t[1], t[2]),
        UnitQuaternion::from_euler_angles(rpy[0], rpy[1], rpy[2]),
    )
}

/// A floating body with a limited hinge, a continuous hinge, a slider, a ball joint and a
/// fixed link, lumped and solid masses, two hulls on one link.
fn every_joint() -> Model {
    let links = vec![
        Link::new(
            "body",
            None,
            pose([0.1, -0.2, 0.5], [0.1, 0.2, -0.3]),
            JointKind::Free,
            vec![shape(0.1, 0.02), shape(0.05, 0.0)],
            MassModel::Lumped { mass: 2.0 },
        ),
        Link::new(
            "hinge",
            Some(0),
            pose([0.12, 0.0, 0.0], [0.0, 0.4, 0.0]),
            JointKind::Revolute {
                axis: Vector3::new(0.0, 0.6, 0.8),
            },
            vec![shape(0.04, 0.01)],
            MassModel::Solid { density: 800.0 },
        )
        .with_limits(-1.2, 0.7),
        Link::new(
            "wheel",
            Some(1),
            pose([0.0, 0.05, -0.1], [-0.5, 0.0, 1.0]),
            JointKind::Revolute { axis: Vector3::x() },
            vec![shape(0.03, 0.0)],
            MassModel::Lumped { mass: 0.3 },
        ),
        Link::new(
            "slider",
            Some(0),
            pose([-0.1, 0.0, 0.0], [0.0, 0.0, 0.0]),
            JointKind::Prismatic { axis: Vector3::z() },
            vec![shape(0.02, 0.005)],
            MassModel::Lumped { mass: 0.2 },
        )
        .with_limits(-0.05, 0.05),
        Link::new(
            "ball",
            Some(3),
            pose([0.0, 0.0, -0.06], [0.3, 0.0, 0.0]),
            JointKind::Spherical,
            vec![shape(0.02, 0.0)],
            MassModel::Lumped { mass: 0.1 },
        ),
        Link::new(
            "plate",
            Some(4),
            pose([0.0, 0.02, 0.0], [0.0, 0.0, 0.5]),
            JointKind::Fixed,
            vec![shape(0.01, 0.0)],
            MassModel::Lumped { mass: 0.05 },
        ),
    ];
    Model::new(links).unwrap()
}

/// The two hulls are the same convex body to `tolerance`: their support functions agree in
/// 500 directions. The mesh loaders read single precision (vertices come back to about
/// 1e-8 m) and drop the corners of degenerate triangles, which a decomposition's hull can have
/// (a vertex within round-off of a face).
fn same_shape(a: &ConvexHull, b: &ConvexHull, tolerance: f64) -> bool {
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    (0..500).all(|k| {
        let z = 1.0 - 2.0 * (k as f64 + 0.5) / 500.0;
        let r = (1.0 - z * z).sqrt();
        let (s, c) = (golden * k as f64).sin_cos();
        let d = Vector3::new(r * c, r * s, z);
        let support = |h: &ConvexHull| h.support_point(&Isometry3::identity(), &d).coords.dot(&d);
        (support(a) - support(b)).abs() <= tolerance
    })
}

/// The links' world poses agree at `q`. The loader orders links breadth first: each joint's
/// coordinates are moved to where `b` keeps them (a link missing from `b` is the second hinge
/// of a universal joint, which follows its first).
fn same_kinematics(a: &Model, b: &Model, q: &DVector<f64>, tolerance: f64) {
    let mut sa = State::zero(a);
    sa.q.copy_from(q);
    let mut sb = State::zero(b);
    for (i, link) in a.links().iter().enumerate() {
        let j = b
            .link_index(&format!("{}_universal", link.name))
            .or_else(|_| b.link_index(&link.name))
            .unwrap();
        let (from, to) = (a.dof_offset(i), b.dof_offset(j));
        for k in 0..link.joint.dof() {
            sb.q[to + k] = q[from + k];
        }
    }
    let (ka, kb) = (Kinematics::new(a, &sa), Kinematics::new(b, &sb));
    for (i, link) in a.links().iter().enumerate() {
        let j = b.link_index(&link.name).unwrap();
        let moved = kb.poses()[j];
        let pa = ka.poses()[i];
        assert!(
            (moved.translation.vector - pa.translation.vector).norm() < tolerance
                && moved.rotation.angle_to(&pa.rotation) < tolerance,
            "link '{}': {pa:?} vs {moved:?}",
            link.name
        );
    }
}

#[test]
fn a_model_with_every_joint_kind_reads_back_the_same() {
    let model = every_joint();
    let dir = out("every");
    let export = export_urdf(&model, "body", &dir, "every joint").unwrap();
    assert_eq!(export.meshes.len(), 7);
    // The free root hangs from a massless `world` by a floating joint.
    let back = read_back(&export.urdf);
    assert_eq!(back.links().len(), model.links().len() + 1);
    assert_eq!(back.links()[0].name, "world");
    assert_eq!(back.mass(0), 0.0);
    assert_eq!(back.dof(), model.dof());
    for (i, link) in model.links().iter().enumerate() {
        let j = back.link_index(&link.name).unwrap();
        let other = &back.links()[j];
        let parent = |m: &Model, l: &Link| l.parent.map(|p| m.links()[p].name.clone());
        let expected = parent(&model, link).unwrap_or_else(|| "world".into());
        assert_eq!(parent(&back, other), Some(expected));
        assert_eq!(other.limits, link.limits, "limits of '{}'", link.name);
        match (&link.joint, &other.joint) {
            (JointKind::Revolute { axis: a }, JointKind::Revolute { axis: b })
            | (JointKind::Prismatic { axis: a }, JointKind::Prismatic { axis: b }) => {
                assert!((a.normalize() - b.normalize()).norm() < 1e-12)
            }
            (a, b) => assert_eq!(a, b, "joint of '{}'", link.name),
        }
        let (a, b) = (link.attachment, other.attachment);
        assert!((a.translation.vector - b.translation.vector).norm() < 1e-15);
        assert!(a.rotation.angle_to(&b.rotation) < 1e-12, "'{}'", link.name);
        let (sa, sb) = (model.second_moment(i), back.second_moment(j));
        assert!(
            (sa - sb).norm() <= 1e-12 * sa.norm(),
            "second moment of '{}': {sa} vs {sb}",
            link.name
        );
        assert_eq!(other.hulls.len(), link.hulls.len());
        for (a, b) in link.hulls.iter().zip(&other.hulls) {
            assert_eq!(a.vertices().len(), b.vertices().len());
            assert!(same_shape(a, b, 1e-7), "hulls of '{}'", link.name);
        }
    }
    let q = DVector::from_fn(model.dof(), |k, _| 0.3 * ((k as f64) * 1.7).sin());
    same_kinematics(&model, &back, &q, 1e-12);
}

#[test]
fn a_universal_joint_becomes_two_hinges_with_the_same_kinematics() {
    let bar = shape(0.05, 0.0);
    let model = Model::new(vec![
        Link::new(
            "base",
            None,
            Isometry3::identity(),
            JointKind::Fixed,
            vec![bar.clone()],
            MassModel::Lumped { mass: 1.0 },
        ),
        Link::new(
            "arm",
            Some(0),
            pose([0.0, 0.0, 0.1], [0.2, 0.0, 0.0]),
            JointKind::Universal {
                first: Vector3::x(),
                second: Vector3::y(),
            },
            vec![bar],
            MassModel::Lumped { mass: 0.5 },
        ),
    ])
    .unwrap();
    let export = export_urdf(&model, "base", out("universal"), "universal").unwrap();
    let back = read_back(&export.urdf);
    assert_eq!(back.links().len(), 3);
    assert_eq!(back.dof(), 2);
    assert_eq!(back.mass(back.link_index("arm_universal").unwrap()), 0.0);
    same_kinematics(&model, &back, &DVector::from_vec(vec![0.4, -0.9]), 1e-12);
}

#[test]
fn a_robot_from_example_robot_data_reads_back_the_same() {
    let spec = sdrs_robot_data::robot("ur5").unwrap();
    let options = UrdfOptions {
        package_paths: vec![sdrs_robot_data::package_path().unwrap()],
        ..UrdfOptions::default()
    };
    let model = load_urdf(spec.urdf_path().unwrap(), &options).unwrap();
    let root = model.links()[0].name.clone();
    let export = export_urdf(&model, &root, out("ur5"), "ur5").unwrap();
    let back = read_back(&export.urdf);
    assert_eq!(back.dof(), model.dof());
    let hulls: usize = model.links().iter().map(|l| l.hulls.len()).sum();
    assert_eq!(export.meshes.len(), hulls);
    for (i, link) in model.links().iter().enumerate() {
        let other = &back.links()[back.link_index(&link.name).unwrap()];
        assert_eq!(other.hulls.len(), link.hulls.len(), "'{}'", link.name);
        for (a, b) in link.hulls.iter().zip(&other.hulls) {
            assert!(
                same_shape(a, b, 1e-7),
                "hulls of '{}': {} vs {} vertices",
                link.name,
                a.vertices().len(),
                b.vertices().len()
            );
        }
        let sa = model.second_moment(i);
        let sb = back.second_moment(back.link_index(&link.name).unwrap());
        assert!((sa - sb).norm() <= 1e-12 * sa.norm().max(1e-300));
    }
    let q = DVector::from_fn(model.dof(), |k, _| 0.5 - 0.2 * k as f64);
    // The UR5's joint frames have a pitch of π/2, where roll-pitch-yaw is singular: the
    // conversion to URDF's angles loses about 2e-12 rad there.
    same_kinematics(&model, &back, &q, 1e-10);
}

#[test]
fn bad_requests_are_clear_errors() {
    let model = every_joint();
    let err = export_urdf(&model, "bodyy", out("bad"), "x").unwrap_err();
    assert!(matches!(err, DynamicsError::UnknownName { .. }), "{err}");
    assert!(err.to_string().contains("body"), "{err}");
    // A file where the folder should be.
    let blocked = out("blocked");
    std::fs::create_dir_all(&blocked).unwrap();
    std::fs::write(blocked.join("meshes"), "not a folder").unwrap();
    let err = export_urdf(&model, "body", &blocked, "x").unwrap_err();
    assert!(err.to_string().contains("meshes"), "{err}");
}

#[test]
fn a_root_hinged_to_the_world_hangs_from_a_world_link() {
    let model = Model::new(vec![
        Link::new(
            "pendulum",
            None,
            pose([0.0, 0.0, 1.0], [0.0, 0.3, 0.0]),
            JointKind::Revolute { axis: Vector3::y() },
            vec![shape(0.05, 0.01)],
            MassModel::Lumped { mass: 1.0 },
        )
        .with_limits(-2.0, 2.0),
    ])
    .unwrap();
    let export = export_urdf(&model, "pendulum", out("hinged"), "pendulum").unwrap();
    let back = read_back(&export.urdf);
    assert_eq!(back.links().len(), 2);
    assert_eq!(back.links()[1].limits, Some((-2.0, 2.0)));
    same_kinematics(&model, &back, &DVector::from_vec(vec![0.8]), 1e-12);
}
