//! The long-range paper's billiards scene (sec. 6) under long-range mesh contact: a cue ball
//! rolls into a rack. Prints per-step cost and what the balls do, and writes the animation to
//! `target/sdrs-out/billiards/billiards.{glb,html}`.
//!
//! `cargo run --release -p sdrs-examples --example billiards [BALLS] [STEPS]`

use sdrs::dynamics::Simulator;
use sdrs::dynamics::scenes::billiards;
use sdrs_report::{display_path, output_dir};
use sdrs_view::glb::Animation;
use sdrs_view::{Plots, write_run};
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
    let mut states = vec![motion.state.clone()];
    let mut step_ms = Vec::with_capacity(steps);
    for step in 1..=steps {
        let started = Instant::now();
        let report = sim.advance(&mut motion, &scene.scene.control)?;
        step_ms.push(1e3 * started.elapsed().as_secs_f64());
        states.push(motion.state.clone());
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
    let dt = sim.settings().dt;
    let animation = Animation::from_states(&model, dt, &states)?;
    let plots = Plots {
        loss: Vec::new(),
        step_ms,
    };
    let title = format!("Billiards: {balls} balls, long-range contact");
    for path in write_run(
        &animation,
        &title,
        &plots,
        &output_dir("billiards")?,
        "billiards",
    )? {
        println!("wrote {}", display_path(&path));
    }
    Ok(())
}
