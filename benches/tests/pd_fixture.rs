//! PD-driven scenes end where they ended before the PD gains became SI units (issue 45 item 5).
//!
//! `tests/data/pd_fixture.json` holds, for each scene below, its final state after a few
//! hundred steps at full precision: the coordinates, the reference rotations of its free and
//! spherical joints, and every link's pose one step earlier (with the coordinates, the
//! velocity). It was recorded at commit `46092e8`, when `Control` held the paper's
//! `k_p = k/2`, `k_d = c Δt/2` and every scene file, importer and workload wrote those; since
//! then they write stiffness and damping in SI units and the step forms the paper's terms
//! itself. The scenes cover a scene file's PD entries (UR5 from URDF, MuJoCo's hopper, the
//! chain-reach carriage), an MJCF robot under its servo, velocity actuator, springs and
//! dampers (`ctrl`), the motion suite's trotting ant, sweeping arm and lying humanoid, and the
//! engine's own PD scenes. After the change they reproduce it bit for bit (largest relative
//! difference 0): the step forms `k_p = 0.5 kp`, `k_d = 0.5 kd Δt` and the converted gains
//! round-trip exactly to the old ones.
//!
//! The scenes run with the exact Hessian's Newton directions (`anchored_newton` off), as every
//! step did when the fixture was recorded: the force-anchored directions, the default since,
//! stop each step at another point inside the tolerance, and over hundreds of steps of
//! contact those differences grow. So the fixture also holds every change since to the exact
//! Newton path bit for bit.
//!
//! Re-recorded at stop 57, when the line search began to start where the contact model bounds
//! Newton's step (`ContactHook::step_bound`: a pair closing half its gap, a slipping foot
//! coming to stick), a deliberate change of the exact path. The scenes moved inside their
//! solver tolerance: by at most 2.1e-4 (the arm sweep), except a link's rotation in the MJCF
//! feature scene, 2.7e-2, which the old path itself moves by 6e-2 between tolerances 1e-4 and
//! 1e-8 (at 1e-8 the two paths end with it 2e-7 apart).
//!
//! Re-recorded at stop 58, when the MJCF importer began to model hinge and slide joints'
//! armature (`Link::armature`, MuJoCo's rotor inertia), a deliberate change of the physics of
//! every MuJoCo model that has it: the four MJCF scenes moved (the ant's trot by 0.25, its legs
//! carry 1 kg·m² rotors; the MJCF feature scene 0.48; the lying humanoid 3.8e-2; the hopper
//! 4.1e-4, relative, at most 1 m or rad), the five others are bit for bit as before.
//!
//! `SDRS_RECORD_PD_FIXTURE=1 cargo test --release -p sdrs-benches --test pd_fixture` writes
//! the fixture anew (when a deliberate change of the step moves these trajectories).

use nalgebra::DVector;
use sdrs::scene::{Scene, SceneSetup};
use sdrs_benches::motion::{Workload, ant_trot, arm_sweep, humanoid_lying};
use sdrs_dynamics::scenes::{arm7, rotating_chains};
use sdrs_dynamics::{Control, Motion, Simulator};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// Largest difference allowed, relative to a value's magnitude (at least 1 m or rad).
const TOLERANCE: f64 = 1e-10;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn fixture_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pd_fixture.json")
}

/// The state after `motion`: coordinates, reference rotations (`w, i, j, k`) and the previous
/// poses (translation, then the rotation's `w, i, j, k`), one flat vector.
fn flatten(motion: &Motion) -> Vec<f64> {
    let mut out: Vec<f64> = motion.state.q.iter().copied().collect();
    for r in &motion.state.references {
        out.extend([r.w, r.i, r.j, r.k]);
    }
    for p in &motion.previous {
        out.extend(p.translation.vector.iter());
        let r = p.rotation;
        out.extend([r.w, r.i, r.j, r.k]);
    }
    out
}

/// `sim` rebuilt with the exact Hessian's Newton directions.
fn exact_directions(sim: &Simulator) -> Simulator {
    let mut settings = sim.settings().clone();
    settings.anchored_newton = false;
    Simulator::new(sim.model().clone(), settings).unwrap()
}

/// `steps` steps of `sim` (with the exact Hessian's directions) from `motion` under one
/// control.
fn hold(sim: Simulator, mut motion: Motion, control: &Control, steps: usize) -> Vec<f64> {
    let mut sim = exact_directions(&sim);
    for k in 0..steps {
        sim.advance(&mut motion, control)
            .unwrap_or_else(|e| panic!("step {k}: {e}"));
    }
    flatten(&motion)
}

fn scene(setup: SceneSetup, steps: usize) -> Vec<f64> {
    hold(setup.simulator, setup.motion, &setup.control, steps)
}

