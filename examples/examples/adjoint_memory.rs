//! Peak memory and time of one chain-reach gradient (rollout + adjoint) over `H` steps.
//!
//! The chain-reach scene (25 DoF) is driven by an open-loop policy with a position target
//! per DoF and step (`H · 25` parameters), or by the task's 4-point cubic spline
//! (`--spline`); the rollout keeps every step's blocks (`Recording::Blocks`) unless
//! `--states` is given. Prints the horizon, the peak resident set (`VmHWM` of
//! `/proc/self/status`, Linux only) after building the scene and after the gradient, and the
//! wall time of each of `--repeats` gradients. One process per horizon: the peak is the
//! process's, so compare runs, not lines of one run.
//!
//! `cargo run --release -p sdrs-examples --example adjoint_memory -- 1000 [--spline]
//! [--states] [--repeats N]`

use sdrs::diff::PolicyInput;
use sdrs::prelude::*;
use sdrs_examples::chain_reach::{ChainReach, chain_reach};
use std::time::Instant;

/// `VmHWM` (peak resident set) of this process in kB, when the kernel reports it.
fn peak_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The task's control with its spline at its initial values: the gains and targets an
/// open-loop policy starts from.
fn base_control(task: &ChainReach) -> Control {
    let state = State::zero(&task.model);
    let input = PolicyInput {
        step: 0,
        time: 0.0,
        current: &state,
        previous: None,
    };
    task.policy.control(&task.policy.initial(), &input)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().any(|a| a == name);
    let value_after = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .map(|v| v.parse::<usize>())
            .transpose()
    };
    let repeats = value_after("--repeats")?.unwrap_or(1).max(1);
    let steps = match args.first().filter(|a| !a.starts_with("--")) {
        Some(h) => h.parse::<usize>()?,
        None => 250,
    };
    let task = chain_reach()?;
    let recording = if flag("--states") {
        Recording::States
    } else {
        Recording::Blocks
    };
    let mut settings = task.settings.clone();
    settings.backward = recording == Recording::Blocks;
    let model = task.model.clone();
    let no_design = DVector::zeros(task.design.parameters());
    let before = peak_kb();
    let mut times = Vec::with_capacity(repeats);
    let (what, parameters) = if flag("--spline") {
        let objective = Objective {
            policy: CubicSpline::new(base_control(&task), vec![0], 4, steps as f64 * settings.dt)?,
            steps,
            settings,
            recording,
            ..task
        };
        let c = DVector::from_vec(vec![0.1, 0.2, 0.2, 0.3]);
        for _ in 0..repeats {
            let clock = Instant::now();
            objective.evaluate(&c, &no_design)?;
            times.push(clock.elapsed().as_secs_f64());
        }
        ("4-point spline", c.len())
    } else {
        let dofs: Vec<usize> = (0..model.dof()).collect();
        let policy = OpenLoop::new(base_control(&task), dofs, steps)?;
        // The carriage sweeps a little; the chain joints' targets stay at zero (no gains).
        let c = DVector::from_fn(policy.parameters(), |k, _| {
            if k % model.dof() == 0 {
                0.2 * (k / model.dof()) as f64 / steps as f64
            } else {
                0.0
            }
        });
        let objective = Objective {
            policy,
            steps,
            settings,
            recording,
            model: task.model,
            loss: task.loss,
            start: task.start,
            design: task.design,
        };
        for _ in 0..repeats {
            let clock = Instant::now();
            objective.evaluate(&c, &no_design)?;
            times.push(clock.elapsed().as_secs_f64());
        }
        ("open loop", c.len())
    };
    let after = peak_kb();
    let mb =
        |kb: Option<u64>| kb.map_or("n/a".to_string(), |k| format!("{:.1}", k as f64 / 1024.0));
    println!(
        "H = {steps}, {what} ({parameters} parameters), {recording:?}: peak RSS {} MB after setup, {} MB after the gradient; gradient times (s): {:.4?}",
        mb(before),
        mb(after),
        times
    );
    Ok(())
}
