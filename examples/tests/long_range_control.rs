//! Reduced long-range control benchmarks (4 balls, coarse meshes, 0.6 s): from the trivial
//! initialisation the long-range model's gradient is non-zero and a few Adam steps lower the
//! loss, while the IPC model's, the SDRS plane barrier's and the gradient bundle's gradients
//! are exactly zero (the cue ball is 40 cm from every other ball: beyond every local support
//! and every sample's reach). The velocity gradient is checked against central differences.

use sdrs::diff::{ContactChoice, GradientSource, Method, descend, paper_adam};
use sdrs::prelude::*;
use sdrs_examples::long_range::billiards::{Billiards, LEARNING_RATE, Size};

fn task() -> Billiards {
    Billiards::new(
        Size {
            balls: 4,
            level: 1,
            frames: 60,
            dt: 0.01,
        },
        0,
    )
    .unwrap()
}

#[test]
fn long_range_lowers_the_billiards_loss_from_the_trivial_start() {
    let task = task();
    let models = task.contact_models().unwrap();
    let x0 = task.trivial();
    let mut source = task.source(&models.long_range);
    let (value, gradient) = source.value_and_gradient(&x0).unwrap();
    assert!(value > 0.0 && gradient.norm() > 0.0, "{value} {gradient}");
    let mut x = x0.clone();
    let history = descend(
        &mut x,
        &mut paper_adam(4, LEARNING_RATE),
        5,
        &mut source,
        |_| {},
    )
    .unwrap();
    assert!(
        history[5] < 0.9 * history[0],
        "long-range history {history:?}"
    );
}

#[test]
fn baselines_have_exactly_zero_gradients_from_the_trivial_start() {
    let task = task();
    let models = task.contact_models().unwrap();
    let x0 = task.trivial();
    for method in Method::paper(4, 0.05, 1) {
        if method == Method::exact(ContactChoice::LongRange) {
            continue;
        }
        let mut source = method
            .source(task.source(method.settings(&models)), 0)
            .unwrap();
        let (value, gradient) = source.value_and_gradient(&x0).unwrap();
        assert!(value > 0.0);
        assert_eq!(
            gradient,
            DVector::zeros(4),
            "{}: the gradient must vanish far from contact",
            method.name()
        );
    }
}

#[test]
fn billiards_gradient_matches_differences_in_contact() {
    let mut task = task();
    // Converged steps, so that differences see the solution the adjoint differentiates.
    task.settings.tolerance = 1e-10;
    let models = task.contact_models().unwrap();
    // Fast enough to reach the rack within the horizon.
    let c = DVector::from_vec(vec![0.01, 0.02, 0.9, 0.05]);
    let (value, gradient, _) = task.evaluate(&models.long_range, &c).unwrap();
    assert!(value > 0.0);
    let h = 1e-5;
    for k in 0..4 {
        let at = |s: f64| {
            let mut d = c.clone();
            d[k] += s;
            task.evaluate(&models.long_range, &d).unwrap().0
        };
        let fd = (at(h) - at(-h)) / (2.0 * h);
        assert!(
            (fd - gradient[k]).abs() < 1e-3 * fd.abs().max(gradient.abs().max()),
            "dL/dc[{k}]: adjoint {} vs differences {fd}",
            gradient[k]
        );
    }
    assert!(
        task.evaluate(&models.long_range, &DVector::zeros(3))
            .is_err()
    );
}
