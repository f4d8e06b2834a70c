//! Long-range mesh contact in the stepper: a ball stays above the ground grid without
//! touching it, and two free balls far apart push each other apart (non-vanishing forces).

use nalgebra::{Isometry3, Vector3};
use sdrs_contact::long_range::LongRange;
use sdrs_dynamics::scenes::billiards;
use sdrs_dynamics::{
    Control, JointKind, Link, LongRangeContact, MassModel, Model, Motion, Simulator, State,
    StepSettings,
};
use sdrs_geometry::{ConvexHull, TriMesh};

#[test]
fn a_ball_stays_on_the_ground_grid_without_touching_it() {
    let scene = billiards(1, 0.0, 0.01).unwrap();
    let model = scene.scene.model.clone();
    let mut sim = Simulator::with_contact(model, scene.scene.settings, Box::new(scene.contact));
    let mut motion = scene.start;
    // The ball's lowest vertex starts 0.5 mm above the grid (q[2] is the change of height).
    // Without damping it bounces on the barrier; it must never touch nor leave its range.
    for step in 0..60 {
        sim.advance(&mut motion, &scene.scene.control).unwrap();
        let gap = 5e-4 + motion.state.q[2];
        assert!(gap > 0.0 && gap < 2e-3, "step {step}: gap {gap}");
    }
}

#[test]
fn far_apart_balls_push_each_other_apart() {
    // Two free balls half a metre apart, no gravity, no ground.
    let mesh = TriMesh::icosphere(0.05, 2).unwrap();
    let hull = ConvexHull::new(mesh.vertices().to_vec()).unwrap();
    let ball = |x: f64| {
        Link::new(
            "ball",
            None,
            Isometry3::translation(x, 0.0, 0.0),
            JointKind::Free,
            vec![hull.clone()],
            MassModel::Lumped { mass: 0.2 },
        )
        .with_mesh(mesh.clone())
    };
    let model = Model::new(vec![ball(-0.25), ball(0.25)]).unwrap();
    let contact = LongRangeContact::new(&model, LongRange::new(0.1).unwrap(), 1e-4, false).unwrap();
    let mut settings = StepSettings::new(0.01).unwrap();
    settings.gravity = 0.0;
    settings.tolerance = 1e-9;
    let mut sim = Simulator::with_contact(model.clone(), settings, Box::new(contact));
    let mut motion = Motion::at_rest(&model, State::zero(&model));
    for _ in 0..30 {
        sim.advance(&mut motion, &Control::passive(&model)).unwrap();
    }
    let q = &motion.state.q;
    let (left, right) = (
        Vector3::new(q[0], q[1], q[2]),
        Vector3::new(q[6], q[7], q[8]),
    );
    assert!(
        left.x < -1e-5 && right.x > 1e-5,
        "left {left:?}, right {right:?}"
    );
    assert!(
        (left + right).norm() < 1e-6 * right.x.abs().max(1e-12) + 1e-12,
        "momentum: {left:?} {right:?}"
    );
}

#[test]
fn any_mesh_model_plugs_in_and_finite_supports_cull_far_pairs() {
    use sdrs_contact::ContactModel;
    use sdrs_contact::ipc::potential::{Ipc, IpcShape};
    use sdrs_dynamics::{ContactHook, Kinematics, MeshContact};
    let cube = |z: f64, joint| {
        Link::new(
            "cube",
            None,
            Isometry3::translation(0.0, 0.0, z),
            joint,
            vec![ConvexHull::cuboid(Vector3::repeat(0.5)).unwrap()],
            MassModel::Lumped { mass: 1.0 },
        )
        .with_mesh(TriMesh::cuboid(Vector3::repeat(0.5)).unwrap())
    };
    let model = Model::new(vec![
        cube(0.0, JointKind::Fixed),
        cube(1.005, JointKind::Free),
    ])
    .unwrap();
    let mut hook = MeshContact::new(&model, Ipc::new(0.01).unwrap(), 2.0, false).unwrap();
    let energy = |hook: &mut MeshContact<Ipc>, state: &State| {
        let kin = Kinematics::new(&model, state);
        hook.add(&model, &kin, None, None).unwrap().unwrap().value
    };
    // 5 mm apart: the hook's energy is the stiffness times the model's.
    let near = State::zero(&model);
    let shape = IpcShape::new(TriMesh::cuboid(Vector3::repeat(0.5)).unwrap());
    let direct = Ipc::new(0.01)
        .unwrap()
        .evaluate(
            &shape,
            &Isometry3::identity(),
            &shape,
            &Isometry3::translation(0.0, 0.0, 1.005),
            &mut (),
            sdrs_contact::Order::Value,
        )
        .unwrap()
        .value();
    assert!(direct > 0.0);
    assert!((energy(&mut hook, &near) - 2.0 * direct).abs() < 1e-12 * direct);
    // 5 cm apart (beyond d̂): culled, zero.
    let mut far = State::zero(&model);
    far.q[2] = 0.045;
    assert_eq!(energy(&mut hook, &far), 0.0);
}
