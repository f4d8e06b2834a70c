//! The chain-reach co-design of the SDRS paper (sec. V-B, Fig. 10): optimise the left
//! chain's carriage spline alone, then spline and link lengths together, from the same start,
//! with the trust-region projected step of eq. 15; print both convergence histories and write
//! them as CSV and SVG under `target/sdrs-out/`.
//!
//! `cargo run --release -p sdrs-examples --example chain_codesign [ITERATIONS]`

use sdrs::prelude::*;
use sdrs_examples::chain_reach::{
    ChainReach, Evaluation, LENGTH_CHANGE, LINK_LENGTH, LINKS, TRAVEL,
};
use sdrs_examples::plot::{Series, write_csv, write_svg};
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// One optimisation run: the loss after each iteration and where it ended.
struct Run {
    history: Vec<f64>,
    spline: DVector<f64>,
    lengths: DVector<f64>,
    end: Evaluation,
}

/// Trust-region optimisation with the step of eq. 15 on each block (control, and design when
/// `codesign`): a step that lowers the loss is taken and its radius grows by 1.5, otherwise
/// the radius halves. Returns the loss after each iteration.
fn optimise(
    scene: &ChainReach,
    codesign: bool,
    iterations: usize,
) -> Result<Run, Box<dyn std::error::Error>> {
    let mut c = DVector::zeros(4);
    let mut p = DVector::zeros(LINKS);
    let (c_lo, c_hi) = (
        DVector::from_element(4, -TRAVEL),
        DVector::from_element(4, TRAVEL),
    );
    let (p_lo, p_hi) = (
        DVector::from_element(LINKS, LENGTH_CHANGE.0),
        DVector::from_element(LINKS, LENGTH_CHANGE.1),
    );
    let (mut rc, mut rp) = (0.05, 0.02);
    let mut best = scene.evaluate(&c, &p)?;
    let mut history = vec![best.loss];
    let started = Instant::now();
    let label = if codesign {
        "co-design   "
    } else {
        "control only"
    };
    for it in 0..iterations {
        let dc = projected_step(&c, &best.control, rc, &c_lo, &c_hi)?;
        let dp = if codesign {
            projected_step(&p, &best.design, rp, &p_lo, &p_hi)?
        } else {
            DVector::zeros(LINKS)
        };
        let (c_new, p_new) = (&c + &dc, &p + &dp);
        match scene.evaluate(&c_new, &p_new) {
            Ok(trial) if trial.loss < best.loss => {
                (c, p, best) = (c_new, p_new, trial);
                rc = (rc * 1.5).min(0.2);
                rp = (rp * 1.5).min(0.05);
            }
            // A worse loss, or a step the simulator rejects (e.g. a hull made degenerate):
            // shrink the trust region.
            _ => {
                rc *= 0.5;
                rp *= 0.5;
            }
        }
        history.push(best.loss);
        let bar = 30 * (it + 1) / iterations;
        eprint!(
            "\r{label} [{}{}] {}/{iterations}  loss {:.3e}  |g| {:.2e}  radius {:.1e}  {:.0} s ",
            "#".repeat(bar),
            " ".repeat(30 - bar),
            it + 1,
            best.loss,
            best.control
                .norm()
                .hypot(if codesign { best.design.norm() } else { 0.0 }),
            rc,
            started.elapsed().as_secs_f64()
        );
    }
    eprintln!();
    Ok(Run {
        history,
        spline: c,
        lengths: p,
        end: best,
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let iterations: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(60);
    let scene = ChainReach::new()?;
    println!(
        "chain reach (SDRS Fig. 10): {} DoF, {} links, H = {} steps of {} s, {} iterations per run",
        scene.model.dof(),
        scene.model.links().len(),
        sdrs_examples::chain_reach::STEPS,
        sdrs_examples::chain_reach::DT,
        iterations
    );
    let clock = Instant::now();
    let Run {
        history: control,
        spline: c1,
        end: end1,
        ..
    } = optimise(&scene, false, iterations)?;
    let t1 = clock.elapsed().as_secs_f64();
    let clock = Instant::now();
    let Run {
        history: codesign,
        spline: c2,
        lengths: p2,
        end: end2,
    } = optimise(&scene, true, iterations)?;
    let t2 = clock.elapsed().as_secs_f64();
    println!("iteration  control-only loss  co-design loss");
    for (k, (a, b)) in control.iter().zip(&codesign).enumerate() {
        if k % 5 == 0 || k + 1 == control.len() {
            println!("{k:>9}  {a:>17.4e}  {b:>14.4e}");
        }
    }
    let reduction = 100.0 * (1.0 - end2.loss / end1.loss);
    println!(
        "control only: loss {:.4e} m², tip {:.3} link lengths from the target, spline {:.3?} ({t1:.1} s)",
        end1.loss,
        end1.distance / LINK_LENGTH,
        c1.as_slice()
    );
    println!(
        "co-design:    loss {:.4e} m², tip {:.3} link lengths from the target, spline {:.3?}, link lengths {:.3?} m ({t2:.1} s)",
        end2.loss,
        end2.distance / LINK_LENGTH,
        c2.as_slice(),
        p2.iter().map(|d| LINK_LENGTH + d).collect::<Vec<_>>()
    );
    println!(
        "co-design lowers the control-only loss by a further {reduction:.1}% (final loss ratio {:.1e})",
        end2.loss / end1.loss
    );
    for (name, end) in [("control only", &end1), ("co-design", &end2)] {
        let pairs = &end.trajectory.active_pairs;
        println!(
            "{name}: contact in {} of {} steps (up to {} active hull pairs)",
            pairs.iter().filter(|&&a| a > 0).count(),
            pairs.len(),
            pairs.iter().max().unwrap_or(&0)
        );
    }
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/sdrs-out");
    std::fs::create_dir_all(&out)?;
    let series = [
        Series {
            name: "control only".into(),
            colour: "#1f77b4",
            points: control
                .iter()
                .enumerate()
                .map(|(k, l)| (k as f64, *l))
                .collect(),
        },
        Series {
            name: "co-design".into(),
            colour: "#d62728",
            points: codesign
                .iter()
                .enumerate()
                .map(|(k, l)| (k as f64, *l))
                .collect(),
        },
    ];
    let csv = out.join("chain_codesign.csv");
    let svg = out.join("chain_codesign.svg");
    write_csv(&csv, "iteration", "loss_m2", &series)?;
    write_svg(
        &svg,
        "Chain reach: convergence (SDRS Fig. 10)",
        "iteration",
        "loss (m²)",
        &series,
    )?;
    println!("wrote {} and {}", csv.display(), svg.display());
    std::io::stdout().flush()?;
    Ok(())
}
