//! What the single-jaw gripper (SDRS sec. V-E) needs to lift the X, checked by hand: a hole
//! and the paper's re-orientation ([`Schedule::Turning`]: tilt the jaw to face the X's upper
//! arm, approach along it, turn back upright carrying the X, lift). The hole is a window of
//! blocks moved out of the plate: 30 cm up ([`moved_out`], outside every bound), or back
//! along the plate's normal ([`retreated`], inside the retreat bounds of
//! [`Task::with_retreat`] up to [`RETREAT`]). Prints the object's rise for the solid plate
//! and two windows moved up, then the loss along the path that retreats the 4 × 10 cm window
//! from 0 to [`RETREAT`] (with its derivative along that path), with no optimisation.
//!
//! `cargo run --release -p sdrs-examples --example single_jaw_turn`
//!
//! [`Task::with_retreat`]: sdrs_examples::single_jaw::Task::with_retreat

use sdrs::prelude::*;
use sdrs_examples::single_jaw::{
    LIFT, PAPER_GRID, RETREAT, STEPS, Schedule, TURN_POINTS, min_clearance, moved_out, object_lift,
    retreated, single_jaw,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let task = single_jaw(PAPER_GRID, STEPS, Schedule::Turning)?.with_retreat(RETREAT)?;
    let control = &task.initial;
    let scene = &task.objective;
    println!(
        "single jaw, {} blocks, H = {STEPS}, {TURN_POINTS} spline values per DoF, tilt-approach-turn-lift schedule (no optimisation):",
        task.jaw.hulls.len()
    );
    let width = PAPER_GRID[1];
    for (name, p) in [
        ("solid plate", DVector::zeros(task.jaw.parameters())),
        (
            "hole rows 5-6, columns 4-8 (4 × 10 cm)",
            moved_out(&task.jaw, width, [5, 6], [4, 8]),
        ),
        (
            "hole rows 4-7, columns 4-8 (8 × 10 cm)",
            moved_out(&task.jaw, width, [4, 7], [4, 8]),
        ),
    ] {
        let e = scene.evaluate(control, &p)?;
        let model = scene.design.model(&scene.model, &p)?;
        let states = &e.trajectory.states;
        println!(
            "  {name}: object rose {:.4} m (the jaw lifts {LIFT} m after the turn), loss {:.4e}, smallest clearance {:.2e} m",
            object_lift(&task, states),
            e.loss,
            min_clearance(&task, &model, states)
        );
    }
    println!("the 4 × 10 cm window (rows 5-6, columns 4-8) retreated along the plate's normal:");
    let along = retreated(&task.jaw, width, [5, 6], [4, 8], 1.0);
    let samples = (RETREAT / 0.005).round() as usize;
    for k in 0..=samples {
        let depth = RETREAT * k as f64 / samples as f64;
        let e = scene.evaluate(control, &(&along * depth))?;
        let slope = e
            .design
            .as_ref()
            .ok_or("the rollout gave no design gradient")?
            .dot(&along);
        println!(
            "  {:4.1} cm: object rose {:.4} m, loss {:.4e}, dL/d(depth) {slope:+.3e} m",
            100.0 * depth,
            object_lift(&task, &e.trajectory.states),
            e.loss
        );
    }
    Ok(())
}
