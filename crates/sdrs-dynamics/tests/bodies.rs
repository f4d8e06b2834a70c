//! Bodies, not links: links joined by fixed joints step as one rigid body, keep their names,
//! frames and hulls, and their design entries keep exact derivatives.

use nalgebra::{DVector, Isometry3, Point3, Vector3};
use sdrs_dynamics::scenes::box_on_incline;
use sdrs_dynamics::{
    Control, JointKind, Kinematics, Link, MassModel, Model, Motion, Simulator, State, StepSettings,
};
use sdrs_geometry::ConvexHull;

/// A box of half extents `half` centred at `centre`, turned by `turn` (axis-angle).
fn cuboid(half: [f64; 3], centre: [f64; 3], turn: [f64; 3]) -> ConvexHull {
    let place = Isometry3::new(Vector3::from(centre), Vector3::from(turn));
    let corners = ConvexHull::cuboid(Vector3::from(half))
        .unwrap()
        .vertices()
        .iter()
        .map(|v| place * v)
        .collect();
    ConvexHull::new(corners).unwrap()
}

/// Every hull of `link` moved into the frame in which `link`'s frame sits at `place`.
fn moved(place: &Isometry3<f64>, link: &Link) -> Vec<ConvexHull> {
    link.hulls
        .iter()
        .map(|h| {
            let corners: Vec<Point3<f64>> = h.vertices().iter().map(|v| place * v).collect();
            ConvexHull::new(corners).unwrap()
        })
        .collect()
}

/// Attachments of the fixed and moving joints hung on the free box: the mount on the box,
/// the arm on the mount, the tip on the arm.
fn attachments() -> [Isometry3<f64>; 3] {
    [
        Isometry3::new(
            Vector3::new(0.04, -0.02, 0.13),
            Vector3::new(0.1, 0.2, -0.3),
        ),
        Isometry3::new(Vector3::new(0.0, 0.01, 0.05), Vector3::new(-0.2, 0.0, 0.1)),
        Isometry3::new(Vector3::new(0.01, 0.0, 0.16), Vector3::new(0.0, 0.3, 0.2)),
    ]
}

/// `ground`, a free `box`, a `mount` fixed on it, an `arm` on a revolute joint on the mount
/// and a `tip` fixed on the arm: 5 links, 3 bodies. Every hull has 8 vertices and every link
/// 1 kg of vertex-lumped mass, so merging links by hand keeps the mass per vertex.
fn split_links() -> Vec<Link> {
    let scene = box_on_incline(0.4, 0.3, 0.01).unwrap();
    let mut links = scene.model.links().to_vec();
    let [mount, arm, tip] = attachments();
    let lumped = MassModel::Lumped { mass: 1.0 };
    links.push(Link::new(
        "mount",
        Some(1),
        mount,
        JointKind::Fixed,
        vec![cuboid(
            [0.03, 0.03, 0.02],
            [0.01, 0.0, 0.0],
            [0.0, 0.0, 0.4],
        )],
        lumped.clone(),
    ));
    links.push(Link::new(
        "arm",
        Some(2),
        arm,
        JointKind::Revolute {
            axis: Vector3::new(0.2, 1.0, 0.1),
        },
        vec![cuboid(
            [0.02, 0.02, 0.04],
            [0.0, 0.0, 0.08],
            [0.0, 0.0, 0.0],
        )],
        lumped.clone(),
    ));
    links.push(Link::new(
        "tip",
        Some(3),
        tip,
        JointKind::Fixed,
        vec![cuboid(
            [0.02, 0.015, 0.02],
            [0.0, 0.01, 0.0],
            [0.3, 0.0, 0.0],
        )],
        lumped,
    ));
    links
}

/// The same robot with the fixed links merged into their bodies by hand: the mount's hull on
/// the box, the tip's on the arm, the arm attached straight to the box.
fn merged_links() -> Vec<Link> {
    let split = split_links();
    let [mount, arm, tip] = attachments();
    let mut body = split[1].clone();
    body.hulls.extend(moved(&mount, &split[2]));
    body.mass = MassModel::Lumped { mass: 2.0 };
    let mut arm_body = split[3].clone();
    arm_body.parent = Some(1);
    arm_body.attachment = mount * arm;
    arm_body.hulls.extend(moved(&tip, &split[4]));
    arm_body.mass = MassModel::Lumped { mass: 2.0 };
    vec![split[0].clone(), body, arm_body]
}

