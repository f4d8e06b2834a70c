//! `cargo xtask`: project automation for sdrs.
//!
//! `cargo xtask bench [SUITE] [--quick]` runs the criterion benchmarks of a suite (a file in
//! `benches/benches/`) and writes a markdown summary to `target/sdrs-report/SUITE.md`: one table
//! per benchmark group, one row per input size, one column per benchmarked function, the
//! median time in each cell, and a fitted log-log slope per column where inputs are numeric.
//! Peer libraries' timings of the same benchmarks (`benches/reference/*_timings.json`, written
//! by the scripts there) appear beside them with the ratio (see `report.rs` for the format).
//!
//! `cargo xtask bench motion` times robots in motion beside MuJoCo on the same models, both in
//! one run (see [`motion`]).
//!
//! `cargo xtask test [ARGS]` is the README's test command: it puts the browser tools in place
//! (see [`mod@test`]) and runs `cargo test --workspace ARGS`.
//!
//! `cargo xtask fuzz [--seconds N]` runs the loader fuzz targets (URDF, SRDF, OBJ, STL,
//! COLLADA) with many cases and varied seeds for a time budget and reports the inputs tried and
//! the failures (see [`fuzz`]).

mod fuzz;
mod motion;
mod report;
mod test;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The benchmark suites, each a `[[bench]]` target of the `sdrs-benches` package.
const SUITES: &[&str] = &[
    "geometry",
    "contact",
    "dynamics",
    "diff",
    "contact-mesh",
    "robots",
    "algorithms",
    "ncp_solver",
    "ncp",
    "motion",
];

/// Suites with their own harness that write a Markdown table (not criterion's estimates):
/// `(suite, environment variable naming its output directory, table file)`.
const TABLE_SUITES: &[(&str, &str, &str)] = &[("ncp", "SDRS_NCP_OUT", "ncp_timing.md")];

#[derive(Parser)]
#[command(about = "Project automation for sdrs")]
struct Cli {
    #[command(subcommand)]
    command: Commands,
}

#[derive(Subcommand)]
enum Commands {
    /// Run a benchmark suite (all suites if none is named) and write its markdown report.
    Bench {
        /// Suite name; one of the suites in benches/benches/.
        suite: Option<String>,
        /// Criterion's quick mode: stop as soon as the estimate is significant.
        #[arg(long)]
        quick: bool,
    },
    /// Run every test (Rust, doc, browser and validator tests), installing Chromium if needed.
    Test {
        /// Extra arguments for `cargo test --workspace`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Fuzz the URDF, SRDF and mesh loaders for a time budget (proptest targets, many cases).
    Fuzz {
        /// Time budget in seconds (rounds already started finish).
        #[arg(long, default_value_t = 60)]
        seconds: u64,
        /// Cases per target per round.
        #[arg(long, default_value_t = 1000)]
        cases: u32,
        /// First round's PROPTEST_RNG_SEED (default: from the clock); round k uses seed + k.
        #[arg(long)]
        seed: Option<u64>,
    },
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}

fn run_suite(root: &Path, suite: &str, quick: bool) -> Result<PathBuf> {
    let out_dir = root.join("target").join("sdrs-report");
    if suite == "motion" {
        return motion::run(root, quick, &out_dir);
    }
    if let Some((_, variable, table)) = TABLE_SUITES.iter().find(|t| t.0 == suite) {
        let dir = out_dir.join(suite);
        let mut cmd = bench_command(suite, quick);
        let status = cmd
            .current_dir(root)
            .env(variable, &dir)
            .status()
            .context("running cargo bench")?;
        if !status.success() {
            bail!("cargo bench for suite {suite} failed with {status}");
        }
        return Ok(dir.join(table));
    }
    let data = root.join("target").join("criterion").join(suite);
    // Results of earlier runs would mix into the report: start clean.
    if data.exists() {
        std::fs::remove_dir_all(&data).with_context(|| format!("clearing {}", data.display()))?;
    }
    let mut cmd = bench_command(suite, quick);
    cmd.current_dir(root)
        .env("CRITERION_HOME", &data)
        .arg("--noplot");
    let status = cmd.status().context("running cargo bench")?;
    if !status.success() {
        bail!("cargo bench for suite {suite} failed with {status}");
    }
    let markdown = report::render(suite, &data, quick, &root.join("benches").join("reference"))?;
    std::fs::create_dir_all(&out_dir)?;
    let out = out_dir.join(format!("{suite}.md"));
    std::fs::write(&out, markdown)?;
    Ok(out)
}

/// `cargo bench -p sdrs-benches --bench SUITE -- [--quick]`.
fn bench_command(suite: &str, quick: bool) -> Command {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["bench", "-p", "sdrs-benches", "--bench", suite, "--"]);
    if quick {
        cmd.arg("--quick");
    }
    cmd
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let root = workspace_root();
    match cli.command {
        Commands::Bench { suite, quick } => {
            let suites: Vec<&str> = match suite.as_deref() {
                None => SUITES.to_vec(),
                Some(s) if SUITES.contains(&s) => vec![s],
                Some(s) => bail!("unknown suite {s:?}; known suites: {}", SUITES.join(", ")),
            };
            for suite in suites {
                let out = run_suite(&root, suite, quick)?;
                println!("report written to {}", out.display());
            }
        }
        Commands::Test { args } => test::run(&root, &args)?,
        Commands::Fuzz {
            seconds,
            cases,
            seed,
        } => fuzz::run(&root, seconds, cases, seed)?,
    }
    Ok(())
}
