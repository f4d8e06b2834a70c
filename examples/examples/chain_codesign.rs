//! The chain-reach co-design of the SDRS paper (sec. V-B, Fig. 10): optimise the left
//! chain's carriage spline alone, then spline and link lengths together, from the same start,
//! with the trust-region projected step of eq. 15 (a step that lowers the loss is taken and
//! the radii grow by 1.5, otherwise they halve); print both convergence histories and write
//! them as CSV, SVG and PNG under `target/sdrs-out/chain_codesign/`, with both results'
//! animations (`control_only` and `codesign`, each a `.glb` and a self-contained `.html`
//! viewer).
//!
//! `cargo run --release -p sdrs-examples --example chain_codesign [ITERATIONS]`

use sdrs::diff::Evaluation;
use sdrs::prelude::*;
use sdrs_examples::chain_reach::{
    ChainReach, DT, LENGTH_CHANGE, LINK_LENGTH, LINKS, TARGET, TRAVEL, chain_reach,
};
use sdrs_report::{LinePlot, ProgressMode, display_path, indexed, output_dir};
use sdrs_view::glb::Animation;
use sdrs_view::{Plots, write_run};
use std::time::Instant;

/// One optimisation run: the loss after each iteration and where it ended.
struct Run {
    history: Vec<f64>,
    spline: DVector<f64>,
    lengths: DVector<f64>,
    end: Evaluation,
}

/// The trust-region loop of eq. 15 (`sdrs_diff::minimise`) on the spline alone, or on the
/// spline and the link lengths (`codesign`), with a progress bar.
fn optimise(
    scene: &ChainReach,
    codesign: bool,
    iterations: usize,
) -> Result<Run, Box<dyn std::error::Error>> {
    let spline = Block {
        lower: DVector::from_element(4, -TRAVEL),
        upper: DVector::from_element(4, TRAVEL),
        radius: 0.05,
        max_radius: 0.2,
    };
    let lengths = Block {
        lower: DVector::from_element(LINKS, LENGTH_CHANGE.0),
        upper: DVector::from_element(LINKS, LENGTH_CHANGE.1),
        radius: 0.02,
        max_radius: 0.05,
    };
    let (start, blocks) = if codesign {
        (
            vec![DVector::zeros(4), DVector::zeros(LINKS)],
            vec![spline, lengths],
        )
    } else {
        (vec![DVector::zeros(4)], vec![spline])
    };
    let objective = |x: &[DVector<f64>]| -> Result<_, Box<dyn std::error::Error>> {
        let p = x.get(1).cloned().unwrap_or_else(|| DVector::zeros(LINKS));
        let e = scene.evaluate(&x[0], &p)?;
        let mut gradient = vec![e.parameters.clone()];
        if codesign {
            gradient.push(
                e.design
                    .clone()
                    .ok_or("the steps gave no design gradient")?,
            );
        }
        Ok((e.loss, gradient, e))
    };
    let label = if codesign {
        "co-design"
    } else {
        "control only"
    };
    let bar = sdrs_report::Progress::new(label, iterations as u64, ProgressMode::auto());
    let best = minimise(start, blocks, objective, iterations, |p: &Progress| {
        bar.tick_noting(p, p.failure_note())
    })?;
    bar.finish();
    Ok(Run {
        history: best.history,
        spline: best.parameters[0].clone(),
        lengths: best
            .parameters
            .get(1)
            .cloned()
            .unwrap_or_else(|| DVector::zeros(LINKS)),
        end: best.data,
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let iterations: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(60);
    let scene = chain_reach()?;
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
        end1.loss.sqrt() / LINK_LENGTH,
        c1.as_slice()
    );
    println!(
        "co-design:    loss {:.4e} m², tip {:.3} link lengths from the target, spline {:.3?}, link lengths {:.3?} m ({t2:.1} s)",
        end2.loss,
        end2.loss.sqrt() / LINK_LENGTH,
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
    let written = LinePlot::new("Chain reach: convergence (SDRS Fig. 10)")
        .x_label("iteration")
        .y_label("loss (m²)")
        .log_y(true)
        .history("control only", &control)
        .history("co-design", &codesign)
        .write_all(&output_dir("chain_codesign")?, "convergence")?;
    let runs = [
        (
            "control_only",
            "control only",
            scene.model.clone(),
            &end1,
            &control,
        ),
        (
            "codesign",
            "co-design",
            scene.design.model(&scene.model, &p2)?,
            &end2,
            &codesign,
        ),
    ];
    let mut animations = Vec::new();
    for (name, label, model, end, losses) in runs {
        let animation = Animation::from_states(&model, DT, &end.trajectory.states)?
            .with_target(TARGET.into())?;
        let plots = Plots {
            loss: indexed(losses),
            step_ms: Vec::new(),
        };
        let title = format!("Chain reach (SDRS Fig. 10): {label}");
        animations.extend(write_run(
            &animation,
            &title,
            &plots,
            &output_dir("chain_codesign")?,
            name,
        )?);
    }
    for path in written.iter().chain(&animations) {
        println!("wrote {}", display_path(path));
    }
    Ok(())
}
