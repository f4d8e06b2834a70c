//! Bad input at every public entry point gives a typed error: no panic, no hang, no NaN.

use nalgebra::{Isometry3, Point3, Quaternion, Translation3, UnitQuaternion, Vector3};
use sdrs_geometry::broad_phase::{
    AllPairs, BroadPhase, BvhCrate, OwnBvh, PairFinder, ParryBvh, Proxy,
};
use sdrs_geometry::gjk::{GjkCache, GjkSettings, gjk_distance, try_gjk_distance};
use sdrs_geometry::{Aabb, ConvexHull, GeometryError, SphereTree, TriMesh};

/// Poses no query accepts: NaN or infinite entries, rotations that are not unit quaternions.
fn bad_poses() -> Vec<Isometry3<f64>> {
    let rotation = |q: Quaternion<f64>| {
        Isometry3::from_parts(
            Translation3::new(0.0, 0.0, 3.0),
            UnitQuaternion::new_unchecked(q),
        )
    };
    vec![
        Isometry3::translation(f64::NAN, 0.0, 3.0),
        Isometry3::translation(0.0, f64::INFINITY, 3.0),
        rotation(Quaternion::new(f64::NAN, 0.0, 0.0, 0.0)),
        rotation(Quaternion::new(0.0, 0.0, 0.0, 0.0)),
        rotation(Quaternion::new(3.0, 0.0, 0.0, 0.0)),
    ]
}

fn corners(h: f64) -> Vec<Point3<f64>> {
    ConvexHull::cuboid(Vector3::repeat(h))
        .unwrap()
        .vertices()
        .to_vec()
}

#[test]
fn hull_constructors_reject_bad_points() {
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let mut points = corners(0.5);
        points[5].y = bad;
        for err in [
            ConvexHull::new(points.clone()).unwrap_err(),
            ConvexHull::from_point_cloud(&points).unwrap_err(),
        ] {
            assert!(
                matches!(
                    err,
                    GeometryError::NonFinite {
                        what: "point",
                        index: 5,
                        ..
                    }
                ),
                "{err}"
            );
        }
    }
    let mut twice = corners(0.5);
    twice.push(twice[2]);
    assert!(matches!(
        ConvexHull::new(twice),
        Err(GeometryError::DuplicateVertex {
            first: 2,
            second: 8
        })
    ));
    let flat: Vec<_> = corners(0.5).into_iter().filter(|p| p.z > 0.0).collect();
    assert!(matches!(
        ConvexHull::new(flat),
        Err(GeometryError::Degenerate(4, _))
    ));
    assert!(matches!(
        ConvexHull::new(corners(0.5)[..3].to_vec()),
        Err(GeometryError::TooFewPoints(3))
    ));
    assert!(ConvexHull::new(vec![Point3::origin(); 5]).is_err());
    assert!(matches!(
        ConvexHull::cuboid(Vector3::new(1.0, f64::NAN, 1.0)),
        Err(GeometryError::InvalidParameter {
            name: "half_extent.y",
            ..
        })
    ));
    // Huge but finite coordinates: a hull or an error, never a panic.
    for scale in [1e150, 1e200, 1e300, f64::MAX / 2.0] {
        let points: Vec<_> = corners(0.5).iter().map(|p| p * scale).collect();
        if let Ok(hull) = ConvexHull::new(points) {
            assert_eq!(hull.vertices().len(), 8);
        }
    }
}

#[test]
fn gjk_rejects_bad_poses_and_ends_on_any_input() {
    let cube = ConvexHull::cuboid(Vector3::repeat(0.5)).unwrap();
    let good = Isometry3::identity();
    for bad in bad_poses() {
        for (pa, pb, body) in [(&bad, &good, 0), (&good, &bad, 1)] {
            let settings = GjkSettings::default();
            let err = try_gjk_distance(&cube, pa, &cube, pb, &settings, &mut GjkCache::default())
                .unwrap_err();
            assert!(
                matches!(err, GeometryError::InvalidPose { body: b, .. } if b == body),
                "{err}"
            );
            // The unchecked query still ends (its iteration cap holds for any input).
            gjk_distance(&cube, pa, &cube, pb, &settings, &mut GjkCache::default());
        }
    }
}

