//! Timing of the velocity-level hard-contact stepper (`sdrs_ncp::NcpSimulator`, issue 19,
//! item 5a; the NCP paper's Tab. II-III): per scenario, one simulation step, the full step
//! Jacobian `∂(q⁺, v⁺)/∂(q, v, u)` by implicit differentiation (`step_recorded` then
//! `step_jacobian`), and the same Jacobian by central finite differences (`2 (2 n_v + n_u)`
//! steps, `n_u = n_v`). Scenarios: UR5 (its base on the ground slab), Solo-12, A1 (a
//! Go1-class quadruped) and TALOS from example-robot-data under PD towards their standing
//! configuration, and MuJoCo's half-cheetah and humanoid through the MJCF importer (passive, on
//! their floor). The ground is each model's own (the trial's ground slab, the MJCF floor
//! slab), met through hull-hull patches. Each is stepped at Δt = 1 ms first so its contacts
//! are established: 100 steps, then on to the first step with contacts (the MJCF models
//! start in the air; a robot may hop under its PD). The three timings are interleaved over `ROUNDS`
//! rounds (the machine is shared), each on a copy of the settled simulator made outside the
//! timed region, and the median per round is reported with the numbers of collision pairs and
//! contact points, as a Markdown and a CSV table in `target/sdrs-out/ncp/` (`SDRS_NCP_OUT`
//! to change).
//!
//! `cargo bench -p sdrs-benches --bench ncp [-- NAME...] [--quick]` (only the scenarios whose
//! names contain a NAME; 3 rounds instead of 11), or `cargo xtask bench ncp`; the solver's
//! tolerance is `SDRS_NCP_TOLERANCE` (default 1e-10).

use nalgebra::DVector;
use sdrs_dynamics::{Control, MjcfOptions, Model, State, load_mjcf};
use sdrs_examples::robots::{Trial, TrialOptions};
use sdrs_ncp::{NcpSettings, NcpSimulator, SolverSettings};
use std::path::{Path, PathBuf};
use std::time::Instant;

const DT: f64 = 1e-3;
const SETTLE: usize = 100;
/// Most settling steps for a model that starts in the air.
const MAX_SETTLE: usize = 2000;

/// A scenario: its model, start state and control.
fn scenarios() -> Vec<(String, Model, State, Control)> {
    let mut out = Vec::new();
    let package = sdrs_robot_data::package_path().expect("the robot data");
    for name in ["ur5", "solo12", "a1", "talos"] {
        let robot = sdrs_robot_data::robot(name).expect("a known robot");
        let options = TrialOptions {
            package_paths: vec![package.clone()],
            floating: robot.floating_base,
            state: robot.standing.map(str::to_string),
            // Standing on the ground from the start.
            drop: 0.0,
            dt: DT,
            ..TrialOptions::default()
        };
        let urdf = robot.urdf_path().expect("robot data");
        let srdf = robot.srdf_path().expect("robot data");
        let trial = Trial::new(&urdf, Some(&srdf), &options).expect("the robot loads");
        out.push((
            name.to_string(),
            trial.model,
            trial.start.state,
            trial.control,
        ));
    }
    let mjcf =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/sdrs-dynamics/tests/data/mjcf");
    for name in ["half_cheetah", "humanoid"] {
        let mj = load_mjcf(mjcf.join(format!("{name}.xml")), &MjcfOptions::default())
            .expect("the MJCF model loads");
        let state = State::neutral(&mj.model);
        let control = Control::passive(&mj.model);
        out.push((name.to_string(), mj.model, state, control));
    }
    out
}

/// Timed rounds per scenario.
const ROUNDS: usize = 11;
/// Timed rounds per scenario with `--quick`.
const QUICK_ROUNDS: usize = 3;
/// Central-difference step.
const EPS: f64 = 1e-6;

/// The microseconds `f` takes on a copy of `sim` (copied outside the timed region) from
/// `(state, v)`, and what it returned.
fn timed<T>(
    sim: &NcpSimulator,
    state: &State,
    v: &DVector<f64>,
    f: impl FnOnce(&mut NcpSimulator, &mut State, &mut DVector<f64>) -> T,
) -> (f64, T) {
    let (mut sim, mut s, mut w) = (sim.clone(), state.clone(), v.clone());
    let clock = Instant::now();
    let out = f(&mut sim, &mut s, &mut w);
    (clock.elapsed().as_secs_f64() * 1e6, out)
}

/// The step Jacobian by implicit differentiation.
fn implicit_jacobian(
    sim: &mut NcpSimulator,
    state: &mut State,
    v: &mut DVector<f64>,
    control: &Control,
) -> Result<(), sdrs_ncp::NcpError> {
    let (_, record) = sim.step_recorded(state, v, control)?;
    sim.step_jacobian(&record).map(|_| ())
}

/// The step Jacobian by central differences (`2 (2n + n)` steps on `sim`, each warm-started
/// from the previous one, as a finite-difference loop would run); `false` if a step failed.
fn finite_difference_jacobian(
    sim: &mut NcpSimulator,
    state: &State,
    v: &DVector<f64>,
    control: &Control,
) -> bool {
    let n = sim.model().dof();
    let mut ok = true;
    for col in 0..3 * n {
        for sign in [1.0, -1.0] {
            let (mut s, mut w, mut c) = (state.clone(), v.clone(), control.clone());
            let k = col % n;
            match col / n {
                0 => {
                    let dq = DVector::from_fn(n, |i, _| if i == k { sign * EPS } else { 0.0 });
                    match sim.model().integrate(state, &dq) {
                        Ok(x) => s = x,
                        Err(_) => ok = false,
                    }
                }
                1 => w[k] += sign * EPS,
                _ => c.force[k] += sign * EPS,
            }
            ok &= sim.step(&mut s, &mut w, &c).is_ok();
        }
    }
    ok
}

