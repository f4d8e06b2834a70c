use nalgebra::{Isometry3, Translation3, Vector3};
use proptest::prelude::*;
use sdrs_geometry::ConvexHull;
use sdrs_geometry::gjk::{GjkCache, GjkSettings, Proximity, distance, gjk_distance};
use sdrs_geometry::testing::{hull, place_at_gap, pose, unit_vector};

fn max_dot(h: &ConvexHull, p: &Isometry3<f64>, n: &Vector3<f64>) -> f64 {
    h.vertices()
        .iter()
        .map(|v| (p * v).coords.dot(n))
        .fold(f64::NEG_INFINITY, f64::max)
}

#[test]
fn face_to_face_cubes_give_the_exact_gap_and_axis() {
    let cube = ConvexHull::cuboid(Vector3::repeat(0.5)).unwrap();
    for gap in [1e-9, 1e-6, 1e-3, 0.1, 10.0] {
        let p = distance(
            &cube,
            &Isometry3::identity(),
            &cube,
            &Isometry3::translation(0.0, 0.0, 1.0 + gap),
        );
        let s = p.separation().expect("separated");
        assert!(
            (s.distance - gap).abs() <= 1e-15 + 1e-12 * gap,
            "gap {gap}: {}",
            s.distance
        );
        assert!((s.normal - Vector3::z()).norm() < 1e-9);
        assert!((s.point_a.z - 0.5).abs() < 1e-12 && (s.point_b.z - 0.5 - gap).abs() < 1e-12);
    }
}

#[test]
fn overlapping_and_touching_cubes_are_intersecting() {
    let cube = ConvexHull::cuboid(Vector3::repeat(0.5)).unwrap();
    let id = Isometry3::identity();
    assert!(distance(&cube, &id, &cube, &id).is_intersecting());
    assert!(distance(&cube, &id, &cube, &Isometry3::translation(0.9, 0.3, 0.0)).is_intersecting());
    // Exactly touching along a face: no positive distance is reported.
    assert!(distance(&cube, &id, &cube, &Isometry3::translation(1.0, 0.3, 0.2)).is_intersecting());
}

#[test]
fn iteration_cap_returns_an_answer_instead_of_looping() {
    let a = ConvexHull::cuboid(Vector3::repeat(0.5)).unwrap();
    let settings = GjkSettings {
        max_iterations: 1,
        ..Default::default()
    };
    let p = gjk_distance(
        &a,
        &Isometry3::identity(),
        &a,
        &Isometry3::translation(3.0, 1.0, 0.0),
        &settings,
        &mut GjkCache::default(),
    );
    assert!(matches!(p, Proximity::Separated(s) if s.iterations == 1 && s.distance.is_finite()));
}

proptest! {
    #![proptest_config(sdrs_geometry::testing::cases(1000))]

    /// Constructed pairs with a known distance from 1e-9 to 10: the distance, the witness
    /// points and the separating direction are all checked.
    #[test]
    fn distance_matches_a_constructed_gap(
        a in hull(4, 120), b in hull(4, 120),
        pa in pose(2.0), pb in pose(2.0),
        n in unit_vector(), exponent in -9.0..1.0f64,
    ) {
        let gap = 10f64.powf(exponent);
        let pb = place_at_gap(&a, &pa, &b, &pb, &n, gap);
        let mut cache = GjkCache::default();
        let p = gjk_distance(&a, &pa, &b, &pb, &GjkSettings::default(), &mut cache);
        let s = *p.separation().expect("separated");
        let tol = 2e-14 * 8.0 + 1e-11 * gap;
        prop_assert!((s.distance - gap).abs() <= tol, "gap {} got {}", gap, s.distance);
        prop_assert!(((s.point_b - s.point_a) - s.normal * s.distance).norm() <= tol);
        // point_a is a support point of A in the normal, point_b of B in −normal.
        prop_assert!((max_dot(&a, &pa, &s.normal) - s.point_a.coords.dot(&s.normal)).abs() <= tol);
        prop_assert!((max_dot(&b, &pb, &-s.normal) + s.point_b.coords.dot(&s.normal)).abs() <= tol);
        // A warm-started repeat gives the same distance.
        let again = gjk_distance(&a, &pa, &b, &pb, &GjkSettings::default(), &mut cache);
        prop_assert!((again.separation().unwrap().distance - s.distance).abs() <= tol);
    }

    /// Two hulls sharing an interior point intersect.
    #[test]
    fn overlap_is_reported_as_intersection(
        a in hull(4, 120), b in hull(4, 120), pa in pose(2.0), pb in pose(2.0),
        ia in 0usize..120, ib in 0usize..120, ta in 0.0..0.99f64, tb in 0.0..0.99f64,
    ) {
        // A point strictly inside each hull: from the vertex mean towards one vertex.
        let inner = |h: &ConvexHull, p: &Isometry3<f64>, i: usize, t: f64| {
            let v = h.vertices();
            let mean = v.iter().map(|x| x.coords).sum::<Vector3<f64>>() / v.len() as f64;
            p * nalgebra::Point3::from(mean.lerp(&v[i % v.len()].coords, t))
        };
        let pb = Translation3::from(inner(&a, &pa, ia, ta) - inner(&b, &pb, ib, tb)) * pb;
        prop_assert!(distance(&a, &pa, &b, &pb).is_intersecting());
    }

    /// Random placements against parry's GJK as an independent oracle.
    #[test]
    fn distance_agrees_with_parry(a in hull(4, 100), b in hull(4, 100), pa in pose(2.0), pb in pose(2.0)) {
        let oracle = sdrs_geometry::parry_adapter::distance(&a, &pa, &b, &pb).unwrap();
        match distance(&a, &pa, &b, &pb) {
            Proximity::Separated(s) => prop_assert!((s.distance - oracle).abs() <= 1e-9 * (1.0 + oracle), "ours {} parry {}", s.distance, oracle),
            Proximity::Intersecting { .. } => prop_assert!(oracle <= 1e-9, "parry {}", oracle),
        }
    }
}
