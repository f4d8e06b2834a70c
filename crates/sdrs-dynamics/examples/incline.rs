//! A box sliding down a 30° incline with Coulomb friction (μ = 0.3): simulated against analytic
//! acceleration g (sin α − μ cos α).
//!
//! `cargo run --release -p sdrs-dynamics --example incline [TILT_DEG] [MU]`

use sdrs_dynamics::scenes::box_on_incline;
use sdrs_dynamics::{Motion, Simulator, State};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let tilt_deg: f64 = args.next().map(|a| a.parse()).transpose()?.unwrap_or(30.0);
    let mu: f64 = args.next().map(|a| a.parse()).transpose()?.unwrap_or(0.3);
    let dt = 0.01;
    let tilt = tilt_deg.to_radians();
    let scene = box_on_incline(tilt, mu, dt)?;
    let model = scene.model.clone();
    let mut sim = Simulator::new(scene.model, scene.settings)?;
    let mut motion = Motion::at_rest(&model, State::zero(&model));
    let mut along = vec![0.0];
    println!("step    down-slope (m)   height (m)   Newton its   active pairs");
    for step in 1..=150 {
        let report = sim.advance(&mut motion, &scene.control)?;
        let state = &motion.state;
        along.push(state.q[0]);
        if step % 15 == 0 {
            println!(
                "{step:>4}    {:>14.6}   {:>10.6}   {:>10}   {:>12}",
                state.q[0], state.q[2], report.iterations, report.active_pairs
            );
        }
    }
    // Mean second difference over the last 100 steps (after the contact has settled).
    let n = along.len();
    let simulated =
        (along[n - 1] - along[n - 2] - (along[n - 100] - along[n - 101])) / (99.0 * dt * dt);
    let analytic = 9.81 * (tilt.sin() - mu * tilt.cos());
    println!(
        "acceleration down the slope: simulated {simulated:.4} m/s², analytic g(sin α − μ cos α) = {analytic:.4} m/s² ({:+.2}%)",
        100.0 * (simulated - analytic) / analytic
    );
    Ok(())
}
