use nalgebra::Isometry3;
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use sdrs_contact::batch::evaluate_pairs;
use sdrs_contact::{ContactError, Order, PlaneBarrier, PlaneCache};
use sdrs_geometry::testing::{hull, pose, sample};

#[test]
fn results_are_bit_identical_for_any_thread_count() {
    let mut runner = TestRunner::deterministic();
    let n = 60;
    let shapes: Vec<_> = (0..n).map(|_| sample(hull(4, 40), &mut runner)).collect();
    // Bodies on a loose grid so that many neighbours are within the support distance.
    let poses: Vec<Isometry3<f64>> = (0..n)
        .map(|i| {
            nalgebra::Translation3::new((i % 8) as f64 * 1.1, (i / 8) as f64 * 1.1, 0.0)
                * sample(pose(0.0), &mut runner)
        })
        .collect();
    let pairs: Vec<(usize, usize)> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .collect();
    let model = PlaneBarrier::new(0.2).unwrap();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut caches = vec![PlaneCache::default(); pairs.len()];
        pool.install(|| {
            evaluate_pairs(&model, &shapes, &poses, &pairs, &mut caches, Order::Hessian).unwrap()
        })
    };
    let one = run(1);
    assert!(
        one.iter().filter(|o| o.value() > 0.0).count() > 5,
        "scene has contacts"
    );
    assert_eq!(one, run(2));
    assert_eq!(one, run(3));
}

#[test]
fn batch_input_errors_name_what_is_wrong() {
    let model = PlaneBarrier::new(0.1).unwrap();
    let cube = sdrs_geometry::ConvexHull::cuboid(nalgebra::Vector3::repeat(0.5)).unwrap();
    let shapes = vec![cube.clone(), cube];
    let poses = vec![
        Isometry3::identity(),
        Isometry3::translation(1.02, 0.0, 0.0),
    ];
    let mut caches = vec![PlaneCache::default(); 1];
    let err = evaluate_pairs(
        &model,
        &shapes,
        &poses,
        &[(0, 2)],
        &mut caches,
        Order::Value,
    )
    .unwrap_err();
    assert_eq!(
        err,
        ContactError::BodyOutOfRange {
            pair: 0,
            index: 2,
            len: 2
        }
    );
    let err = evaluate_pairs(
        &model,
        &shapes,
        &poses[..1],
        &[(0, 1)],
        &mut caches,
        Order::Value,
    )
    .unwrap_err();
    assert!(matches!(
        err,
        ContactError::LengthMismatch { what: "poses", .. }
    ));
    let strict = PlaneBarrier::new(0.1)
        .unwrap()
        .with_max_iterations(1)
        .unwrap();
    let tilted = vec![
        Isometry3::identity(),
        Isometry3::new(
            nalgebra::Vector3::new(1.02, 0.3, 0.2),
            nalgebra::Vector3::new(0.2, 0.3, 0.1),
        ),
    ];
    if let Err(e) = evaluate_pairs(
        &strict,
        &shapes,
        &tilted,
        &[(0, 1)],
        &mut caches,
        Order::Value,
    ) {
        assert!(e.to_string().contains("pair 0 (hulls 0 and 1)"), "{e}");
    }
}

proptest! {
    #![proptest_config(sdrs_geometry::testing::cases(32))]
    /// No NaN for any feasible input: every output is finite or the pair is penetrating.
    #[test]
    fn outputs_are_finite(a in hull(4, 30), b in hull(4, 30), pa in pose(0.6), pb in pose(0.6)) {
        let model = PlaneBarrier::new(0.3).unwrap();
        let mut caches = vec![PlaneCache::default()];
        let out = evaluate_pairs(&model, &[a, b], &[pa, pb], &[(0, 1)], &mut caches, Order::Design).unwrap();
        if let Some(c) = out[0].contact() {
            prop_assert!(c.value.is_finite() && c.gradient.iter().all(|x| x.is_finite()) && c.hessian.iter().all(|x| x.is_finite()));
            prop_assert!(c.vertices.iter().all(|v| v.mixed.iter().all(|x| x.is_finite())));
        }
    }
}
