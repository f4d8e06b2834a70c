//! The `World` builder: robots and objects side by side in one model.

use sdrs::prelude::*;

fn arm_urdf() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../sdrs-dynamics/tests/data/arm.urdf")
}

fn two_link_robot() -> Vec<Link> {
    let hull = ConvexHull::cuboid(Vector3::new(0.02, 0.02, 0.05)).unwrap();
    (0..2usize)
        .map(|k| {
            Link::new(
                format!("l{k}"),
                k.checked_sub(1),
                Isometry3::translation(0.0, 0.0, if k == 0 { 0.0 } else { -0.1 }),
                JointKind::Revolute { axis: Vector3::y() },
                vec![hull.clone()],
                MassModel::Lumped { mass: 0.5 },
            )
        })
        .collect()
}

#[test]
fn robots_and_objects_share_one_model() {
    let mut world = World::new(0.01).unwrap().with_ground();
    let first = world.add_robot(two_link_robot(), Isometry3::translation(0.0, 0.0, 1.0));
    let second = world.add_robot_as(
        "b_",
        two_link_robot(),
        Isometry3::translation(1.0, 0.0, 1.0),
    );
    let cube = ConvexHull::cuboid(Vector3::repeat(0.05)).unwrap();
    let object = world.add_object("cube", cube, 0.2, Isometry3::translation(0.5, 0.0, 0.069));
    let urdf = world
        .add_urdf(
            arm_urdf(),
            &UrdfOptions {
                package_paths: vec![arm_urdf().parent().unwrap().to_path_buf()],
                ..UrdfOptions::default()
            },
            Isometry3::translation(-1.0, 0.0, 0.05),
        )
        .unwrap();
    let (model, mut sim) = world.build().unwrap();
    assert_eq!((first.link_range(), second.link_range()), (1..3, 3..5));
    assert_eq!((first.dofs(), second.dofs()), (0..2, 2..4));
    assert_eq!(
        second.link(&model, "l1").unwrap(),
        model.link("b_l1").unwrap()
    );
    assert_eq!(second.root(), LinkId::new(3));
    // Parents are re-indexed into the world; roots are placed at their bases.
    let (root, tip) = (second.root().index(), second.root().index() + 1);
    assert_eq!(model.links()[tip].parent, Some(root));
    let poses = Kinematics::new(&model, &State::zero(&model))
        .poses()
        .to_vec();
    assert!((poses[tip].translation.vector - Vector3::new(1.0, 0.0, 0.9)).norm() < 1e-12);
    assert!(poses[urdf.root().index()].translation.vector.x < -0.99);
    assert_eq!((object.link(), object.dofs()), (LinkId::new(5), 4..10));
    assert_eq!(urdf.dofs().start, 10);
    assert_eq!(urdf.dofs().end, model.dof());
    // Everything steps together: the robots swing, the cube stays on the ground.
    let mut start = State::zero(&model);
    for (i, link) in model.links().iter().enumerate() {
        if let Some((lower, upper)) = link.limits {
            start.q[model.dof_offset(i)] = 0.5 * (lower + upper);
        }
    }
    let mut motion = Motion::at_rest(&model, start);
    let mut control = Control::passive(&model);
    control.position[0] = 0.3;
    control.kp[0] = 10.0;
    for _ in 0..20 {
        sim.advance(&mut motion, &control).unwrap();
    }
    assert!(motion.state.q[0] > 0.0);
    // The cube rests on the barrier (within its 2.02 cm support distance) without sliding.
    let q = &motion.state.q;
    let x = object.dofs().start;
    assert!(q[x].abs() < 1e-6 && q[x + 1].abs() < 1e-6);
    let gap = 0.019 + q[x + 2];
    assert!(gap > 0.0 && gap < 0.0202, "gap {gap}");
}

#[test]
fn world_errors_name_the_problem() {
    assert!(World::new(0.0).is_err());
    assert!(World::new(0.01).unwrap().with_friction(-1.0).is_err());
    let mut world = World::new(0.01).unwrap();
    assert!(
        world
            .add_urdf(
                "/no/such/robot.urdf",
                &UrdfOptions::default(),
                Isometry3::identity()
            )
            .unwrap_err()
            .to_string()
            .contains("/no/such/robot.urdf")
    );
    // An empty world is not a model.
    assert!(world.build().is_err());
}

