//! Trajectory files: JSON lines and `.npz` round trips, serde on states and controls, and
//! malformed files refused with their line and key.

use nalgebra::{DVector, UnitQuaternion, Vector3};
use sdrs::diff::{Recording, rollout};
use sdrs::dynamics::{Control, Kinematics, State};
use sdrs::record::{TrajectoryError, TrajectoryFile, TrajectoryWriter};
use sdrs::scene::{Scene, SceneSetup};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// A fresh path in the temporary folder.
fn temporary(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("sdrs-{}-{name}", std::process::id()))
}

/// The example box stack.
fn box_stack() -> SceneSetup {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenes/box_stack.toml");
    Scene::from_file(path).unwrap().build().unwrap()
}

/// `steps` steps of the box stack, written as JSON lines at `path` and also kept in memory.
fn run_box_stack(steps: usize, path: &Path) -> TrajectoryFile {
    let mut setup = box_stack();
    let dt = setup.simulator.settings().dt;
    let mut writer = TrajectoryWriter::create(path, &setup.model, dt).unwrap();
    let mut memory = TrajectoryFile::new(&setup.model, dt);
    for t in 0..=steps {
        if t > 0 {
            setup
                .simulator
                .advance(&mut setup.motion, &setup.control)
                .unwrap();
        }
        let contacts = setup.simulator.contacts(&setup.motion).unwrap();
        writer
            .record(&setup.model, &setup.motion.state, &contacts)
            .unwrap();
        memory
            .record(&setup.model, &setup.motion.state, &contacts)
            .unwrap();
    }
    assert_eq!(writer.steps(), steps + 1);
    writer.finish().unwrap();
    memory
}

#[test]
fn state_and_control_json_round_trip() {
    let state = State {
        q: DVector::from_vec(vec![0.1, -2.5e-7, 3.0, 1.0 / 3.0]),
        references: vec![
            UnitQuaternion::identity(),
            UnitQuaternion::from_scaled_axis(Vector3::new(0.3, -0.2, 1.1)),
        ],
    };
    let text = serde_json::to_string(&state).unwrap();
    assert_eq!(serde_json::from_str::<State>(&text).unwrap(), state);
    let control = Control {
        kp: DVector::from_vec(vec![100.0, 0.0]),
        kd: DVector::from_vec(vec![1.5, 0.0]),
        position: DVector::from_vec(vec![0.2, -0.1]),
        velocity: DVector::from_vec(vec![0.0, 0.7]),
        force: DVector::from_vec(vec![-3.0, 1e-9]),
    };
    let text = serde_json::to_string(&control).unwrap();
    assert_eq!(serde_json::from_str::<Control>(&text).unwrap(), control);
}

#[test]
fn json_lines_round_trip_with_contacts() {
    let path = temporary("stack.jsonl");
    let memory = run_box_stack(30, &path);
    let read = TrajectoryFile::read(&path).unwrap();
    assert_eq!(read, memory);
    // Writing the file again from memory gives the same bytes.
    let again = temporary("stack-again.jsonl");
    memory.write_jsonl(&again).unwrap();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        std::fs::read(&again).unwrap()
    );

    let setup = box_stack();
    assert_eq!(read.header.dt, 0.01);
    assert_eq!(read.header.links, ["ground", "bottom", "middle", "top"]);
    assert_eq!(read.header.dofs.len(), 18);
    assert_eq!(read.header.dofs[2], setup.model.dof_name(2));
    let last = read.steps.last().unwrap();
    assert_eq!(last.step, 30);
    assert!((last.time - 0.3).abs() < 1e-12);
    // The poses are the kinematics of the recorded state.
    let kinematics = Kinematics::new(&setup.model, &last.state());
    for (pose, recorded) in kinematics.poses().iter().zip(&last.poses) {
        let t = pose.translation.vector;
        assert_eq!(recorded.translation, [t.x, t.y, t.z]);
        let q = pose.rotation.quaternion();
        assert_eq!(recorded.rotation, [q.w, q.i, q.j, q.k]);
    }
    // The stack rests: the ground carries the weight of all three boxes (1 + 1 + 4 kg), and
    // friction is on.
    let on_ground: f64 = last
        .contacts
        .iter()
        .filter(|c| c.links[0] == 0)
        .map(|c| c.normal_force * c.normal[2])
        .sum();
    let weight = 6.0 * 9.81;
    assert!((on_ground - weight).abs() < 1e-2 * weight, "{on_ground}");
    assert!(last.contacts.iter().any(|c| c.links == [1, 2]));
    assert!(last.contacts.iter().all(|c| c.friction_force.is_some()));
    std::fs::remove_file(path).unwrap();
    std::fs::remove_file(again).unwrap();
}

