//! `sdrs`: the command line of the sdrs simulator.
//!
//! - `sdrs info ROBOT` lists a URDF's or MJCF's links, joints, masses, hulls and which link
//!   pairs may touch.
//! - `sdrs simulate SCENE.toml --steps N -o OUT.jsonl` runs a scene file and writes the
//!   trajectory as JSON lines.
//! - `sdrs bench SCENE.toml --steps N` runs a scene and prints per-step timings.
//! - `sdrs optimise TASK.toml` optimises a control or co-design task and writes its
//!   convergence history (CSV, SVG, PNG) and best trajectory.
//! - `sdrs view SCENE.toml TRAJ.jsonl` writes the trajectory's animation as `.glb` and as a
//!   self-contained HTML viewer.
//!
//! Outputs without an explicit path go to `sdrs-out/` under the cargo target directory
//! (`CARGO_TARGET_DIR` when set). Progress shows as a bar on a terminal and as periodic lines
//! otherwise.
//!
//! Errors print one line on standard error starting with `error:`; the exit code is 2 for
//! usage errors (bad arguments, missing files, unsupported file types) and 1 for errors while
//! loading, simulating or writing.

mod bench;
mod error;
mod info;
mod optimise;
mod scene;
mod simulate;
mod stats;
mod task;
mod view;

use clap::{Parser, Subcommand};

/// The sdrs simulator's command line.
#[derive(Debug, Parser)]
#[command(name = "sdrs", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List a robot's links, joints, masses, hulls and collision filter (URDF or MJCF).
    Info(info::InfoArgs),
    /// Run a scene file and write its trajectory (JSON lines).
    Simulate(simulate::SimulateArgs),
    /// Run a scene file and print per-step timings.
    Bench(bench::BenchArgs),
    /// Optimise a control or co-design task file; write its history, plot and best trajectory.
    #[command(alias = "optimize")]
    Optimise(optimise::OptimiseArgs),
    /// Write a trajectory's animation: NAME.glb and a self-contained NAME.html viewer.
    View(view::ViewArgs),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info(args) => info::run(&args),
        Command::Simulate(args) => simulate::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Optimise(args) => optimise::run(&args),
        Command::View(args) => view::run(&args),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            std::process::ExitCode::from(err.exit_code())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
