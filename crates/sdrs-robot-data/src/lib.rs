//! # sdrs-robot-data
//!
//! Seven real robots from the `example-robot-data` package (UR5, Franka Panda, Solo-12,
//! Unitree A1, ANYmal C, TALOS, HyQ: URDF, SRDF, STL/OBJ/COLLADA meshes) for the tests,
//! examples and benchmarks of sdrs, on any machine.
//!
//! [`package_path`] returns the folder that holds `example-robot-data/robots/...`, so that a
//! URDF's `package://example-robot-data/...` URIs resolve with it as the package search path:
//!
//! 1. `$SDRS_ROBOT_DATA`, when set (a folder holding `example-robot-data/`);
//! 2. `../shared` beside the workspace root, when it holds `example-robot-data/` (the project's
//!    shared test data);
//! 3. otherwise `target/robot-data/share` in the workspace, fetched once from PyPI:
//!    `python3 -m pip download --no-deps example-robot-data==6.0.0` (a 131 MB wheel), of which
//!    only the seven robots' folders are extracted (with Python's `zipfile`). The extraction goes
//!    to a folder of its own and is renamed into place in one step, so test binaries that call
//!    this at the same time never see a half-written tree (at worst they download twice); later
//!    calls re-use what is there.
//!
//! [`ROBOTS`] lists the robots with their URDF and SRDF paths (relative to the package path),
//! whether their base floats, and the SRDF configuration they stand in.
//!
//! ```no_run
//! let robot = sdrs_robot_data::robot("hyq").unwrap();
//! let urdf = robot.urdf_path()?;
//! assert!(urdf.is_file());
//! assert_eq!(robot.standing, Some("standing"));
//! # Ok::<(), sdrs_robot_data::Error>(())
//! ```
//!
//! This crate is test data plumbing (`publish = false`): the product never depends on it, and
//! users point the loaders at their own packages.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use thiserror::Error;

/// The `example-robot-data` version fetched from PyPI.
pub const VERSION: &str = "6.0.0";

/// One robot of the data set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Robot {
    /// Short name: `ur5`, `panda`, `solo12`, `a1`, `anymal`, `talos`, `hyq`.
    pub name: &'static str,
    /// The URDF, relative to [`package_path`].
    pub urdf: &'static str,
    /// The SRDF, relative to [`package_path`].
    pub srdf: &'static str,
    /// Whether the robot's base floats (legged robots) rather than being bolted down (arms).
    pub floating_base: bool,
    /// The SRDF `<group_state>` it stands in (`None` when the SRDF has none).
    pub standing: Option<&'static str>,
}

impl Robot {
    /// The URDF's full path (fetching the data first if needed).
    pub fn urdf_path(&self) -> Result<PathBuf, Error> {
        Ok(package_path()?.join(self.urdf))
    }

    /// The SRDF's full path (fetching the data first if needed).
    pub fn srdf_path(&self) -> Result<PathBuf, Error> {
        Ok(package_path()?.join(self.srdf))
    }
}

/// The seven robots.
pub const ROBOTS: &[Robot] = &[
    Robot {
        name: "ur5",
        urdf: "example-robot-data/robots/ur_description/urdf/ur5_robot.urdf",
        srdf: "example-robot-data/robots/ur_description/srdf/ur5.srdf",
        floating_base: false,
        standing: None,
    },
    Robot {
        name: "panda",
        urdf: "example-robot-data/robots/panda_description/urdf/panda.urdf",
        srdf: "example-robot-data/robots/panda_description/srdf/panda.srdf",
        floating_base: false,
        standing: Some("default"),
    },
    Robot {
        name: "solo12",
        urdf: "example-robot-data/robots/solo_description/robots/solo12.urdf",
        srdf: "example-robot-data/robots/solo_description/srdf/solo.srdf",
        floating_base: true,
        standing: Some("standing"),
    },
    Robot {
        name: "a1",
        urdf: "example-robot-data/robots/a1_description/urdf/a1.urdf",
        srdf: "example-robot-data/robots/a1_description/srdf/a1.srdf",
        floating_base: true,
        standing: Some("standing"),
    },
    Robot {
        name: "anymal",
        urdf: "example-robot-data/robots/anymal_c_simple_description/urdf/anymal.urdf",
        srdf: "example-robot-data/robots/anymal_c_simple_description/srdf/anymal.srdf",
        floating_base: true,
        standing: Some("standing"),
    },
    Robot {
        name: "talos",
        urdf: "example-robot-data/robots/talos_data/robots/talos_reduced.urdf",
        srdf: "example-robot-data/robots/talos_data/srdf/talos.srdf",
        floating_base: true,
        standing: Some("half_sitting"),
    },
    Robot {
        name: "hyq",
        urdf: "example-robot-data/robots/hyq_description/robots/hyq_no_sensors.urdf",
        srdf: "example-robot-data/robots/hyq_description/srdf/hyq.srdf",
        floating_base: true,
        standing: Some("standing"),
    },
];

