//! The universal parallel-jaw gripper (SDRS sec. V-F, Figs. 16-18): the blocks of both jaws
//! optimised with Adam for four objects grasped and carried to random targets, the four
//! trajectories evaluated in parallel and their losses and gradients summed. Prints the
//! convergence, each object's slip and distance to its target before and after, and writes the
//! history (CSV, SVG, PNG) and every trajectory before and after (GLB + HTML, with the jaws'
//! shapes) under `target/experiments/parallel_jaw/` (or `--out`).
//!
//! `cargo run --release -p sdrs-examples --example parallel_jaw`
//! (the default is a reduced scale, 6 × 6 blocks per jaw and H = 90; `--grid 13,12 --steps 180`
//! is the paper's).

use clap::Parser;
use sdrs::prelude::*;
use sdrs_examples::carry::{Summed, Trajectory};
use sdrs_examples::parallel_jaw::{
    DT, LEARNING_RATE, MU, OBJECTS, PAPER_GRID, STEPS, parallel_jaw,
};
use sdrs_report::{LinePlot, ProgressMode, display_path, target_dir};
use sdrs_view::glb::Animation;
use sdrs_view::{Plots, write_run};
use std::path::PathBuf;
use std::time::Instant;

/// Command-line settings.
#[derive(Parser)]
struct Args {
    /// Adam iterations.
    #[arg(long, default_value_t = 40)]
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
    /// Output directory (default `target/experiments/parallel_jaw`).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// A held object stays within this distance of where the grasp put it (m).
const HELD: f64 = 0.01;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let [width, height] = args.grid[..] else {
        return Err(format!(
            "--grid takes two counts (width,height), got {:?}",
            args.grid
        )
        .into());
    };
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
        "paper scale: {} × {} = 156 blocks per jaw, H = {STEPS}, lr {LEARNING_RATE}",
        PAPER_GRID[0], PAPER_GRID[1]
    );
    let p0 = DVector::zeros(task.parameters());
    let clock = Instant::now();
    let first = task.evaluate(&p0)?;
    println!(
        "one evaluation (4 rollouts + adjoints, in parallel on {} threads): {:.1} s",
        rayon::current_num_threads(),
        clock.elapsed().as_secs_f64()
    );
    let bar = sdrs_report::Progress::new("design", args.iterations as u64, ProgressMode::auto());
    let clock = Instant::now();
    let (history, p, end) = task.optimise(p0.clone(), args.iterations, args.lr, |k, loss| {
        bar.set_message(&format!("loss {loss:.3e}"));
        if k > 0 {
            bar.inc(1);
        }
    })?;
    bar.finish();
    let seconds = clock.elapsed().as_secs_f64();
    let report = |name: &str,
                  p: &DVector<f64>,
                  s: &Summed|
     -> Result<usize, Box<dyn std::error::Error>> {
        println!("{name}: summed loss {:.4e} m²", s.loss);
        let mut held = 0;
        for (t, e) in task.trajectories.iter().zip(&s.each) {
            let slip = Trajectory::slip(e);
            let states = &e.trajectory.states;
            held += usize::from(slip < HELD);
            println!(
                "  {:<9} slip {:.4} m ({}), object {:.4} m from its target, smallest clearance {:.2e} m",
                t.name,
                slip,
                if slip < HELD { "held" } else { "dropped" },
                t.miss(states).unwrap_or(f64::NAN),
                t.clearance(p, states)?
            );
        }
        Ok(held)
    };
    let held_before = report("initial jaws  ", &p0, &first)?;
    let held_after = report("optimised jaws", &p, &end)?;
    println!(
        "objects held (slip < {HELD} m): {held_before}/4 before, {held_after}/4 after; paper: 0/4 before, 4/4 after"
    );
    let kept = task.volume_fractions(&p)?;
    println!(
        "jaw material kept: left {:.1}%, right {:.1}% of the solid plates; {} iterations in {seconds:.0} s ({:.1} s per iteration); best loss {:.4e} of the start's {:.4e}",
        100.0 * kept[0],
        100.0 * kept[1],
        args.iterations,
        seconds / args.iterations.max(1) as f64,
        end.loss,
        first.loss
    );
    let dir = args
        .out
        .unwrap_or_else(|| target_dir().join("experiments").join("parallel_jaw"));
    let mut written = LinePlot::new("Universal parallel-jaw gripper: convergence (SDRS Fig. 18)")
        .x_label("Adam iteration")
        .y_label("Σ |relative motion|² (m²)")
        .log_y(true)
        .history("ours (blocks)", &history)
        .write_all(&dir, "convergence")?;
    for (stage, design, summed) in [("start", &p0, &first), ("optimised", &p, &end)] {
        for (t, e) in task.trajectories.iter().zip(&summed.each) {
            let model = t.objective.design.model(&t.objective.model, design)?;
            let animation = Animation::from_states(&model, DT, &e.trajectory.states)?;
            let plots = Plots {
                loss: sdrs_report::indexed(&history),
                step_ms: Vec::new(),
            };
            let title = format!("Parallel-jaw gripper (SDRS Fig. 16): {}, {stage}", t.name);
            written.extend(write_run(
                &animation,
                &title,
                &plots,
                &dir,
                &format!("{stage}_{}", t.name),
            )?);
        }
    }
    for path in &written {
        println!("wrote {}", display_path(path));
    }
    Ok(())
}