#[test]
fn a_robot_added_twice_needs_a_prefix() {
    let options = UrdfOptions {
        package_paths: vec![arm_urdf().parent().unwrap().to_path_buf()],
        ..UrdfOptions::default()
    };
    let mut world = World::new(0.01).unwrap();
    world
        .add_urdf(arm_urdf(), &options, Isometry3::identity())
        .unwrap();
    world
        .add_urdf(arm_urdf(), &options, Isometry3::translation(1.0, 0.0, 0.0))
        .unwrap();
    let message = world.build().unwrap_err().to_string();
    assert!(
        message.contains("is used twice") && message.contains("add_robot_as"),
        "{message}"
    );

    let mut world = World::new(0.01).unwrap();
    let left = world
        .add_urdf_as("left/", arm_urdf(), &options, Isometry3::identity())
        .unwrap();
    let right = world
        .add_urdf_as(
            "right/",
            arm_urdf(),
            &options,
            Isometry3::translation(1.0, 0.0, 0.0),
        )
        .unwrap();
    let (model, _sim) = world.build().unwrap();
    let name = &model.links()[left.root().index()].name;
    assert!(name.starts_with("left/"), "{name}");
    let unprefixed = name.trim_start_matches("left/");
    let twin = right.link(&model, unprefixed).unwrap();
    assert!(right.contains(twin) && !left.contains(twin));
    // Joint names carry the prefix too, and both copies have the same DoFs.
    let joint = model.links()[twin.index() + 1].joint_label();
    assert!(joint.starts_with("right/"), "{joint}");
    assert_eq!(left.dofs().len(), right.dofs().len());
    let hinge = joint.trim_start_matches("right/");
    let (of_right, of_left) = (
        right.joint(&model, hinge).unwrap(),
        left.joint(&model, hinge).unwrap(),
    );
    assert_eq!(of_right, model.joint(&joint).unwrap());
    assert_eq!(
        (model.dofs(of_right).start, model.dofs(of_left).start),
        (right.dofs().start, left.dofs().start)
    );
}

/// An MJCF robot's fixed tendons and equality constraints come into the world with it, on the
/// world's links and with its prefix, so the same robot added twice keeps both sets apart.
#[test]
fn a_robots_tendons_come_with_it() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../sdrs-dynamics/tests/data/mjcf/coupled.xml"
    );
    let options = sdrs::dynamics::MjcfOptions::default();
    let mut world = World::new(0.002).unwrap().with_ground();
    world
        .add_mjcf_as(
            "left_",
            path,
            &options,
            Isometry3::translation(0.0, -1.0, 0.0),
        )
        .unwrap();
    let right = world
        .add_mjcf_as(
            "right_",
            path,
            &options,
            Isometry3::translation(0.0, 1.0, 0.0),
        )
        .unwrap();
    let (model, _sim) = world.build().unwrap();
    let names: Vec<&str> = model.tendons().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "left_tie",
            "left_drive",
            "left_equality pair",
            "right_tie",
            "right_drive",
            "right_equality pair"
        ]
    );
    // The right copy's tie spans the right copy's joints.
    let tie = &model.tendons()[3];
    let joints: Vec<String> = tie
        .joints
        .iter()
        .map(|&(link, _)| model.links()[link].joint_label())
        .collect();
    assert_eq!(joints, ["right_a", "right_c"]);
    let own: Vec<LinkId> = right.links().collect();
    assert!(
        tie.joints
            .iter()
            .all(|&(link, _)| own.contains(&LinkId::new(link)))
    );
}

/// A weld to the world moves with the robot's base; one between its links keeps its links.
#[test]
fn a_robots_welds_are_placed_with_it() {
    let arm = Model::new(two_link_robot()).unwrap();
    use sdrs::dynamics::Weld;
    let pin = Weld::connect(
        "pin",
        1,
        Point3::new(0.0, 0.0, 0.1),
        None,
        Point3::new(0.0, 0.0, 0.5),
        1e3,
    );
    let tie = Weld::connect("tie", 1, Point3::origin(), Some(0), Point3::origin(), 1e3);
    let arm = arm.with_welds(vec![pin, tie]).unwrap();
    let mut world = World::new(0.01).unwrap().with_ground();
    world.add_model_as("r_", &arm, Isometry3::translation(1.0, 2.0, 0.0));
    let (model, _sim) = world.build().unwrap();
    let welds = model.welds();
    assert_eq!(
        (welds[0].name.as_str(), welds[1].name.as_str()),
        ("r_pin", "r_tie")
    );
    // The ground is link 0: the arm's links are 1 and 2.
    assert_eq!((welds[0].link, welds[0].other), (2, None));
    assert_eq!(
        welds[0].other_frame.translation.vector,
        Vector3::new(1.0, 2.0, 0.5)
    );
    assert_eq!((welds[1].link, welds[1].other), (2, Some(1)));
}
