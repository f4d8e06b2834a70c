//! Collision filtering, named errors and the step's answers to bad input (never a panic).

use nalgebra::{DMatrix, DVector, Isometry3, Vector3};
use sdrs_dynamics::scenes::sdrs_contact;
use sdrs_dynamics::{
    Control, DynamicsError, ExternalEnergy, JointKind, Kinematics, Link, MassModel, Model, Motion,
    Simulator, State, StepSettings,
};
use sdrs_geometry::ConvexHull;
use std::sync::Arc;

fn cube(half: f64) -> Vec<ConvexHull> {
    vec![ConvexHull::cuboid(Vector3::repeat(half)).unwrap()]
}

fn lumped() -> MassModel {
    MassModel::Lumped { mass: 1.0 }
}

fn hinge(name: &str, parent: usize, at: [f64; 3], half: f64) -> Link {
    Link::new(
        name,
        Some(parent),
        Isometry3::translation(at[0], at[1], at[2]),
        JointKind::Revolute { axis: Vector3::y() },
        cube(half),
        lumped(),
    )
    .with_joint_name(format!("{name}_joint"))
}

/// A fixed 10 m x 10 m slab whose top face is z = 0.
fn ground() -> Link {
    Link::new(
        "ground",
        None,
        Isometry3::translation(0.0, 0.0, -0.5),
        JointKind::Fixed,
        vec![ConvexHull::cuboid(Vector3::new(5.0, 5.0, 0.5)).unwrap()],
        lumped(),
    )
}

/// A Panda-like wrist: `link7` moves, `link8` is fixed to it, `hand` is fixed to `link8` and
/// overlaps `link7`; a free `base` holds the arm, above a fixed ground.
fn wrist() -> Model {
    let base = Link::new(
        "base",
        None,
        Isometry3::translation(0.0, 0.0, 1.0),
        JointKind::Free,
        cube(0.1),
        lumped(),
    );
    let link7 = hinge("link7", 1, [0.0, 0.0, -0.25], 0.1);
    let link8 = Link::new(
        "link8",
        Some(2),
        Isometry3::translation(0.0, 0.0, -0.05),
        JointKind::Fixed,
        vec![],
        MassModel::SecondMoment(nalgebra::Matrix4::zeros()),
    );
    let hand = Link::new(
        "hand",
        Some(3),
        Isometry3::translation(0.0, 0.0, -0.1),
        JointKind::Fixed,
        cube(0.08),
        lumped(),
    );
    Model::new(vec![ground(), base, link7, link8, hand]).unwrap()
}

#[test]
fn links_joined_by_fixed_joints_are_one_body_and_never_touch() {
    let model = wrist();
    assert_eq!(model.body(4), 2, "the hand belongs to link7's body");
    assert_eq!(model.body(3), 2);
    assert!(
        !model.may_touch(2, 4, false),
        "link7 and the hand are one body"
    );
    // Parent/child bodies: base and link7 (and so base and hand) when asked.
    assert_eq!(model.parent_body(4), Some(1));
    assert!(model.may_touch(1, 4, false));
    assert!(!model.may_touch(1, 4, true));
    // The ground and a moving body may touch; two immobile links never do.
    assert!(model.may_touch(0, 4, true));
    let mut second = ground();
    second.name = "second ground".into();
    let two_grounds = Model::new(vec![ground(), second]).unwrap();
    assert!(!two_grounds.may_touch(0, 1, false));
}

#[test]
fn the_wrist_steps_although_link7_and_the_hand_overlap() {
    let model = wrist();
    let mut settings = StepSettings::new(0.01).unwrap();
    settings.contact = Some(sdrs_contact(None).unwrap());
    let mut sim = Simulator::new(model.clone(), settings).unwrap();
    let mut motion = Motion::at_rest(&model, State::zero(&model));
    for _ in 0..5 {
        sim.advance(&mut motion, &Control::passive(&model)).unwrap();
    }
}

#[test]
fn an_initial_overlap_is_named_and_says_how_to_fix_it() {
    // Two free cubes overlapping: no rule leaves them out.
    let links = vec![
        Link::new(
            "left",
            None,
            Isometry3::identity(),
            JointKind::Free,
            cube(0.1),
            lumped(),
        ),
        Link::new(
            "right",
            None,
            Isometry3::translation(0.15, 0.0, 0.0),
            JointKind::Free,
            cube(0.1),
            lumped(),
        ),
    ];
    let mut model = Model::new(links).unwrap();
    let mut settings = StepSettings::new(0.01).unwrap();
    settings.contact = Some(sdrs_contact(None).unwrap());
    let mut sim = Simulator::new(model.clone(), settings.clone()).unwrap();
    let mut motion = Motion::at_rest(&model, State::zero(&model));
    let err = sim
        .advance(&mut motion, &Control::passive(&model))
        .unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(&err, DynamicsError::InitialPenetration { link_a, link_b } if link_a == "left" && link_b == "right"),
        "{err:?}"
    );
    assert!(
        text.contains("exclude_pair") && text.contains("disable_collisions"),
        "{text}"
    );
    // The automatic filter finds the pair and reports it; then the step runs.
    let excluded = model.exclude_touching(&State::zero(&model), 0.02).unwrap();
    assert_eq!(excluded.len(), 1);
    assert_eq!(
        (excluded[0].link_a.as_str(), excluded[0].link_b.as_str()),
        ("left", "right")
    );
    assert_eq!(excluded[0].distance, 0.0);
    let mut sim = Simulator::new(model.clone(), settings).unwrap();
    sim.advance(&mut motion, &Control::passive(&model)).unwrap();
}

