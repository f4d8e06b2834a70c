//! Random scenes stepped for many steps: every step returns a finite state or a typed error,
//! never a panic (proptest reports a panic as a failure, with the scene that caused it).
//!
//! CI runs a few cases with the fixed seed of `.cargo/config.toml`; a fuzzing run raises
//! `PROPTEST_CASES` and varies `PROPTEST_RNG_SEED` (`cargo xtask fuzz`).

use nalgebra::{Isometry3, Translation3, Vector3};
use proptest::prelude::*;
use sdrs_dynamics::scenes::sdrs_contact;
use sdrs_dynamics::{
    Control, JointKind, Link, MassModel, Model, Motion, Simulator, State, StepSettings,
};
use sdrs_geometry::ConvexHull;
use sdrs_geometry::testing::{hull, rotation};

/// Cases per property: `PROPTEST_CASES` when set (fuzzing), else a few for CI.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6)
}

/// A body: a random hull scaled to `size`, its mass, and its starting pose.
#[derive(Debug, Clone)]
struct Body {
    hull: ConvexHull,
    mass: f64,
    pose: Isometry3<f64>,
    /// Starting velocity (m/s), through the previous poses.
    velocity: Vector3<f64>,
}

fn body() -> impl Strategy<Value = Body> {
    (
        hull(4, 16),
        0.02..0.8f64,
        0.05..20.0f64,
        (-0.3..0.3f64, -0.3..0.3f64, 0.0..0.5f64),
        rotation(),
        (-2.0..2.0f64, -2.0..2.0f64, -3.0..1.0f64),
    )
        .prop_filter_map(
            "a scalable hull",
            |(h, size, mass, (x, y, z), turn, (vx, vy, vz))| {
                let points = h.vertices().iter().map(|p| p * size).collect();
                Some(Body {
                    hull: ConvexHull::new(points).ok()?,
                    mass,
                    pose: Isometry3::from_parts(Translation3::new(x, y, z), turn),
                    velocity: Vector3::new(vx, vy, vz),
                })
            },
        )
}

/// A scene: free bodies over a ground, optionally a limited pendulum chain, friction or not,
/// a time step and a contact stiffness.
#[derive(Debug, Clone)]
struct Scene {
    bodies: Vec<Body>,
    chain: usize,
    friction: Option<f64>,
    dt: f64,
    stiffness: f64,
}

fn scene() -> impl Strategy<Value = Scene> {
    (
        proptest::collection::vec(body(), 1..4),
        0usize..3,
        proptest::option::of(0.0..1.2f64),
        2e-3..0.05f64,
        prop_oneof![Just(1.0), 1e-3..1e4f64],
    )
        .prop_map(|(bodies, chain, friction, dt, stiffness)| Scene {
            bodies,
            chain,
            friction,
            dt,
            stiffness,
        })
}

fn build(scene: &Scene) -> Model {
    let mut links = vec![Link::new(
        "ground",
        None,
        Isometry3::translation(0.0, 0.0, -0.5),
        JointKind::Fixed,
        vec![ConvexHull::cuboid(Vector3::new(5.0, 5.0, 0.5)).expect("a box")],
        MassModel::Lumped { mass: 1.0 },
    )];
    // Bodies in a row 2.5 m apart, above the ground by their height plus up to 0.5 m: they
    // start apart, fall, land, and may run into each other with their starting velocities.
    for (k, b) in scene.bodies.iter().enumerate() {
        let reach = b
            .hull
            .vertices()
            .iter()
            .map(|v| v.coords.norm())
            .fold(0.0, f64::max);
        let lift = Translation3::new(2.5 * k as f64, 0.0, reach + 1e-3);
        links.push(Link::new(
            format!("body{k}"),
            None,
            lift * b.pose,
            JointKind::Free,
            vec![b.hull.clone()],
            MassModel::Lumped { mass: b.mass },
        ));
    }
    for k in 0..scene.chain {
        let parent = (k > 0).then(|| links.len() - 1);
        let at = if k == 0 {
            Isometry3::translation(1.5, 0.0, 1.2)
        } else {
            Isometry3::translation(0.0, 0.0, -0.3)
        };
        links.push(
            Link::new(
                format!("pendulum{k}"),
                parent,
                at,
                JointKind::Revolute { axis: Vector3::y() },
                vec![ConvexHull::cuboid(Vector3::new(0.03, 0.03, 0.1)).expect("a box")],
                MassModel::Lumped { mass: 0.5 },
            )
            .with_limits(-1.0, 1.0),
        );
    }
    Model::new(links).expect("a valid model")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// A random scene for 0.6 s: each step gives a finite state or a typed error (after an
    /// error the scene stops: its state is not defined).
    #[test]
    fn random_scenes_step_without_panic(scene in scene()) {
        let model = build(&scene);
        let mut settings = StepSettings::new(scene.dt).unwrap();
        let mut contact = sdrs_contact(scene.dt, scene.friction).unwrap();
        contact.stiffness = scene.stiffness;
        settings.contact = Some(contact);
        let mut sim = Simulator::new(model.clone(), settings).unwrap();
        let start = State::zero(&model);
        let mut motion = Motion::at_rest(&model, start);
        // Starting velocities: the previous poses moved back by v Δt.
        for (k, b) in scene.bodies.iter().enumerate() {
            let back = Translation3::from(-b.velocity * scene.dt);
            motion.previous[k + 1] = back * motion.previous[k + 1];
        }
        let control = Control::passive(&model);
        let (mut steps, mut in_contact) = (0, 0);
        // 0.6 s (at most 300 steps): long enough to land and collide.
        for _ in 0..((0.6 / scene.dt) as usize).min(300) {
            match sim.advance(&mut motion, &control) {
                Ok(report) => {
                    prop_assert!(motion.state.q.iter().all(|v| v.is_finite()));
                    prop_assert!(report.energy.is_finite());
                    steps += 1;
                    in_contact += usize::from(report.active_pairs > 0);
                }
                Err(e) => {
                    // A typed error with a message; the scene ends here.
                    prop_assert!(!e.to_string().is_empty());
                    if std::env::var_os("SDRS_FUZZ_VERBOSE").is_some() {
                        eprintln!("typed error: {e}");
                    }
                    break;
                }
            }
        }
        if std::env::var_os("SDRS_FUZZ_VERBOSE").is_some() {
            eprintln!("{steps} steps, {in_contact} in contact");
        }
    }
}
