//! The long-range paper's control tools: the target-region loss's total derivative against
//! central differences, the gradient bundle against the smoothed gradient it estimates, the
//! descent loop's errors and the receding-horizon driver's plan shifting.

use nalgebra::{DVector, Vector3};
use sdrs_diff::{
    Bundled, ContactChoice, CubicSpline, DiffError, GradientSource, Method, Objective,
    RecedingHorizon, Stopping, Sum, TargetRegion, descend, descend_with, paper_adam,
};

#[test]
fn target_region_gradient_matches_differences() {
    let scene = crate::pd_chain();
    let model = scene.model.clone();
    // Two objects: one far from its target (active), one within its tolerance (zero).
    let loss = Sum::new()
        .with(
            1.0,
            TargetRegion::links(&model, &["link2"], Vector3::new(0.1, 0.0, -0.2), 0.01).unwrap(),
        )
        .with(
            1.0,
            TargetRegion::links(&model, &["link0"], Vector3::new(0.0, 0.0, -0.05), 0.2).unwrap(),
        );
    let policy = CubicSpline::new(scene.control.clone(), vec![0, 2], 4, 0.2).unwrap();
    let objective = Objective::control_only(model, scene.settings, policy, loss, 20);
    let c = DVector::from_fn(8, |k, _| 0.2 * ((k + 1) as f64).sin());
    let p = DVector::zeros(0);
    let e = objective.evaluate(&c, &p).unwrap();
    assert!(
        e.loss > 1e-4,
        "the first object must be outside its region: {}",
        e.loss
    );
    let h = 1e-6;
    for k in 0..8 {
        let at = |s: f64| {
            let mut d = c.clone();
            d[k] += s;
            objective.evaluate(&d, &p).unwrap().loss
        };
        let fd = (at(h) - at(-h)) / (2.0 * h);
        assert!(
            (fd - e.parameters[k]).abs() < 1e-6 * (1.0 + fd.abs()),
            "dL/dc[{k}]: adjoint {} vs differences {fd}",
            e.parameters[k]
        );
    }
    // Within tolerance the loss and its gradient vanish.
    let model = &objective.model;
    let near = TargetRegion::links(model, &["link0"], Vector3::new(0.0, 0.0, -0.05), 0.2).unwrap();
    let (value, g) = sdrs_diff::Loss::evaluate(&near, model, &e.trajectory).unwrap();
    assert_eq!(value, 0.0);
    assert!(g.states.iter().all(|s| s.norm() == 0.0));
    assert!(matches!(
        TargetRegion::links(model, &["link0"], Vector3::zeros(), -1.0),
        Err(DiffError::InvalidSetting { .. })
    ));
    assert!(matches!(
        TargetRegion::links(model, &["nope"], Vector3::zeros(), 0.1),
        Err(DiffError::Name { .. })
    ));
}

/// `f(x) = max(0, x − 1)²` in one variable: its Gaussian smoothing has the gradient
/// `E[2 max(0, x + σw − 1)]`, here computed by quadrature.
fn hinge(x: &DVector<f64>) -> sdrs_diff::Result<(f64, DVector<f64>)> {
    let r = (x[0] - 1.0).max(0.0);
    Ok((r * r, DVector::from_element(1, 2.0 * r)))
}

fn smoothed_hinge_gradient(x: f64, sigma: f64) -> f64 {
    let n = 200_000;
    let (lo, hi) = (-8.0, 8.0);
    let dw = (hi - lo) / n as f64;
    (0..n)
        .map(|i| {
            let w = lo + (i as f64 + 0.5) * dw;
            let density = (-0.5 * w * w).exp() / (std::f64::consts::TAU).sqrt();
            2.0 * (x + sigma * w - 1.0).max(0.0) * density * dw
        })
        .sum()
}

