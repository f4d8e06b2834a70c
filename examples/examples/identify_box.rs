//! System identification from a trajectory (issue 46): a box thrown onto the ground and pushed
//! by a known force, with friction, recorded at the true friction coefficient and mass; both
//! are recovered from a wrong guess ([`sdrs_examples::identify`]).
//!
//! ```text
//! cargo run --release -p sdrs-examples --example identify_box [-- MU MASS]
//! ```
//!
//! `MU MASS` is the starting guess (default 0.5 and 1.0 kg; the truth is 0.35 and 1.4 kg).
//! Guesses from 0.25 to 0.5 and 1 to 2 kg recover both to 1e-12 in 14-15 iterations; from 0.8
//! and 0.6 kg the fit ends in a local minimum (μ 0.69, 0.63 kg): the loss is not convex in
//! the parameters. Writes the recorded, first and fitted positions (`fit`) and the loss per
//! iteration (`loss`) under `target/sdrs-out/identify_box/`.

use sdrs_examples::identify::{DT, Result, STEPS, TRUTH, identify, record};
use sdrs_report::LinePlot;

fn main() -> Result<()> {
    let args: Vec<f64> = std::env::args()
        .skip(1)
        .map(|a| a.parse::<f64>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| format!("MU MASS must be numbers: {e}"))?;
    let guess = match args.as_slice() {
        [] => [0.5, 1.0],
        [mu, mass] if *mu > 0.0 && *mass > 0.0 => [*mu, *mass],
        _ => return Err("give MU MASS, both positive, or nothing".into()),
    };
    let recorded = record(TRUTH[0], TRUTH[1])?;
    println!(
        "recorded {STEPS} steps at μ = {}, mass = {} kg; starting from μ = {}, mass = {} kg",
        TRUTH[0], TRUTH[1], guess[0], guess[1]
    );
    let fit = identify(&recorded, guess, |iteration, loss, [mu, mass]| {
        println!("iteration {iteration:2}: loss {loss:.3e}, μ = {mu:.9}, mass = {mass:.9} kg");
    })?;
    for (name, (f, t)) in ["μ", "mass"].iter().zip(fit.found.iter().zip(TRUTH)) {
        println!(
            "{name}: found {f:.9}, true {t}, relative error {:.1e}",
            (f - t).abs() / t
        );
    }
    let dir = sdrs_report::output_dir("identify_box")?;
    let track = |xs: &[nalgebra::Vector3<f64>], k: usize| -> Vec<(f64, f64)> {
        xs.iter()
            .enumerate()
            .map(|(t, x)| (t as f64 * DT, x[k]))
            .collect()
    };
    let mut positions = LinePlot::new("Box positions: recorded, first guess and fit")
        .x_label("time (s)")
        .y_label("position (m)");
    for (k, axis) in ["x", "y"].iter().enumerate() {
        positions = positions
            .series(&format!("{axis} recorded"), track(&recorded, k))
            .series(&format!("{axis} first guess"), track(&fit.first, k))
            .series(&format!("{axis} fitted"), track(&fit.last, k));
    }
    let mut paths = positions.write_all(&dir, "fit")?;
    paths.extend(
        LinePlot::new("Identification loss")
            .x_label("iteration")
            .y_label("½ Σ |x − x̂|² (m²)")
            .log_y(true)
            .history("loss", &fit.history)
            .write_all(&dir, "loss")?,
    );
    for path in paths {
        println!("wrote {}", sdrs_report::display_path(&path));
    }
    Ok(())
}
