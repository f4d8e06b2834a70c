//! Each `sdrs` subcommand end to end: exit codes, stdout, stderr and the files written.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

fn sdrs() -> Command {
    Command::cargo_bin("sdrs").unwrap()
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

fn robot_data() -> PathBuf {
    repo("crates/sdrs-dynamics/tests/data")
}

fn stdout_of(command: &mut Command) -> String {
    let output = command.assert().success().get_output().stdout.clone();
    String::from_utf8(output).unwrap()
}

#[test]
fn info_lists_links_joints_masses_and_pairs() {
    let data = robot_data();
    let text = stdout_of(
        sdrs()
            .arg("info")
            .arg(data.join("arm.urdf"))
            .arg("--srdf")
            .arg(data.join("arm.srdf"))
            .arg("--package-path")
            .arg(&data),
    );
    assert!(
        text.contains("(URDF): 6 links, 4 DoF, total mass 8.6000 kg"),
        "{text}"
    );
    for expected in [
        "shoulder_pitch",
        "prismatic",
        "[0.000, 0.200]",
        "3 disabled pairs applied",
        "may touch: 7 pairs",
        "filtered: 3 pairs",
    ] {
        assert!(text.contains(expected), "{expected:?} missing from\n{text}");
    }
    // The SRDF disables the pairs of the first three links; the slide's pair may touch.
    let (may_touch, filtered) = text.split_once("filtered: ").unwrap();
    assert!(may_touch.contains("  upper_arm - forearm\n"), "{text}");
    assert!(filtered.contains("  base_link - upper_arm\n"), "{text}");
}

/// A group-state entry the model cannot take is a warning, not a failure: `info` names it and
/// goes on.
#[test]
fn info_warns_about_srdf_entries_the_model_cannot_take() {
    let data = robot_data();
    let srdf = std::fs::read_to_string(data.join("arm.srdf"))
        .unwrap()
        .replace(
            r#"<joint name="shoulder_pitch" value="1.2"/>"#,
            r#"<joint name="shoulder_pitch" value="1.2"/>
    <joint name="elbow_roll" value="0.2"/>"#,
        );
    let path = std::env::temp_dir().join(format!("sdrs-cli-arm-{}.srdf", std::process::id()));
    std::fs::write(&path, srdf).unwrap();
    let text = stdout_of(
        sdrs()
            .arg("info")
            .arg(data.join("arm.urdf"))
            .arg("--srdf")
            .arg(&path)
            .arg("--package-path")
            .arg(&data),
    );
    std::fs::remove_file(&path).unwrap();
    assert!(
        text.contains(
            "3 disabled pairs applied, 1 naming unknown links; group states: home, folded"
        ),
        "{text}"
    );
    assert!(
        text.contains(":16: group_state 'folded' joint 'elbow_roll': ")
            && text.contains("entry skipped"),
        "{text}"
    );
}

#[test]
fn info_json_adds_up_and_lists_the_automatic_filter() {
    let data = robot_data();
    let text = stdout_of(
        sdrs()
            .arg("info")
            .arg(data.join("arm.urdf"))
            .args(["--json", "--exclude-touching", "--package-path"])
            .arg(&data),
    );
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let links = json["links"].as_array().unwrap();
    assert_eq!((links.len(), json["dof"].as_u64()), (6, Some(4)));
    let mass: f64 = links.iter().map(|l| l["mass"].as_f64().unwrap()).sum();
    assert!((mass - json["mass"].as_f64().unwrap()).abs() < 1e-12);
    // Adjacent links overlap at their joints in the neutral configuration: the automatic
    // filter excludes exactly those pairs, which then appear among the filtered ones.
    let excluded: Vec<(&str, &str)> = json["excluded_touching"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap(), p[1].as_str().unwrap()))
        .collect();
    let adjacent = [
        ("base_link", "shoulder"),
        ("shoulder", "upper_arm"),
        ("upper_arm", "forearm"),
    ];
    assert_eq!(excluded, adjacent);
    let filtered: Vec<(&str, &str)> = json["filtered"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap(), p[1].as_str().unwrap()))
        .collect();
    assert_eq!(filtered, adjacent);
    assert_eq!(json["may_touch"].as_array().unwrap().len(), 7);
    let dofs: Vec<_> = links.iter().map(|l| l["dofs"].clone()).collect();
    assert_eq!(dofs[3], serde_json::json!([2, 3]));
}

