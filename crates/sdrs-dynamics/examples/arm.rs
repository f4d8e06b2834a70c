//! A 7-DoF arm under stable-PD control (no contact): prints per-step Newton iterations and
//! wall time per step and per iteration, and the final joint error.
//!
//! `cargo run --release -p sdrs-dynamics --example arm [STEPS]`

use sdrs_dynamics::scenes::arm7;
use sdrs_dynamics::{Motion, Simulator, State};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let steps: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(300);
    let scene = arm7(0.01)?;
    let model = scene.model.clone();
    let mut sim = Simulator::new(scene.model, scene.settings)?;
    let mut motion = Motion::at_rest(&model, State::zero(&model));
    let (mut iterations, mut seconds) = (0, 0.0);
    for step in 1..=steps {
        let report = sim.advance(&mut motion, &scene.control)?;
        let state = &motion.state;
        iterations += report.iterations;
        seconds += report.timings.total.as_secs_f64();
        if step % (steps / 6).max(1) == 0 {
            println!(
                "step {step:>4}: {} Newton iterations, {:.1} µs, max joint error {:.2e} rad",
                report.iterations,
                report.timings.total.as_secs_f64() * 1e6,
                (&state.q - &scene.control.position).amax()
            );
        }
    }
    println!(
        "mean: {:.1} µs per step, {:.2} iterations per step, {:.1} µs per Newton iteration",
        seconds * 1e6 / steps as f64,
        iterations as f64 / steps as f64,
        seconds * 1e6 / iterations.max(1) as f64
    );
    Ok(())
}
