//! The motion suite (`cargo xtask bench motion`): runs every workload of
//! `sdrs_benches::motion` and prints one markdown table with, per workload, the step time,
//! Newton iterations (mean and max), line-search trials, the cost of one iteration, and,
//! beside them, a peer's step time on the same scene and the ratio.
//!
//! ```text
//! cargo bench -p sdrs-benches --bench motion -- [--peer FILE.json] [--repeat N] [--quick]
//!     [--out FILE.md] [WORKLOAD...]
//! ```
//!
//! `--peer` reads the JSON that `benches/reference/mujoco_motion.py` writes (ns per step and
//! the tracked body's final position per workload); `cargo xtask bench motion` runs that
//! script first, so both simulators are timed in one run. Each workload's rollout is run
//! `--repeat` times (default 3, 1 with `--quick`) and the fastest run is reported: the least
//! disturbed on a shared machine, as the peer script does.
use sdrs_benches::motion::{DT, Measured, STEPS, workloads};
use std::fmt::Write as _;

struct Args {
    peer: Option<std::path::PathBuf>,
    repeat: usize,
    out: Option<std::path::PathBuf>,
    only: Vec<String>,
}

fn args() -> Result<Args, String> {
    let mut args = Args {
        peer: None,
        repeat: 3,
        out: None,
        only: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--peer" => args.peer = Some(value("--peer")?.into()),
            "--out" => args.out = Some(value("--out")?.into()),
            // What `cargo bench` passes to a harness of its own.
            "--bench" => {}
            "--quick" => args.repeat = 1,
            "--repeat" => {
                args.repeat = value("--repeat")?
                    .parse()
                    .map_err(|e| format!("--repeat: {e}"))?
            }
            flag if flag.starts_with("--") => {
                return Err(format!(
                    "unknown option {flag} (allowed: --peer FILE, --repeat N, --quick, --out FILE)"
                ));
            }
            name => args.only.push(name.to_owned()),
        }
    }
    Ok(args)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = args()?;
    let peer: Option<serde_json::Value> = match &args.peer {
        Some(path) => Some(serde_json::from_str(
            &std::fs::read_to_string(path)
                .map_err(|e| format!("reading the peer's timings {}: {e}", path.display()))?,
        )?),
        None => None,
    };
    let peer_name = peer
        .as_ref()
        .and_then(|p| p["peer"].as_str())
        .unwrap_or("peer")
        .to_owned();
    let mut table = format!(
        "| workload | DoF | step (µs) | Newton iterations: mean / max | line-search trials per step | per iteration (µs) | {peer_name} step (µs) | ratio | final position (m): sdrs / peer |\n|---|---|---|---|---|---|---|---|---|\n"
    );
    let mut notes = String::new();
    let mut differentiated = String::new();
    let all = workloads()?;
    let known: Vec<&str> = all.iter().map(|w| w.name).collect();
    if let Some(bad) = args.only.iter().find(|o| !known.contains(&o.as_str())) {
        return Err(format!("no workload '{bad}' (known: {})", known.join(", ")).into());
    }
    for mut w in all {
        if !args.only.is_empty() && !args.only.iter().any(|o| o == w.name) {
            continue;
        }
        let mut best: Option<Measured> = None;
        for _ in 0..args.repeat.max(1) {
            let m = w.run()?;
            if best.as_ref().is_none_or(|b| m.mean_step() < b.mean_step()) {
                best = Some(m);
            }
        }
        let m = best.expect("at least one run");
        let ours = 1e6 * m.mean_step();
        let theirs = peer
            .as_ref()
            .and_then(|p| p["rows"][w.name].as_f64())
            .map(|ns| ns / 1e3);
        let position = |p: &[f64]| format!("({:.3}, {:.3}, {:.3})", p[0], p[1], p[2]);
        let peer_position = peer
            .as_ref()
            .and_then(|p| p["final"][w.name].as_array().cloned())
            .map(|v| v.iter().filter_map(|x| x.as_f64()).collect::<Vec<_>>())
            .filter(|p| p.len() == 3)
            .map_or_else(|| "–".into(), |p| position(&p));
        let _ = writeln!(
            table,
            "| {} | {} | {:.1} | {:.2} / {} | {:.2} | {} | {} | {} | {} / {} |",
            w.name,
            w.model.dof(),
            ours,
            m.mean_iterations(),
            m.max_iterations(),
            m.mean_trials(),
            m.per_iteration()
                .map_or("–".into(), |s| format!("{:.1}", 1e6 * s)),
            theirs.map_or("–".into(), |t| format!("{t:.1}")),
            theirs.map_or("–".into(), |t| format!("{:.1}x", ours / t)),
            position(&m.final_position),
            peer_position,
        );
        let _ = writeln!(notes, "- `{}`: {}", w.name, w.what);
        if w.name == "ant_trot" {
            let d = w.rollout_and_adjoint()?;
            let _ = writeln!(
                differentiated,
                "`ant_trot` differentiated (blocks recorded, adjoint of a loss on the final \
                 state): rollout {:.1} µs + adjoint {:.1} µs = {:.1} µs per step.",
                1e6 * d.forward,
                1e6 * d.backward,
                1e6 * (d.forward + d.backward)
            );
        }
    }
    let report = format!(
        "Robots in motion: {STEPS} steps of {} ms per workload, the fastest of {} runs.\n\n{table}\n{differentiated}\n{notes}",
        1e3 * DT,
        args.repeat.max(1)
    );
    print!("{report}");
    if let Some(out) = &args.out {
        if let Some(dir) = out.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(out, &report)?;
        eprintln!("wrote {}", out.display());
    }
    Ok(())
}