#[test]
fn info_floating_base_adds_six_dof() {
    let data = robot_data();
    let text = stdout_of(
        sdrs()
            .arg("info")
            .arg(data.join("arm.urdf"))
            .arg("--floating")
            .arg("--package-path")
            .arg(&data),
    );
    assert!(text.contains("(URDF): 6 links, 10 DoF"), "{text}");
    assert!(text.contains(" free "), "{text}");
}

#[test]
fn info_reads_mjcf() {
    let text = stdout_of(sdrs().arg("info").arg(robot_data().join("mjcf/hopper.xml")));
    assert!(text.contains("(MJCF): 7 links, 6 DoF"), "{text}");
    assert!(text.contains("thigh_joint"), "{text}");
    // Its three motors, in the order a scene's `ctrl` gives their controls.
    assert!(
        text.contains("actuators: 3 (a scene's `ctrl = [...]`")
            && text.contains("  0: (unnamed) on thigh_joint: motor, gear 200, ctrl [-1, 1]")
            && text.contains("  2: (unnamed) on foot_joint: motor"),
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_str(&stdout_of(
        sdrs()
            .arg("info")
            .arg("--json")
            .arg(robot_data().join("mjcf/hopper.xml")),
    ))
    .unwrap();
    let actuators = json["actuators"].as_array().unwrap();
    assert_eq!(actuators.len(), 3);
    assert_eq!(actuators[1]["joint"], "leg_joint");
    assert_eq!(actuators[1]["gear"], 200.0);
}

#[test]
fn info_lists_mjcf_tendons_welds_and_the_motors_on_tendons() {
    let coupled = robot_data().join("mjcf/coupled.xml");
    let text = stdout_of(sdrs().arg("info").arg(&coupled));
    assert!(
        text.contains("  0: push on tendon drive: motor, gear 3, ctrl [-1, 1]")
            && text.contains("tendons: 3")
            && text.contains("  tie: 1 a + -2 c; stiffness 20 (rest")
            && text.contains("  equality pair: 1 b + -0.5 a; stiffness "),
        "{text}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&stdout_of(sdrs().arg("info").arg("--json").arg(&coupled))).unwrap();
    assert_eq!(json["actuators"][0]["tendon"], "drive");
    assert!(json["actuators"][0].get("joint").is_none());
    assert_eq!(json["tendons"][0]["damping"], 0.5);
    let text = stdout_of(sdrs().arg("info").arg(robot_data().join("mjcf/loop.xml")));
    assert!(
        text.contains("welds: 2")
            && text.contains("  equality close: coupler to rocker; connection, stiffness ")
            && text.contains("  equality carry: block to crank; weld, stiffness "),
        "{text}"
    );
}

#[test]
fn usage_errors_exit_with_2_and_say_what_is_wrong() {
    sdrs()
        .args(["info", "no/such/robot.urdf"])
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with(
            "error: no/such/robot.urdf: no such file",
        ));
    sdrs()
        .arg("info")
        .arg(repo("Cargo.toml"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "unsupported file type; expected a URDF (.urdf) or an MJCF (.xml)",
        ));
    sdrs()
        .arg("info")
        .arg(robot_data().join("mjcf/hopper.xml"))
        .arg("--exclude-touching=-1")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("finite and non-negative"));
    sdrs()
        .arg("info")
        .arg(robot_data().join("mjcf/hopper.xml"))
        .arg("--srdf")
        .arg(robot_data().join("arm.srdf"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--srdf applies to URDF robots only",
        ));
    // clap's own usage errors.
    sdrs().arg("info").assert().code(2);
    sdrs().arg("fly").assert().code(2);
}

