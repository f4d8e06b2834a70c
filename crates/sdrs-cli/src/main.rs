//! `sdrs`: the command line of the sdrs simulator.
//!
//! - `sdrs info ROBOT` lists a URDF's or MJCF's links, joints, masses, hulls and which link
//!   pairs may touch.
//!
//! Errors print one line on standard error starting with `error:`; the exit code is 2 for
//! usage errors (bad arguments, missing files, unsupported file types) and 1 for errors while
//! loading, simulating or writing.

mod error;
mod info;

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
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info(args) => info::run(&args),
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
