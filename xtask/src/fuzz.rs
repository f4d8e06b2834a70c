//! `cargo xtask fuzz [--seconds N] [--cases N] [--seed S]`: a bounded fuzzing run of the loader
//! targets in `crates/sdrs-dynamics/tests/fuzz_loaders.rs` (URDF, SRDF, OBJ, STL, COLLADA).
//!
//! The targets are proptest properties over mutated seed files; CI runs them with a fixed seed
//! and few cases. This runs them round after round with many cases (`PROPTEST_CASES`) and a
//! new `PROPTEST_RNG_SEED` each round until the time budget is spent, adds up the inputs each
//! target tried (the tests print `fuzz target NAME: N inputs, F failures`), and writes every
//! failing round's output (the failing input, shrunk, and how to replay it) to
//! `target/sdrs-report/fuzz-failures-SEED.txt`.

use anyhow::{Context, Result, bail};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The test filter that selects the fuzz targets.
const FILTER: &str = "fuzz_loaders::fuzz_";

fn cargo_test(root: &Path) -> Command {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root)
        .args(["test", "-p", "sdrs-dynamics", "--test", "dynamics"]);
    cmd
}

/// Per target: inputs tried and failing rounds.
#[derive(Default)]
struct Tally {
    inputs: u64,
    failures: u64,
}

/// Reads `fuzz target NAME: N inputs, F failures` lines.
fn parse_counts(output: &str, tally: &mut BTreeMap<String, Tally>) {
    for line in output.lines() {
        let Some(rest) = line.trim().strip_prefix("fuzz target ") else {
            continue;
        };
        let Some((name, counts)) = rest.split_once(": ") else {
            continue;
        };
        let numbers: Vec<u64> = counts
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|w| w.parse().ok())
            .collect();
        if let [inputs, failures] = numbers[..] {
            let t = tally.entry(name.trim().to_string()).or_default();
            t.inputs += inputs;
            t.failures += failures;
        }
    }
}

/// Runs the fuzz targets for about `seconds` (at least one round).
pub fn run(root: &Path, seconds: u64, cases: u32, seed: Option<u64>) -> Result<()> {
    let status = cargo_test(root)
        .arg("--no-run")
        .status()
        .context("building the fuzz targets")?;
    if !status.success() {
        bail!("building the fuzz targets failed with {status}");
    }
    let base = match seed {
        Some(s) => s,
        None => SystemTime::now().duration_since(UNIX_EPOCH)?.as_secs(),
    };
    let budget = Duration::from_secs(seconds);
    let start = Instant::now();
    let mut tally: BTreeMap<String, Tally> = BTreeMap::new();
    let mut failed_rounds = Vec::new();
    let mut round = 0u64;
    while round == 0 || start.elapsed() < budget {
        let rng_seed = base.wrapping_add(round);
        round += 1;
        let output = cargo_test(root)
            .env("PROPTEST_CASES", cases.to_string())
            .env("PROPTEST_RNG_SEED", rng_seed.to_string())
            .args(["--", FILTER, "--nocapture", "--test-threads=1"])
            .output()
            .context("running the fuzz targets")?;
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        parse_counts(&text, &mut tally);
        if !output.status.success() {
            let dir = root.join("target").join("sdrs-report");
            std::fs::create_dir_all(&dir)?;
            let file = dir.join(format!("fuzz-failures-{rng_seed}.txt"));
            let replay = format!(
                "replay: PROPTEST_CASES={cases} PROPTEST_RNG_SEED={rng_seed} cargo test -p \
                 sdrs-dynamics --test dynamics -- {FILTER} --nocapture\n\n"
            );
            std::fs::write(&file, replay + &text)?;
            eprintln!(
                "round {round} (seed {rng_seed}) failed: see {}",
                file.display()
            );
            failed_rounds.push(file);
        }
        eprintln!(
            "round {round} (seed {rng_seed}) done, {:.0} s of {seconds} s",
            start.elapsed().as_secs_f64()
        );
    }
    println!(
        "fuzzed {} targets for {:.0} s in {round} rounds ({cases} cases per target per round, \
         seeds {base}..{}):",
        tally.len(),
        start.elapsed().as_secs_f64(),
        base.wrapping_add(round - 1)
    );
    println!("| target | inputs | failures |\n|---|---|---|");
    for (name, t) in &tally {
        println!("| {name} | {} | {} |", t.inputs, t.failures);
    }
    if tally.is_empty() {
        bail!("no fuzz target reported (is the filter {FILTER} still right?)");
    }
    if !failed_rounds.is_empty() {
        bail!(
            "{} round(s) found failures: {failed_rounds:?}",
            failed_rounds.len()
        );
    }
    Ok(())
}