#[test]
fn broad_phase_reports_or_pairs_non_finite_boxes() {
    assert!(BroadPhase::new(f64::NAN).is_err());
    assert!(BroadPhase::new(-1.0).is_err());
    let unit = |body: usize, x: f64| Proxy {
        body,
        aabb: Aabb::new(Point3::new(x, 0.0, 0.0), Point3::new(x + 1.0, 1.0, 1.0)),
    };
    let mut proxies: Vec<Proxy> = (0..40).map(|i| unit(i % 7, 3.0 * i as f64)).collect();
    proxies[3].aabb.mins.y = f64::NAN;
    proxies[17].aabb.maxs.z = f64::INFINITY;
    let finders: Vec<Box<dyn PairFinder>> = vec![
        Box::new(OwnBvh::default()),
        Box::new(BvhCrate::default()),
        Box::new(ParryBvh::default()),
        Box::new(AllPairs),
    ];
    for finder in finders {
        let mut bp = BroadPhase::with_finder(0.1, finder).unwrap();
        let mut out = Vec::new();
        let err = bp
            .try_candidate_pairs(&proxies, |_, _| false, &mut out)
            .unwrap_err();
        assert!(
            matches!(err, GeometryError::NonFiniteBox { index: 3, .. }),
            "{err}"
        );
        // Unchecked: the unplaced proxies meet every proxy of another body, once.
        bp.candidate_pairs(&proxies, |_, _| false, &mut out);
        let others = |i: usize| proxies.iter().filter(|p| p.body != proxies[i].body).count();
        let with = |i: usize| out.iter().filter(|&&(a, b)| a == i || b == i).count();
        assert_eq!(with(3), others(3), "{}", bp.finder_name());
        assert_eq!(with(17), others(17), "{}", bp.finder_name());
        let mut unique = out.clone();
        unique.dedup();
        assert_eq!(unique, out);
    }
}

#[test]
fn meshes_and_sphere_trees_reject_non_finite_vertices() {
    let mesh = TriMesh::icosphere(1.0, 1).unwrap();
    let mut vertices = mesh.vertices().to_vec();
    vertices[7].z = f64::NAN;
    assert!(matches!(
        TriMesh::new(vertices.clone(), mesh.triangles().to_vec()),
        Err(GeometryError::NonFinite {
            what: "vertex",
            index: 7,
            ..
        })
    ));
    let mut tree = SphereTree::build(&mesh).unwrap();
    assert!(matches!(
        tree.refit(&vertices),
        Err(GeometryError::NonFinite { index: 7, .. })
    ));
    assert!(tree.recentre(&vertices).is_err());
    // A failed refit leaves the tree as it was.
    assert!(tree.check_layered(mesh.vertices(), 1e-12).is_ok());
    assert!(tree.check_layered(&mesh.vertices()[..3], 1e-12).is_err());
    for bad in bad_poses() {
        assert!(matches!(
            mesh.try_transformed(&bad),
            Err(GeometryError::InvalidPose { body: 0, .. })
        ));
    }
    for bad in [f64::NAN, 0.0, -1.0, f64::INFINITY] {
        assert!(TriMesh::icosphere(bad, 1).is_err());
        assert!(TriMesh::capsule(bad, 0.2, 8, 3).is_err());
        assert!(TriMesh::cylinder(0.1, bad, 8).is_err());
        assert!(TriMesh::cuboid(Vector3::new(bad, 1.0, 1.0)).is_err());
        let cube = ConvexHull::cuboid(Vector3::repeat(0.5)).unwrap();
        assert!(matches!(
            cube.solid_mass_properties(bad),
            Err(GeometryError::InvalidDensity(_)) | Err(GeometryError::InvalidParameter { .. })
        ));
        assert!(cube.lumped_mass_properties(bad).is_err());
    }
}
