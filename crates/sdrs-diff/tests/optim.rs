//! The optimisers.

use nalgebra::DVector;
use proptest::test_runner::TestRunner;
use sdrs_diff::{Adam, DiffError, projected_step};
use sdrs_geometry::testing::sample;

#[test]
fn adam_minimises_an_ill_scaled_quadratic() {
    let scales = DVector::from_vec(vec![1.0, 100.0, 0.01]);
    let target = DVector::from_vec(vec![1.0, -2.0, 0.5]);
    let mut x = DVector::zeros(3);
    let mut adam = Adam::new(3, 0.05);
    for _ in 0..3000 {
        let g = (&x - &target).component_mul(&scales);
        adam.step(&mut x, &g).unwrap();
    }
    assert!((&x - &target).amax() < 1e-3, "{x:?}");
    assert!(matches!(
        adam.step(&mut DVector::zeros(2), &DVector::zeros(3)),
        Err(DiffError::LengthMismatch { .. })
    ));
}

/// Adam's steps keep their length as the gradient shrinks: on `|x − 1|` (gradient ±1) with
/// the long-range paper's moment decays it circles the kink at its step size; a decaying
/// step size settles there.
#[test]
fn a_decaying_step_size_settles_where_a_constant_one_circles() {
    let settle = |adam: &mut Adam| {
        let mut x = DVector::<f64>::zeros(1);
        let mut worst: f64 = 0.0;
        for k in 0..400 {
            let g = DVector::from_element(1, (x[0] - 1.0).signum());
            adam.step(&mut x, &g).unwrap();
            if k >= 300 {
                worst = worst.max((x[0] - 1.0).abs());
            }
        }
        worst
    };
    let paper = |rate| {
        let mut adam = Adam::new(1, rate);
        (adam.beta1, adam.beta2) = (0.3, 0.5);
        adam
    };
    let constant = settle(&mut paper(0.05));
    let mut decaying = paper(0.05).with_decay(1e-3, 300).unwrap();
    let decayed = settle(&mut decaying);
    assert!(
        constant > 0.01,
        "constant step: within {constant} over the last 100"
    );
    assert!(
        decayed < 2e-4,
        "decaying step: within {decayed} over the last 100"
    );
    assert!((decaying.current_learning_rate() - 5e-5).abs() < 1e-18);
    for (to, over) in [(0.0, 10), (1.5, 10), (f64::NAN, 10), (0.5, 0)] {
        assert!(
            matches!(
                paper(0.05).with_decay(to, over),
                Err(DiffError::InvalidSetting { .. })
            ),
            "decay to {to} over {over} was accepted"
        );
    }
}

#[test]
fn the_projected_step_is_the_best_feasible_step() {
    let mut runner = TestRunner::deterministic();
    for _ in 0..200 {
        let n = sample(1usize..6, &mut runner);
        let v = |r: &mut TestRunner, lo: f64, hi: f64| {
            DVector::from_vec(sample(proptest::collection::vec(lo..hi, n), r))
        };
        let lower = v(&mut runner, -2.0, -0.01);
        let upper = v(&mut runner, 0.01, 2.0);
        let x = DVector::zeros(n);
        let g = v(&mut runner, -1.0, 1.0);
        let radius = sample(0.01..3.0f64, &mut runner);
        let d = projected_step(&x, &g, radius, &lower, &upper).unwrap();
        assert!(d.norm() <= radius * (1.0 + 1e-12));
        assert!((0..n).all(|i| d[i] >= lower[i] - 1e-15 && d[i] <= upper[i] + 1e-15));
        // No feasible point does better: random ball points clamped into the box (clamping
        // towards 0 keeps them in the ball).
        let best = g.dot(&d);
        for _ in 0..500 {
            let dir = v(&mut runner, -1.0, 1.0);
            if dir.norm() == 0.0 {
                continue;
            }
            let p = (dir.normalize() * radius * sample(0.0..1.0f64, &mut runner)).zip_zip_map(
                &lower,
                &upper,
                |p, l, u| p.clamp(l, u),
            );
            assert!(
                g.dot(&p) >= best - 1e-12 * (1.0 + best.abs()),
                "{} < {best}",
                g.dot(&p)
            );
        }
    }
}