#[test]
fn bundle_estimates_the_smoothed_gradient_and_is_reproducible() {
    let x = DVector::from_element(1, 0.5);
    let exact = smoothed_hinge_gradient(0.5, 0.5);
    let mut bundle = Bundled::new(hinge, 20_000, 0.5, 3).unwrap();
    let (value, g) = bundle.value_and_gradient(&x).unwrap();
    // The value is the unsmoothed one; the gradient's standard error is below 0.01 here.
    assert_eq!(value, 0.0);
    assert!(
        exact > 0.05 && (g[0] - exact).abs() < 0.02,
        "{} vs {exact}",
        g[0]
    );
    // The exact gradient at x is zero: the bundle sees past the flat region.
    assert_eq!(hinge(&x).unwrap().1[0], 0.0);
    // Same seed, same estimate; another seed, another one.
    let again = Bundled::new(hinge, 20_000, 0.5, 3)
        .unwrap()
        .value_and_gradient(&x)
        .unwrap()
        .1;
    let other = Bundled::new(hinge, 20_000, 0.5, 4)
        .unwrap()
        .value_and_gradient(&x)
        .unwrap()
        .1;
    assert_eq!(again, g);
    assert_ne!(other, g);
    // Far in the flat region, a small σ finds nothing.
    let far = Bundled::new(hinge, 100, 0.1, 3)
        .unwrap()
        .value_and_gradient(&DVector::from_element(1, -2.0))
        .unwrap()
        .1;
    assert_eq!(far[0], 0.0);
    for (samples, sigma) in [(0, 0.1), (10, 0.0), (10, f64::NAN)] {
        assert!(matches!(
            Bundled::new(hinge, samples, sigma, 0),
            Err(DiffError::InvalidSetting { .. })
        ));
    }
}

#[test]
fn descent_reports_non_finite_gradients_and_methods_pick_their_sources() {
    let mut x = DVector::from_element(2, 1.0);
    let mut bad = |x: &DVector<f64>| Ok((x.norm_squared(), DVector::from_element(2, f64::NAN)));
    let error = descend(&mut x, &mut paper_adam(2, 0.1), 5, &mut bad, |_| {}).unwrap_err();
    assert!(matches!(error, DiffError::NonFinite { .. }), "{error}");
    assert_eq!(x, DVector::from_element(2, 1.0));
    let adam = paper_adam(3, 0.01);
    assert_eq!((adam.beta1, adam.beta2), (0.3, 0.5));
    // The bundle over a flat-then-rising function differs from the exact source.
    let methods = Method::paper(500, 0.5, 1);
    let at = DVector::from_element(1, 0.5);
    let exact = methods[2].source(hinge, 0).unwrap().value_and_gradient(&at);
    let bundled = methods[3].source(hinge, 0).unwrap().value_and_gradient(&at);
    assert_eq!(methods[2].contact, ContactChoice::Hulls);
    assert_eq!(exact.unwrap().1[0], 0.0);
    assert!(bundled.unwrap().1[0] > 0.05);
}

#[test]
fn receding_horizon_applies_first_actions_and_shifts_plans() {
    // x ← x + a; a plan of 2 actions scored by (x + a₀ + a₁ − 3)²; no optimisation steps, so
    // the plan only shifts: every applied action is the initial plan's, then its last one.
    let driver = RecedingHorizon::new(4, 2, 1, 0, 0.1).unwrap();
    let mut frames_seen = Vec::new();
    let run = driver
        .run(
            0.0f64,
            DVector::from_vec(vec![1.0, 0.5]),
            |&x, frame| {
                frames_seen.push((frame, x));
                Ok(move |plan: &DVector<f64>| {
                    let miss = x + plan.sum() - 3.0;
                    Ok((miss * miss, DVector::from_element(2, 2.0 * miss)))
                })
            },
            |x, a| {
                *x += a[0];
                Ok(())
            },
            |_, history, _| assert_eq!(history.len(), 1),
        )
        .unwrap();
    let applied: Vec<f64> = run.actions.iter().map(|a| a[0]).collect();
    assert_eq!(applied, vec![1.0, 0.5, 0.5, 0.5]);
    assert_eq!(run.states, vec![0.0, 1.0, 1.5, 2.0, 2.5]);
    assert_eq!(frames_seen[2], (2, 1.5));
    // With iterations, the real state reaches the plan's goal.
    let driver = RecedingHorizon::new(6, 2, 1, 40, 0.1).unwrap();
    let run = reach(&driver, DVector::zeros(2), 3.0);
    assert!((run.states[6] - 3.0).abs() < 0.1, "{:?}", run.states);
    let first = &run.plan_losses[0];
    assert!(first[40] < 1e-2 * first[0], "{first:?}");
    assert!(matches!(
        driver.run(
            0.0,
            DVector::zeros(3),
            |_, _| Ok(hinge),
            |_, _| Ok(()),
            |_, _, _| {}
        ),
        Err(DiffError::LengthMismatch { .. })
    ));
    assert!(RecedingHorizon::new(0, 2, 1, 1, 0.1).is_err());
    assert!(RecedingHorizon::new(1, 2, 1, 1, -0.1).is_err());
}

