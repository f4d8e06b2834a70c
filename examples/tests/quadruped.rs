//! The quadruped benchmark at a reduced scale: 60 steps instead of 550, 4 iterations with trust radii (0.05, 1e-3) instead of the
//! paper's (0.3, 4e-3), whose first steps are too long for so short a horizon. The
//! co-design loss falls, the gradients (controller and foot vertices, with friction) match
//! central differences, and every state of the trajectory is collision-free.

use sdrs::prelude::DVector;
use sdrs_examples::quadruped::{AMPLITUDE, REACH, quadruped};
use sdrs_examples::walker::smallest_gap;

const STEPS: usize = 60;

#[test]
fn quadruped_gradients_match_differences() {
    let mut walker = quadruped(STEPS, 8).unwrap().codesign().unwrap();
    walker.objective.settings.tolerance = 1e-5;
    let c = walker.initial();
    let p = DVector::zeros(walker.objective.design.parameters());
    let at = walker.objective.evaluate(&c, &p).unwrap();
    let h = 1e-5;
    // Amplitude, frequency and phase of a hip and a knee wave; x and z of a foot vertex
    // near the ground and of one high up.
    let controls = [0, 1, 2, 3 * 4 + 1, 3 * 4 * 3 + 2];
    let lowest = (0..96)
        .min_by(|&a, &b| {
            let model = &walker.objective.model;
            let foot = model.link_index(&walker.feet[0]).unwrap();
            let z = |v: usize| {
                let (hull, k) = (v / 32, v % 32);
                model.links()[foot].hulls[hull].vertices()[k].z
            };
            z(a).total_cmp(&z(b))
        })
        .unwrap();
    let vertices = [3 * lowest, 3 * lowest + 2, 3 * 5 + 2];
    for &k in &controls {
        let mut e = DVector::zeros(c.len());
        e[k] = h;
        let plus = walker.objective.evaluate(&(&c + &e), &p).unwrap().loss;
        let minus = walker.objective.evaluate(&(&c - &e), &p).unwrap().loss;
        let fd = (plus - minus) / (2.0 * h);
        let scale = at.parameters.amax();
        assert!(
            (at.parameters[k] - fd).abs() < 1e-4 * scale,
            "dL/dc[{k}]: adjoint {}, differences {fd}",
            at.parameters[k]
        );
    }
    // The design gradient with friction, at a tighter Newton tolerance and a smaller step:
    // the loss is rough in the z of the lowest foot vertex (which vertices touch when), so
    // central differences of it at h = 1e-5 (-2.90) and 1e-4 (+24.6) are far from the
    // derivative (-7.286e-4, differences at 1e-6: -7.2885e-4); its x and y agree at every h.
    walker.objective.settings.tolerance = 1e-8;
    let h = 1e-6;
    let at = walker.objective.evaluate(&c, &p).unwrap();
    let design = at.design.clone().unwrap();
    for &k in &vertices {
        let mut e = DVector::zeros(p.len());
        e[k] = h;
        let plus = walker.objective.evaluate(&c, &(&p + &e)).unwrap().loss;
        let minus = walker.objective.evaluate(&c, &(&p - &e)).unwrap().loss;
        let fd = (plus - minus) / (2.0 * h);
        let scale = design.amax();
        assert!(
            (design[k] - fd).abs() < 1e-4 * scale,
            "dL/dp[{k}]: adjoint {}, differences {fd}",
            design[k]
        );
    }
}

#[test]
fn quadruped_codesign_lowers_the_loss_without_collisions() {
    let walker = quadruped(STEPS, 8).unwrap().codesign().unwrap();
    let run = walker
        .optimise(walker.initial(), 4, AMPLITUDE, 0.05, 1e-3, REACH, |_| {})
        .unwrap();
    let (first, last) = (run.history[0], *run.history.last().unwrap());
    assert!(last < first, "the loss went from {first} to {last}");
    let model = walker
        .objective
        .design
        .model(&walker.objective.model, &run.design)
        .unwrap();
    let gap = smallest_gap(&model, &run.end.trajectory.states);
    assert!(gap > 0.0, "hulls touched: smallest gap {gap}");
    eprintln!("loss {first} -> {last}, smallest gap {gap:.2e} m");
}