/// The robot named `name` in [`ROBOTS`].
pub fn robot(name: &str) -> Option<&'static Robot> {
    ROBOTS.iter().find(|r| r.name == name)
}

/// What can go wrong when locating or fetching the robot data.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Error {
    /// `python3` (or its `pip`) could not be run.
    #[error(
        "the robot data is not in {shared} and fetching it needs Python 3 with pip, but `{command}` \
         failed: {message}. Install them (Debian: `apt-get install python3 python3-pip`), or \
         set SDRS_ROBOT_DATA to a folder holding example-robot-data/"
    )]
    Python {
        /// Where the shared copy was looked for.
        shared: String,
        /// The command that failed.
        command: String,
        /// Why.
        message: String,
    },
    /// pip could not download the wheel (no network, registry unreachable, …).
    #[error(
        "downloading example-robot-data=={version} from PyPI with pip failed ({status}); is the \
         package registry reachable (network, proxy, PIP_INDEX_URL)? pip said: {stderr}"
    )]
    Download {
        /// The version asked for.
        version: &'static str,
        /// pip's exit status.
        status: String,
        /// The end of pip's error output.
        stderr: String,
    },
    /// The wheel could not be unpacked, or lacks a robot's files.
    #[error("extracting the robots from {wheel} failed: {message}")]
    Extract {
        /// The wheel.
        wheel: String,
        /// What went wrong.
        message: String,
    },
    /// A file operation failed.
    #[error("{path}: {message}")]
    Io {
        /// The path.
        path: String,
        /// The system's message.
        message: String,
    },
}

fn io_error(path: &Path, e: std::io::Error) -> Error {
    Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// The workspace root (this crate lives in `crates/sdrs-robot-data`).
fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .nth(2)
        .unwrap_or(manifest)
        .to_path_buf()
}

/// Whether `dir` holds every robot's URDF and SRDF.
fn complete(dir: &Path) -> bool {
    ROBOTS
        .iter()
        .all(|r| dir.join(r.urdf).is_file() && dir.join(r.srdf).is_file())
}

/// The folder that contains `example-robot-data/robots/...` (see the [crate docs](crate) for
/// where it comes from). The first call may download and unpack the data (once per
/// workspace); later calls in the process return the same answer at once.
pub fn package_path() -> Result<PathBuf, Error> {
    static PATH: OnceLock<Result<PathBuf, Error>> = OnceLock::new();
    PATH.get_or_init(locate).clone()
}

fn locate() -> Result<PathBuf, Error> {
    if let Some(dir) = std::env::var_os("SDRS_ROBOT_DATA") {
        let dir = PathBuf::from(dir);
        return if complete(&dir) {
            Ok(dir)
        } else {
            Err(Error::Io {
                path: dir.display().to_string(),
                message: "SDRS_ROBOT_DATA names a folder without the seven robots' \
                          example-robot-data/robots/... files"
                    .into(),
            })
        };
    }
    let root = workspace_root();
    let shared = root.parent().unwrap_or(&root).join("shared");
    if shared.join("example-robot-data").is_dir() {
        return Ok(shared);
    }
    fetch(&root.join("target/robot-data"), &shared)
}

/// The robot folders extracted from the wheel (every path in [`ROBOTS`] is under one).
fn robot_folders() -> Vec<&'static str> {
    let mut folders: Vec<&str> = ROBOTS
        .iter()
        .filter_map(|r| r.urdf.split('/').nth(2))
        .collect();
    folders.sort_unstable();
    folders.dedup();
    folders
}

