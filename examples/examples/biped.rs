//! The bipedal locomotion benchmark of the SDRS paper (sec. V-D, Figs. 12-13): the biped's
//! sine-wave controller optimised alone, then together with the vertices of its 2 feet, from
//! the same start, with the steps of eq. 15 (lengths ᾱ_c = 1e-2, ᾱ_d = 4e-3 as in the paper,
//! every step taken; `--trust-region` takes only steps that lower the loss). The loss is the
//! paper's as written, `R = −|COM(θ^H) − (0, 3, 0)|²`, away from the goal (`--towards`:
//! `|COM(θ^H) − (0, 3, 0)|²`; `sdrs_examples::quadruped` says why), plus a level-pelvis term (`--upright`, 0 for the paper's alone; see
//! `sdrs_examples::biped` for why) and, with `--progress`, the paper's term averaged over the
//! steps, optimised over horizons growing in `--stages` parts to H, from the random
//! waves or, with `--gait`, a stepping rhythm in the hips. Prints, for both runs, the loss, the
//! paper's loss, the distance walked along y, whether the biped fell (and when), the iterations
//! and the wall time beside the paper's claim (co-design walks without falling, control only
//! cannot balance), the co-designed controller on the starting feet, and the pelvis's tilt,
//! drop and distance every 50 steps; and writes under `target/sdrs-out/biped/` (or `--out`)
//! the convergence history (CSV, SVG, PNG; losses of the stages one after the other), both
//! runs' animations, the foot vertices before and after (`feet.csv`) and both robots as URDF
//! with OBJ meshes and their controllers (`control_only_urdf/`, `co_design_urdf/`, with
//! `replay.json` for `benches/reference/mujoco_replay.py`).
//!
//! `cargo run --release -p sdrs-examples --example biped -- [--iterations N] [--steps H]
//! [--stages K] [--upright W] [--progress V] [--gait A [--gait-omega W] [--gait-offset F]]
//! [--reach M] [--trust-region] [--calibrated-contact] [--towards] [--hertz] [--draw K]`

use clap::Parser;
use sdrs::prelude::*;
use sdrs_examples::biped::{
    AMPLITUDE, DT, FALL_DROP, FALL_TILT, PAPER_RADII, PROGRESS, REACH, STAGES, STEPS, UPRIGHT,
    biped_with, contact, gait_start,
};
use sdrs_examples::walker::{
    Run, Walker, first_fall, smallest_gap, step_rule, tilt_and_drop, write_results,
};
use sdrs_report::{display_path, target_dir};
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(Parser)]
#[command(about = "SDRS sec. V-D: biped locomotion, control only and co-design of the feet")]
struct Args {
    /// Iterations per run (shared among the stages).
    #[arg(long, default_value_t = 400)]
    iterations: usize,
    /// Horizon (the paper's H = 400).
    #[arg(long, default_value_t = STEPS)]
    steps: usize,
    /// Output directory (default target/sdrs-out/biped).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Take a step only when it lowers the loss, in a trust region, instead of the paper's
    /// fixed-length steps.
    #[arg(long, conflicts_with = "plateau")]
    trust_region: bool,
    /// Halve the fixed step lengths whenever this many iterations in a row found no better
    /// point, going back to the best point (`StepRule::Plateau`, ours).
    #[arg(long)]
    plateau: Option<usize>,
    /// sdrs's calibrated contact instead of the authors' (support 1 cm, stiffness 1).
    #[arg(long)]
    calibrated_contact: bool,
    /// Weight of the level-pelvis term added to the paper's loss (0: the paper's loss alone).
    #[arg(long, default_value_t = UPRIGHT)]
    upright: f64,
    /// Weight of the progress term added to the paper's loss: the paper's term at every step,
    /// averaged over the horizon (0: none).
    #[arg(long, default_value_t = PROGRESS)]
    progress: f64,
    /// Start the controller with this hip amplitude (rad) in the first wave of each hip
    /// (`gait_start`; without it, the random waves alone).
    #[arg(long)]
    gait: Option<f64>,
    /// The frequency of that hip wave (rad/s).
    #[arg(long, default_value_t = 5.0)]
    gait_omega: f64,
    /// The right hip's phase lag behind the left's (rad; π alternates the legs).
    #[arg(long, default_value_t = std::f64::consts::PI)]
    gait_offset: f64,
    /// Optimise over horizons growing in this many equal parts up to `--steps` (1: the full
    /// horizon throughout), the iterations shared among them.
    #[arg(long, default_value_t = STAGES)]
    stages: usize,
    /// How far each foot vertex may move along each axis (m).
    #[arg(long, default_value_t = REACH)]
    reach: f64,
    /// Read the wave frequencies as Hz instead of rad/s (`Walker::in_hertz`).
    #[arg(long)]
    hertz: bool,
    /// Start from this draw of the wave distributions (`Walker::initial_drawn`; 0, the
    /// default, is the measured tables' start).
    #[arg(long, default_value_t = 0)]
    draw: usize,
    /// Minimise `|COM(θ^H) − (0, 3, 0)|²`, walking to the goal along +y, instead of the
    /// paper's loss as written, `R = −|COM(θ^H) − (0, 3, 0)|²` (`Walker::as_written`, the
    /// default), which drives the biped away from it.
    #[arg(long)]
    towards: bool,
}

