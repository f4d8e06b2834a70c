//! Long-range mesh contact in the stepper: a ball stays above the ground grid without
//! touching it, two free balls far apart push each other apart (non-vanishing forces), and
//! long-range and IPC friction stop a sliding block where Coulomb friction would (and hold it)
//! where none lets it glide.

use nalgebra::{Isometry3, Vector3};
use sdrs_contact::long_range::LongRange;
use sdrs_dynamics::scenes::{billiards, sliding_block};
use sdrs_dynamics::{
    ContactHook, Control, JointKind, Kinematics, Link, LongRangeContact, MassModel, Model, Motion,
    Simulator, State, StepSettings,
};
use sdrs_geometry::{ConvexHull, TriMesh};

#[test]
fn a_ball_stays_on_the_ground_grid_without_touching_it() {
    let scene = billiards(1, 0.0, 0.01).unwrap();
    let model = scene.scene.model.clone();
    let mut sim =
        Simulator::with_contact(model, scene.scene.settings, Box::new(scene.contact)).unwrap();
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
            format!("ball at x = {x}"),
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
    let mut sim = Simulator::with_contact(model.clone(), settings, Box::new(contact)).unwrap();
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
fn any_mesh_model_and_its_friction_plug_in_and_finite_supports_cull_far_pairs() {
    use sdrs_contact::ipc::friction::IpcFriction;
    use sdrs_contact::ipc::potential::{Ipc, IpcShape};
    use sdrs_contact::{ContactModel, LaggedFriction};
    use sdrs_dynamics::{ContactHook, IpcContact, Kinematics};
    let cube = |z: f64, joint| {
        Link::new(
            format!("cube at z = {z}"),
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
    let mut hook = IpcContact::new(&model, Ipc::new(0.01).unwrap(), 2.0, false).unwrap();
    let energy = |hook: &mut IpcContact, state: &State| {
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
    // With IPC friction: lagged at the start of the step, its energy joins the contact's.
    let ipc = Ipc::new(0.01).unwrap();
    let friction = IpcFriction::new(&ipc, 0.5, 0.01).unwrap();
    let mut hook = IpcContact::new(&model, ipc, 2.0, false)
        .unwrap()
        .with_friction(friction.clone());
    hook.begin_step(&model, &Kinematics::new(&model, &near))
        .unwrap();
    let mut slid = near.clone();
    slid.q[0] = 3e-3;
    let poses = [
        Isometry3::identity(),
        Isometry3::translation(0.0, 0.0, 1.005),
    ];
    let mut frames = friction
        .frames(2.0, &shape, &poses[0], &shape, &poses[1])
        .unwrap();
    assert!(!frames.is_empty());
    let rubbing = friction
        .evaluate(
            &mut frames,
            &poses[0],
            &Isometry3::translation(3e-3, 0.0, 1.005),
            sdrs_contact::Order::Value,
        )
        .unwrap()
        .value;
    let moved = Ipc::new(0.01)
        .unwrap()
        .evaluate(
            &shape,
            &poses[0],
            &shape,
            &Isometry3::translation(3e-3, 0.0, 1.005),
            &mut (),
            sdrs_contact::Order::Value,
        )
        .unwrap()
        .value();
    let total = energy(&mut hook, &slid);
    assert!(rubbing > 0.0);
    assert!((total - (2.0 * moved + rubbing)).abs() < 1e-12 * total);
}

/// The distance a block sliding at `speed` travels until it stops under Coulomb friction `mu`
/// in implicit-Euler steps of `dt` (`v_{k+1} = v_k − μ g Δt`, `x += v_{k+1} Δt`).
fn coulomb_stopping_distance(speed: f64, mu: f64, dt: f64) -> f64 {
    let mut v = speed;
    let mut x = 0.0;
    while v > mu * 9.81 * dt {
        v -= mu * 9.81 * dt;
        x += v * dt;
    }
    x
}

/// The block of `sliding_block` under contact `hook`: settled at rest for 30 steps, then
/// kicked along x at `speed` and stepped 40 times; its x displacement after each step.
fn slide_after_settling(hook: Box<dyn ContactHook>, speed: f64, dt: f64) -> Vec<f64> {
    let scene = sliding_block(0.0, 0.0, dt).unwrap();
    let model = scene.scene.model.clone();
    let mut sim = Simulator::with_contact(model.clone(), scene.scene.settings, hook).unwrap();
    let mut motion = scene.start;
    for _ in 0..30 {
        sim.advance(&mut motion, &scene.scene.control).unwrap();
    }
    let x0 = motion.state.q[0];
    let mut before = motion.state.clone();
    before.q[0] -= speed * dt;
    motion.previous = Kinematics::new(&model, &before).poses().to_vec();
    (0..40)
        .map(|_| {
            sim.advance(&mut motion, &scene.scene.control).unwrap();
            // Never touching: the mesh gap stays positive (1 mm at the start).
            assert!(1e-3 + motion.state.q[2] > 0.0);
            motion.state.q[0] - x0
        })
        .collect()
}

/// Without friction (`hook(0.0)`) the settled block glides on at its speed; with friction
/// `μ` it stops within `tolerance` of Coulomb's distance and stays (mean speed over the last
/// 15 steps below the friction's velocity smoothing, 1 mm/s for both models).
fn assert_stops_like_coulomb(hook: impl Fn(f64) -> Box<dyn ContactHook>, tolerance: f64) {
    let (speed, dt) = (0.5, 0.01);
    let free = slide_after_settling(hook(0.0), speed, dt);
    let gliding = (free[39] - free[29]) / (10.0 * dt);
    assert!(gliding > 0.99 * speed, "{:?}", &free[29..]);
    for mu in [0.2, 0.5] {
        let xs = slide_after_settling(hook(mu), speed, dt);
        let creep = (xs[39] - xs[24]).abs() / (15.0 * dt);
        assert!(
            creep < 1e-3,
            "mu {mu}: creeps at {creep} m/s, {:?}",
            &xs[24..]
        );
        let coulomb = coulomb_stopping_distance(speed, mu, dt);
        let ratio = xs[39] / coulomb;
        assert!(
            (ratio - 1.0).abs() < tolerance,
            "mu {mu}: {} m vs Coulomb {coulomb} m",
            xs[39]
        );
    }
}

/// The normal forces long-range friction sees are the corner forces of the locally supported
/// pair potentials (eq. 12), which need not add up to the weight exactly; resting 1 mm above
/// the slab, the near pairs carry nearly all of it (measured: 0.995-1.006 of Coulomb's
/// distance).
#[test]
fn long_range_friction_stops_a_sliding_block_and_holds_it() {
    let hook = |mu: f64| -> Box<dyn ContactHook> {
        Box::new(sliding_block(0.0, mu, 0.01).unwrap().contact)
    };
    assert_stops_like_coulomb(hook, 0.03);
}

/// IPC with its lagged friction (and CCD-limited steps): the contacts' normal forces add up
/// to the weight (measured: 0.992-1.001 of Coulomb's distance); without CCD the first steps
/// carried the block through the slab.
#[test]
fn ipc_friction_stops_a_sliding_block_where_coulomb_does() {
    use sdrs_contact::ipc::friction::IpcFriction;
    use sdrs_contact::ipc::potential::Ipc;
    use sdrs_dynamics::IpcContact;
    let model = sliding_block(0.0, 0.0, 0.01).unwrap().scene.model;
    let ipc = Ipc::new(2e-3).unwrap();
    let hook = |mu: f64| -> Box<dyn ContactHook> {
        let hook = IpcContact::new(&model, ipc.clone(), 1e8, false).unwrap();
        Box::new(if mu > 0.0 {
            hook.with_friction(IpcFriction::new(&ipc, mu, 0.01).unwrap())
        } else {
            hook
        })
    };
    assert_stops_like_coulomb(hook, 0.03);
}
