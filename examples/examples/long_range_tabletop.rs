//! The long-range paper's Gather and Sort benchmarks (sec. 6, Fig. 8; Table 3): a rod pushes
//! 10 cubes on the ground, its per-step PD targets optimised by Adam (lr 1e-2,
//! (β₁, β₂) = (0.3, 0.5)) from the trivial start (the rod held where it is, far from every
//! cube), under the long-range model and, with `--baselines`, the SDRS barrier and IPC from
//! the same start. Prints the loss history, each cube's miss and success (within ε of its
//! target) beside the paper's, and writes the convergence CSV/SVG/PNG under
//! `target/experiments/TASK/` (`--out` to change it).
//!
//! The full paper scale is `--cubes 10 --steps 300 --iterations 60` (gather) or `--steps 700
//! --iterations 100` (sort); the paper plans those horizons 32 (16) steps at a time with a
//! receding horizon, this example optimises the whole horizon at once (one window).
//!
//! `cargo run --release -p sdrs-examples --example long_range_tabletop -- gather`

use clap::Parser;
use sdrs_examples::long_range::tabletop::{Contact, Piece, Run, TabletopTask, misses, optimise};
use sdrs_examples::long_range::{gather, sort};
use sdrs_report::{LinePlot, display_path};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(about = "Gather and Sort of the long-range paper (sec. 6, Fig. 8)")]
struct Args {
    /// `gather` or `sort`.
    task: String,
    /// Cubes (1 to 10; the paper: 10).
    #[arg(long, default_value_t = 4)]
    cubes: usize,
    /// Steps of the horizon (the paper: 300 gather, 700 sort).
    #[arg(long, default_value_t = 25)]
    steps: usize,
    /// Adam iterations (the paper: 60 gather, 100 sort).
    #[arg(long, default_value_t = 10)]
    iterations: usize,
    /// Adam learning rate (default: the paper's 1e-2).
    #[arg(long)]
    lr: Option<f64>,
    /// Gather non-convex L-shaped pieces instead of cubes (a generated stand-in for the
    /// paper's Gather-Bunny).
    #[arg(long)]
    ell: bool,
    /// Also run the SDRS barrier and IPC from the same start.
    #[arg(long)]
    baselines: bool,
    /// Output directory (default `target/experiments/TASK`).
    #[arg(long)]
    out: Option<PathBuf>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let (paper_iterations, paper_horizon, receding, paper_lr, epsilon) = match args.task.as_str() {
        "gather" => (
            gather::ITERATIONS,
            gather::HORIZON,
            gather::RECEDING,
            gather::LEARNING_RATE,
            gather::EPSILON,
        ),
        "sort" => (
            sort::ITERATIONS,
            sort::HORIZON,
            sort::RECEDING,
            sort::LEARNING_RATE,
            sort::EPSILON,
        ),
        other => return Err(format!("unknown task `{other}`: `gather` or `sort`").into()),
    };
    let lr = args.lr.unwrap_or(paper_lr);
    let build = |contact| -> Result<(TabletopTask, Vec<_>), Box<dyn std::error::Error>> {
        if args.task == "gather" {
            let task = if args.ell {
                gather::gather_pieces(args.cubes, args.steps, contact, Piece::ell)?
            } else {
                gather::gather(args.cubes, args.steps, contact)?
            };
            Ok((task, vec![gather::TARGET; args.cubes]))
        } else {
            sort::sort(args.cubes, args.steps, contact)
        }
    };
    println!(
        "{}: {} cubes, H = {} steps of {} s, {} Adam iterations, lr {lr} (paper: 10 cubes, H = {paper_horizon}, receding h = {receding}, {paper_iterations} iterations, lr {paper_lr})",
        args.task,
        args.cubes,
        args.steps,
        sdrs_examples::long_range::tabletop::DT,
        args.iterations
    );
    let methods: &[(&str, Contact)] = if args.baselines {
        &[
            ("long-range", Contact::LongRange),
            ("SDRS barrier", Contact::Hulls),
            ("IPC", Contact::Ipc),
        ]
    } else {
        &[("long-range", Contact::LongRange)]
    };
    let out = match &args.out {
        Some(dir) => dir.clone(),
        None => sdrs_report::target_dir()
            .join("experiments")
            .join(&args.task),
    };
    std::fs::create_dir_all(&out)?;
    let mut plot = LinePlot::new(&format!(
        "{}: convergence (long-range paper Fig. 8)",
        args.task
    ))
    .x_label("iteration")
    .y_label("loss (m²)")
    .log_y(true);
    println!("method        success  final loss   start loss   s/iteration");
    for &(name, contact) in methods {
        let (task, targets) = build(contact)?;
        let start = task.policy.initial();
        let Run {
            history,
            end,
            seconds_per_iteration,
            ..
        } = optimise(&task, start, args.iterations, lr, |k, loss| {
            eprintln!("{name}: iteration {k}: loss {loss:.6e}");
        })?;
        let last = end.trajectory.states.last().ok_or("an empty trajectory")?;
        let pieces: Vec<usize> = (0..args.cubes)
            .map(|k| task.model.link_index(&format!("cube{k}")))
            .collect::<Result<_, _>>()?;
        let miss = misses(&task.model, &pieces, &targets, last);
        let inside = miss.iter().filter(|&&m| m < epsilon).count();
        println!(
            "{name:<13} {inside:>2}/{:<4}  {:.4e}   {:.4e}   {seconds_per_iteration:.1}",
            args.cubes, end.loss, history[0]
        );
        println!("  misses (m): {:.3?}", miss);
        plot = plot.series(
            name,
            history
                .iter()
                .enumerate()
                .map(|(k, l)| (k as f64, *l))
                .collect(),
        );
    }
    println!(
        "paper (Fig. 8): the long-range model gathers/sorts all cubes; the baselines make little or no progress"
    );
    for path in plot.write_all(&out, "convergence")? {
        println!("wrote {}", display_path(&path));
    }
    Ok(())
}
