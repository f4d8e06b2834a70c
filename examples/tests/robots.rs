//! The real-robot suite: every robot of example-robot-data loads with its SRDF and holds its
//! configuration under PD (arms), or is dropped onto the ground from 5 cm standing and holds
//! it (floating bases): no error, no NaN, no penetration (GJK), nothing flying off, the base
//! within 2 cm of its standing height. One simulated second here; the `robots` example runs
//! five (the closing figures of the suite come from it).
//!
//! The robots come from `../shared/example-robot-data` when it exists, else from the
//! `example-robot-data` package on PyPI, fetched once under `target/`.

use sdrs_examples::robots::{Trial, TrialOptions};

fn hold(name: &str) {
    let robot = sdrs_robot_data::robot(name).expect("a robot of the table");
    let options = TrialOptions {
        package_paths: vec![sdrs_robot_data::package_path().expect("the robot data")],
        floating: robot.floating_base,
        state: robot.standing.map(str::to_string),
        ..TrialOptions::default()
    };
    let srdf = robot.srdf_path().unwrap();
    let mut trial = Trial::new(&robot.urdf_path().unwrap(), Some(&srdf), &options)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let report = trial.run(1.0, 10);
    assert!(
        report.failure.is_none(),
        "{name}: {}",
        report.failure.unwrap_or_default()
    );
    assert_eq!(report.steps, 100);
    if let (Some(h), Some(standing)) = (report.base_height, trial.standing_height) {
        assert!(
            (h - standing).abs() < 0.02,
            "{name}: base at {h}, standing {standing}"
        );
    }
}

#[test]
fn ur5_holds_its_configuration() {
    hold("ur5");
}

#[test]
fn panda_holds_its_configuration() {
    hold("panda");
}

#[test]
fn solo12_lands_and_stands() {
    hold("solo12");
}

#[test]
fn a1_lands_and_stands() {
    hold("a1");
}

#[test]
fn anymal_lands_and_stands() {
    hold("anymal");
}

#[test]
fn talos_lands_and_stands_half_sitting() {
    hold("talos");
}

#[test]
fn hyq_lands_and_stands() {
    hold("hyq");
}

/// A floating robot without collision shapes cannot stand: the trial says so, instead of
/// placing the base at an infinite standing height.
#[test]
fn a_floating_robot_without_collision_geometry_is_refused_by_name() {
    let dir = std::env::temp_dir().join(format!("sdrs-robots-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let urdf = dir.join("ghost.urdf");
    std::fs::write(
        &urdf,
        r#"<robot name="ghost">
             <link name="base"><inertial><mass value="1"/>
               <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
           </robot>"#,
    )
    .unwrap();
    let options = TrialOptions {
        floating: true,
        ..TrialOptions::default()
    };
    let message = Trial::new(&urdf, None, &options)
        .err()
        .expect("refused")
        .to_string();
    assert!(
        message.contains("has no collision geometry") && message.contains("without --floating"),
        "{message}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