/// Array `name` of the archive: its shape and values.
fn npy<T: npyz::Deserialize>(
    archive: &mut zip::ZipArchive<File>,
    name: &str,
) -> (Vec<u64>, Vec<T>) {
    let mut bytes = Vec::new();
    archive
        .by_name(&format!("{name}.npy"))
        .unwrap()
        .read_to_end(&mut bytes)
        .unwrap();
    let array = npyz::NpyFile::new(&bytes[..]).unwrap();
    let shape = array.shape().to_vec();
    (shape, array.into_vec().unwrap())
}

#[test]
fn npz_holds_the_same_trajectory() {
    let jsonl = temporary("npz-source.jsonl");
    let file = run_box_stack(10, &jsonl);
    let path = temporary("stack.npz");
    file.write_npz(&path).unwrap();
    let mut archive = zip::ZipArchive::new(File::open(&path).unwrap()).unwrap();

    let (shape, dt) = npy::<f64>(&mut archive, "dt");
    assert_eq!((shape, dt), (vec![], vec![0.01]));
    let (shape, time) = npy::<f64>(&mut archive, "time");
    assert_eq!(shape, [11]);
    assert_eq!(time, file.steps.iter().map(|s| s.time).collect::<Vec<_>>());
    let (shape, q) = npy::<f64>(&mut archive, "q");
    assert_eq!(shape, [11, 18]);
    assert_eq!(&q[18 * 7..18 * 8], &file.steps[7].q[..]);
    let (shape, references) = npy::<f64>(&mut archive, "references");
    assert_eq!(shape, [11, 4, 4]);
    assert_eq!(
        &references[(5 * 4 + 3) * 4..][..4],
        &file.steps[5].references[3]
    );
    let (shape, poses) = npy::<f64>(&mut archive, "poses");
    assert_eq!(shape, [11, 4, 7]);
    let p = &file.steps[9].poses[2];
    let expected: Vec<f64> = p.translation.iter().chain(&p.rotation).copied().collect();
    assert_eq!(&poses[(9 * 4 + 2) * 7..][..7], &expected[..]);

    let all: Vec<(usize, _)> = file
        .steps
        .iter()
        .flat_map(|s| s.contacts.iter().map(move |c| (s.step, *c)))
        .collect();
    let c = all.len() as u64;
    assert!(c > 0);
    let (shape, steps) = npy::<i64>(&mut archive, "contact_step");
    assert_eq!(shape, [c]);
    assert_eq!(
        steps,
        all.iter().map(|(s, _)| *s as i64).collect::<Vec<_>>()
    );
    let (shape, links) = npy::<i64>(&mut archive, "contact_links");
    assert_eq!(shape, [c, 2]);
    let (_, point) = npy::<f64>(&mut archive, "contact_point");
    let (_, normal) = npy::<f64>(&mut archive, "contact_normal");
    let (shape, gap) = npy::<f64>(&mut archive, "contact_gap");
    assert_eq!(shape, [c]);
    let (_, force) = npy::<f64>(&mut archive, "contact_normal_force");
    let (shape, friction) = npy::<f64>(&mut archive, "contact_friction_force");
    assert_eq!(shape, [c, 3]);
    for (k, (_, contact)) in all.iter().enumerate() {
        assert_eq!(links[2 * k..2 * k + 2], contact.links.map(|l| l as i64));
        assert_eq!(point[3 * k..3 * k + 3], contact.point);
        assert_eq!(normal[3 * k..3 * k + 3], contact.normal);
        assert_eq!(gap[k], contact.gap);
        assert_eq!(force[k], contact.normal_force);
        assert_eq!(friction[3 * k..3 * k + 3], contact.friction_force.unwrap());
    }
    std::fs::remove_file(path).unwrap();
    std::fs::remove_file(jsonl).unwrap();
}

