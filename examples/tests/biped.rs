//! The biped benchmark (SDRS sec. V-D) at a reduced scale: 60 steps instead of 400 and 4
//! iterations of the paper's step lengths (ᾱ_c = 1e-2, ᾱ_d = 4e-3), with the level-pelvis
//! term of the example. The loss of control only and of co-design falls, the gradients (controller and foot
//! vertices, with friction, through the paper's term and the level term) match central
//! differences, every state of the trajectory is collision-free, no foot vertex goes below
//! the soles' starting level, the level and progress terms are what their definitions say,
//! the paper's loss as written negates its terms, and the stepping start changes the hips'
//! first waves alone.

use sdrs::diff::StepRule;
use sdrs::prelude::*;
use sdrs_examples::biped::{
    AMPLITUDE, FALL_DROP, FALL_TILT, GOAL, PAPER_RADII, REACH, UPRIGHT, biped, gait_start,
};
use sdrs_examples::walker::{Run, Walker, centre_of_mass, first_fall};
use std::f64::consts::PI;

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
    let mut walker = task();
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

/// Four fixed steps of the paper's lengths on `walker`: asserts that the loss falls and no
/// hulls touch over the last trajectory.
fn lowers_the_loss_without_collisions(walker: &Walker) -> Run {
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
    run
}

/// The reduced co-design task with the example's level-pelvis term.
fn task() -> Walker {
    biped(STEPS)
        .unwrap()
        .upright(UPRIGHT)
        .unwrap()
        .codesign()
        .unwrap()
}

#[test]
fn biped_codesign_lowers_the_loss_without_collisions_or_falls() {
    let walker = task();
    let run = lowers_the_loss_without_collisions(&walker);
    let start = &walker.objective.model;
    let model = walker.objective.design.model(start, &run.design).unwrap();
    // 0.6 s is short: the starting controller does not topple this soon either.
    let fell = first_fall(
        &model,
        walker.root,
        &run.end.trajectory.states,
        FALL_TILT,
        FALL_DROP,
    );
    assert_eq!(fell, None);
    // The design moved the feet, but no vertex below its foot's lowest starting vertex.
    let mut moved: f64 = 0.0;
    for foot in &walker.feet {
        let l = start.link_index(foot).unwrap();
        let z = |m: &Model| -> Vec<f64> {
            let hulls = &m.links()[l].hulls;
            hulls
                .iter()
                .flat_map(|h| h.vertices().iter().map(|v| v.z))
                .collect()
        };
        let (before, after) = (z(start), z(&model));
        let lowest = before.iter().copied().fold(f64::INFINITY, f64::min);
        for (b, a) in before.iter().zip(&after) {
            assert!(
                *a >= lowest - 1e-12,
                "{foot}: a vertex went from {b} to {a}"
            );
            moved = moved.max((a - b).abs());
        }
    }
    assert!(moved > 0.0, "the feet did not change");
}

#[test]
fn biped_control_only_lowers_the_loss_without_collisions_or_falls() {
    let walker = biped(STEPS).unwrap().upright(UPRIGHT).unwrap();
    let run = lowers_the_loss_without_collisions(&walker);
    let fell = first_fall(
        &walker.objective.model,
        walker.root,
        &run.end.trajectory.states,
        FALL_TILT,
        FALL_DROP,
    );
    assert_eq!(fell, None);
}

#[test]
fn the_level_term_is_the_mean_squared_height_change_of_the_pelvis_corners() {
    let paper = biped(STEPS).unwrap();
    let level = paper.clone().upright(UPRIGHT).unwrap();
    let c = paper.initial();
    let p = DVector::zeros(0);
    let a = paper.objective.evaluate(&c, &p).unwrap();
    let b = level.objective.evaluate(&c, &p).unwrap();
    let model = &paper.objective.model;
    let states = &a.trajectory.states;
    let corners = model.links()[paper.root].hulls[0].vertices();
    let heights = |s: &State| -> Vec<f64> {
        let pose = Kinematics::new(model, s).poses()[paper.root];
        corners.iter().map(|v| (pose * v).z).collect()
    };
    let z0 = heights(&states[0]);
    let e = |s: &State| -> f64 {
        let z = heights(s);
        z.iter()
            .zip(&z0)
            .map(|(z, z0)| (z - z0).powi(2))
            .sum::<f64>()
            / z.len() as f64
    };
    let mean = states[1..].iter().map(e).sum::<f64>() / STEPS as f64;
    let expected = a.loss + UPRIGHT * (mean + e(&states[STEPS]));
    assert!(
        (b.loss - expected).abs() < 1e-12 * b.loss,
        "{} vs {expected}",
        b.loss
    );
    assert!(b.loss > a.loss, "the pelvis moved: the term is positive");
    assert_eq!(paper.paper_loss(&p, &b.trajectory).unwrap(), a.loss);
    assert!(paper.clone().upright(-1.0).is_err());
    assert!(paper.upright(f64::NAN).is_err());
}