#[test]
fn the_projected_step_refuses_bad_input() {
    let one = DVector::from_element(1, 1.0);
    assert!(matches!(
        projected_step(&one, &one, 1.0, &(-&one), &DVector::zeros(1)),
        Err(DiffError::InvalidSetting { name: "x", .. })
    ));
    assert!(matches!(
        projected_step(&DVector::zeros(1), &one, -1.0, &(-&one), &one),
        Err(DiffError::InvalidSetting { name: "radius", .. })
    ));
    assert!(matches!(
        projected_step(&DVector::zeros(2), &one, 1.0, &(-&one), &one),
        Err(DiffError::LengthMismatch { .. })
    ));
}

#[test]
fn the_trust_region_loop_reports_progress_and_survives_failed_evaluations() {
    use sdrs_diff::{Block, minimise};
    // A coupled quadratic in two blocks, minimum at (1, 0.5); the objective refuses x₀ > 1.2
    // (as a simulator refuses a degenerate design), which must only shrink the trust region.
    let block = |lo: f64, hi: f64| Block {
        lower: DVector::from_element(1, lo),
        upper: DVector::from_element(1, hi),
        radius: 0.5,
        max_radius: 1.0,
    };
    let objective = |x: &[DVector<f64>]| -> Result<_, String> {
        let (a, b) = (x[0][0], x[1][0]);
        if a > 1.2 {
            return Err(format!("x0 = {a} refused"));
        }
        let value = (1.0 - a).powi(2) + 4.0 * (b - 0.5 * a).powi(2);
        let ga = -2.0 * (1.0 - a) - 4.0 * (b - 0.5 * a);
        let gb = 8.0 * (b - 0.5 * a);
        Ok((
            value,
            vec![DVector::from_element(1, ga), DVector::from_element(1, gb)],
            a,
        ))
    };
    let mut seen = Vec::new();
    let best = minimise(
        vec![
            DVector::from_element(1, -1.0),
            DVector::from_element(1, 2.0),
        ],
        vec![block(-2.0, 2.0), block(-2.0, 3.0)],
        objective,
        200,
        |p| seen.push((p.iteration, p.loss, p.accepted, p.to_string())),
    )
    .unwrap();
    assert_eq!(seen.len(), 200);
    // A refused trial is reported with the objective's reason; a merely worse one is not.
    let refused: Vec<_> = seen.iter().filter(|s| s.3.contains("failed:")).collect();
    assert!(!refused.is_empty(), "some trials are refused");
    assert!(refused.iter().all(|s| !s.2 && s.3.contains("refused")));
    assert!(
        seen.windows(2).all(|w| w[1].1 <= w[0].1),
        "the best loss never rises"
    );
    assert!(seen.iter().any(|s| !s.2), "some steps are refused");
    assert!(best.loss < 1e-8, "loss {}", best.loss);
    assert!((best.data - 1.0).abs() < 1e-3);
    assert_eq!(best.history.len(), 201);
    // A failing start is an error that says why.
    let err = minimise(
        vec![DVector::from_element(1, 1.5), DVector::from_element(1, 0.0)],
        vec![block(-2.0, 2.0), block(-2.0, 3.0)],
        objective,
        10,
        |_| {},
    )
    .unwrap_err();
    assert!(err.to_string().contains("refused"), "{err}");
}

/// One parameter in [−1, 1] with fixed steps of 0.25.
fn steps_of_a_quarter() -> sdrs_diff::Block {
    sdrs_diff::Block {
        lower: DVector::from_element(1, -1.0),
        upper: DVector::from_element(1, 1.0),
        radius: 0.25,
        max_radius: 0.25,
    }
}