#[test]
fn optimiser_trajectories_save_their_states() {
    let mut setup = box_stack();
    let controls = vec![setup.control.clone(); 5];
    let trajectory = rollout(
        &mut setup.simulator,
        &setup.motion,
        &controls,
        Recording::States,
    )
    .unwrap();
    let file = TrajectoryFile::from_trajectory(&setup.model, 0.01, &trajectory).unwrap();
    assert_eq!(file.steps.len(), 6);
    for (record, state) in file.steps.iter().zip(&trajectory.states) {
        assert_eq!(&record.state(), state);
        assert!(record.contacts.is_empty());
    }
    let path = temporary("rollout.jsonl");
    file.write_jsonl(&path).unwrap();
    assert_eq!(TrajectoryFile::read(&path).unwrap(), file);
    std::fs::remove_file(path).unwrap();
}

/// The error reading `text` as a trajectory file.
fn refused(text: &str) -> String {
    let path = temporary("bad.jsonl");
    std::fs::write(&path, text).unwrap();
    let error = TrajectoryFile::read(&path).unwrap_err();
    std::fs::remove_file(&path).unwrap();
    assert!(
        matches!(error, TrajectoryError::Malformed { .. }),
        "{error:?}"
    );
    error.to_string()
}

#[test]
fn malformed_trajectory_files_name_line_and_key() {
    let header = r#"{"format":"sdrs-trajectory","version":1,"dt":0.01,"links":["a"],"dofs":["x"]}"#;
    let step = |q: &str| {
        format!(
            r#"{{"step":0,"time":0.0,"q":{q},"references":[[1.0,0.0,0.0,0.0]],"poses":[{{"translation":[0,0,0],"rotation":[1,0,0,0]}}],"contacts":[]}}"#
        )
    };
    // A good file reads.
    let good = format!("{header}\n{}\n", step("[0.5]"));
    let path = temporary("good.jsonl");
    std::fs::write(&path, &good).unwrap();
    let file = TrajectoryFile::read(&path).unwrap();
    assert_eq!(file.steps[0].q[0], 0.5);
    std::fs::remove_file(path).unwrap();

    let m = refused(&format!("{header}\n{}\n", step("[0.5, 0.1]")));
    assert!(
        m.ends_with(":2: q: 2 entries, the header has 1 DoF names"),
        "{m}"
    );
    let m = refused(&format!("{header}\n{}\n", step(r#""many""#)));
    assert!(m.contains(":2: q: invalid type"), "{m}");
    let m = refused(&format!(
        "{header}\n\n{}\n",
        step("[0.5]").replace("\"time\":0.0,", "")
    ));
    assert!(m.contains(":3: .: missing field `time`"), "{m}");
    let m = refused(&header.replace("\"version\":1", "\"version\":7"));
    assert!(m.contains(":1: format 'sdrs-trajectory' version 7"), "{m}");
    let m = refused(&header.replace("dofs", "dof"));
    assert!(m.contains(":1: header: dof: unknown field `dof`"), "{m}");
    let m = refused("");
    assert!(m.contains(":1: empty file"), "{m}");
}