/// Downloads the wheel into `cache/wheel` and unpacks the robots into `cache/share`, unless
/// a complete `cache/share` is already there.
fn fetch(cache: &Path, shared: &Path) -> Result<PathBuf, Error> {
    let share = cache.join("share");
    if complete(&share) {
        return Ok(share);
    }
    std::fs::create_dir_all(cache).map_err(|e| io_error(cache, e))?;
    let wheel = download(cache, shared)?;
    // Unpack into a folder of this process's own, then rename it into place in one step.
    let unique = format!("extract-{}", std::process::id());
    let scratch = cache.join(unique);
    let _ = std::fs::remove_dir_all(&scratch);
    let prefix = "cmeel.prefix/share/example-robot-data/robots/";
    let script = "import sys, zipfile\n\
                  wheel, out, prefix = sys.argv[1], sys.argv[2], sys.argv[3]\n\
                  folders = tuple(prefix + f + '/' for f in sys.argv[4:])\n\
                  with zipfile.ZipFile(wheel) as z:\n\
                  \x20   for name in z.namelist():\n\
                  \x20       if name.startswith(folders):\n\
                  \x20           z.extract(name, out)\n";
    let output = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&wheel)
        .arg(&scratch)
        .arg(prefix)
        .args(robot_folders())
        .output()
        .map_err(|e| python_error(shared, "python3 -c <unzip>", e.to_string()))?;
    let extract_error = |message: String| Error::Extract {
        wheel: wheel.display().to_string(),
        message,
    };
    if !output.status.success() {
        return Err(extract_error(tail(&output.stderr)));
    }
    let unpacked = scratch.join("cmeel.prefix/share");
    if !complete(&unpacked) {
        let _ = std::fs::remove_dir_all(&scratch);
        return Err(extract_error(
            "the wheel lacks some robots' URDF or SRDF files".into(),
        ));
    }
    let renamed = std::fs::rename(&unpacked, &share);
    let _ = std::fs::remove_dir_all(&scratch);
    match renamed {
        Ok(()) => Ok(share),
        // Another process got there first: use its copy.
        Err(_) if complete(&share) => Ok(share),
        Err(e) => Err(io_error(&share, e)),
    }
}

/// The wheel in `cache/wheel`, downloaded with pip unless present.
fn download(cache: &Path, shared: &Path) -> Result<PathBuf, Error> {
    let name = format!("example_robot_data-{VERSION}-0-py3-none-any.whl");
    let wheel_dir = cache.join("wheel");
    let wheel = wheel_dir.join(&name);
    if wheel.is_file() {
        return Ok(wheel);
    }
    let scratch = cache.join(format!("download-{}", std::process::id()));
    let spec = format!("example-robot-data=={VERSION}");
    let command = format!("python3 -m pip download --no-deps {spec}");
    let output = Command::new("python3")
        .args([
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--disable-pip-version-check",
        ])
        .arg(&spec)
        .arg("-d")
        .arg(&scratch)
        .output()
        .map_err(|e| python_error(shared, &command, e.to_string()))?;
    if !output.status.success() {
        let _ = std::fs::remove_dir_all(&scratch);
        let stderr = tail(&output.stderr);
        if stderr.contains("No module named pip") {
            return Err(python_error(shared, &command, stderr));
        }
        return Err(Error::Download {
            version: VERSION,
            status: output.status.to_string(),
            stderr,
        });
    }
    let fetched = std::fs::read_dir(&scratch)
        .map_err(|e| io_error(&scratch, e))?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or_else(|| Error::Extract {
            wheel: scratch.display().to_string(),
            message: "pip reported success but left no .whl file".into(),
        })?;
    std::fs::create_dir_all(&wheel_dir).map_err(|e| io_error(&wheel_dir, e))?;
    let moved = std::fs::rename(&fetched, &wheel);
    let _ = std::fs::remove_dir_all(&scratch);
    moved.map_err(|e| io_error(&wheel, e))?;
    Ok(wheel)
}

fn python_error(shared: &Path, command: &str, message: String) -> Error {
    Error::Python {
        shared: shared.display().to_string(),
        command: command.to_string(),
        message,
    }
}

/// The last lines of a process's error output.
fn tail(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(6)..].join(" | ")
}
