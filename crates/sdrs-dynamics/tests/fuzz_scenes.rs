//! Random scenes stepped for many steps: every step returns a finite state or a typed error,
//! never a panic (proptest reports a panic as a failure, with the scene that caused it).
//!
//! CI runs a few cases with the fixed seed of `.cargo/config.toml`; a fuzzing run raises
//! `PROPTEST_CASES` and varies `PROPTEST_RNG_SEED` (`cargo xtask fuzz`).
//!
//! With `SDRS_FUZZ_DUMP=dir`, a case that ends in a typed error writes `dir/<hash>.rs`: the
//! error, the scene as a Rust expression ([`Scene::to_rust`], paste it into `regressions.rs`
//! and [`replay`] it), the failing step's index and its state and previous poses (`{:?}`,
//! full precision). Scenes are deterministic, so replaying from the start reproduces the
//! warm starts too.

use nalgebra::{Isometry3, Point3, Quaternion, Translation3, UnitQuaternion, Vector3};
use proptest::prelude::*;
use sdrs_dynamics::scenes::sdrs_contact;
use sdrs_dynamics::{
    Control, DynamicsError, JointKind, Link, MassModel, Model, Motion, Simulator, State,
    StepSettings,
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
pub(crate) struct Body {
    pub hull: ConvexHull,
    pub mass: f64,
    pub pose: Isometry3<f64>,
    /// Starting velocity (m/s), through the previous poses.
    pub velocity: Vector3<f64>,
}

impl Body {
    /// A body from local vertices, mass, translation, rotation quaternion `[i, j, k, w]` and
    /// starting velocity, as [`Scene::to_rust`] writes it.
    pub fn new(
        vertices: &[[f64; 3]],
        mass: f64,
        translation: [f64; 3],
        quaternion: [f64; 4],
        velocity: [f64; 3],
    ) -> Self {
        let points = vertices.iter().map(|v| Point3::from(*v)).collect();
        let q = Quaternion::new(quaternion[3], quaternion[0], quaternion[1], quaternion[2]);
        Self {
            hull: ConvexHull::new(points).expect("a hull"),
            mass,
            pose: Isometry3::from_parts(
                Translation3::from(Vector3::from(translation)),
                UnitQuaternion::new_unchecked(q),
            ),
            velocity: Vector3::from(velocity),
        }
    }
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
pub(crate) struct Scene {
    pub bodies: Vec<Body>,
    pub chain: usize,
    pub friction: Option<f64>,
    pub dt: f64,
    pub stiffness: f64,
}

impl Scene {
    /// The scene as a Rust expression (full precision) for a regression test.
    pub fn to_rust(&self) -> String {
        let mut out = String::from("Scene {\n    bodies: vec![\n");
        for b in &self.bodies {
            let vertices: Vec<[f64; 3]> =
                b.hull.vertices().iter().map(|v| v.coords.into()).collect();
            let t: [f64; 3] = b.pose.translation.vector.into();
            let q: [f64; 4] = b.pose.rotation.coords.into();
            let v: [f64; 3] = b.velocity.into();
            out += &format!(
                "        Body::new(\n            &{vertices:?},\n            {:?},\n            {t:?},\n            {q:?},\n            {v:?},\n        ),\n",
                b.mass
            );
        }
        out += &format!(
            "    ],\n    chain: {},\n    friction: {:?},\n    dt: {:?},\n    stiffness: {:?},\n}}",
            self.chain, self.friction, self.dt, self.stiffness
        );
        out
    }
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

pub(crate) fn build(scene: &Scene) -> Model {
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

/// How a scene's run ended.
#[derive(Debug)]
pub(crate) struct Run {
    /// Steps that succeeded.
    pub steps: usize,
    /// Of those, steps with an active contact pair at the solution.
    pub in_contact: usize,
    /// The typed error that ended the run, with the motion before the failing step.
    pub error: Option<(DynamicsError, Motion)>,
}

/// Runs a scene for 0.6 s (at most 300 steps): long enough to land and collide. Each step
/// must give a finite state; the run stops at the first typed error.
pub(crate) fn replay(scene: &Scene) -> Run {
    replay_at(scene, None)
}

/// [`replay`] with Newton's tolerance set to `tolerance` (the default if `None`).
pub(crate) fn replay_at(scene: &Scene, tolerance: Option<f64>) -> Run {
    let model = build(scene);
    let mut settings = StepSettings::new(scene.dt).unwrap();
    if let Some(tolerance) = tolerance {
        settings.tolerance = tolerance;
    }
    let mut contact = sdrs_contact(scene.friction).unwrap();
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
    let mut run = Run {
        steps: 0,
        in_contact: 0,
        error: None,
    };
    for _ in 0..((0.6 / scene.dt) as usize).min(300) {
        let before = motion.clone();
        match sim.advance(&mut motion, &control) {
            Ok(report) => {
                assert!(motion.state.q.iter().all(|v| v.is_finite()));
                assert!(report.energy.is_finite());
                run.steps += 1;
                run.in_contact += usize::from(report.active_pairs > 0);
            }
            Err(e) => {
                run.error = Some((e, before));
                break;
            }
        }
    }
    run
}

/// Writes a failing case to `SDRS_FUZZ_DUMP` (if set) for a regression test.
fn dump(scene: &Scene, run: &Run) {
    let (Some(dir), Some((error, motion))) = (std::env::var_os("SDRS_FUZZ_DUMP"), &run.error)
    else {
        return;
    };
    let text = format!(
        "// {error}\n// failing step: {} (0-based)\nlet scene = {};\n// state before the step: {:?}\n// previous poses: {:?}\n",
        run.steps,
        scene.to_rust(),
        motion.state,
        motion.previous
    );
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir).expect("a dump directory");
    std::fs::write(dir.join(format!("{:016x}.rs", hasher.finish())), text).expect("a dump");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// A random scene for 0.6 s: each step gives a finite state or a typed error (after an
    /// error the scene stops: its state is not defined).
    #[test]
    fn random_scenes_step_without_panic(scene in scene()) {
        let run = replay(&scene);
        let verbose = std::env::var_os("SDRS_FUZZ_VERBOSE").is_some();
        if let Some((e, _)) = &run.error {
            // A typed error with a message; the scene ends here.
            prop_assert!(!e.to_string().is_empty());
            if verbose {
                eprintln!("typed error: {e}");
            }
            dump(&scene, &run);
        }
        if verbose {
            eprintln!("{} steps, {} in contact", run.steps, run.in_contact);
        }
    }

    /// A random scene with friction, solved to 1e-6, 1e-8 or 1e-10: every step converges. A
    /// tolerance below what the energy resolves ends a step at its round-off floor, not in
    /// `NotConverged`. Measured with 100-300 cases: no error with CI's seed or with seed 2026;
    /// seed 7 finds a step-0 stall of a light body that fails at every tolerance, the default
    /// included (`regressions::outer_newton_stalls_with_friction_on_a_light_tetrahedron`,
    /// ignored: not a round-off matter).
    #[test]
    fn random_scenes_with_friction_converge_at_tight_tolerances(
        scene in scene().prop_map(|s| Scene { friction: Some(s.friction.unwrap_or(0.5)), ..s }),
        tolerance in prop_oneof![Just(1e-6), Just(1e-8), Just(1e-10)],
    ) {
        let run = replay_at(&scene, Some(tolerance));
        if let Some((e, _)) = &run.error {
            dump(&scene, &run);
            prop_assert!(false, "step {} at tolerance {tolerance:e}: {e}", run.steps);
        }
    }
}
