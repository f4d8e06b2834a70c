//! Criterion benchmark suites of sdrs. Each file in `benches/` is one suite; run a suite with
//! `cargo xtask bench SUITE [--quick]`, which also writes `target/sdrs-report/SUITE.md`.
//!
//! This library holds the scene builders the suites share. They draw from the same
//! deterministic generators as the tests (`sdrs_geometry::testing`), so a benchmark input is
//! always a valid test input.

pub mod motion;
pub mod robots;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId};
use nalgebra::{Isometry3, Vector3};
use proptest::test_runner::TestRunner;
use sdrs_diff::step_jacobian;
use sdrs_dynamics::scenes::{Scene, sdrs_contact};
use sdrs_dynamics::{
    Control, JointKind, Link, MassModel, Model, Motion, Simulator, State, StepSettings,
    UrdfOptions, load_urdf,
};
use sdrs_geometry::ConvexHull;
use sdrs_geometry::testing::{hull_with, place_at_gap, pose, sample, unit_vector};

/// A deterministic random source for benchmark inputs.
pub fn runner() -> TestRunner {
    TestRunner::deterministic()
}

/// A pair of `m`-vertex hulls placed `gap` apart, with a second pose of B nudged by 0.1 mm along
/// the separating direction (so a warm start sees a slightly moved pair, as between the Newton
/// iterations of a time step).
pub struct HullPair {
    /// First hull.
    pub a: ConvexHull,
    /// Its pose.
    pub pose_a: Isometry3<f64>,
    /// Second hull.
    pub b: ConvexHull,
    /// Two nearby poses of the second hull.
    pub poses_b: [Isometry3<f64>; 2],
}

/// `count` random hull pairs of `m` vertices each, `gap` apart.
pub fn hull_pairs(m: usize, count: usize, gap: f64, runner: &mut TestRunner) -> Vec<HullPair> {
    (0..count)
        .map(|_| {
            let a = sample(hull_with(m), runner);
            let b = sample(hull_with(m), runner);
            let pose_a = sample(pose(1.0), runner);
            let n = sample(unit_vector(), runner);
            let pose_b = place_at_gap(&a, &pose_a, &b, &sample(pose(1.0), runner), &n, gap);
            let nudge = nalgebra::Translation3::from(n * 1e-4) * pose_b;
            HullPair {
                a,
                pose_a,
                b,
                poses_b: [pose_b, nudge],
            }
        })
        .collect()
}

/// `n` small hulls (8 to 16 vertices, up to ~0.5 m across) at random poses filling a cube of
/// volume `n` m³ (about one hull per cubic metre), and a second set of poses moved by up to
/// 5 cm and 0.05 rad.
pub fn hull_cloud(
    n: usize,
    runner: &mut TestRunner,
) -> (Vec<ConvexHull>, [Vec<Isometry3<f64>>; 2]) {
    let side = (n as f64).cbrt();
    let hulls: Vec<ConvexHull> = (0..n)
        .map(|i| {
            let h = sample(hull_with(8 + i % 9), runner);
            let scaled: Vec<_> = h.vertices().iter().map(|v| v * 0.25).collect();
            ConvexHull::new(scaled).expect("scaled hull stays valid")
        })
        .collect();
    let start: Vec<Isometry3<f64>> = (0..n)
        .map(|_| {
            let p = sample(pose(0.5), runner);
            let c = Vector3::new(
                sample(0.0..side, runner),
                sample(0.0..side, runner),
                sample(0.0..side, runner),
            );
            nalgebra::Translation3::from(c) * p
        })
        .collect();
    let moved = start
        .iter()
        .map(|p| {
            // Translate in the world frame, rotate about the hull's own origin.
            let d = sample(unit_vector(), runner) * 0.05;
            let axis = sample(unit_vector(), runner) * 0.05;
            nalgebra::Translation3::from(d) * p * nalgebra::UnitQuaternion::from_scaled_axis(axis)
        })
        .collect();
    (hulls, [start, moved])
}

/// Benchmarks one evaluation per iteration over `scenes`, each visited twice in a row with
/// variant 0 then 1 (e.g. two nearby poses), as `cold/INPUT` (a fresh cache every time) and
/// `warm/INPUT` (each scene keeps its cache between visits). `run(scene, variant, cache)` does
/// the work and returns a value to keep alive.
pub fn bench_cold_and_warm<S, C: Default + Clone>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    input: usize,
    scenes: &[S],
    run: impl Fn(&S, usize, &mut C) -> f64,
) {
    for (name, warm) in [("cold", false), ("warm", true)] {
        group.bench_function(BenchmarkId::new(name, input), |bench| {
            let mut caches = vec![C::default(); scenes.len()];
            let mut k = 0;
            bench.iter(|| {
                k = (k + 1) % (2 * scenes.len());
                if !warm {
                    caches[k / 2] = C::default();
                }
                std::hint::black_box(run(&scenes[k / 2], k % 2, &mut caches[k / 2]))
            })
        });
    }
}

/// Appends a markdown section to the suite's report (`cargo xtask bench` sets `CRITERION_HOME`
/// to the suite's directory and appends its `extra.md` to `target/sdrs-report/SUITE.md`).
/// Outside xtask (plain `cargo bench`) the section is printed instead.
pub fn report_section(markdown: &str) {
    use std::io::Write;
    match std::env::var_os("CRITERION_HOME") {
        Some(dir) => {
            let path = std::path::Path::new(&dir).join("extra.md");
            let written = std::fs::create_dir_all(&dir).and_then(|_| {
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&path)?
                    .write_all(markdown.as_bytes())
            });
            if let Err(e) = written {
                eprintln!("could not write {}: {e}", path.display());
            }
        }
        None => println!("{markdown}"),
    }
}

