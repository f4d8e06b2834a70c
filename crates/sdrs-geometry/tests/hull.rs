use approx::assert_relative_eq;
use nalgebra::{Isometry3, Point3, Vector3};
use proptest::prelude::*;
use sdrs_geometry::testing::{hull, hull_with, pose, unit_vector};
use sdrs_geometry::{Aabb, ConvexHull, GeometryError};

fn brute_support(h: &ConvexHull, d: &Vector3<f64>) -> f64 {
    h.vertices()
        .iter()
        .map(|v| v.coords.dot(d))
        .fold(f64::NEG_INFINITY, f64::max)
}

#[test]
fn cube_has_eight_vertices_twelve_triangles_and_exact_support() {
    let cube = ConvexHull::cuboid(Vector3::new(1.0, 2.0, 3.0)).unwrap();
    assert_eq!(cube.vertices().len(), 8);
    assert_eq!(cube.triangles().len(), 12);
    let p = cube.support_point(
        &Isometry3::translation(1.0, 0.0, 0.0),
        &Vector3::new(1.0, -1.0, 1.0),
    );
    assert_eq!(p, Point3::new(2.0, -2.0, 3.0));
}

#[test]
fn bad_input_gives_typed_errors() {
    let p = |x: f64, y: f64, z: f64| Point3::new(x, y, z);
    let tet = vec![p(0., 0., 0.), p(1., 0., 0.), p(0., 1., 0.), p(0., 0., 1.)];
    assert_eq!(
        ConvexHull::new(tet[..3].to_vec()).unwrap_err(),
        GeometryError::TooFewPoints(3)
    );
    let mut nan = tet.clone();
    nan[2].y = f64::NAN;
    assert!(matches!(
        ConvexHull::new(nan),
        Err(GeometryError::NonFinite { index: 2, .. })
    ));
    let mut inf = tet.clone();
    inf[1].x = f64::INFINITY;
    assert!(matches!(
        ConvexHull::from_point_cloud(&inf),
        Err(GeometryError::NonFinite { index: 1, .. })
    ));
    let flat = vec![
        p(0., 0., 0.),
        p(1., 0., 0.),
        p(0., 1., 0.),
        p(1., 1., 0.),
        p(0.5, 0.2, 0.),
    ];
    assert!(matches!(
        ConvexHull::new(flat),
        Err(GeometryError::Degenerate(5, _))
    ));
    let line = vec![p(0., 0., 0.), p(1., 0., 0.), p(2., 0., 0.), p(3., 0., 0.)];
    assert!(matches!(
        ConvexHull::new(line),
        Err(GeometryError::Degenerate(4, _))
    ));
    let mut dup = tet.clone();
    dup.push(tet[1]);
    assert_eq!(
        ConvexHull::new(dup.clone()).unwrap_err(),
        GeometryError::DuplicateVertex {
            first: 1,
            second: 4
        }
    );
    // The error message says what is allowed.
    assert!(
        ConvexHull::new(dup.clone())
            .unwrap_err()
            .to_string()
            .contains("from_point_cloud")
    );
    // Duplicates are fine for a point cloud.
    assert_eq!(
        ConvexHull::from_point_cloud(&dup).unwrap().vertices().len(),
        4
    );
}

#[test]
fn interior_points_are_kept_by_new_and_dropped_by_point_cloud() {
    let cube = ConvexHull::cuboid(Vector3::new(1.0, 1.0, 1.0)).unwrap();
    let mut points = cube.vertices().to_vec();
    points.push(Point3::new(0.1, 0.2, -0.3));
    let with_interior = ConvexHull::new(points.clone()).unwrap();
    assert_eq!(with_interior.vertices().len(), 9);
    assert!(with_interior.neighbours(8).is_empty());
    assert!(with_interior.triangles().iter().all(|t| !t.contains(&8)));
    assert_eq!(
        ConvexHull::from_point_cloud(&points)
            .unwrap()
            .vertices()
            .len(),
        8
    );
    let d = Vector3::new(0.3, -0.2, 0.9);
    assert_eq!(with_interior.support_index(&d), cube.support_index(&d));
}

#[test]
fn invalid_cuboid_extent_is_rejected() {
    let e = ConvexHull::cuboid(Vector3::new(1.0, 0.0, 1.0)).unwrap_err();
    assert!(e.to_string().contains("half_extent.y"));
}

proptest! {
    #![proptest_config(sdrs_geometry::testing::cases(64))]

    #[test]
    fn hill_climbing_support_matches_a_full_scan(h in hull(49, 400), d in unit_vector(), hint in 0usize..400) {
        let best = brute_support(&h, &d);
        let hint = hint % h.vertices().len();
        let i = h.support_index_from(&d, hint);
        prop_assert!((h.vertices()[i].coords.dot(&d) - best).abs() <= 1e-12 * (1.0 + best.abs()));
    }

    #[test]
    fn small_hull_support_matches_a_full_scan(h in hull(4, 48), d in unit_vector()) {
        let i = h.support_index(&d);
        prop_assert_eq!(h.vertices()[i].coords.dot(&d), brute_support(&h, &d));
    }

    #[test]
    fn world_aabb_is_the_tight_box_of_the_transformed_vertices(h in hull(4, 200), p in pose(3.0)) {
        let expected = Aabb::from_points(&h.vertices().iter().map(|v| p * v).collect::<Vec<_>>());
        let got = h.aabb(&p);
        prop_assert!((got.mins - expected.mins).norm() < 1e-12);
        prop_assert!((got.maxs - expected.maxs).norm() < 1e-12);
    }

    #[test]
    fn bounding_sphere_encloses_every_vertex(h in hull(4, 100)) {
        let c = h.bounding_sphere_center();
        for v in h.vertices() {
            prop_assert!((v - c).norm() <= h.bounding_sphere_radius() * (1.0 + 1e-12));
        }
    }

    #[test]
    fn triangulation_is_closed_and_outward(h in hull_with(60)) {
        // Every triangle's plane has all vertices on its inner side.
        let v = h.vertices();
        for t in h.triangles() {
            let [a, b, c] = t.map(|i| v[i as usize]);
            let n = (b - a).cross(&(c - a));
            for p in v {
                prop_assert!((p - a).dot(&n) <= 1e-9 * n.norm());
            }
        }
        // Closed: Euler characteristic of a sphere.
        let edges = h.triangles().len() * 3 / 2;
        prop_assert_eq!(v.len() as i64 - edges as i64 + h.triangles().len() as i64, 2);
        assert_relative_eq!(h.volume(), h.volume());
    }
}