#[test]
fn fixed_steps_are_all_taken_and_the_best_point_is_kept() {
    use sdrs_diff::{StepRule, minimise_with};
    // |x| from 0.3 with steps of 0.25: 0.05, then -0.2, 0.05, ... The steps that raise the
    // loss are taken too (the paper's eq. 15), the best (0.05) is returned, the radius stays.
    // The objective refuses x < -0.1 once: that step is not taken, the next is half as long,
    // and the one after that full length again.
    let block = steps_of_a_quarter();
    let mut refusals = 0;
    let objective = |x: &[DVector<f64>]| -> Result<_, String> {
        let a = x[0][0];
        if a < -0.1 && refusals == 0 {
            refusals += 1;
            return Err("refused once".into());
        }
        Ok((a.abs(), vec![DVector::from_element(1, a.signum())], a))
    };
    let mut seen = Vec::new();
    let best = minimise_with(
        vec![DVector::from_element(1, 0.3)],
        vec![block],
        objective,
        4,
        StepRule::Fixed,
        |p| seen.push((p.accepted, p.radius, p.step_norm)),
    )
    .unwrap();
    // 0.3 → 0.05 (taken), → -0.2 (refused, radius 0.125), → -0.075 (taken, loss rises to
    // 0.075; radius 0.25 again), → 0.175 (taken).
    assert_eq!(
        seen.iter().map(|s| s.0).collect::<Vec<_>>(),
        [true, false, true, true]
    );
    assert_eq!(seen[1].1, 0.125);
    assert_eq!(seen[2].1, 0.25);
    assert!(
        (seen[3].2 - 0.25).abs() < 1e-12,
        "full-length step {}",
        seen[3].2
    );
    assert!((best.data - 0.05).abs() < 1e-12, "{}", best.data);
    assert_eq!(best.history.len(), 5);
    assert!(best.history.windows(2).all(|w| w[1] <= w[0]));
}

#[test]
fn a_step_onto_a_bound_stays_inside_the_box() {
    use sdrs_diff::{Block, StepRule, minimise_with};
    // From x = 1 the step to the bound 0.1 is 0.1 − 1 = −0.9, and 1 + (−0.9) rounds to
    // 0.09999999999999998, below the bound: the trial must be kept inside the box, or the
    // next step refuses to start from outside it.
    let one = std::hint::black_box(1.0);
    assert!(one + (0.1 - one) < 0.1);
    let block = Block {
        lower: DVector::from_element(1, 0.1),
        upper: DVector::from_element(1, 2.0),
        radius: 1.0,
        max_radius: 1.0,
    };
    let objective = |x: &[DVector<f64>]| -> Result<_, String> {
        let a = x[0][0];
        Ok((a, vec![DVector::from_element(1, 1.0)], a))
    };
    for rule in [StepRule::Fixed, StepRule::TrustRegion] {
        let best = minimise_with(
            vec![DVector::from_element(1, 1.0)],
            vec![block.clone()],
            objective,
            3,
            rule,
            |_| {},
        )
        .unwrap();
        assert_eq!(best.parameters[0][0], 0.1);
    }
}

#[test]
fn plateau_steps_halve_once_no_better_point_comes() {
    use sdrs_diff::{StepRule, minimise_with};
    // |x| from 0.3 with steps of 0.25: fixed lengths circle 0.05 ↔ -0.2 for ever; halving
    // after 2 iterations without a new best closes in on 0.
    let block = steps_of_a_quarter();
    let objective = |x: &[DVector<f64>]| -> Result<_, String> {
        let a = x[0][0];
        Ok((a.abs(), vec![DVector::from_element(1, a.signum())], a))
    };
    let run = |rule| {
        let mut radii = Vec::new();
        let best = minimise_with(
            vec![DVector::from_element(1, 0.3)],
            vec![block.clone()],
            objective,
            40,
            rule,
            |p| radii.push(p.radius),
        )
        .unwrap();
        (best.loss, radii)
    };
    let (fixed, radii) = run(StepRule::Fixed);
    assert!((fixed - 0.05).abs() < 1e-12 && radii.iter().all(|&r| r == 0.25));
    let (plateau, radii) = run(StepRule::Plateau { patience: 2 });
    assert!(plateau < 1e-3, "{plateau}");
    assert!(radii.windows(2).all(|w| w[1] <= w[0]) && radii[39] < 0.25);
    // A gradient that always says "go down" walks the iterate away from |x|'s minimum: the
    // halving takes it back to the best point (0.05, found at iteration 1), not on from where
    // it went (−0.45 after iteration 3).
    let mut trials = Vec::new();
    minimise_with(
        vec![DVector::from_element(1, 0.3)],
        vec![block.clone()],
        |x: &[DVector<f64>]| -> Result<_, String> {
            trials.push(x[0][0]);
            Ok((x[0][0].abs(), vec![DVector::from_element(1, 1.0)], ()))
        },
        4,
        StepRule::Plateau { patience: 2 },
        |_| {},
    )
    .unwrap();
    let expected = [0.3, 0.05, -0.2, -0.45, 0.05 - 0.125];
    assert!(
        trials
            .iter()
            .zip(expected)
            .all(|(a, b)| (a - b).abs() < 1e-12),
        "{trials:?}"
    );
}