#[test]
fn exclusions_by_name_group_bits_and_unknown_names() {
    let mut model = wrist();
    assert!(model.may_touch(0, 2, true));
    model.exclude_pair("link7", "ground").unwrap();
    assert!(!model.may_touch(0, 2, true) && !model.may_touch(2, 0, true));
    // MuJoCo's rule: touch when group_a & mask_b or group_b & mask_a.
    model.set_collision_group("hand", 0b10, 0b10).unwrap();
    assert!(
        !model.may_touch(0, 4, true),
        "ground (1, 1) and hand (2, 2)"
    );
    model.set_collision_group("ground", 0b01, 0b11).unwrap();
    assert!(
        model.may_touch(0, 4, true),
        "the ground's mask now has the hand's group"
    );
    model.exclude_link("hand").unwrap();
    assert!(!model.may_touch(0, 4, true));
    let err = model.exclude_pair("link7", "link9").unwrap_err();
    assert!(err.to_string().contains("no link named 'link9'"), "{err}");
    assert!(
        err.to_string().contains("hand"),
        "the message lists known links: {err}"
    );
    assert!(matches!(
        model.exclude_pair_indices(0, 99),
        Err(DynamicsError::LinkIndex {
            index: 99,
            links: 5
        })
    ));
    // Exclusions travel with the links (a design change rebuilds the model from them).
    let rebuilt = model.with_design(&model.design()).unwrap();
    assert!(!rebuilt.may_touch(0, 2, true));
}

#[test]
fn limits_are_named_and_a_neutral_configuration_respects_them() {
    let mut arm = hinge("elbow", 0, [0.0, 0.0, -0.3], 0.05).with_limits(0.0, 1.0);
    arm.parent = None;
    let model = Model::new(vec![arm]).unwrap();
    let mut sim = Simulator::new(model.clone(), StepSettings::new(0.01).unwrap()).unwrap();
    let mut motion = Motion::at_rest(&model, State::zero(&model));
    let err = sim
        .advance(&mut motion, &Control::passive(&model))
        .unwrap_err();
    assert!(
        matches!(&err, DynamicsError::OutsideLimits { joint, .. } if joint == "elbow_joint"),
        "{err:?}"
    );
    assert!(err.to_string().contains("Model::neutral"), "{err}");
    let neutral = model.neutral(0.01);
    assert_eq!(neutral.q[0], 0.01);
    model.check_limits(&neutral).unwrap();
    let mut motion = Motion::at_rest(&model, neutral);
    sim.advance(&mut motion, &Control::passive(&model)).unwrap();
    assert_eq!(model.dof_name(0), "elbow_joint");
    assert_eq!(model.joint_link("elbow_joint").unwrap(), 0);
}

/// A user energy that is +∞ below `floor` (a forbidden region) and NaN when asked.
#[derive(Debug)]
struct Wall {
    floor: f64,
    nan: bool,
}

impl ExternalEnergy for Wall {
    fn add(
        &self,
        _: &Model,
        _: &Kinematics,
        state: &State,
        _: &mut DVector<f64>,
        _: Option<&mut DMatrix<f64>>,
    ) -> f64 {
        if self.nan {
            f64::NAN
        } else if state.q[2] < self.floor {
            f64::INFINITY
        } else {
            0.0
        }
    }
}

fn free_cube_with(energy: Wall) -> (Model, Simulator) {
    let link = Link::new(
        "cube",
        None,
        Isometry3::identity(),
        JointKind::Free,
        cube(0.1),
        lumped(),
    );
    let model = Model::new(vec![link]).unwrap();
    let mut settings = StepSettings::new(0.01).unwrap();
    settings.external.push(Arc::new(energy));
    let sim = Simulator::new(model.clone(), settings).unwrap();
    (model, sim)
}

