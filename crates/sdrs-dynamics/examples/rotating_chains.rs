//! The SDRS performance scene (sec. V-A): four chains of N 2-DoF links on a spinning hub,
//! colliding with each other and themselves. Prints per-step wall time, Newton iterations,
//! active contact pairs and the time breakdown of SDRS Table II.
//!
//! `cargo run --release -p sdrs-dynamics --example rotating_chains [N] [STEPS]`

use sdrs_dynamics::scenes::rotating_chains;
use sdrs_dynamics::{Motion, Simulator, State, StepTimings};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(8);
    let steps: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(200);
    let dt = 0.01;
    let scene = rotating_chains(n, dt)?;
    let model = scene.model.clone();
    println!("four chains of {n} links: |θ| = {}", model.dof());
    let mut sim = Simulator::new(scene.model, scene.settings)?;
    let mut motion = Motion::at_rest(&model, State::zero(&model));
    let mut total = StepTimings::default();
    let mut iterations = 0;
    println!("step   hub angle (rad)   wall (ms)   Newton its   active pairs");
    for step in 1..=steps {
        let report = sim.advance(&mut motion, &scene.control)?;
        let state = &motion.state;
        iterations += report.iterations;
        let t = report.timings;
        total += t;
        if step % (steps / 10).max(1) == 0 {
            println!(
                "{step:>4}   {:>15.3}   {:>9.3}   {:>10}   {:>12}",
                state.q[0],
                t.total.as_secs_f64() * 1e3,
                report.iterations,
                report.active_pairs
            );
        }
    }
    println!(
        "mean per step: {:.3} ms, {:.1} Newton iterations",
        total.total.as_secs_f64() * 1e3 / steps as f64,
        iterations as f64 / steps as f64
    );
    let [normal, friction, newton, other] = total.percentages();
    println!(
        "breakdown: normal contact {normal:.1}%, friction {friction:.1}%, Newton directions {newton:.1}%, other {other:.1}%"
    );
    Ok(())
}