#[test]
fn descent_keeps_its_best_iterate_and_stops_at_a_zero_loss() {
    // ReLU(|x − 1| − 0.2): Adam at a large rate overshoots 1 and circles it.
    let mut kink = |x: &DVector<f64>| {
        let d = x[0] - 1.0;
        let value = (d.abs() - 0.2).max(0.0);
        let slope = if value > 0.0 { d.signum() } else { 0.0 };
        Ok((value, DVector::from_element(1, slope)))
    };
    let mut plain = |stopping, iterations| {
        let mut x = DVector::from_element(1, -1.0);
        let history = descend_with(
            &mut x,
            &mut paper_adam(1, 0.35),
            iterations,
            &mut kink,
            stopping,
            |_| {},
        )
        .unwrap();
        (x[0], history)
    };
    let value = |x: f64| ((x - 1.0).abs() - 0.2).max(0.0);
    // After 7 steps the last iterate has left the flat band again.
    let (last, all) = plain(Stopping::default(), 7);
    assert_eq!(all.len(), 8);
    assert_eq!(value(last), all[7]);
    let (best, kept) = plain(Stopping::best(), 7);
    assert_eq!(kept, all);
    let lowest = all.iter().cloned().fold(f64::INFINITY, f64::min);
    assert!(lowest < all[7], "{all:?}");
    assert_eq!(value(best), lowest);
    // Stopping at 0: the history ends at the first zero and the iterate is that one.
    let (_, all) = plain(Stopping::default(), 12);
    let (stopped, short) = plain(Stopping::best().stopping_at(0.0), 12);
    let first_zero = all
        .iter()
        .position(|&v| v == 0.0)
        .expect("Adam passes the flat band");
    assert_eq!(short, all[..=first_zero].to_vec());
    assert!((stopped - 1.0).abs() <= 0.2);
    // The receding-horizon driver ends each frame's descent the same way.
    let driver = RecedingHorizon::new(2, 1, 1, 12, 0.35)
        .unwrap()
        .with_stopping(Stopping::best().stopping_at(0.0));
    let run = driver
        .run(
            -1.0f64,
            DVector::zeros(1),
            |&x, _| {
                Ok(move |plan: &DVector<f64>| {
                    let d = x + plan[0] - 1.0;
                    let value = (d.abs() - 0.2).max(0.0);
                    let slope = if value > 0.0 { d.signum() } else { 0.0 };
                    Ok((value, DVector::from_element(1, slope)))
                })
            },
            |x, a| {
                *x += a[0];
                Ok(())
            },
            |_, _, _| {},
        )
        .unwrap();
    assert_eq!(*run.plan_losses[0].last().unwrap(), 0.0);
    assert!(run.plan_losses[0].len() < 13);
    assert!((run.states[1] - 1.0).abs() <= 0.2, "{:?}", run.states);
    assert_eq!(*run.plan_losses[1].last().unwrap(), 0.0);
    assert!((run.states[2] - 1.0).abs() <= 0.2, "{:?}", run.states);
}