/// What a run ended with: distance walked (m) at every state, the pelvis's tilt (rad) and
/// drop (m) at every state, the step it fell at, the smallest gap (m), the paper's loss.
struct Outcome {
    travel: Vec<f64>,
    pelvis: Vec<(f64, f64)>,
    fell: Option<usize>,
    gap: f64,
    paper: f64,
}

fn outcome(walker: &Walker, run: &Run) -> Result<Outcome, Box<dyn std::error::Error>> {
    let states = &run.end.trajectory.states;
    let model = walker
        .objective
        .design
        .model(&walker.objective.model, &run.design)?;
    Ok(Outcome {
        travel: walker.travel(&run.design, &run.end.trajectory)?,
        pelvis: tilt_and_drop(&model, walker.root, states),
        fell: first_fall(&model, walker.root, states, FALL_TILT, FALL_DROP),
        gap: smallest_gap(&model, states),
        paper: walker.paper_loss(&run.design, &run.end.trajectory)?,
    })
}

/// Every foot vertex before and after co-design, in its foot's frame (m).
fn feet_csv(walker: &Walker, design: &DVector<f64>) -> Result<String, Box<dyn std::error::Error>> {
    let before = &walker.objective.model;
    let after = walker.objective.design.model(before, design)?;
    let mut csv = String::from("foot,hull,vertex,x0,y0,z0,x1,y1,z1\n");
    for foot in &walker.feet {
        let l = before.link_index(foot)?;
        let (h0, h1) = (&before.links()[l].hulls, &after.links()[l].hulls);
        for (h, (a, b)) in h0.iter().zip(h1).enumerate() {
            for (v, (p, q)) in a.vertices().iter().zip(b.vertices()).enumerate() {
                writeln!(
                    csv,
                    "{foot},{h},{v},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6}",
                    p.x, p.y, p.z, q.x, q.y, q.z
                )?;
            }
        }
    }
    Ok(csv)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| target_dir().join("sdrs-out").join("biped"));
    if args.stages == 0 || args.stages > args.steps {
        return Err(format!(
            "--stages {}: must be in 1..={} (--steps)",
            args.stages, args.steps
        )
        .into());
    }
    std::fs::create_dir_all(&out)?;
    let rule = step_rule(args.trust_region, args.plateau);
    let contact = if args.calibrated_contact {
        None
    } else {
        Some(contact()?)
    };
    let build = |steps: usize, codesign: bool| -> Result<Walker, Box<dyn std::error::Error>> {
        let walker = biped_with(steps, contact.clone())?
            .upright(args.upright)?
            .progress(args.progress)?;
        let walker = if args.hertz {
            walker.in_hertz()
        } else {
            walker
        };
        let walker = if args.towards {
            walker
        } else {
            walker.as_written()
        };
        if codesign {
            walker.codesign()
        } else {
            Ok(walker)
        }
    };
    let (control, codesign) = (build(args.steps, false)?, build(args.steps, true)?);
    println!(
        "biped (SDRS sec. V-D): {} DoF ({} actuated), {} links, H = {} steps of {} s, {} iterations per run in {} stages, {} foot-vertex coordinates, level-pelvis weight {}",
        control.objective.model.dof(),
        control.dofs.len(),
        control.objective.model.links().len() - 1,
        args.steps,
        DT,
        args.iterations,
        args.stages,
        codesign.objective.design.parameters(),
        args.upright,
    );
    // The horizon grows over the stages; each starts where the last ended.
    let staged = |walker: &Walker, label: &str| -> Result<(Run, f64), Box<dyn std::error::Error>> {
        let (mut c, mut p) = (
            match args.gait {
                Some(a) => gait_start(walker, args.draw, a, args.gait_omega, args.gait_offset)?,
                None => walker.initial_drawn(args.draw),
            },
            None,
        );
        let (mut history, mut time) = (Vec::new(), 0.0);
        let mut last = None;
        for k in 1..=args.stages {
            let steps = args.steps * k / args.stages;
            let iterations =
                args.iterations * k / args.stages - args.iterations * (k - 1) / args.stages;
            let stage = build(steps, walker.objective.design.parameters() > 0)?;
            let (run, t) = stage.optimise_timed(
                c,
                p,
                iterations,
                AMPLITUDE,
                PAPER_RADII,
                args.reach,
                rule,
                &format!("{label}, H = {steps}"),
            )?;
            history.extend_from_slice(&run.history[usize::from(k > 1)..]);
            time += t;
            c = run.controller.clone();
            p = Some(run.design.clone()).filter(|d| !d.is_empty());
            last = Some(run);
        }
        let mut run = last.ok_or("no stages")?;
        run.history = history;
        Ok((run, time))
    };
    let (run1, t1) = staged(&control, "control only")?;
    let (run2, t2) = staged(&codesign, "co-design")?;
    println!("iteration  control-only loss  co-design loss");
    for (k, (a, b)) in run1.history.iter().zip(&run2.history).enumerate() {
        if k % 5 == 0 || k + 1 == run1.history.len() {
            println!("{k:>9}  {a:>17.4}  {b:>14.4}");
        }
    }
    let o1 = outcome(&control, &run1)?;
    let o2 = outcome(&codesign, &run2)?;
    // The co-designed controller on the starting feet: what the feet's change is worth.
    let swapped = {
        let end = control
            .objective
            .evaluate(&run2.controller, &DVector::zeros(0))?;
        let run = Run {
            history: vec![end.loss],
            controller: run2.controller.clone(),
            design: DVector::zeros(0),
            end,
        };
        outcome(&control, &run)?
    };
    println!(
        "                 loss     paper's loss  distance (m)  fell            iterations  wall time (s)  paper"
    );
    for (name, run, o, t, paper) in [
        ("control only", &run1, &o1, t1, "cannot balance"),
        ("co-design", &run2, &o2, t2, "walks, no fall"),
    ] {
        let fell = match o.fell {
            Some(k) => format!("yes, step {k}"),
            None => "no".to_string(),
        };
        println!(
            "{name:<14} {:>8.4}  {:>12.4}  {:>12.3}  {fell:<14}  {:>10}  {t:>13.1}  {paper}",
            run.history.last().unwrap_or(&f64::NAN),
            o.paper,
            o.travel.last().unwrap_or(&0.0),
            run.history.len() - 1,
        );
    }
    println!(
        "the co-design's controller on the starting feet: paper's loss {:.4}, distance {:.3} m, {}",
        swapped.paper,
        swapped.travel.last().unwrap_or(&0.0),
        match swapped.fell {
            Some(k) => format!("fell at step {k}"),
            None => "did not fall".to_string(),
        }
    );
    println!("the pelvis along the final trajectories: tilt (deg) / drop (cm) / distance (m)");
    println!("     step        control only           co-design");
    let last = o1.travel.len() - 1;
    for k in (0..last).step_by(50).chain([last]) {
        let cell = |o: &Outcome| {
            let (a, d) = o.pelvis[k];
            format!(
                "{:>5.1} / {:>5.1} / {:>5.2}",
                a.to_degrees(),
                100.0 * d,
                o.travel[k]
            )
        };
        println!("{k:>9}  {:>18}  {:>18}", cell(&o1), cell(&o2));
    }
    println!(
        "(the paper gives no distance in sec. V-D; its sec. V-I reports -7.666 m for its optimised biped, away from the goal 3 m along +y)"
    );
    for (name, o) in [("control only", &o1), ("co-design", &o2)] {
        println!(
            "{name}: smallest gap between hulls over the trajectory {:.2e} m",
            o.gap
        );
    }
    let feet = out.join("feet.csv");
    std::fs::write(&feet, feet_csv(&codesign, &run2.design)?)?;
    println!("wrote {}", display_path(&feet));
    for (name, walker, run, o) in [
        ("control only", &control, &run1, &o1),
        ("co-design", &codesign, &run2, &o2),
    ] {
        let folder = out.join(format!("{}_urdf", name.replace([' ', '-'], "_")));
        let travel = *o.travel.last().unwrap_or(&0.0);
        let replay = walker.export(&run.controller, &run.design, travel, &folder)?;
        println!("wrote {}", display_path(&replay));
    }
    let labels = ("Biped", "SDRS sec. V-D", "SDRS Fig. 13");
    let written = write_results(labels, DT, (&control, &run1), (&codesign, &run2), &out)?;
    for path in &written {
        println!("wrote {}", display_path(path));
    }
    Ok(())
}