#[test]
fn the_progress_term_is_the_papers_term_averaged_over_the_steps() {
    let mut paper = biped(STEPS).unwrap();
    // Differences of a loss need steps solved far inside what they resolve (as above).
    paper.objective.settings.tolerance = 3e-8;
    let ahead = paper.clone().progress(2.0).unwrap();
    let c = paper.initial();
    let p = DVector::zeros(0);
    let a = paper.objective.evaluate(&c, &p).unwrap();
    let b = ahead.objective.evaluate(&c, &p).unwrap();
    let model = &paper.objective.model;
    let goal = Vector3::from(GOAL);
    let mean = a.trajectory.states[1..]
        .iter()
        .map(|s| (centre_of_mass(model, &paper.robot, s).coords - goal).norm_squared())
        .sum::<f64>()
        / STEPS as f64;
    let expected = a.loss + 2.0 * mean;
    assert!(
        (b.loss - expected).abs() < 1e-12 * b.loss,
        "{} vs {expected}",
        b.loss
    );
    // Its gradient is the loss's: central differences along the left hip's first amplitude.
    let loss = |h: f64| {
        let mut x = c.clone();
        x[0] += h;
        ahead.objective.evaluate(&x, &p).unwrap().loss
    };
    check(
        "dL/dc[0]",
        b.parameters[0],
        loss,
        1e-5,
        b.parameters.amax(),
        1e-4,
    );
    assert_eq!(ahead.paper_loss(&p, &b.trajectory).unwrap(), a.loss);
    assert!(paper.clone().progress(-1.0).is_err());
    assert!(paper.progress(f64::INFINITY).is_err());
}

#[test]
fn the_loss_as_written_negates_the_papers_and_progress_terms_and_keeps_the_level_term() {
    let mut towards = biped(STEPS)
        .unwrap()
        .upright(UPRIGHT)
        .unwrap()
        .progress(2.0)
        .unwrap();
    towards.objective.settings.tolerance = 3e-8;
    let away = towards.clone().as_written();
    let c = towards.initial();
    let p = DVector::zeros(0);
    let a = towards.objective.evaluate(&c, &p).unwrap();
    let b = away.objective.evaluate(&c, &p).unwrap();
    // The same rollout: only the loss differs.
    assert_eq!(a.trajectory.states, b.trajectory.states);
    let model = &towards.objective.model;
    let goal = Vector3::from(GOAL);
    let distance =
        |s: &State| (centre_of_mass(model, &towards.robot, s).coords - goal).norm_squared();
    let paper = distance(&a.trajectory.states[STEPS]);
    let mean = a.trajectory.states[1..].iter().map(distance).sum::<f64>() / STEPS as f64;
    assert!((towards.paper_loss(&p, &a.trajectory).unwrap() - paper).abs() < 1e-12 * paper);
    assert_eq!(
        away.paper_loss(&p, &b.trajectory).unwrap(),
        -towards.paper_loss(&p, &a.trajectory).unwrap()
    );
    // Towards: P + 2 G + U; as written: −P − 2 G + U.
    let expected = a.loss - 2.0 * (paper + 2.0 * mean);
    assert!(
        (b.loss - expected).abs() < 1e-12 * a.loss.abs(),
        "{} vs {expected}",
        b.loss
    );
    assert!(
        b.loss < 0.0,
        "the goal is 3 m away: the distance term dominates"
    );
    // Its gradient is the loss's: central differences along the left hip's first amplitude
    // and the left knee's first frequency.
    for k in [0, 13] {
        let loss = |h: f64| {
            let mut x = c.clone();
            x[k] += h;
            away.objective.evaluate(&x, &p).unwrap().loss
        };
        check(
            &format!("dL/dc[{k}]"),
            b.parameters[k],
            loss,
            1e-5,
            b.parameters.amax(),
            1e-4,
        );
    }
}

#[test]
fn the_loss_as_written_negates_the_controller_and_foot_gradients() {
    // The paper's term alone (no level term), co-design: every gradient flips sign exactly,
    // the adjoint being linear in the loss's gradient.
    let towards = biped(STEPS).unwrap().codesign().unwrap();
    let away = towards.clone().as_written();
    let c = towards.initial();
    let p = DVector::zeros(towards.objective.design.parameters());
    let a = towards.objective.evaluate(&c, &p).unwrap();
    let b = away.objective.evaluate(&c, &p).unwrap();
    assert_eq!(b.loss, -a.loss);
    assert_eq!(b.parameters, -&a.parameters);
    let (da, db) = (a.design.unwrap(), b.design.unwrap());
    assert!(
        da.amax() > 0.0,
        "the feet's vertices move the centre of mass"
    );
    assert_eq!(db, -da);
}

#[test]
fn the_gait_start_sets_the_hips_first_waves_and_keeps_the_rest() {
    let walker = biped(STEPS).unwrap();
    let random = walker.initial();
    let c = gait_start(&walker, 0, 0.2, 5.0, PI).unwrap();
    // 3 parameters per wave, 4 waves per DoF; the hips are DoFs 0 and 3.
    let (left, right) = (0, 3 * 3 * walker.waves);
    assert_eq!([c[left], c[left + 1], c[left + 2]], [0.2, 5.0, 0.0]);
    assert_eq!([c[right], c[right + 1], c[right + 2]], [0.2, 5.0, -PI]);
    let hips: Vec<usize> = (left..left + 3).chain(right..right + 3).collect();
    for k in (0..c.len()).filter(|k| !hips.contains(k)) {
        assert_eq!(c[k], random[k], "parameter {k}");
    }
    // Outside the controller's box: an error, not a start the optimiser would reject.
    assert!(gait_start(&walker, 0, 0.7, 5.0, PI).is_err());
    assert!(gait_start(&walker, 0, 0.2, 8.0, PI).is_err());
    assert!(gait_start(&walker, 0, 0.2, 5.0, -1.0).is_err());
    assert!(gait_start(&walker, 0, f64::NAN, 5.0, PI).is_err());
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