/// The same hull contact for every method: for stand-in tasks whose gradient does not depend
/// on the contact model.
fn stand_in_models() -> sdrs_diff::ContactModels {
    let hulls = sdrs_dynamics::ContactSettings::default_for(f64::INFINITY).unwrap();
    sdrs_diff::ContactModels {
        long_range: hulls.clone(),
        ipc: hulls.clone(),
        hulls,
    }
}

/// `|x − 1|`: Adam at a large rate overshoots its minimum and circles it.
fn vee(x: &DVector<f64>) -> sdrs_diff::Result<(f64, DVector<f64>)> {
    let d = x[0] - 1.0;
    Ok((d.abs(), DVector::from_element(1, d.signum())))
}

#[test]
fn every_method_run_keeps_its_best_iterate() {
    let models = stand_in_models();
    type Source = fn(&DVector<f64>) -> sdrs_diff::Result<(f64, DVector<f64>)>;
    let run = |methods: &[Method], x0: f64, source: Source| {
        let x0 = DVector::from_element(1, x0);
        let adam = paper_adam(1, 0.3);
        sdrs_diff::compare(
            methods,
            &models,
            &x0,
            &adam,
            20,
            Stopping::default(),
            |_| Ok(source),
            |_, _| {},
        )
    };
    let runs = run(&Method::paper(2, 0.05, 3), 0.0, vee);
    for run in &runs {
        let best = run.best.as_ref().unwrap();
        let lowest = run.history.iter().cloned().fold(f64::INFINITY, f64::min);
        assert_eq!(best.value, lowest, "{:?}", run.method);
        assert_eq!(run.history[best.iteration], best.value);
        assert_eq!(
            run.history.iter().position(|&v| v == lowest),
            Some(best.iteration),
            "the earliest of equals"
        );
        // Its parameters give that loss again; the final ones give the last value.
        assert_eq!(vee(&best.x).unwrap().0, best.value);
        assert_eq!(vee(&run.parameters).unwrap().0, run.history[20]);
    }
    // Adam overshoots: the last iterate is worse than the best.
    assert!(runs[0].best.as_ref().unwrap().value < 0.5 * runs[0].history[20]);
    // A method that fails at its first value keeps no best; one that fails later keeps the
    // best of what it saw.
    let failing: Source = |x| match x[0] > 0.5 {
        true => Err(DiffError::NonFinite {
            what: "test",
            index: 0,
        }),
        false => vee(x),
    };
    let exact = [Method::exact(ContactChoice::LongRange)];
    let runs = run(&exact, 0.0, failing);
    let best = runs[0].best.as_ref().unwrap();
    assert!(runs[0].error.is_some());
    assert_eq!(best.value, *runs[0].history.last().unwrap());
    let runs = run(&exact, 1.0, failing);
    assert!(runs[0].best.is_none() && runs[0].history.is_empty());
}

fn relu(x: &DVector<f64>) -> sdrs_diff::Result<(f64, DVector<f64>)> {
    let d = x[0] - 1.0;
    let loss = (d * d - 0.01).max(0.0);
    let slope = if loss > 0.0 { 2.0 * d } else { 0.0 };
    Ok((loss, DVector::from_element(1, slope)))
}

#[test]
fn every_method_run_can_end_at_a_zero_task_loss() {
    // ReLU((x − 1)² − 0.1²) from x = 0: Adam (lr 0.3) enters the zero set and, run on, leaves
    // it again; stopped at zero, every method's last iterate is the first one inside.
    let models = stand_in_models();
    let x0 = DVector::zeros(1);
    let run = |stopping| {
        let methods = [Method::exact(ContactChoice::LongRange)];
        sdrs_diff::compare(
            &methods,
            &models,
            &x0,
            &paper_adam(1, 0.3),
            20,
            stopping,
            |_| Ok(relu),
            |_, _| {},
        )
        .remove(0)
    };
    let all = run(Stopping::default());
    let first_zero = all.history.iter().position(|&v| v == 0.0).unwrap();
    assert!(
        all.history[first_zero..].iter().any(|&v| v > 0.0),
        "{:?}",
        all.history
    );
    let stopped = run(Stopping::default().stopping_at(0.0));
    assert_eq!(stopped.history, all.history[..=first_zero]);
    assert_eq!(relu(&stopped.parameters).unwrap().0, 0.0);
    assert_eq!(stopped.best.unwrap().iteration, first_zero);
}

