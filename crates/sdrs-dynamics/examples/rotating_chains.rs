//! The SDRS performance scene (sec. V-A): four chains of N 2-DoF links on a spinning hub,
//! colliding with each other and themselves. Prints per-step wall time, Newton iterations,
//! active contact pairs and the time breakdown of SDRS Table II.
//!
//! `cargo run --release -p sdrs-dynamics --example rotating_chains [N] [STEPS]`

use sdrs_dynamics::scenes::rotating_chains;
use sdrs_dynamics::{Kinematics, Simulator, State, StepTimings};
use std::time::Duration;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(8);
    let steps: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(200);
    let dt = 0.01;
    let scene = rotating_chains(n, dt)?;
    let model = scene.model.clone();
    println!("four chains of {n} links: |θ| = {}", model.dof());
    let mut sim = Simulator::new(scene.model, scene.settings)?;
    let mut state = State::zero(&model);
    let mut previous = Kinematics::new(&model, &state).poses().to_vec();
    let mut total = StepTimings::default();
    let mut iterations = 0;
    println!("step   hub angle (rad)   wall (ms)   Newton its   active pairs");
    for step in 1..=steps {
        let poses = Kinematics::new(&model, &state).poses().to_vec();
        let (next, report) = sim.step(&state, &previous, &scene.control)?;
        previous = poses;
        state = next;
        iterations += report.iterations;
        let t = report.timings;
        total.normal += t.normal;
        total.friction += t.friction;
        total.newton += t.newton;
        total.total += t.total;
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
    let share = |d: Duration| 100.0 * d.as_secs_f64() / total.total.as_secs_f64();
    println!(
        "mean per step: {:.3} ms, {:.1} Newton iterations",
        total.total.as_secs_f64() * 1e3 / steps as f64,
        iterations as f64 / steps as f64
    );
    println!(
        "breakdown: normal contact {:.1}%, friction {:.1}%, Newton directions {:.1}%, other {:.1}%",
        share(total.normal),
        share(total.friction),
        share(total.newton),
        100.0 - share(total.normal) - share(total.friction) - share(total.newton)
    );
    Ok(())
}