#[test]
fn malformed_robot_files_exit_with_1_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.urdf");
    std::fs::write(&path, "<robot name=\"r\"><link name=\"a\"></robot>").unwrap();
    let output = sdrs()
        .arg("info")
        .arg(&path)
        .assert()
        .code(1)
        .get_output()
        .clone();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(stderr.contains("broken.urdf"), "{stderr}");
    assert!(output.stdout.is_empty());
}

#[test]
fn simulate_writes_a_trajectory_file_with_a_header_and_every_step() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("chain.jsonl");
    let output = sdrs()
        .arg("simulate")
        .arg(repo("examples/tasks/chain_reach_scene.toml"))
        .args(["--steps", "12", "-o"])
        .arg(&out)
        .assert()
        .success()
        .get_output()
        .clone();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.starts_with("simulated 12 steps of 10 ms"), "{text}");
    assert!(text.contains(&format!("wrote {}", out.display())), "{text}");
    let progress = String::from_utf8(output.stderr).unwrap();
    assert!(
        progress
            .lines()
            .any(|l| l.starts_with("simulate: 12/12 (100%)")),
        "{progress}"
    );
    let file = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<serde_json::Value> = file
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1 + 1 + 12, "header, start, 12 steps");
    assert_eq!(lines[0]["format"], "sdrs-trajectory");
    assert_eq!(lines[0]["dofs"][0], "carriage_slide");
    for (k, step) in lines[1..].iter().enumerate() {
        assert_eq!(step["step"].as_u64(), Some(k as u64));
        assert!((step["time"].as_f64().unwrap() - 0.01 * k as f64).abs() < 1e-12);
        assert_eq!(step["q"].as_array().unwrap().len(), 4);
    }
}

#[test]
fn simulate_defaults_to_the_target_directory_and_reports_scene_errors() {
    let dir = tempfile::tempdir().unwrap();
    let text = stdout_of(
        sdrs()
            .current_dir(dir.path())
            .env("CARGO_TARGET_DIR", dir.path().join("t"))
            .arg("simulate")
            .arg(repo("examples/tasks/chain_reach_scene.toml"))
            .args(["--steps", "2"]),
    );
    assert!(
        dir.path()
            .join("t/sdrs-out/simulate/chain_reach_scene.jsonl")
            .is_file()
    );
    assert!(
        text.ends_with("wrote t/sdrs-out/simulate/chain_reach_scene.jsonl\n"),
        "{text}"
    );

    sdrs()
        .args(["simulate", "missing.toml"])
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with(
            "error: missing.toml: no such file",
        ));
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "dt = 0.01\nsteps = \"ten\"\n").unwrap();
    sdrs()
        .arg("simulate")
        .arg(&bad)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("bad.toml:2").and(predicate::str::contains("steps")));
}

#[test]
fn bench_prints_step_timings_and_progress_lines() {
    let output = sdrs()
        .arg("bench")
        .arg(repo("examples/tasks/chain_reach_scene.toml"))
        .args(["--steps", "20", "--warmup", "2"])
        .assert()
        .success()
        .get_output()
        .clone();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains("5 links, 4 DoF, 20 steps of 10 ms (2 warm-up)"),
        "{text}"
    );
    for row in [
        "step time (ms)",
        "Newton iterations",
        "active pairs",
        "time split:",
        "real-time factor:",
    ] {
        assert!(text.contains(row), "{row:?} missing from\n{text}");
    }
    let times: Vec<f64> = text
        .lines()
        .find(|l| l.trim_start().starts_with("step time (ms)"))
        .unwrap()
        .split_whitespace()
        .skip(3)
        .map(|v| v.parse().unwrap())
        .collect();
    let [mean, median, p95, min, max] = times[..] else {
        panic!("{times:?}")
    };
    assert!(min <= median && median <= p95 && p95 <= max && min <= mean && mean <= max);
    // stderr is not a terminal here: progress comes as plain lines.
    let progress = String::from_utf8(output.stderr).unwrap();
    assert!(
        progress
            .lines()
            .any(|l| l.starts_with("bench: 20/20 (100%)")),
        "{progress}"
    );
}