#[test]
fn receding_horizon_skips_frames_whose_plan_has_zero_loss() {
    // x ← x + a₀ (+ a kick of 0.5 at frame 5); the window scores ReLU((x + a₀ − 1)² − 0.05²)
    // and counts the gradients it gives: a held frame asks for none.
    let gradients = std::cell::Cell::new(0usize);
    let driver = RecedingHorizon::new(10, 3, 1, 40, 0.1)
        .unwrap()
        .with_stopping(Stopping::best().stopping_at(0.0));
    assert_eq!(driver.hold_at, Some(0.0));
    struct Window<'a> {
        x: f64,
        gradients: &'a std::cell::Cell<usize>,
    }
    impl Window<'_> {
        fn loss(&self, plan: &DVector<f64>) -> (f64, f64) {
            let d = self.x + plan[0] - 1.0;
            ((d * d - 0.05 * 0.05).max(0.0), d)
        }
    }
    impl GradientSource for Window<'_> {
        fn value_and_gradient(
            &mut self,
            plan: &DVector<f64>,
        ) -> sdrs_diff::Result<(f64, DVector<f64>)> {
            self.gradients.set(self.gradients.get() + 1);
            let (value, d) = self.loss(plan);
            let mut gradient = DVector::zeros(3);
            gradient[0] = if value > 0.0 { 2.0 * d } else { 0.0 };
            Ok((value, gradient))
        }
        fn value(&mut self, plan: &DVector<f64>) -> sdrs_diff::Result<f64> {
            Ok(self.loss(plan).0)
        }
    }
    // Ten frames from x = 0 with the kick after frame 5's action.
    let drive = |driver: &RecedingHorizon, progress: &mut dyn FnMut(usize, &[f64], bool)| {
        let mut frame_of_advance = 0;
        driver
            .run(
                0.0f64,
                DVector::zeros(3),
                |&x, _| {
                    Ok(Window {
                        x,
                        gradients: &gradients,
                    })
                },
                |x, a| {
                    *x += a[0] + if frame_of_advance == 5 { 0.5 } else { 0.0 };
                    frame_of_advance += 1;
                    Ok(())
                },
                progress,
            )
            .unwrap()
    };
    let mut seen = Vec::new();
    let run = drive(&driver, &mut |frame, history, skipped| {
        seen.push((frame, history.to_vec(), skipped, gradients.take()))
    });
    // Frame 0 is optimised to a zero loss, frames 1-5 hold (the plan's next actions are 0 and
    // x is within ε), the kick makes frame 6's loss non-zero: it is optimised, then 7-9 hold.
    assert_eq!(run.skipped, vec![1, 2, 3, 4, 5, 7, 8, 9]);
    for (frame, history, skipped, asked) in &seen {
        assert_eq!(*skipped, run.skipped.contains(frame));
        if *skipped {
            assert_eq!(
                (history.as_slice(), *asked),
                (&[0.0][..], 0),
                "frame {frame}"
            );
        } else {
            assert!(history[0] > 0.0 && *asked > 1, "frame {frame}: {history:?}");
            assert_eq!(*history.last().unwrap(), 0.0);
        }
    }
    assert!((run.states[10] - 1.0).abs() <= 0.05, "{:?}", run.states);
    // Without holding, every frame runs a descent (at least its first gradient).
    let mut optimised = 0;
    let run = drive(&driver.with_hold_at(None), &mut |_, _, skipped| {
        optimised += usize::from(!skipped)
    });
    assert!(run.skipped.is_empty());
    assert_eq!(optimised, 10);
}

