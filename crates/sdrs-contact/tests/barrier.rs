use proptest::prelude::*;
use sdrs_contact::barrier::barrier;
use sdrs_geometry::testing::{central_differences, relative_error};

#[test]
fn barrier_is_infinite_at_and_below_zero_and_zero_beyond_support() {
    assert!(barrier(0.0, 0.1).is_none());
    assert!(barrier(-1.0, 0.1).is_none());
    assert!(barrier(f64::NAN, 0.1).is_none());
    assert_eq!(barrier(0.1, 0.1), Some((0.0, 0.0, 0.0)));
    assert_eq!(barrier(3.0, 0.1), Some((0.0, 0.0, 0.0)));
}

#[test]
fn barrier_grows_without_bound_towards_zero() {
    let values: Vec<f64> = [1e-2, 1e-4, 1e-6, 1e-8]
        .iter()
        .map(|&x| barrier(x, 0.1).unwrap().0)
        .collect();
    assert!(values.windows(2).all(|w| w[1] > w[0] * 1e5), "{values:?}");
}

#[test]
fn barrier_is_c2_across_the_support() {
    // Value, slope and curvature all vanish as x → s from below (they are O((s−x)²)).
    let s = 0.1;
    for delta in [1e-3, 1e-5, 1e-7] {
        let (p, d1, d2) = barrier(s - delta, s).unwrap();
        // With x ≈ s: P ≈ δ⁴/s⁵, P' ≈ −4δ³/s⁵, P'' ≈ 12δ²/s⁵.
        let k = 20.0 / s.powi(5);
        assert!(
            p.abs() < k * delta.powi(4)
                && d1.abs() < k * delta.powi(3)
                && d2.abs() < k * delta.powi(2)
        );
    }
}

proptest! {
    #[test]
    fn barrier_derivatives_match_finite_differences(s in 0.001..0.9f64, frac in 0.05..0.95f64) {
        let x = s * frac;
        let (_, d1, d2) = barrier(x, s).unwrap();
        let h = 1e-6 * x;
        let fd1 = central_differences(|v: &[f64; 1]| barrier(v[0], s).unwrap().0, &[x], h);
        let fd2 = central_differences(|v: &[f64; 1]| barrier(v[0], s).unwrap().1, &[x], h);
        prop_assert!(relative_error(&[d1], &fd1, 1e-300) < 1e-6);
        prop_assert!(relative_error(&[d2], &fd2, 1e-300) < 1e-6);
        prop_assert!(d1 < 0.0 && d2 > 0.0, "decreasing and strictly convex");
    }
}
