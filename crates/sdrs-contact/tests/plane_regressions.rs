//! Plane-solve failures found by the scene fuzz (`sdrs-dynamics/tests/fuzz_scenes.rs`): a
//! small body near the edge of the ground box (a 10 x 10 x 1 m cuboid), at the edge of the
//! barrier's support distance (s = 0.01, 2s/(1 − s) = 0.0202), warm-started from the plane of
//! the previous evaluation.

use nalgebra::{Isometry3, Point3, Quaternion, Translation3, UnitQuaternion, Vector3};
use sdrs_contact::{ContactModel, Order, PlaneBarrier, PlaneCache};
use sdrs_geometry::ConvexHull;

fn ground() -> (ConvexHull, Isometry3<f64>) {
    (
        ConvexHull::cuboid(Vector3::new(5.0, 5.0, 0.5)).unwrap(),
        Isometry3::translation(0.0, 0.0, -0.5),
    )
}

fn hull(vertices: &[[f64; 3]]) -> ConvexHull {
    ConvexHull::new(vertices.iter().map(|v| Point3::from(*v)).collect()).unwrap()
}

fn pose(t: [f64; 3], q: [f64; 4]) -> Isometry3<f64> {
    let q = Quaternion::new(q[3], q[0], q[1], q[2]);
    Isometry3::from_parts(
        Translation3::from(Vector3::from(t)),
        UnitQuaternion::new_unchecked(q),
    )
}

/// Evaluates the pair cold and warm-started from `warm`, with all derivatives.
fn evaluate_both(body: &ConvexHull, at: &Isometry3<f64>, warm: [f64; 4]) {
    evaluate_both_with(&PlaneBarrier::default(), body, at, warm).unwrap();
}

fn evaluate_both_with(
    barrier: &PlaneBarrier,
    body: &ConvexHull,
    at: &Isometry3<f64>,
    warm: [f64; 4],
) -> sdrs_contact::Result<()> {
    let (ground, g) = ground();
    for mut cache in [
        PlaneCache::default(),
        PlaneCache::with_plane(Vector3::new(warm[0], warm[1], warm[2]), warm[3]),
    ] {
        let outcome = barrier.evaluate(&ground, &g, body, at, &mut cache, Order::Hessian)?;
        let c = outcome.contact().expect("separated");
        assert!(c.value.is_finite() && c.value >= 0.0);
        assert!(c.gradient.iter().all(|x| x.is_finite()));
    }
    Ok(())
}

/// The body straddles the ground's edge (x = 4.92, the box ends at 5), 0.02020007 from it: the
/// energy is 2e-14, all of it from vertices within round-off of the support.
#[test]
fn body_over_a_ground_edge_at_the_support_distance_converges() {
    let body = hull(&[
        [
            0.14387319033200943,
            -0.01277362694833862,
            -0.09706435770373423,
        ],
        [
            -0.09321170366024545,
            -0.01643671409389629,
            0.07670217044717398,
        ],
        [
            -0.0081150504472026,
            -0.06989974418262689,
            0.12070004831181115,
        ],
        [
            -0.13912096405123123,
            -0.09095903091066998,
            0.10319937110285322,
        ],
        [
            0.1605833070994179,
            -0.04733913866202532,
            -0.04128532158267416,
        ],
        [
            0.038153564449557614,
            -0.0820247644562092,
            0.08127481295633959,
        ],
        [
            -0.02680357349050717,
            0.011125489033661451,
            0.05203511100263944,
        ],
        [
            -0.12224862549616963,
            -0.08517516971116484,
            0.07139504890247092,
        ],
        [
            -0.029903223705119965,
            -0.09412937101546645,
            -0.007722294130805394,
        ],
        [
            0.0941302013031385,
            -0.09498312175304387,
            -0.016549327785911207,
        ],
        [
            -0.04106419967385053,
            -0.0913575606323094,
            0.12900917669286205,
        ],
        [
            0.05277469203441659,
            0.005934252105959619,
            -0.04999489787871481,
        ],
    ]);
    let at = pose(
        [4.919550992155197, -0.0049238901644999, 0.11142838585403642],
        [
            -0.5405987760405468,
            0.30065451930856074,
            0.07269647774473195,
            0.7823522515378295,
        ],
    );
    evaluate_both(
        &body,
        &at,
        [
            0.22076087638605724,
            -2.514300079508547e-8,
            0.965077616061661,
            -1.1137894372306736,
        ],
    );
}