#[test]
fn receding_horizon_survives_a_failed_iterate_and_fails_on_a_failed_start() {
    // x ← x + a towards 3 with plans of 2 actions; the objective refuses plans whose first
    // action exceeds 0.25 (as a simulator refuses a rollout it cannot step). Adam at rate 0.1
    // climbs towards it, so some frames end at a refused iterate: those frames apply the best
    // plan evaluated before it, are listed with the reason, and the run goes on.
    let driver = RecedingHorizon::new(8, 2, 1, 10, 0.1).unwrap();
    let refusing = |&x: &f64, _| {
        Ok(move |plan: &DVector<f64>| {
            if plan[0] > 0.25 {
                return Err(DiffError::InvalidSetting {
                    name: "first action",
                    value: plan[0],
                    allowed: "at most 0.25 (refused)",
                });
            }
            let miss = x + plan.sum() - 3.0;
            Ok((miss * miss, DVector::from_element(2, 2.0 * miss)))
        })
    };
    let advance = |x: &mut f64, a: &DVector<f64>| {
        *x += a[0];
        Ok(())
    };
    let run = driver
        .run(0.0f64, DVector::zeros(2), refusing, advance, |_, _, _| {})
        .unwrap();
    assert_eq!(run.states.len(), 9);
    assert!(!run.failures.is_empty(), "no iterate was refused");
    assert!(run.failures.iter().all(|(_, why)| why.contains("refused")));
    // Every applied action is one the objective accepted, and the state made progress.
    assert!(run.actions.iter().all(|a| a[0] <= 0.25));
    assert!(run.states[8] > 1.0, "{:?}", run.states);
    // A starting plan the objective refuses ends the run with its error.
    let refused = driver.run(
        0.0f64,
        DVector::from_element(2, 1.0),
        refusing,
        advance,
        |_, _, _| {},
    );
    assert!(matches!(refused, Err(DiffError::InvalidSetting { .. })));
}

/// Action bounds: a point driven by velocity actions towards 1 (plans of 3, scored by the
/// squared miss at the plan's end) reaches it unbounded; with every action in [−0.05, 0.05] no
/// applied action leaves the box, an initial plan outside it is clamped, and 10 frames move the
/// point at most 0.5. Bad boxes are refused.
#[test]
fn receding_horizon_keeps_every_action_within_its_bounds() {
    let run = |driver: &RecedingHorizon, plan: DVector<f64>| reach(driver, plan, 1.0);
    let free = RecedingHorizon::new(10, 3, 1, 30, 0.1).unwrap();
    let unbounded = run(&free, DVector::zeros(3));
    assert!((unbounded.states[10] - 1.0).abs() < 0.05);
    let one = |v: f64| DVector::from_element(1, v);
    let boxed = free
        .clone()
        .with_action_bounds(one(-0.05), one(0.05))
        .unwrap();
    let bounded = run(&boxed, DVector::from_element(3, 0.4));
    assert!(bounded.actions.iter().all(|a| a[0].abs() <= 0.05));
    assert_eq!(bounded.actions[0][0], 0.05);
    assert!(bounded.states[10] <= 0.5 + 1e-12);
    // One bound per action value, no NaN, lower <= upper.
    for (lower, upper) in [
        (DVector::zeros(2), DVector::zeros(2)),
        (one(f64::NAN), one(1.0)),
        (one(1.0), one(0.0)),
    ] {
        let err = free.clone().with_action_bounds(lower, upper).unwrap_err();
        assert!(matches!(err, DiffError::InvalidInput { .. }), "{err}");
    }
}

/// `driver` on a point x driven by velocity actions (x ← x + a) from 0 towards `goal`, each
/// plan scored by the squared miss at its end.
fn reach(driver: &RecedingHorizon, plan: DVector<f64>, goal: f64) -> sdrs_diff::RecedingRun<f64> {
    let h = plan.len();
    driver
        .run(
            0.0f64,
            plan,
            |&x, _| {
                Ok(move |plan: &DVector<f64>| {
                    let miss = x + plan.sum() - goal;
                    Ok((miss * miss, DVector::from_element(h, 2.0 * miss)))
                })
            },
            |x, a| {
                *x += a[0];
                Ok(())
            },
            |_, _, _| {},
        )
        .unwrap()
}