#[test]
fn bench_needs_steps_from_the_scene_or_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("box.toml");
    std::fs::write(
        &scene,
        "dt = 0.01\nground = true\n[[object]]\nname = \"box\"\nshape = { type = \"box\", half_extents = [0.1, 0.1, 0.1] }\nmass = 1.0\npose = { xyz = [0.0, 0.0, 0.2] }\n",
    )
    .unwrap();
    sdrs()
        .arg("bench")
        .arg(&scene)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("give --steps N"));
    sdrs()
        .arg("bench")
        .arg(&scene)
        .args(["--steps", "3"])
        .assert()
        .success()
        .stdout(predicate::str::contains("3 steps of 10 ms"));
}

/// `(iteration, loss)` rows of a history CSV.
fn losses(csv: &Path) -> Vec<f64> {
    let text = std::fs::read_to_string(csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("series,iteration,loss"));
    lines
        .map(|l| l.rsplit(',').next().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn optimise_writes_history_plots_and_best_trajectory() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let text = stdout_of(
        sdrs()
            .arg("optimise")
            .arg(repo("examples/tasks/chain_reach.toml"))
            .args(["--iterations", "2", "--output"])
            .arg(&out),
    );
    let history = losses(&out.join("history.csv"));
    assert_eq!(history.len(), 3, "the start and two iterations");
    assert!(history.windows(2).all(|w| w[1] <= w[0]), "{history:?}");
    assert!(history[2] < history[0], "{history:?}");
    let svg = std::fs::read_to_string(out.join("history.svg")).unwrap();
    assert!(svg.contains("chain_reach: convergence"));
    let png = std::fs::read(out.join("history.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let trajectory = std::fs::read_to_string(out.join("best.jsonl")).unwrap();
    assert_eq!(
        trajectory.lines().count(),
        1 + 61,
        "a header, the start and 60 steps"
    );
    assert!(text.contains("after 2 iterations"), "{text}");
    assert!(text.contains("link length changes: link0 "), "{text}");
    for file in ["history.csv", "history.svg", "history.png", "best.jsonl"] {
        assert!(
            text.contains(&format!("wrote {}", out.join(file).display())),
            "{text}"
        );
    }
}

#[test]
fn optimise_defaults_to_the_cargo_target_directory() {
    let target = tempfile::tempdir().unwrap();
    let text = stdout_of(
        sdrs()
            .current_dir(target.path())
            .env("CARGO_TARGET_DIR", "custom-target")
            .arg("optimise")
            .arg(repo("examples/tasks/chain_reach.toml"))
            .args(["--iterations", "1"]),
    );
    let dir = target.path().join("custom-target/sdrs-out/chain_reach");
    assert!(dir.join("history.png").is_file());
    // Printed relative to the current folder, without `.` or `..`.
    assert!(
        text.contains("wrote custom-target/sdrs-out/chain_reach/history.csv"),
        "{text}"
    );
}

#[test]
fn malformed_task_files_are_refused_with_the_file_and_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let task = std::fs::read_to_string(repo("examples/tasks/chain_reach.toml")).unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        for file in ["chain_reach_scene.toml", "chain_reach.urdf"] {
            std::fs::copy(repo("examples/tasks").join(file), dir.path().join(file)).unwrap();
        }
        path
    };
    let typo = write(
        "typo.toml",
        &task.replace("iterations = 20", "iteration = 20"),
    );
    sdrs()
        .arg("optimise")
        .arg(&typo)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("typo.toml").and(predicate::str::contains("iteration")));
    let joint = write(
        "joint.toml",
        &task.replace("[\"carriage_slide\"]", "[\"no_joint\"]"),
    );
    sdrs().arg("optimise").arg(&joint).assert().code(1).stderr(
        predicate::str::contains("policy.joints").and(predicate::str::contains("no_joint")),
    );
    let bounds = write(
        "bounds.toml",
        &task.replace("lower = -0.3", "lower = [-0.3, -0.3]"),
    );
    sdrs()
        .arg("optimise")
        .arg(&bounds)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "policy.lower has 2 values; give one number or 4",
        ));
}