/// A robot of example-robot-data without contact, passive, from its neutral state.
pub fn free_robot(name: &str) -> (Scene, State) {
    let robot = sdrs_robot_data::robot(name).expect("a known robot");
    let options = UrdfOptions {
        package_paths: vec![sdrs_robot_data::package_path().expect("the robot data")],
        floating_base: robot.floating_base,
        ..UrdfOptions::default()
    };
    let model =
        load_urdf(robot.urdf_path().expect("the robot data"), &options).expect("the robot loads");
    let start = State::neutral(&model);
    let control = Control::passive(&model);
    let settings = StepSettings::new(0.01).expect("a valid time step");
    (
        Scene {
            model,
            settings,
            control,
        },
        start,
    )
}

/// A fixed 40 m x 40 m, 1 m thick ground slab with its top face at z = 0 and `count` free
/// 20 cm, 1 kg boxes stacked on it, each starting 19.5 mm above the one below (about where
/// the barrier carries one box's weight); SDRS hull contact with friction μ = 0.5, Δt = 10 ms.
/// `benches/reference/mujoco_step.py` builds the same scene for MuJoCo.
pub fn box_stack(count: usize) -> Scene {
    let cube = |half: Vector3<f64>| ConvexHull::cuboid(half).expect("positive half extents");
    let mut links = vec![Link::new(
        "ground",
        None,
        Isometry3::translation(0.0, 0.0, -0.5),
        JointKind::Fixed,
        vec![cube(Vector3::new(20.0, 20.0, 0.5))],
        MassModel::Lumped { mass: 1.0 },
    )];
    for k in 0..count {
        links.push(Link::new(
            format!("box{k}"),
            None,
            Isometry3::translation(0.0, 0.0, 0.1195 + 0.2195 * k as f64),
            JointKind::Free,
            vec![cube(Vector3::repeat(0.1))],
            MassModel::Lumped { mass: 1.0 },
        ));
    }
    let model = Model::new(links).expect("a valid stack");
    let mut settings = StepSettings::new(0.01).expect("a valid time step");
    settings.contact = Some(
        sdrs_contact(Some(0.5))
            .expect("valid contact settings")
            .with_skip_adjacent(false),
    );
    let control = Control::passive(&model);
    Scene {
        model,
        settings,
        control,
    }
}

/// A scene run for `warmup` steps from `start`: the simulator, the scene and where it got to.
pub fn warmed_up_from(scene: Scene, start: State, warmup: usize) -> (Simulator, Scene, Motion) {
    let mut sim = Simulator::new(scene.model.clone(), scene.settings.clone()).expect("valid scene");
    let mut motion = Motion::at_rest(&scene.model, start);
    for _ in 0..warmup {
        sim.advance(&mut motion, &scene.control)
            .expect("scene steps converge");
    }
    (sim, scene, motion)
}

/// A scene run for `warmup` steps from rest at its zero configuration.
pub fn warmed_up(scene: Scene, warmup: usize) -> (Simulator, Scene, Motion) {
    let start = State::zero(&scene.model);
    warmed_up_from(scene, start, warmup)
}

/// A simulator for `model` one step into a PD motion from a bent pose: the solution, where it
/// came from and the control.
pub fn one_step(
    model: &Model,
    settings: StepSettings,
    control: Control,
    start: State,
) -> (Simulator, Motion, Motion, Control) {
    let mut sim = Simulator::new(model.clone(), settings).expect("valid model");
    let before = Motion::at_rest(model, start);
    let mut after = before.clone();
    sim.advance(&mut after, &control)
        .expect("the step converges");
    (sim, before, after, control)
}

/// The step's full Jacobian at `after`, the solution of the step from `before` (one entry of
/// it, so that nothing is optimised away).
pub fn jacobian(sim: &mut Simulator, before: &Motion, after: &Motion, control: &Control) -> f64 {
    let lin = sim
        .linearize(&after.state, &before.state, &before.previous, control)
        .expect("linearise");
    step_jacobian(sim.model(), &lin, 0)
        .expect("factorise")
        .current[(0, 0)]
}

/// The `diff` suite's step-Jacobian workload for a robot of `sdrs-robot-data`: one no-contact
/// PD step from the neutral pose bent by 0.05 rad (targets 0.1 rad further, kp 100, kd 0.5 on
/// every actuated DoF), with design derivatives off (the Jacobian in the state and the
/// controls, as Pinocchio's ABA derivatives).
pub struct JacobianScene {
    /// The simulator that took the step.
    pub sim: Simulator,
    /// Where the step started.
    pub before: Motion,
    /// Its solution.
    pub after: Motion,
    /// The PD control.
    pub control: Control,
}

/// [`JacobianScene`] for the robot `name` (`ur5`, `solo12`, `talos`, …).
pub fn jacobian_scene(name: &str) -> JacobianScene {
    let (scene, _) = free_robot(name);
    let model = scene.model;
    let start = model.neutral(0.05);
    // The root's joint (free or fixed) is not actuated.
    let unactuated = model.links()[0].joint.dof();
    let mut control = Control::passive(&model);
    for j in unactuated..model.dof() {
        control.kp[j] = 200.0; // N·m/rad
        control.kd[j] = 100.0; // N·m·s/rad
        control.position[j] = start.q[j] + 0.1;
    }
    let mut settings = StepSettings::new(0.01).expect("dt");
    settings.design_derivatives = false;
    let (sim, before, after, control) = one_step(&model, settings, control, start);
    JacobianScene {
        sim,
        before,
        after,
        control,
    }
}
