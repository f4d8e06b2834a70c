//! `cargo xtask test`: the README's test command. It makes sure the tools that the browser and
//! validator tests need are there (Debian's `chromium` for the viewer's screenshots, `npm` for
//! the Khronos glTF validator), installing Chromium with apt when it can, then runs
//! `cargo test --workspace` with any extra arguments.
//!
//! Where a tool is missing and cannot be installed (no root, no apt), the run goes on with
//! `SDRS_SKIP_BROWSER_TESTS=1` and says so, except under CI (`CI=true`), which must not skip.
//!
//! Then the Python package (`python/`): a venv under the target folder
//! (`target/python-venv`, reused when present), maturin, numpy, pytest, torch, ray and gymnasium from
//! PyPI (installed only when one of them does not import), the extension built into it
//! (`maturin develop --release`) and `pytest python/tests`. Outside CI, no `python3` or no
//! network to PyPI skips the Python tests with a message (as does `SDRS_SKIP_PYTHON_TESTS=1`);
//! under CI they must run.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// What the Python tests need from PyPI.
const PYTHON_PACKAGES: [&str; 6] = ["maturin", "numpy", "pytest", "torch", "ray", "gymnasium"];

/// Whether `program` runs (`program --version` succeeds).
fn available(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Installs Debian's chromium with apt-get when running as root; true if it is there after.
fn install_chromium() -> bool {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    if !root || !available("apt-get") {
        return false;
    }
    eprintln!("xtask test: installing Debian's chromium for the viewer's browser test");
    let apt = |args: &[&str]| {
        Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .is_ok_and(|s| s.success())
    };
    apt(&["update", "-qq"]) && apt(&["install", "-y", "-qq", "chromium"]) && available("chromium")
}

/// Runs the whole test suite from `root`, with the browser tools in place.
pub fn run(root: &Path, extra: &[String]) -> Result<()> {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    let mut missing = Vec::new();
    if !available("chromium") && !install_chromium() {
        missing.push("chromium (Debian: apt-get install chromium)");
    }
    if !available("npm") {
        missing.push("npm (Node.js)");
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root)
        .args(["test", "--workspace"])
        .args(extra);
    if !missing.is_empty() {
        let list = missing.join(", ");
        if ci {
            bail!("CI must run the browser and validator tests, but {list} is missing");
        }
        eprintln!(
            "xtask test: {list} missing: the viewer's browser test and the glTF validator are \
             skipped (SDRS_SKIP_BROWSER_TESTS=1); install them to run every test"
        );
        cmd.env("SDRS_SKIP_BROWSER_TESTS", "1");
    }
    let status = cmd.status()?;
    if !status.success() {
        bail!("cargo test --workspace failed ({status})");
    }
    python_tests(root, ci)
}

/// Why the Python tests cannot run here: skipped with the reason outside CI, an error in CI.
fn skip_python(ci: bool, reason: &str) -> Result<()> {
    if ci {
        bail!("CI must run the Python tests, but {reason}");
    }
    eprintln!("xtask test: {reason}: the Python tests are skipped");
    Ok(())
}

/// Runs `cmd`, failing with `what` when it does not succeed; prints how long it took.
fn run_timed(mut cmd: Command, what: &str) -> Result<()> {
    let clock = Instant::now();
    let status = cmd
        .status()
        .with_context(|| format!("cannot start {what}"))?;
    eprintln!("xtask test: {what}: {:.1} s", clock.elapsed().as_secs_f64());
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}

/// The Python package's tests in a venv under the target folder.
fn python_tests(root: &Path, ci: bool) -> Result<()> {
    if !ci && std::env::var("SDRS_SKIP_PYTHON_TESTS").is_ok_and(|v| v == "1") {
        eprintln!("xtask test: SDRS_SKIP_PYTHON_TESTS=1: the Python tests are skipped");
        return Ok(());
    }
    let python3_ok = Command::new("python3")
        .args(["-c", "import sys, venv; assert sys.version_info >= (3, 9)"])
        .status()
        .is_ok_and(|s| s.success());
    if !python3_ok {
        return skip_python(ci, "python3 (3.9 or later, with venv) is missing");
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let target = if target.is_absolute() {
        target
    } else {
        root.join(target)
    };
    let venv = target.join("python-venv");
    let bin = venv.join("bin");
    let clock = Instant::now();
    if !bin.join("python").exists() {
        let mut cmd = Command::new("python3");
        cmd.args(["-m", "venv"]).arg(&venv);
        run_timed(cmd, "creating the venv")?;
    }
    let imports = format!("import {}", PYTHON_PACKAGES.join(", "));
    let installed = Command::new(bin.join("python"))
        .args(["-c", &imports])
        .output()
        .is_ok_and(|o| o.status.success());
    if !installed {
        let mut pip = Command::new(bin.join("python"));
        pip.args(["-m", "pip", "install", "--quiet", "--upgrade"])
            .args(PYTHON_PACKAGES);
        if let Err(e) = run_timed(
            pip,
            "pip install of maturin, numpy, pytest, torch, ray and gymnasium",
        ) {
            return skip_python(
                ci,
                &format!("the packages could not be installed from PyPI ({e})"),
            );
        }
    }
    let path = std::env::join_paths(std::iter::once(bin.clone()).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))?;
    let mut maturin = Command::new(bin.join("maturin"));
    maturin
        .current_dir(root.join("python"))
        .args(["develop", "--release", "--quiet"])
        .env("VIRTUAL_ENV", &venv)
        .env("PATH", &path)
        .env("CARGO_TARGET_DIR", &target);
    run_timed(maturin, "maturin develop --release (the sdrs extension)")?;
    let mut pytest = Command::new(bin.join("python"));
    pytest
        .current_dir(root.join("python"))
        .args(["-m", "pytest", "tests", "-q"])
        .env("PATH", &path);
    run_timed(pytest, "pytest python/tests")?;
    eprintln!(
        "xtask test: the Python part took {:.1} s",
        clock.elapsed().as_secs_f64()
    );
    Ok(())
}