/// A start off the model's rest: the box turned and moving, the arm bent.
fn start(model: &Model) -> Motion {
    let q = DVector::from_vec(vec![0.01, -0.02, 0.3, 0.1, -0.2, 0.3, 0.4]);
    let qdot = DVector::from_vec(vec![0.2, 0.0, -0.1, 0.5, 0.3, -0.4, 1.0]);
    Motion::from_velocity(model, State::new(model, q).unwrap(), &qdot, 0.01).unwrap()
}

#[test]
fn fixed_links_step_as_the_same_robot_merged_by_hand() {
    let split = Model::new(split_links()).unwrap();
    let merged = Model::new(merged_links()).unwrap();
    assert_eq!((split.dof(), merged.dof()), (7, 7));
    // No contact: the articulated dynamics alone, with PD on the arm.
    let settings = StepSettings::new(0.01).unwrap();
    let mut control = Control::passive(&split);
    control.kp[6] = 4.0;
    control.kd[6] = 10.0;
    control.position[6] = -0.3;
    let run = |model: &Model| {
        let mut sim = Simulator::new(model.clone(), settings.clone()).unwrap();
        let mut motion = start(model);
        for _ in 0..50 {
            sim.advance(&mut motion, &control).unwrap();
        }
        motion
    };
    let (a, b) = (run(&split), run(&merged));
    let gap = (&a.state.q - &b.state.q).amax();
    assert!(gap < 1e-12, "the split and merged robots differ by {gap:e}");
    assert!(
        (a.state.q[6] - 0.4).abs() > 0.1,
        "the arm moved: {}",
        a.state.q[6]
    );
    // Link placements: the fixed links sit at their bodies' poses times their offsets, which
    // are the merged robot's bodies times the fixed attachments.
    let [mount, _, tip] = attachments();
    let (ks, km) = (
        Kinematics::new(&split, &a.state),
        Kinematics::new(&merged, &b.state),
    );
    for (link, body, expected) in [(2, 1, mount), (4, 2, tip)] {
        let through_offset = ks.poses()[split.body(link)] * split.body_offset(link);
        let by_hand = km.poses()[body] * expected;
        for pose in [through_offset, by_hand] {
            let d = pose.inverse() * ks.poses()[link];
            assert!(
                d.translation.vector.norm() < 1e-12 && d.rotation.angle() < 1e-12,
                "link {link} is off its body by {d:?}"
            );
        }
    }
    assert_eq!(*split.body_offset(2), mount);
    assert_eq!(*split.body_offset(4), tip);
}

#[test]
fn the_model_keeps_every_link_by_name_and_groups_bodies() {
    let model = Model::new(split_links()).unwrap();
    let names: Vec<&str> = model.links().iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["ground", "box", "mount", "arm", "tip"]);
    for (name, body) in [
        ("ground", 0),
        ("box", 1),
        ("mount", 1),
        ("arm", 3),
        ("tip", 3),
    ] {
        let i = model.link_index(name).unwrap();
        assert_eq!(model.body(i), body, "{name}'s body");
        assert_eq!(model.mass(i), 1.0, "{name} keeps its own mass");
    }
    // A body's second moment is its links' merged: 2 kg on the box and on the arm.
    assert!((model.body_second_moment(2)[(3, 3)] - 2.0).abs() < 1e-12);
    assert!((model.body_second_moment(3)[(3, 3)] - 2.0).abs() < 1e-12);
    assert_eq!(model.body_offset(3), &Isometry3::identity());
    let merged = Model::new(merged_links()).unwrap();
    let gap = (model.body_second_moment(1) - merged.second_moment(1)).amax();
    assert!(
        gap < 1e-14,
        "the box body's second moment is off by {gap:e}"
    );
    let gap = (model.body_second_moment(4) - merged.second_moment(2)).amax();
    assert!(
        gap < 1e-14,
        "the arm body's second moment is off by {gap:e}"
    );
}

#[test]
fn step_blocks_match_differences_through_fixed_links() {
    // The box slides on the incline with the fixed mount, the arm and the fixed tip on it:
    // the hull vertices and attachments of the fixed links enter the merged inertia, and the
    // previous poses of the fixed links are not read (zero columns on both sides).
    let mut scene = box_on_incline(0.4, 0.3, 0.01).unwrap();
    let model = Model::new(split_links()).unwrap();
    let n = model.dof();
    let mut control = Control::passive(&model);
    control.kp = DVector::from_element(n, 6.0);
    control.kd = DVector::from_element(n, 2.0);
    control.velocity = DVector::from_element(n, 0.2);
    scene.model = model;
    scene.control = control;
    crate::backward::check(scene, 40);
}
