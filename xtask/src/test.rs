//! `cargo xtask test`: the README's test command. It makes sure the tools that the browser and
//! validator tests need are there (Debian's `chromium` for the viewer's screenshots, `npm` for
//! the Khronos glTF validator), installing Chromium with apt when it can, then runs
//! `cargo test --workspace` with any extra arguments.
//!
//! Where a tool is missing and cannot be installed (no root, no apt), the run goes on with
//! `SDRS_SKIP_BROWSER_TESTS=1` and says so, except under CI (`CI=true`), which must not skip.

use anyhow::{Result, bail};
use std::path::Path;
use std::process::Command;

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
    Ok(())
}
