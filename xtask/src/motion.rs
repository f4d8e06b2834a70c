//! `cargo xtask bench motion`: robots in motion, sdrs and MuJoCo side by side in one run.
//!
//! First the peer: `benches/reference/mujoco_motion.py` times MuJoCo on the same workloads
//! (same MJCF files, PD gains, time step and friction) with a Python that has `mujoco`
//! (`target/venv-mujoco`, made and filled from PyPI when missing, or the system `python3` if
//! it has the package). Then the `motion` bench of `sdrs-benches` times sdrs and writes the
//! table with the peer's times beside ours. Without a Python or network for MuJoCo, the table
//! uses the peer timings committed in `benches/reference/mujoco_motion.json` and says so.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Whether `python` can import mujoco.
fn has_mujoco(python: &Path) -> bool {
    Command::new(python)
        .args(["-c", "import mujoco"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A Python with mujoco: the project's venv, the system one, or the venv made now.
fn python_with_mujoco(root: &Path) -> Option<PathBuf> {
    let venv = root.join("target").join("venv-mujoco");
    let in_venv = venv.join("bin").join("python");
    for python in [in_venv.clone(), PathBuf::from("python3")] {
        if has_mujoco(&python) {
            return Some(python);
        }
    }
    eprintln!("making {} with mujoco from PyPI", venv.display());
    let made = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .status()
        .is_ok_and(|s| s.success())
        && Command::new(&in_venv)
            .args(["-m", "pip", "install", "--quiet", "mujoco"])
            .status()
            .is_ok_and(|s| s.success());
    (made && has_mujoco(&in_venv)).then_some(in_venv)
}

/// Times MuJoCo into `out` (JSON); the committed timings when that cannot be done.
fn peer_timings(root: &Path, quick: bool, out: &Path) -> PathBuf {
    let committed = root.join("benches/reference/mujoco_motion.json");
    let Some(python) = python_with_mujoco(root) else {
        eprintln!(
            "no Python with mujoco could be found or installed: the MuJoCo column is the one \
             committed in {}",
            committed.display()
        );
        return committed;
    };
    let mut cmd = Command::new(python);
    cmd.current_dir(root)
        .arg("benches/reference/mujoco_motion.py")
        .arg("--out")
        .arg(out);
    if quick {
        cmd.arg("--quick");
    }
    match cmd.status() {
        Ok(s) if s.success() => out.to_path_buf(),
        other => {
            eprintln!(
                "the MuJoCo script failed ({other:?}): the MuJoCo column is the one committed in {}",
                committed.display()
            );
            committed
        }
    }
}

/// Runs the suite and returns the path of its table.
pub fn run(root: &Path, quick: bool, out_dir: &Path) -> Result<PathBuf> {
    let dir = out_dir.join("motion");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let peer = peer_timings(root, quick, &dir.join("mujoco_motion.json"));
    let table = out_dir.join("motion.md");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root)
        .args([
            "bench",
            "-p",
            "sdrs-benches",
            "--bench",
            "motion",
            "--",
            "--peer",
        ])
        .arg(&peer)
        .arg("--out")
        .arg(&table);
    if quick {
        cmd.arg("--quick");
    }
    let status = cmd.status().context("running cargo bench")?;
    if !status.success() {
        bail!("cargo bench for suite motion failed with {status}");
    }
    Ok(table)
}