#[test]
fn an_infinite_user_energy_at_the_start_is_an_error_not_a_panic() {
    let (model, mut sim) = free_cube_with(Wall {
        floor: 1.0,
        nan: false,
    });
    let mut motion = Motion::at_rest(&model, State::zero(&model));
    let err = sim
        .advance(&mut motion, &Control::passive(&model))
        .unwrap_err();
    assert!(
        matches!(err, DynamicsError::ForbiddenStart { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("user energy 0"), "{err}");
    // A wall of +∞ without a barrier's slope is never crossed, but the minimum then lies on it
    // and not at a stationary point: the step reports that instead of panicking.
    let (model, mut sim) = free_cube_with(Wall {
        floor: -0.05,
        nan: false,
    });
    let mut motion = Motion::at_rest(&model, State::zero(&model));
    let err = (0..30)
        .find_map(|_| {
            let result = sim.advance(&mut motion, &Control::passive(&model));
            assert!(motion.state.q[2] >= -0.05);
            result.err()
        })
        .expect("the wall stops the fall");
    assert!(matches!(err, DynamicsError::NotConverged { .. }), "{err:?}");
}

#[test]
fn nan_anywhere_is_a_typed_error() {
    let (model, mut sim) = free_cube_with(Wall {
        floor: 0.0,
        nan: true,
    });
    let mut motion = Motion::at_rest(&model, State::zero(&model));
    let err = sim
        .advance(&mut motion, &Control::passive(&model))
        .unwrap_err();
    assert!(matches!(err, DynamicsError::NotANumber { .. }), "{err:?}");
    // NaN in the state, the previous poses, the control.
    let (model, mut sim) = free_cube_with(Wall {
        floor: -1.0,
        nan: false,
    });
    let mut bad = Motion::at_rest(&model, State::zero(&model));
    bad.state.q[1] = f64::NAN;
    assert!(matches!(
        sim.advance(&mut bad, &Control::passive(&model)),
        Err(DynamicsError::NonFinite { .. })
    ));
    let mut bad = Motion::at_rest(&model, State::zero(&model));
    bad.previous[0].translation.vector.x = f64::INFINITY;
    assert!(matches!(
        sim.advance(&mut bad, &Control::passive(&model)),
        Err(DynamicsError::NonFinite { .. })
    ));
    let mut bad = Motion::at_rest(&model, State::zero(&model));
    bad.state.references.pop();
    assert!(matches!(
        sim.advance(&mut bad, &Control::passive(&model)),
        Err(DynamicsError::LengthMismatch { .. })
    ));
    let mut control = Control::passive(&model);
    control.kp[0] = f64::NAN;
    let mut motion = Motion::at_rest(&model, State::zero(&model));
    assert!(matches!(
        sim.advance(&mut motion, &control),
        Err(DynamicsError::InvalidGain { .. })
    ));
    control.kp[0] = 0.0;
    control.kd[0] = -1.0;
    let e = sim.advance(&mut motion, &control).unwrap_err();
    assert!(e.to_string().contains("damping in N·m·s/rad"), "{e}");
    control.kd[0] = 0.0;
    control.position[0] = f64::NAN;
    assert!(matches!(
        sim.advance(&mut motion, &control),
        Err(DynamicsError::NonFinite { .. })
    ));
}

#[test]
fn public_settings_are_checked_when_a_simulator_is_built() {
    let model = wrist();
    for (name, edit) in [
        (
            "eigenvalue_floor",
            (|s: &mut StepSettings| s.eigenvalue_floor = 0.0) as fn(&mut StepSettings),
        ),
        ("tolerance", |s| s.tolerance = f64::NAN),
        ("dt", |s| s.dt = -0.01),
        ("gravity", |s| s.gravity = f64::INFINITY),
        ("max_iterations", |s| s.max_iterations = 0),
        ("limit_support", |s| s.limit_support = 0.0),
    ] {
        let mut settings = StepSettings::new(0.01).unwrap();
        edit(&mut settings);
        match Simulator::new(model.clone(), settings) {
            Err(DynamicsError::InvalidSetting { name: n, .. }) => assert_eq!(n, name),
            other => panic!("{name}: {other:?}"),
        }
    }
}

#[test]
fn a_step_that_cannot_converge_names_the_contact_pair_it_suspects() {
    // A box 0.1 mm above the ground with a 1 cm support, stiff contact and too few iterations.
    let block = Link::new(
        "block",
        None,
        Isometry3::translation(0.0, 0.0, 0.1001),
        JointKind::Free,
        cube(0.1),
        lumped(),
    );
    let model = Model::new(vec![ground(), block]).unwrap();
    let mut settings = StepSettings::new(0.01).unwrap();
    let mut contact = sdrs_contact(None).unwrap();
    contact.stiffness = 1e3;
    settings.contact = Some(contact);
    settings.max_iterations = 2;
    let mut sim = Simulator::new(model.clone(), settings).unwrap();
    let mut motion = Motion::at_rest(&model, State::zero(&model));
    let err = sim
        .advance(&mut motion, &Control::passive(&model))
        .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, DynamicsError::NotConverged { .. }), "{err:?}");
    assert!(
        text.contains("'ground' and 'block'") && text.contains("exclude_touching"),
        "{text}"
    );
}
