//! The long-range paper's billiards scene (sec. 6) under long-range mesh contact: a cue ball
//! rolls into a rack. Prints per-step cost and what the balls do.
//!
//! `cargo run --release -p sdrs-dynamics --example billiards [BALLS] [STEPS]`

use sdrs_dynamics::Simulator;
use sdrs_dynamics::scenes::billiards;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let balls: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(16);
    let steps: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(50);
    let scene = billiards(balls, 2.0, 0.01)?;
    let model = scene.scene.model.clone();
    println!(
        "{balls} balls + ground, {} DoF, {} interacting link pairs (global support)",
        model.dof(),
        scene.contact.pairs().len()
    );
    let mut sim = Simulator::with_contact(
        model.clone(),
        scene.scene.settings.clone(),
        Box::new(scene.contact),
    )?;
    let mut motion = scene.start;
    let cue = model.dof() - 6;
    let clock = Instant::now();
    let mut iterations = 0;
    for step in 1..=steps {
        let report = sim.advance(&mut motion, &scene.scene.control)?;
        iterations += report.iterations;
        if step % 10 == 0 || step == steps {
            let q = &motion.state.q;
            println!(
                "step {step:>4}: cue ball x {:+.4} m, height {:+.5} m; first rack ball x {:+.5} m; {} Newton iterations",
                q[cue],
                q[cue + 2],
                q[0],
                report.iterations
            );
        }
    }
    let per = clock.elapsed().as_secs_f64() / steps as f64;
    println!(
        "mean {:.1} ms per step, {:.1} Newton iterations per step",
        per * 1e3,
        iterations as f64 / steps as f64
    );
    Ok(())
}
