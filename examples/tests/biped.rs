//! The biped benchmark (SDRS sec. V-D) at a reduced scale: 60 steps instead of 400 and 4
//! iterations of the paper's step lengths (ᾱ_c = 1e-2, ᾱ_d = 4e-3). The co-design loss
//! falls, the gradients (controller and foot vertices, with friction) match central
//! differences, and every state of the trajectory is collision-free.

use sdrs::diff::StepRule;
use sdrs::prelude::DVector;
use sdrs_examples::biped::{AMPLITUDE, PAPER_RADII, REACH, biped};
use sdrs_examples::walker::centre_of_mass;

const STEPS: usize = 60;

/// Central differences of the loss along `e`, against `adjoint`, to `tolerance` of `scale`.
fn check(name: &str, adjoint: f64, loss: impl Fn(f64) -> f64, h: f64, scale: f64, tolerance: f64) {
    let fd = (loss(h) - loss(-h)) / (2.0 * h);
    assert!(
        (adjoint - fd).abs() < tolerance * scale,
        "{name} (h = {h:e}): adjoint {adjoint}, differences {fd}"
    );
}

#[test]
fn biped_gradients_match_differences() {
    let mut walker = biped(STEPS).unwrap().codesign().unwrap();
    walker.objective.settings.tolerance = 3e-8;
    let c = walker.initial();
    let p = DVector::zeros(walker.objective.design.parameters());
    let at = walker.objective.evaluate(&c, &p).unwrap();
    let scale = at.parameters.amax();
    // Amplitude, frequency and phase of the left hip's first wave (0-2), the frequency of the
    // left knee's first wave (12 parameters per DoF: 13) and of the left ankle's second (28).
    for k in [0, 1, 2, 13, 28] {
        let loss = |h: f64| {
            let mut x = c.clone();
            x[k] += h;
            walker.objective.evaluate(&x, &p).unwrap().loss
        };
        check(
            &format!("dL/dc[{k}]"),
            at.parameters[k],
            loss,
            1e-5,
            scale,
            1e-4,
        );
    }
    // The design gradient: its largest entry, the lowest vertex of the first foot (x, y, z)
    // and a vertex on its top.
    let design = at.design.clone().unwrap();
    let model = &walker.objective.model;
    let foot = model.link_index(&walker.feet[0]).unwrap();
    let z = |v: usize| model.links()[foot].hulls[v / 32].vertices()[v % 32].z;
    let lowest = (0..96).min_by(|&a, &b| z(a).total_cmp(&z(b))).unwrap();
    let highest = (0..96).max_by(|&a, &b| z(a).total_cmp(&z(b))).unwrap();
    for k in [
        design.iamax(),
        3 * lowest,
        3 * lowest + 1,
        3 * lowest + 2,
        3 * highest + 2,
    ] {
        let loss = |h: f64| {
            let mut x = p.clone();
            x[k] += h;
            walker.objective.evaluate(&c, &x).unwrap().loss
        };
        check(
            &format!("dL/dp[{k}]"),
            design[k],
            loss,
            1e-6,
            design.amax(),
            1e-4,
        );
    }
}

#[test]
fn biped_codesign_lowers_the_loss_without_collisions() {
    let walker = biped(STEPS).unwrap().codesign().unwrap();
    let run = walker
        .optimise(
            walker.initial(),
            None,
            4,
            AMPLITUDE,
            PAPER_RADII.0,
            PAPER_RADII.1,
            REACH,
            StepRule::Fixed,
            |_| {},
        )
        .unwrap();
    let (first, last) = (run.history[0], *run.history.last().unwrap());
    assert!(last < first, "the loss went from {first} to {last}");
    let gap = walker.clearance(&run).unwrap();
    assert!(gap > 0.0, "hulls touched: smallest gap {gap}");
    eprintln!("loss {first} -> {last}, smallest gap {gap:.2e} m");
}

#[test]
fn the_biped_has_the_papers_size_and_starts_at_the_origin() {
    let walker = biped(STEPS).unwrap();
    let model = &walker.objective.model;
    // 7 links and 12 DoF (ground aside), 6 actuated, 96 vertices in 3 hulls per foot.
    assert_eq!(walker.robot.len(), 7);
    assert_eq!(model.dof(), 12);
    assert_eq!(walker.dofs.len(), 6);
    for foot in &walker.feet {
        let hulls = &model.links()[model.link_index(foot).unwrap()].hulls;
        assert_eq!(hulls.len(), 3);
        assert_eq!(hulls.iter().map(|h| h.vertices().len()).sum::<usize>(), 96);
    }
    let start = centre_of_mass(model, &walker.robot, &walker.objective.start);
    assert!(start.coords.norm() < 1e-12, "{start}");
}
