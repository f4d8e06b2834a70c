//! The long-range paper's Ant-Push benchmark, reduced (sec. 6, Fig. 9): the ant stands and
//! steps under its sine waves without falling, its torso's underside below the box's top (so
//! it must push the box, not walk over it); from the start, where the box is 40 cm from
//! every leg, the long-range model gives the wave parameters a non-zero gradient that
//! matches central differences and lowers the loss under Adam, while the SDRS hull barrier's
//! gradient is exactly zero (the paper's vanishing gradient).

use sdrs::diff::{descend, paper_adam};
use sdrs::prelude::*;
use sdrs_examples::long_range::ant_push::{
    AntConfig, AntPush, LEARNING_RATE, WAVES, contact_models,
};
use sdrs_examples::walker::initial_waves;

const FRAMES: usize = 20;

fn task() -> (AntPush, DVector<f64>) {
    let task = AntPush::new(FRAMES).unwrap();
    let x0 = initial_waves(task.dofs.len(), WAVES);
    (task, x0)
}

#[test]
fn the_ant_stands_and_the_box_stays_put_without_contact() {
    let (task, x0) = task();
    let e = task.objective.evaluate(&x0, &DVector::zeros(0)).unwrap();
    let model = &task.objective.model;
    let torso = model.link_index("torso").unwrap();
    for (k, state) in e.trajectory.states.iter().enumerate() {
        let poses = Kinematics::new(model, state).poses().to_vec();
        let z = poses[torso].translation.z;
        // Starts at 0.252 m; the legs' PD holds it up.
        assert!((0.18..0.27).contains(&z), "frame {k}: torso at {z} m");
        // The box's top above the torso's underside: the ant cannot walk over the box.
        let config = AntConfig::default();
        let underside = z - config.torso.0.z;
        let top = poses[task.box_link].translation.z + 0.5 * config.box_size.0;
        assert!(
            top > underside + 0.05,
            "frame {k}: box top {top} m, torso underside {underside} m"
        );
        let drift = poses[task.box_link].translation.vector
            - Kinematics::new(model, &e.trajectory.states[0]).poses()[task.box_link]
                .translation
                .vector;
        assert!(drift.norm() < 1e-3, "frame {k}: box moved {drift}");
    }
}

#[test]
fn only_the_long_range_gradient_survives_the_gap_and_it_is_exact() {
    let (task, x0) = task();
    let models = contact_models().unwrap();
    let none = DVector::zeros(0);
    let hulls = task.with_contact(&models.hulls);
    let g_hulls = hulls.objective.evaluate(&x0, &none).unwrap().parameters;
    assert_eq!(
        g_hulls.amax(),
        0.0,
        "the hull barrier cannot see a box 40 cm away"
    );

    let mut exact = task.clone();
    exact.objective.settings.tolerance = 1e-10;
    let e = exact.objective.evaluate(&x0, &none).unwrap();
    assert!(e.parameters.amax() > 0.0);
    let h = 1e-4;
    // The amplitude and phase of a front hip's first wave, a knee's frequency.
    for k in [0, 2, 3 * WAVES * 2 + 1] {
        let value = |delta: f64| {
            let mut x = x0.clone();
            x[k] += delta;
            exact.objective.evaluate(&x, &none).unwrap().loss
        };
        let fd = (value(h) - value(-h)) / (2.0 * h);
        let scale = fd.abs().max(e.parameters.amax());
        assert!(
            (e.parameters[k] - fd).abs() <= 1e-3 * scale,
            "parameter {k}: adjoint {} vs central differences {fd}",
            e.parameters[k]
        );
    }
}

#[test]
fn adam_lowers_the_long_range_loss_from_the_start() {
    let (task, x0) = task();
    let none = DVector::zeros(0);
    let mut x = x0.clone();
    let mut adam = paper_adam(x.len(), LEARNING_RATE);
    let mut source = |c: &DVector<f64>| {
        task.objective
            .evaluate(c, &none)
            .map(|e| (e.loss, e.parameters))
    };
    let history = descend(&mut x, &mut adam, 3, &mut source, |_| ()).unwrap();
    let best = history.iter().copied().fold(f64::INFINITY, f64::min);
    assert!(best < history[0], "history {history:?}");
}