#[test]
fn optimise_with_adam_sine_waves_and_a_centre_of_mass_target() {
    let dir = tempfile::tempdir().unwrap();
    for file in ["chain_reach_scene.toml", "chain_reach.urdf"] {
        std::fs::copy(repo("examples/tasks").join(file), dir.path().join(file)).unwrap();
    }
    let task = dir.path().join("sway.toml");
    std::fs::write(
        &task,
        r#"
scene = "chain_reach_scene.toml"
steps = 30
iterations = 3
name = "sway"

[policy]
kind = "sine_waves"
joints = ["carriage_slide"]
waves = 1
lower = [-0.2, 1.0, -3.2]
upper = [0.2, 10.0, 3.2]
start = [0.05, 3.0, 0.0]

[[loss]]
kind = "com_target"
links = ["link0", "link1", "link2"]
target = [0.1, 0.0, 0.85]
every_step = true

[optimiser]
method = "adam"
learning_rate = 0.01
decay_to = 0.5
"#,
    )
    .unwrap();
    let out = dir.path().join("out");
    let text = stdout_of(sdrs().arg("optimise").arg(&task).arg("-o").arg(&out));
    assert!(text.starts_with("sway: loss "), "{text}");
    assert!(!text.contains("link length changes"), "{text}");
    let history = losses(&out.join("history.csv"));
    assert_eq!(history.len(), 4, "the start and three Adam steps");
    assert!(history.iter().all(|l| l.is_finite() && *l > 0.0));
    // The reported loss is the best one seen.
    let best = history.iter().copied().fold(f64::INFINITY, f64::min);
    assert!(text.contains(&format!("-> {best:.6e}")), "{text}");
    assert_eq!(
        std::fs::read_to_string(out.join("best.jsonl"))
            .unwrap()
            .lines()
            .count(),
        1 + 31
    );

    sdrs()
        .arg("optimise")
        .arg(&task)
        .args(["--iterations", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--iterations must be at least 1"));

    let text = std::fs::read_to_string(&task).unwrap();
    std::fs::write(&task, text.replace("decay_to = 0.5", "decay_to = 2.0")).unwrap();
    sdrs()
        .arg("optimise")
        .arg(&task)
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "optimiser.decay_to is 2: give the final fraction of the learning rate, in (0, 1]",
        ));
}

#[test]
fn view_writes_the_animation_of_a_simulated_trajectory() {
    let dir = tempfile::tempdir().unwrap();
    let trajectory = dir.path().join("stack.jsonl");
    let scene = repo("examples/scenes/box_stack.toml");
    sdrs()
        .arg("simulate")
        .arg(&scene)
        .args(["--steps", "5", "-o"])
        .arg(&trajectory)
        .assert()
        .success();
    let text = stdout_of(
        sdrs()
            .arg("view")
            .arg(&scene)
            .arg(&trajectory)
            .arg("-o")
            .arg(dir.path()),
    );
    let (glb, html) = (dir.path().join("stack.glb"), dir.path().join("stack.html"));
    assert!(
        text.contains("stack.glb") && text.contains("stack.html"),
        "{text}"
    );
    assert_eq!(&std::fs::read(&glb).unwrap()[..4], b"glTF");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"), "{}", &page[..40]);
    // A trajectory of another scene does not fit this one's links.
    let other = repo("examples/tasks/chain_reach_scene.toml");
    let output = sdrs()
        .arg("view")
        .arg(&other)
        .arg(&trajectory)
        .arg("-o")
        .arg(dir.path())
        .assert()
        .code(1)
        .get_output()
        .clone();
    let message = String::from_utf8(output.stderr).unwrap();
    assert!(message.starts_with("error:"), "{message}");
}
