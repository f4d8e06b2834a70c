//! The robot data is there (shared copy or fetched) and the table matches the files.

use sdrs_robot_data::{ROBOTS, package_path, robot};

#[test]
fn every_robot_has_its_urdf_and_srdf() {
    let root = package_path().unwrap();
    assert!(root.join("example-robot-data/robots").is_dir(), "{root:?}");
    for r in ROBOTS {
        let (urdf, srdf) = (r.urdf_path().unwrap(), r.srdf_path().unwrap());
        assert!(urdf.is_file(), "{}: {urdf:?}", r.name);
        assert!(srdf.is_file(), "{}: {srdf:?}", r.name);
        // The named standing configuration is in the SRDF; robots without one have none.
        let text = std::fs::read_to_string(&srdf).unwrap();
        match r.standing {
            Some(state) => assert!(
                text.contains(&format!("<group_state name=\"{state}\"")),
                "{}: no group_state {state}",
                r.name
            ),
            None => assert!(!text.contains("<group_state"), "{}", r.name),
        }
        // A floating base is written in the SRDF as a root_joint value of 7 numbers.
        assert_eq!(
            text.contains("\"root_joint\" value="),
            r.floating_base,
            "{}",
            r.name
        );
    }
}

#[test]
fn robots_are_found_by_name_and_names_are_unique() {
    let names: Vec<&str> = ROBOTS.iter().map(|r| r.name).collect();
    assert_eq!(
        names,
        ["ur5", "panda", "solo12", "a1", "anymal", "talos", "hyq"]
    );
    assert_eq!(robot("hyq").unwrap().standing, Some("standing"));
    assert!(robot("atlas").is_none());
    // The answer is cached: a second call gives the same folder.
    assert_eq!(package_path().unwrap(), package_path().unwrap());
}
