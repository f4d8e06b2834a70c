//! The universal parallel-jaw gripper (SDRS sec. V-F, Figs. 16-18): the blocks of both jaws
//! optimised with Adam for four objects grasped and carried to random targets, the four
//! trajectories evaluated in parallel and their losses and gradients summed. Prints the
//! convergence, each object's slip and distance to its target before and after, and writes the
//! history (CSV, SVG, PNG) and every trajectory before and after (GLB + HTML, with the jaws'
//! shapes) under `target/sdrs-out/parallel_jaw/` (or `--out`).
//!
//! `cargo run --release -p sdrs-examples --example parallel_jaw`
//! (the default is a reduced scale, 6 × 6 blocks per jaw, H = 90, the paper's lr 5e-3, 100
//! iterations; `--grid 13,12 --steps 180` is the paper's scale).

use clap::Parser;
use sdrs_examples::blocks::grid;
use sdrs_examples::carry::{Report, run_example};
use sdrs_examples::parallel_jaw::{
    DT, LEARNING_RATE, MU, OBJECTS, PAPER_GRID, STEPS, parallel_jaw,
};
use sdrs_report::target_dir;
use std::path::PathBuf;

/// Command-line settings.
#[derive(Parser)]
struct Args {
    /// Adam iterations.
    #[arg(long, default_value_t = 100)]
    iterations: usize,
    /// Horizon per trajectory (steps of 10 ms; the paper: 180).
    #[arg(long, default_value_t = 90)]
    steps: usize,
    /// Blocks of each jaw along its width and height (the paper: 13,12).
    #[arg(long, value_delimiter = ',', default_values_t = [6, 6])]
    grid: Vec<usize>,
    /// Adam's learning rate (the paper: 5e-3).
    #[arg(long, default_value_t = LEARNING_RATE)]
    lr: f64,
    /// Output directory (default `target/sdrs-out/parallel_jaw`).
    #[arg(long)]
    out: Option<PathBuf>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let [width, height] = grid(&args.grid)?;
    let task = parallel_jaw([width, height], args.steps, &OBJECTS)?;
    println!(
        "universal parallel-jaw gripper (SDRS Fig. 16): {} blocks per jaw, {} design parameters, {} objects, H = {} steps of {DT} s each, μ = {MU}, Adam lr {}",
        task.parts[0].1.hulls.len(),
        task.parameters(),
        task.trajectories.len(),
        args.steps,
        args.lr
    );
    println!(
        "paper: {} × {} = 156 blocks per jaw, H = {STEPS}, lr {LEARNING_RATE}",
        PAPER_GRID[0], PAPER_GRID[1]
    );
    let out = args
        .out
        .unwrap_or_else(|| target_dir().join("sdrs-out").join("parallel_jaw"));
    run_example(
        &task,
        args.iterations,
        args.lr,
        Report {
            title: "Universal parallel-jaw gripper",
            figures: ("Fig. 16", "Fig. 18"),
            out: &out,
            paper: "none of the 4 held by the initial gripper, all 4 after (Fig. 16)",
        },
    )?;
    Ok(())
}
