//! The NCP solver alone on real contact problems (issue 19, item 2): iterations and time per
//! cold solve at the stepper's tolerance 1e-12, the fixed-penalty ADMM (`ρ = L`, no proximal
//! term, no adaptation) against the default spectral ADMM (`ρ = √(L m) (L/m)^p`, proximal
//! term, adaptation). The problems are captured from `NcpSimulator` runs by the sdrs-ncp
//! test helper `tests/captured.rs` (included by path): towers of 3, 5 and 17 boxes (12, 20
//! and 68 contacts) and Solo-12 standing under PD (16 contacts, 18 DoFs). The iteration table
//! goes to the suite's report (`report_section`).

#[path = "../../crates/sdrs-ncp/tests/captured.rs"]
mod captured;

use captured::{Captured, box_tower, fixed_rho_solver, solo12_standing};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use sdrs_benches::report_section;
use sdrs_ncp::{SolverSettings, solve};

/// The fixtures: a name and the captured problem (captured with the fixed-ρ solver, so they
/// do not depend on the solver under test).
fn fixtures() -> Vec<(&'static str, Captured)> {
    vec![
        ("tower3", box_tower(3, 200, fixed_rho_solver())),
        ("tower5", box_tower(5, 200, fixed_rho_solver())),
        ("tower17", box_tower(17, 100, fixed_rho_solver())),
        ("solo12", solo12_standing(300, fixed_rho_solver())),
    ]
}

fn ncp_solver(c: &mut Criterion) {
    let spectral = SolverSettings::builder()
        .tolerance(1e-12)
        .max_iterations(20_000)
        .build()
        .expect("valid solver settings");
    let solvers = [("fixed_rho", fixed_rho_solver()), ("spectral", spectral)];
    let mut md = String::from(
        "\n## Iterations per cold solve (tolerance 1e-12)\n\n\
         | problem | contacts | fixed ρ | spectral |\n|---|---|---|---|\n",
    );
    let mut group = c.benchmark_group("ncp_solve");
    group.sample_size(10);
    for (name, captured) in fixtures() {
        let problem = &captured.problem;
        let reference = problem.velocity(&captured.impulses);
        md.push_str(&format!("| {name} | {} |", problem.contacts()));
        for (label, settings) in &solvers {
            let cell = match solve(problem, settings, None) {
                Ok(solution) => {
                    let gap = (&solution.velocities - &reference).amax();
                    assert!(gap < 1e-9, "{name}, {label}: velocities differ by {gap:e}");
                    solution.iterations.to_string()
                }
                Err(e) => format!("failed: {e}"),
            };
            md.push_str(&format!(" {cell} |"));
            group.bench_function(BenchmarkId::new(*label, name), |b| {
                b.iter(|| solve(problem, settings, None).map(|s| s.iterations))
            });
        }
        md.push('\n');
    }
    group.finish();
    report_section(&md);
}

criterion_group!(benches, ncp_solver);
criterion_main!(benches);
