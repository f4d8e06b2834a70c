//! The chain-reach scene's loss gradient (spline values and link lengths, through 250 steps)
//! against central differences, and against the values of the hand-chained gradient that
//! preceded the `Objective` layer.

use sdrs::prelude::{DVector, NewtonStart};
use sdrs_examples::chain_reach::{LINKS, chain_reach};

#[test]
fn chain_reach_gradients_match_differences() {
    let mut scene = chain_reach().unwrap();
    scene.settings.tolerance = 1e-8;
    let c = DVector::from_vec(vec![0.29, 0.2, 0.21, 0.3]);
    let p = DVector::from_fn(LINKS, |k, _| 0.01 * k as f64);
    let at = scene.evaluate(&c, &p).unwrap();
    let design = at.design.clone().unwrap();
    assert!(
        at.trajectory.active_pairs.iter().any(|&a| a > 0),
        "the chains touch"
    );
    let h = 1e-6;
    let mut worst: f64 = 0.0;
    let scale = at.parameters.amax().max(design.amax());
    for k in 0..4 + LINKS {
        let (plus, minus) = if k < 4 {
            let mut e = DVector::zeros(4);
            e[k] = h;
            (
                scene.evaluate(&(&c + &e), &p),
                scene.evaluate(&(&c - &e), &p),
            )
        } else {
            let mut e = DVector::zeros(LINKS);
            e[k - 4] = h;
            (
                scene.evaluate(&c, &(&p + &e)),
                scene.evaluate(&c, &(&p - &e)),
            )
        };
        let fd = (plus.unwrap().loss - minus.unwrap().loss) / (2.0 * h);
        let analytic = if k < 4 {
            at.parameters[k]
        } else {
            design[k - 4]
        };
        let error = (analytic - fd).abs() / scale;
        worst = worst.max(error);
        assert!(
            error < 1e-4,
            "parameter {k}: adjoint {analytic}, differences {fd}"
        );
    }
    eprintln!("worst error relative to the largest gradient entry: {worst:.1e}");
}

/// The loss and gradients at `c = [0.05, 0.1, 0.15, 0.2]`, `p = 0.01·(1..8)` as the
/// hand-chained evaluation (`link_point`, `LossGradient::final_state`, `start_at_rest`, the
/// manual tip correction) computed them before the rewrite onto `Objective`, `LinkPoint` and
/// `DesignMap::link_length`. That evaluation started every Newton solve at θ^t, and the
/// scene's tolerance (1e-4) leaves the steps where that start's iterations end: the pins hold
/// only for the same start ([`NewtonStart::Current`]).
#[test]
fn chain_reach_agrees_with_the_hand_chained_gradient() {
    let mut scene = chain_reach().unwrap();
    scene.settings.start = NewtonStart::Current;
    let c = DVector::from_vec(vec![0.05, 0.1, 0.15, 0.2]);
    let p = DVector::from_fn(LINKS, |k, _| 0.01 * (k + 1) as f64);
    let at = scene.evaluate(&c, &p).unwrap();
    let loss = 8.857_572_875_259_581e-2;
    let control = [
        -3.662_255_968_681_208_4e-1,
        1.111_464_343_303_422e-1,
        -6.049_440_747_308_791_6e-2,
        -4.224_160_888_699_113e-1,
    ];
    let design = [
        4.968_098_400_688_896e-1,
        5.100_976_814_322_934e-1,
        5.201_675_469_907_306e-1,
        5.236_489_200_855_187e-1,
        5.192_025_069_104_087e-1,
        5.071_914_865_887_837e-1,
        4.885_763_628_422_769e-1,
        4.378_936_259_302_485_5e-1,
    ];
    let relative = |a: f64, b: f64| (a - b).abs() / b.abs();
    assert!(relative(at.loss, loss) < 1e-9, "loss {} vs {loss}", at.loss);
    let got = at.design.unwrap();
    for (k, (a, b)) in at.parameters.iter().zip(control).enumerate() {
        assert!(relative(*a, b) < 1e-9, "dL/dc[{k}]: {a} vs {b}");
    }
    for (k, (a, b)) in got.iter().zip(design).enumerate() {
        assert!(relative(*a, b) < 1e-9, "dL/dp[{k}]: {a} vs {b}");
    }
}