/// The body is past the ground's edge (x = 5.05), 0.0201357 from its corner edge, warm-started from
/// a nearly horizontal plane.
#[test]
fn body_beyond_the_ground_edge_at_the_support_distance_converges() {
    let (body, at, warm) = beyond_the_edge();
    evaluate_both(&body, &at, warm);
}

/// The body, its pose and the warm start of
/// `body_beyond_the_ground_edge_at_the_support_distance_converges`.
fn beyond_the_edge() -> (ConvexHull, Isometry3<f64>, [f64; 4]) {
    let body = hull(&[
        [
            -0.058483691562711694,
            0.028351745733458035,
            -0.026620739108467115,
        ],
        [
            -0.06013979093720261,
            0.027792768979357788,
            0.012745142805717187,
        ],
        [
            0.020989737616153182,
            0.03971512032790679,
            -0.033019493760187694,
        ],
        [
            -0.008358369360703229,
            -0.013966517386718872,
            0.030696807882642497,
        ],
        [
            0.03586378630776946,
            0.00013025545793200676,
            -0.023243075121526877,
        ],
        [
            -0.035362592603224115,
            0.014790807210891817,
            0.039254616141149855,
        ],
        [
            -0.05652974637655022,
            0.01167890776931061,
            -0.00018941097395839214,
        ],
        [
            0.018734785092310434,
            0.04069430530593339,
            -0.038857268231146255,
        ],
        [
            0.012004879932426719,
            -0.020004788399836625,
            -0.03512273620999158,
        ],
        [
            -0.023542913697654287,
            0.006761098210379908,
            0.0412913683196296,
        ],
        [
            0.031328283532120284,
            -0.006908284815676414,
            0.0026542014716760018,
        ],
        [
            0.025851155742532068,
            -0.005138837710760458,
            0.014526659622229586,
        ],
    ]);
    let at = pose(
        [5.047918047056786, -0.6599625499002515, 0.03276638995685671],
        [
            -0.5556576469176049,
            0.4043902548236354,
            0.12335705060084486,
            -0.7158883567238163,
        ],
    );
    (
        body,
        at,
        [
            9.37335413214983e-5,
            -6.467441123493919e-6,
            0.990385965196759,
            -0.009458529333071916,
        ],
    )
}

/// Warm-started from a nearly horizontal plane 0.42 rad off its optimum, the solve now starts
/// from the mid-plane (1e6 times less energy) and converges in a few iterations; it took more
/// than 100 from the warm start.
#[test]
fn warm_start_far_from_the_optimum_takes_few_iterations() {
    let (body, at, warm) = beyond_the_edge();
    let capped = PlaneBarrier::default().with_max_iterations(8).unwrap();
    evaluate_both_with(&capped, &body, &at, warm).unwrap();
    // And a cap below what it needs is a typed error, not a silent value.
    let one = PlaneBarrier::default().with_max_iterations(1).unwrap();
    let failed = evaluate_both_with(&one, &body, &at, warm);
    assert!(matches!(
        failed,
        Err(sdrs_contact::ContactError::NotConverged { iterations: 1, .. })
    ));
    // The message names the solve (the long-range triangle solve fails with the same variant).
    let message = failed.unwrap_err().to_string();
    assert!(
        message.starts_with("SDRS hull-pair separating-plane solve"),
        "{message}"
    );
}
