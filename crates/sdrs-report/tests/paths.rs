//! Output directories follow cargo's choice of target directory; paths print cleanly.

use std::path::{Path, PathBuf};

use sdrs_report::{clean_path, display_path, target_dir_from};

/// A fresh directory, removed when the returned guard drops.
fn scratch() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_owned();
    (dir, path)
}

#[test]
fn cargo_target_dir_wins_and_relative_values_follow_cwd() {
    let cwd = Path::new("/w/project/sub");
    assert_eq!(target_dir_from(Some("/t".into()), cwd), Path::new("/t"));
    assert_eq!(
        target_dir_from(Some("../t".into()), cwd),
        Path::new("/w/project/t")
    );
}

#[test]
fn without_the_variable_the_workspace_root_holds_target() {
    let (_root_guard, root) = scratch();
    std::fs::write(
        root.join("Cargo.toml"),
        "[workspace]\nmembers = [\"crates/a\"]\n",
    )
    .unwrap();
    let member = root.join("crates/a");
    std::fs::create_dir_all(member.join("src")).unwrap();
    std::fs::write(member.join("Cargo.toml"), "[package]\nname = \"a\"\n").unwrap();
    assert_eq!(
        target_dir_from(None, &member.join("src")),
        root.join("target")
    );
    // An empty variable counts as unset, as in cargo.
    assert_eq!(
        target_dir_from(Some("".into()), &member),
        root.join("target")
    );

    let (_lone_guard, lone) = scratch();
    std::fs::write(lone.join("Cargo.toml"), "[package]\nname = \"b\"\n").unwrap();
    assert_eq!(target_dir_from(None, &lone), lone.join("target"));
}

#[test]
fn clean_and_display_paths() {
    assert_eq!(clean_path(Path::new("a/../../b/./c")), Path::new("../b/c"));
    assert_eq!(clean_path(Path::new("/..")), Path::new("/"));
    assert_eq!(clean_path(Path::new("./")), Path::new("."));
    let cwd = std::env::current_dir().unwrap();
    assert_eq!(
        display_path(&cwd.join("x/../target/./out.csv")),
        "target/out.csv"
    );
    assert_eq!(display_path(&cwd), ".");
    assert_eq!(
        display_path(Path::new("/nowhere/../elsewhere")),
        "/elsewhere"
    );
}
