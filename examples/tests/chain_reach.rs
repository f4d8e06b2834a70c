//! The chain-reach scene's loss gradient (spline values and link lengths, through 250 steps)
//! against central differences.

use sdrs::prelude::DVector;
use sdrs_examples::chain_reach::{ChainReach, LINKS};

#[test]
fn chain_reach_gradients_match_differences() {
    let mut scene = ChainReach::new().unwrap();
    scene.settings.tolerance = 1e-8;
    let c = DVector::from_vec(vec![0.29, 0.2, 0.21, 0.3]);
    let p = DVector::from_fn(LINKS, |k, _| 0.01 * k as f64);
    let at = scene.evaluate(&c, &p).unwrap();
    assert!(
        at.trajectory.active_pairs.iter().any(|&a| a > 0),
        "the chains touch"
    );
    let h = 1e-6;
    let mut worst: f64 = 0.0;
    let scale = at.control.amax().max(at.design.amax());
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
            at.control[k]
        } else {
            at.design[k - 4]
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
