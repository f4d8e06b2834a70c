//! Contact inverse dynamics (NCP paper sec. IV-C, Fig. 4): the joint torques for which Solo-12
//! standing on its four feet keeps still (zero acceleration over one Δt = 1 ms step), by
//! Gauss-Newton on the step's acceleration `(v⁺ − v)/Δt` with respect to the 12 joint torques,
//! with the Jacobian from implicit differentiation and from central finite differences (step
//! 1e-6). The robot first settles for 0.1 s (`--settle N` steps) under
//! PD towards its standing pose; then the PD is switched off, the velocity set to zero, the
//! torques start at zero, and the drift correction is switched off (the settled feet sit some
//! 1e-8 m off the resting depth, which would ask for a foot velocity, so a residual
//! acceleration near 1e-2 that no torque removes); solves start cold, with the adapted
//! penalty and tolerance 1e-13: the acceleration the torques can reach is only as exact as
//! the NCP solves (measured final error: 4.0e-6 at 1e-11 without adaptation, 1.1e-6 at 1e-11
//! with, 5.6e-8 at 1e-13). Writes the
//! convergence (acceleration norm per iteration) as CSV and SVG to `target/sdrs-out/ncp/`
//! (`--out DIR` to change; `--iterations N`, 12) and prints the paper's result beside ours.
//!
//! `cargo run --release -p sdrs-ncp --example solo12_inverse_dynamics`

#[path = "common/cli.rs"]
mod cli;
#[path = "common/robots.rs"]
mod robots;

use cli::Flags;
use nalgebra::DVector;
use sdrs_ncp::inverse::{GaussNewtonTrace, JacobianSource, contact_inverse_dynamics};
use sdrs_ncp::{NcpSimulator, SolverSettings};
use sdrs_report::LinePlot;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let flags = Flags::from_env();
    let out = flags.out()?;
    let iterations: usize = flags.parsed("--iterations", 12)?;
    let (mut sim, mut state, mut control) = robots::solo12(1e-11);
    let settle: usize = flags.parsed("--settle", 100)?;
    let n = sim.model().dof();
    let mut v = DVector::zeros(n);
    for _ in 0..settle {
        sim.step(&mut state, &mut v, &control)?;
    }
    let settings = sim
        .settings()
        .with_drift_correction(0.0, 0.0)?
        .with_warm_start(false)
        .with_solver(
            SolverSettings::builder()
                .tolerance(1e-13)
                .max_iterations(20_000)
                .build()?,
        );
    let sim = NcpSimulator::new(sim.model().clone(), settings);
    control.kp.fill(0.0);
    control.kd.fill(0.0);
    control.force.fill(0.0);
    let v = DVector::zeros(n);
    let actuated: Vec<usize> = (6..n).collect();
    let run = |source| {
        contact_inverse_dynamics(&sim, &state, &v, &control, &actuated, iterations, source)
    };
    let implicit = run(JacobianSource::Implicit)?;
    let fd = run(JacobianSource::FiniteDifferences(1e-6))?;
    let points = |trace: &GaussNewtonTrace| -> Vec<(f64, f64)> {
        trace
            .residual_norms
            .iter()
            .enumerate()
            .map(|(k, r)| (k as f64, r.max(1e-16)))
            .collect()
    };
    println!("iteration  |a| implicit (m/s², rad/s²)  |a| finite differences");
    for k in 0..=iterations {
        println!(
            "{k:9}  {:28.3e}  {:22.3e}",
            implicit.residual_norms[k], fd.residual_norms[k]
        );
    }
    let per = |trace: &GaussNewtonTrace| {
        trace.jacobian_seconds.iter().sum::<f64>() / trace.jacobian_seconds.len() as f64
    };
    println!(
        "Jacobian per iteration: implicit {:.2} ms, finite differences {:.2} ms",
        per(&implicit) * 1e3,
        per(&fd) * 1e3
    );
    let torques = implicit.estimates.last().map(|x| x.as_slice().to_vec());
    println!("torques (N m): {torques:.3?}");
    let first_below =
        |trace: &GaussNewtonTrace| trace.residual_norms.iter().position(|r| *r < 1e-5);
    println!(
        "paper (Fig. 4): error 1e-5 in about 10 iterations; ours: below 1e-5 after {:?} \
         iterations (implicit), {:?} (finite differences); final {:.1e} and {:.1e}",
        first_below(&implicit),
        first_below(&fd),
        implicit.residual_norms[iterations],
        fd.residual_norms[iterations]
    );
    let plot = LinePlot::new("Solo-12 contact inverse dynamics by Gauss-Newton")
        .x_label("iteration")
        .y_label("|acceleration|")
        .log_y(true)
        .series("implicit differentiation", points(&implicit))
        .series("finite differences", points(&fd));
    for path in plot.write_all(&out, "solo12_inverse_dynamics")? {
        println!("wrote {}", path.display());
    }
    Ok(())
}