fn scene_file(relative: &str, steps: usize) -> Vec<f64> {
    let setup = Scene::from_file(workspace().join(relative))
        .unwrap()
        .with_package_path(sdrs_robot_data::package_path().unwrap())
        .build()
        .unwrap_or_else(|e| panic!("{relative}: {e}"));
    scene(setup, steps)
}

/// The chain-reach task's scene file started away from its targets: the carriage 0.3 m off
/// its PD target, the hinges turned (the file starts at rest at its targets).
fn chain_reach() -> Vec<f64> {
    let directory = workspace().join("examples/tasks");
    let text = std::fs::read_to_string(directory.join("chain_reach_scene.toml")).unwrap()
        + "\n[robot.start]\ncarriage_slide = 0.3\nhinge0 = 0.5\nhinge1 = -0.4\n";
    let setup = Scene::from_str(&text)
        .unwrap()
        .with_directory(directory)
        .build()
        .unwrap();
    scene(setup, 200)
}

/// The MJCF importer's feature model (a floating base with an arm, a pendulum) dropped onto
/// the ground under `ctrl`: a motor, a position servo (kp 50, kv 2, gear 2), a velocity
/// actuator (kv 3), a joint spring (stiffness 3) and the default joint damping 0.5.
fn mjcf_actuators() -> Vec<f64> {
    let text =
        "dt = 0.005\nground = true\n[[robot]]\nmjcf = \"features.xml\"\nctrl = [0.5, 0.4, 0.3]\n";
    let setup = Scene::from_str(text)
        .unwrap()
        .with_directory(workspace().join("crates/sdrs-dynamics/tests/data/mjcf"))
        .build()
        .unwrap();
    scene(setup, 300)
}

fn workload(mut w: Workload) -> Vec<f64> {
    w.sim = exact_directions(&w.sim);
    let mut motion = w.start.clone();
    let mut control = Control::passive(&w.model);
    for k in 0..w.steps {
        (w.schedule)(k, &mut control);
        w.sim
            .advance(&mut motion, &control)
            .unwrap_or_else(|e| panic!("{} step {k}: {e}", w.name));
    }
    flatten(&motion)
}

fn engine_scene(scene: sdrs_dynamics::scenes::Scene, steps: usize) -> Vec<f64> {
    let start = Motion::at_rest(&scene.model, sdrs_dynamics::State::zero(&scene.model));
    let sim = Simulator::new(scene.model, scene.settings).unwrap();
    hold(sim, start, &scene.control, steps)
}

/// Every scene's final state by name.
fn final_states() -> BTreeMap<String, Vec<f64>> {
    let runs: [(&str, &dyn Fn() -> Vec<f64>); 9] = [
        ("ur5_pd.toml", &|| {
            scene_file("examples/scenes/ur5_pd.toml", 200)
        }),
        ("hopper_mjcf.toml", &|| {
            scene_file("examples/scenes/hopper_mjcf.toml", 200)
        }),
        ("chain_reach_scene.toml", &chain_reach),
        ("features.xml under ctrl", &mjcf_actuators),
        ("ant_trot", &|| workload(ant_trot().unwrap())),
        ("arm_sweep", &|| workload(arm_sweep().unwrap())),
        ("humanoid_lying", &|| workload(humanoid_lying().unwrap())),
        ("arm7", &|| engine_scene(arm7(0.01).unwrap(), 200)),
        ("rotating_chains", &|| {
            engine_scene(rotating_chains(2, 0.01).unwrap(), 200)
        }),
    ];
    runs.iter()
        .map(|(name, run)| (name.to_string(), run()))
        .collect()
}

#[test]
fn pd_driven_scenes_end_where_they_ended_before_the_gains_became_si() {
    let now = final_states();
    if std::env::var_os("SDRS_RECORD_PD_FIXTURE").is_some() {
        let text = serde_json::to_string_pretty(&now).unwrap();
        std::fs::write(fixture_path(), text + "\n").unwrap();
        return;
    }
    let text = std::fs::read_to_string(fixture_path()).unwrap();
    let before: BTreeMap<String, Vec<f64>> = serde_json::from_str(&text).unwrap();
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        now.keys().collect::<Vec<_>>()
    );
    let mut worst = (0.0f64, String::new());
    for (name, old) in &before {
        let new = &now[name];
        assert_eq!(old.len(), new.len(), "{name}");
        let diff = DVector::from_iterator(
            old.len(),
            old.iter()
                .zip(new)
                .map(|(a, b)| (a - b).abs() / a.abs().max(1.0)),
        )
        .max();
        println!("{name}: largest relative difference {diff:.3e}");
        if diff > worst.0 {
            worst = (diff, name.clone());
        }
    }
    println!("worst: {:.3e} ({})", worst.0, worst.1);
    assert!(worst.0 <= TOLERANCE, "{} moved by {:.3e}", worst.1, worst.0);
}