fn median(mut x: Vec<f64>) -> f64 {
    x.sort_by(f64::total_cmp);
    x[x.len() / 2]
}

fn main() {
    let out = std::env::var_os("SDRS_NCP_OUT").map_or_else(
        || {
            std::env::var_os("CARGO_TARGET_DIR")
                .map_or_else(
                    || Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"),
                    PathBuf::from,
                )
                .join("sdrs-out/ncp")
        },
        PathBuf::from,
    );
    std::fs::create_dir_all(&out).expect("the output directory");
    let mut csv = String::from(
        "scenario,dofs,collision_pairs,contact_points,solver_iterations,step_us,implicit_jacobian_us,finite_difference_jacobian_us,note\n",
    );
    let mut md = String::from(
        "| scenario | DoFs | collision pairs | contact points | solver iterations | step (µs) | step Jacobian, implicit (µs) | step Jacobian, finite differences (µs) | note |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    // `cargo bench --bench ncp -- NAME...` times only the scenarios whose names contain a NAME.
    // `--quick` (as `cargo xtask bench ncp --quick` passes it): fewer rounds.
    let rounds = if std::env::args().any(|a| a == "--quick") {
        QUICK_ROUNDS
    } else {
        ROUNDS
    };
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    // The solver's tolerance on every residual (`SDRS_NCP_TOLERANCE`, default 1e-10): the
    // stepper's own 1e-12 is below the round-off floor of A1's standing problem, whose
    // residuals stall at 1-2e-11 for 20,000 iterations.
    let tolerance = std::env::var("SDRS_NCP_TOLERANCE")
        .ok()
        .and_then(|t| t.parse::<f64>().ok())
        .unwrap_or(1e-10);
    for (name, model, mut state, control) in scenarios() {
        if !only.is_empty() && !only.iter().any(|o| name.contains(o.as_str())) {
            continue;
        }
        // A 2 mm contact margin (fewer speculative contacts) and up to 20,000 solver
        // iterations, as in the crate's Solo-12 test.
        let solver = SolverSettings::builder()
            .tolerance(tolerance)
            .max_iterations(20_000)
            .build()
            .expect("valid solver settings");
        let settings = NcpSettings::new(DT)
            .and_then(|s| s.with_margin(2e-3))
            .expect("valid settings")
            .with_solver(solver);
        let mut sim = NcpSimulator::new(model.clone(), settings);
        let mut v = DVector::zeros(model.dof());
        let mut contacts = 0;
        let mut note = String::new();
        for k in 0..MAX_SETTLE {
            match sim.step(&mut state, &mut v, &control) {
                Ok(report) => contacts = report.contacts.len(),
                Err(e) => {
                    note = format!("settling failed at step {k}: {e}");
                    break;
                }
            }
            if k + 1 >= SETTLE && contacts > 0 {
                break;
            }
        }
        let (mut step, mut implicit, mut fd) = (Vec::new(), Vec::new(), Vec::new());
        let mut iterations = 0;
        if note.is_empty() {
            for _ in 0..rounds {
                let (t, report) = timed(&sim, &state, &v, |sim, s, w| sim.step(s, w, &control));
                step.push(t);
                let ok = match report {
                    Ok(r) => {
                        iterations = r.iterations;
                        true
                    }
                    Err(_) => false,
                };
                let (t, result) = timed(&sim, &state, &v, |sim, s, w| {
                    implicit_jacobian(sim, s, w, &control)
                });
                implicit.push(t);
                let (t, fd_ok) = timed(&sim, &state, &v, |sim, s, w| {
                    finite_difference_jacobian(sim, s, w, &control)
                });
                fd.push(t);
                if !ok || !fd_ok {
                    note = "a step failed".to_string();
                }
                if let Err(e) = result {
                    note = format!("implicit Jacobian failed: {e}");
                }
            }
        }
        let cell = |x: &Vec<f64>| {
            if x.is_empty() {
                "n/a".to_string()
            } else {
                format!("{:.0}", median(x.clone()))
            }
        };
        let row = [
            name.clone(),
            model.dof().to_string(),
            sim.collision_pairs().to_string(),
            contacts.to_string(),
            iterations.to_string(),
            cell(&step),
            cell(&implicit),
            cell(&fd),
        ];
        eprintln!("{} {note}", row.join(" "));
        csv += &format!("{},\"{}\"\n", row.join(","), note.replace('"', "'"));
        md += &format!("| {} | {} |\n", row.join(" | "), note);
    }
    md += &format!(
        "\nSolver tolerance {tolerance:e}, Δt = {DT} s, contact margin 2 mm; medians of {rounds} \
         interleaved rounds, one thread. The implicit column includes the step.\n"
    );
    md += "\nPaper (one Apple M3 core): full step Jacobian UR5 4.1 µs, Go1 93 µs, H1 54 µs, Atlas 95 µs.\n";
    std::fs::write(out.join("ncp_timing.csv"), csv).expect("the CSV table");
    std::fs::write(out.join("ncp_timing.md"), &md).expect("the Markdown table");
    println!("{md}");
    println!("wrote {}", out.join("ncp_timing.md").display());
}
