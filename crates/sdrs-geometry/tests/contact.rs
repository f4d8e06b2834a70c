//! Contact points: half-space and hull-pair patches against analytic cases, penetration depth
//! against a brute-force minimum over directions, continuity of the normal, and the contact
//! Jacobian against finite differences.

use nalgebra::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3};
use sdrs_geometry::ConvexHull;
use sdrs_geometry::contact::derivatives::{
    ContactJacobian, halfspace_contact_jacobian, pair_contact_jacobian,
};
use sdrs_geometry::contact::{ContactPoint, hull_halfspace_contacts, hull_pair_contacts};
use sdrs_geometry::gjk::GjkCache;
use sdrs_geometry::twist::{Twist, perturb};

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

fn pair(
    a: &ConvexHull,
    pose_a: &Isometry3<f64>,
    b: &ConvexHull,
    pose_b: &Isometry3<f64>,
    margin: f64,
) -> Vec<ContactPoint> {
    hull_pair_contacts(a, pose_a, b, pose_b, margin, &mut GjkCache::default()).unwrap()
}

/// Points on a sphere of radius `r` (Fibonacci lattice), a sphere-like hull.
fn ball(r: f64, count: usize) -> ConvexHull {
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    let pts: Vec<_> = (0..count)
        .map(|i| {
            let z = 1.0 - 2.0 * (i as f64 + 0.5) / count as f64;
            let rho = (1.0 - z * z).sqrt();
            let a = golden * i as f64;
            Point3::new(r * rho * a.cos(), r * rho * a.sin(), r * z)
        })
        .collect();
    ConvexHull::new(pts).unwrap()
}

/// Overlap `h_A(d) + h_B(−d)` of two placed hulls along unit direction `d`.
fn overlap(
    a: &ConvexHull,
    pa: &Isometry3<f64>,
    b: &ConvexHull,
    pb: &Isometry3<f64>,
    d: &Vector3<f64>,
) -> f64 {
    d.dot(&a.support_point(pa, d).coords) - d.dot(&b.support_point(pb, &-d).coords)
}

#[test]
fn box_on_box_offset_patch_is_the_overlap_rectangle() {
    let c = cube(0.5);
    for (gap, margin) in [(-0.01, 0.0), (0.01, 0.02)] {
        let pose_b = Isometry3::translation(0.7, 0.1, 1.0 + gap);
        let contacts = pair(&c, &Isometry3::identity(), &c, &pose_b, margin);
        let xy = sorted_xy(&contacts);
        let expected = [(0.2, -0.4), (0.2, 0.5), (0.5, -0.4), (0.5, 0.5)];
        assert_eq!(xy.len(), 4, "gap {gap}: {xy:?}");
        for (got, want) in xy.iter().zip(expected) {
            assert!((got.0 - want.0).abs() < 1e-9 && (got.1 - want.1).abs() < 1e-9);
        }
        for ct in &contacts {
            assert!((ct.separation - gap).abs() < 1e-9, "{}", ct.separation);
            assert!((ct.position.z - (0.5 + 0.5 * gap)).abs() < 1e-9);
            assert!((ct.normal.into_inner() - Vector3::z()).norm() < 1e-9);
        }
        if gap > 0.0 {
            // Farther apart than the margin: nothing.
            assert!(pair(&c, &Isometry3::identity(), &c, &pose_b, 0.5 * gap).is_empty());
        }
    }
}

#[test]
fn box_on_box_rotated_patch_lies_in_both_faces() {
    // B turned by 0.4 rad about z: the overlap of the two squares is an octagon; the patch
    // keeps 4 of its corners, all on both faces and 1 cm deep.
    let c = cube(0.5);
    let rot = UnitQuaternion::from_scaled_axis(Vector3::new(0.0, 0.0, 0.4));
    let pose_b = Isometry3::from_parts(Translation3::new(0.2, -0.1, 0.99), rot);
    let contacts = pair(&c, &Isometry3::identity(), &c, &pose_b, 0.0);
    assert_eq!(contacts.len(), 4);
    for ct in &contacts {
        assert!((ct.separation + 0.01).abs() < 1e-9);
        let p = ct.position;
        assert!(p.x.abs() <= 0.5 + 1e-9 && p.y.abs() <= 0.5 + 1e-9);
        let local = pose_b.inverse() * ct.point_b();
        assert!(local.x.abs() <= 0.5 + 1e-9 && local.y.abs() <= 0.5 + 1e-9);
        assert!((local.z + 0.5).abs() < 1e-9);
    }
    // The patch spans most of the overlap: its area is at least half the octagon's.
    let p: Vec<_> = contacts.iter().map(|c| c.position.coords).collect();
    let area = 0.5 * ((p[1] - p[0]).cross(&(p[3] - p[2]))).norm();
    assert!(area > 0.3, "patch area {area}");
}

#[test]
fn ball_pairs_match_spheres() {
    let (ra, rb) = (0.5, 0.3);
    let (a, b) = (ball(ra, 400), ball(rb, 300));
    let dir = Vector3::new(0.3, -0.5, 0.8).normalize();
    // Facet error of the lattice: below 2 % of the radii.
    let tol = 0.02 * (ra + rb);
    for gap in [-0.05, 0.03] {
        let pose_b = Isometry3::from_parts(
            Translation3::from(dir * (ra + rb + gap)),
            UnitQuaternion::from_scaled_axis(Vector3::new(0.1, 0.2, 0.3)),
        );
        let contacts = pair(&a, &Isometry3::identity(), &b, &pose_b, 0.05);
        assert!(!contacts.is_empty());
        let ct = contacts[0];
        assert!(
            (ct.separation - gap).abs() < tol,
            "gap {gap}: {}",
            ct.separation
        );
        assert!(ct.normal.dot(&dir) > 0.98, "normal {:?}", ct.normal);
        assert!((ct.position.coords - dir * (ra + 0.5 * gap)).norm() < 0.1);
    }
}

#[test]
fn penetration_depth_is_the_minimum_overlap_over_directions() {
    let a = ball(0.4, 60);
    let b = cube(0.3);
    let pose_b = Isometry3::from_parts(
        Translation3::new(0.35, 0.2, 0.3),
        UnitQuaternion::from_scaled_axis(Vector3::new(0.5, -0.2, 0.7)),
    );
    let contacts = pair(&a, &Isometry3::identity(), &b, &pose_b, 0.0);
    let depth = -contacts[0].separation;
    let n = contacts[0].normal.into_inner();
    assert!(depth > 0.0);
    assert!((overlap(&a, &Isometry3::identity(), &b, &pose_b, &n) - depth).abs() < 1e-12);
    // Brute force over a Fibonacci grid of directions: never below our depth, and the grid
    // minimum within its resolution of it.
    let count = 200_000;
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    let brute = (0..count)
        .map(|i| {
            let z = 1.0 - 2.0 * (i as f64 + 0.5) / count as f64;
            let rho = (1.0 - z * z).sqrt();
            let t = golden * i as f64;
            Vector3::new(rho * t.cos(), rho * t.sin(), z)
        })
        .map(|d| overlap(&a, &Isometry3::identity(), &b, &pose_b, &d))
        .fold(f64::INFINITY, f64::min);
    assert!(brute >= depth - 1e-12, "brute {brute} < depth {depth}");
    assert!(brute - depth < 5e-3, "brute {brute}, depth {depth}");
}

/// The exact depth over every candidate axis of a polytope pair, without pruning: the face
/// normals of both hulls and the cross product of every edge of A with every edge of B.
fn depth_over_all_axes(
    a: &ConvexHull,
    pa: &Isometry3<f64>,
    b: &ConvexHull,
    pb: &Isometry3<f64>,
) -> f64 {
    let faces = |h: &ConvexHull, p: &Isometry3<f64>| -> Vec<Vector3<f64>> {
        h.face_normals().iter().map(|n| p.rotation * n).collect()
    };
    let mut axes = faces(a, pa);
    axes.extend(faces(b, pb));
    for ea in a.edges() {
        for eb in b.edges() {
            if let Some(c) = (pa.rotation * ea.vector)
                .cross(&(pb.rotation * eb.vector))
                .try_normalize(1e-12)
            {
                axes.push(c);
            }
        }
    }
    axes.iter()
        .flat_map(|d| [*d, -d])
        .map(|d| overlap(a, pa, b, pb, &d))
        .fold(f64::INFINITY, f64::min)
}

/// The Gauss-map pruning of edge-edge axes loses no face of the Minkowski difference: on
/// random overlapping hull pairs (round ones, boxes and slabs against them) the depth equals
/// the minimum over every face normal and every edge-edge cross product.
#[test]
fn pruned_axes_give_the_exact_penetration_depth() {
    let mut uniform = sdrs_geometry::testing::uniform_stream(0x9e37_79b9_7f4a_7c15);
    let mut random_hull = |count: usize, scale: Vector3<f64>| {
        let points: Vec<Point3<f64>> = (0..count)
            .map(|_| {
                Point3::from(
                    Vector3::new(uniform() - 0.5, uniform() - 0.5, uniform() - 0.5)
                        .component_mul(&scale),
                )
            })
            .collect();
        ConvexHull::from_point_cloud(&points).unwrap()
    };
    let shapes: Vec<ConvexHull> = vec![
        random_hull(12, Vector3::new(0.4, 0.3, 0.5)),
        random_hull(40, Vector3::new(0.5, 0.5, 0.5)),
        random_hull(80, Vector3::new(0.8, 0.2, 0.3)),
        cube(0.3),
        ConvexHull::cuboid(Vector3::new(2.0, 2.0, 0.1)).unwrap(),
        ball(0.3, 50),
    ];
    let mut checked = 0;
    for (i, a) in shapes.iter().enumerate() {
        for b in &shapes[i..] {
            for k in 0..40 {
                let t = 0.05 * k as f64;
                let pose_b = Isometry3::from_parts(
                    Translation3::new(0.3 * t.sin(), 0.2 * (1.7 * t).cos(), 0.25 - 0.1 * t),
                    UnitQuaternion::from_scaled_axis(Vector3::new(t, -0.7 * t, 0.3 + t)),
                );
                let contacts = pair(a, &Isometry3::identity(), b, &pose_b, 0.0);
                let Some(deepest) = contacts.iter().map(|c| c.normal.into_inner()).next() else {
                    continue;
                };
                let depth = overlap(a, &Isometry3::identity(), b, &pose_b, &deepest);
                if depth <= 0.0 {
                    continue; // touching within round-off: GJK's normal, not the SAT's
                }
                let all = depth_over_all_axes(a, &Isometry3::identity(), b, &pose_b);
                assert!(
                    (depth - all).abs() <= 1e-12 * (1.0 + all.abs()),
                    "shapes {i}: depth {depth} vs {all} over all axes"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 300, "{checked} overlapping pairs checked");
}

#[test]
fn normal_moves_continuously_with_the_pose() {
    // A cube pressed 2 cm into a ball-like hull, rotated in 1 mrad steps: the normal turns by
    // at most a few mrad per step (no jumps while the supporting features do not switch).
    let a = ball(0.5, 200);
    let b = cube(0.2);
    let mut last: Option<Vector3<f64>> = None;
    for k in 0..50 {
        let rot = UnitQuaternion::from_scaled_axis(Vector3::new(0.1, 0.2, 0.3 + 1e-3 * k as f64));
        let pose_b = Isometry3::from_parts(Translation3::new(0.0, 0.0, 0.68), rot);
        let contacts = pair(&a, &Isometry3::identity(), &b, &pose_b, 0.0);
        let n = contacts[0].normal.into_inner();
        if let Some(m) = last {
            assert!((n - m).norm() < 5e-3, "step {k}: jump {}", (n - m).norm());
        }
        last = Some(n);
    }
}

#[test]
fn pair_rejects_bad_input() {
    let c = cube(0.5);
    let id = Isometry3::identity();
    let mut cache = GjkCache::default();
    assert!(hull_pair_contacts(&c, &id, &c, &id, f64::NAN, &mut cache).is_err());
    let mut bad = id;
    bad.translation.vector.y = f64::NAN;
    assert!(hull_pair_contacts(&c, &bad, &c, &id, 0.0, &mut cache).is_err());
    assert!(hull_pair_contacts(&c, &id, &c, &bad, 0.0, &mut cache).is_err());
}

/// Contacts as a function of the two poses.
type ContactsAt<'a> = &'a dyn Fn(&Isometry3<f64>, &Isometry3<f64>) -> Vec<ContactPoint>;

/// Checks `jacobian` of every contact against central differences of `contacts` in each of
/// the twist directions `columns` (perturbed contacts matched to the unperturbed ones by
/// position).
fn check_jacobian(
    columns: &[usize],
    pose_a: &Isometry3<f64>,
    pose_b: &Isometry3<f64>,
    contacts: ContactsAt,
    jacobian: &dyn Fn(&ContactPoint) -> ContactJacobian,
) -> usize {
    let base = contacts(pose_a, pose_b);
    assert!(!base.is_empty());
    let eps = 1e-6;
    for c in &base {
        let j = jacobian(c);
        for &col in columns {
            let mut xi = Twist::zeros();
            xi[col % 6] = eps;
            let at = |sign: f64| {
                let (pa, pb) = if col < 6 {
                    (perturb(pose_a, &(xi * sign)), *pose_b)
                } else {
                    (*pose_a, perturb(pose_b, &(xi * sign)))
                };
                let moved = contacts(&pa, &pb);
                assert_eq!(
                    moved.len(),
                    base.len(),
                    "a feature switched in column {col}"
                );
                *moved
                    .iter()
                    .min_by(|x, y| {
                        let dx = (x.position - c.position).norm();
                        let dy = (y.position - c.position).norm();
                        dx.partial_cmp(&dy).unwrap()
                    })
                    .unwrap()
            };
            let (p, m) = (at(1.0), at(-1.0));
            let close = |fd: Vector3<f64>, an: Vector3<f64>, what: &str| {
                assert!(
                    (fd - an).norm() < 1e-6 * (1.0 + an.norm()),
                    "{what}, column {col}: fd {fd:?} vs analytic {an:?}"
                );
            };
            close(
                (p.position - m.position) / (2.0 * eps),
                j.position.column(col).into(),
                "position",
            );
            close(
                (p.normal.into_inner() - m.normal.into_inner()) / (2.0 * eps),
                j.normal.column(col).into(),
                "normal",
            );
            let ds = (p.separation - m.separation) / (2.0 * eps);
            assert!(
                (ds - j.separation[col]).abs() < 1e-6,
                "separation, column {col}: fd {ds} vs analytic {}",
                j.separation[col]
            );
            // dR by central differences of the matrices; δφ = ½ Σᵢ Rᵢ × dRᵢ.
            let dr = (p.frame.matrix() - m.frame.matrix()) / (2.0 * eps);
            let r = c.frame.matrix();
            let dphi: Vector3<f64> = (0..3)
                .map(|i| r.column(i).cross(&dr.column(i)))
                .sum::<Vector3<f64>>()
                * 0.5;
            close(dphi, j.frame.column(col).into(), "frame");
        }
    }
    base.len()
}

/// Every twist column.
const ALL: [usize; 12] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
/// The columns that keep a face-on-face or edge-on-face contact's features: translations and
/// turns about the normal (z). Tilting either body is a mode boundary there: the normal
/// switches between the faces' normals (or an edge-edge axis), so only one-sided derivatives
/// exist.
const NO_TILT: [usize; 8] = [0, 1, 2, 5, 6, 7, 8, 11];

#[test]
fn halfspace_jacobian_matches_finite_differences() {
    // The plane is attached to body A, whose pose moves it: normal R_A n, offset through
    // pose_a * (offset n).
    let (n_local, offset) = (Vector3::new(0.1, 0.3, 1.0).normalize(), 0.2);
    let hull = cube(0.4);
    let contacts = |pa: &Isometry3<f64>, pb: &Isometry3<f64>| {
        let n = pa.rotation * n_local;
        let d = n.dot(&(pa * Point3::from(n_local * offset)).coords);
        hull_halfspace_contacts(&hull, pb, &n, d, 0.05).unwrap()
    };
    for rot in [Vector3::new(0.3, -0.2, 0.5), Vector3::new(0.1, 0.3, 0.0)] {
        let pose_b = Isometry3::from_parts(
            Translation3::new(0.2, -0.3, 0.75),
            UnitQuaternion::from_scaled_axis(rot),
        );
        let count = check_jacobian(&ALL, &Isometry3::identity(), &pose_b, &contacts, &|c| {
            halfspace_contact_jacobian(c, &pose_b)
        });
        assert!(count >= 1);
    }
}

#[test]
fn pair_jacobian_matches_finite_differences() {
    let big = cube(0.5);
    let small = cube(0.2);
    let rot = |v: [f64; 3]| UnitQuaternion::from_scaled_axis(Vector3::from(v));
    let cases = [
        // A slightly tilted small box pressed into a big one: B's lowest corner on A's face.
        // (Exactly parallel faces are a mode boundary: the normal switches between the two
        // faces under a tilt of either body.)
        (
            big.clone(),
            Isometry3::from_parts(Translation3::new(0.05, 0.0, -0.1), rot([0.0, 0.0, 0.2])),
            small.clone(),
            Isometry3::from_parts(Translation3::new(0.1, 0.05, 0.6), rot([0.03, 0.02, 0.7])),
            1,
        ),
        // A tilted small box pushed up into a big one: A's highest corner on B's face.
        (
            small.clone(),
            Isometry3::from_parts(Translation3::new(0.1, 0.05, -0.6), rot([0.03, -0.02, 0.3])),
            big.clone(),
            Isometry3::from_parts(Translation3::new(0.0, 0.0, 0.0), rot([0.0, 0.0, -0.2])),
            1,
        ),
        // A tilted box's corner in a ball-like hull's face (apart and overlapping).
        (
            ball(0.5, 200),
            Isometry3::translation(0.0, 0.1, 0.0),
            small.clone(),
            Isometry3::from_parts(Translation3::new(0.05, 0.1, 0.82), rot([0.5, 0.4, 0.1])),
            1,
        ),
        (
            ball(0.5, 200),
            Isometry3::translation(0.0, 0.1, 0.0),
            small,
            Isometry3::from_parts(Translation3::new(0.05, 0.1, 0.78), rot([0.5, 0.4, 0.1])),
            1,
        ),
    ];
    for (a, pose_a, b, pose_b, expected) in cases {
        let contacts = |pa: &Isometry3<f64>, pb: &Isometry3<f64>| pair(&a, pa, &b, pb, 0.05);
        let count = check_jacobian(&ALL, &pose_a, &pose_b, &contacts, &|c| {
            pair_contact_jacobian(&a, &pose_a, &b, &pose_b, c).unwrap()
        });
        assert_eq!(count, expected);
    }
}

#[test]
fn edge_crossing_jacobian_matches_finite_differences() {
    // B's bottom edge (B turned 0.3 rad about its x axis, then 0.5 rad about z) lies 1 cm deep
    // across A's top face and out over its side: the patch has B's corner inside the face and
    // the crossing of B's edge with A's boundary edge.
    let a = cube(0.5);
    let b = cube(0.2);
    let rot = UnitQuaternion::from_scaled_axis(Vector3::new(0.0, 0.0, 0.5))
        * UnitQuaternion::from_scaled_axis(Vector3::new(0.3, 0.0, 0.0));
    let lowest = b
        .vertices()
        .iter()
        .map(|v| (rot * v).z)
        .fold(f64::INFINITY, f64::min);
    let pose_b = Isometry3::from_parts(Translation3::new(0.45, 0.1, 0.49 - lowest), rot);
    let pose_a = Isometry3::identity();
    let contacts = |pa: &Isometry3<f64>, pb: &Isometry3<f64>| pair(&a, pa, &b, pb, 0.0);
    let base = contacts(&pose_a, &pose_b);
    assert_eq!(base.len(), 2);
    let crossings = base
        .iter()
        .filter(|c| {
            !b.vertices()
                .iter()
                .any(|v| (pose_b * v - c.point_b()).norm() < 1e-9)
        })
        .count();
    assert_eq!(crossings, 1);
    for c in &base {
        assert!((c.separation + 0.01).abs() < 1e-9);
    }
    check_jacobian(&NO_TILT, &pose_a, &pose_b, &contacts, &|c| {
        pair_contact_jacobian(&a, &pose_a, &b, &pose_b, c).unwrap()
    });
    // Face on face: the overlap rectangle of two offset boxes, two of whose corners are
    // crossings of A's and B's edges.
    let c = cube(0.5);
    let pose_b = Isometry3::translation(0.7, 0.1, 0.99);
    let contacts = |pa: &Isometry3<f64>, pb: &Isometry3<f64>| pair(&c, pa, &c, pb, 0.0);
    let count = check_jacobian(&NO_TILT, &pose_a, &pose_b, &contacts, &|ct| {
        pair_contact_jacobian(&c, &pose_a, &c, &pose_b, ct).unwrap()
    });
    assert_eq!(count, 4);
}

#[test]
fn pair_jacobian_rejects_edge_edge_normals() {
    // Two boxes crossed edge on edge (each turned 45° about a different axis): the normal is
    // the cross product of the edges, which the derivatives do not cover.
    let c = cube(0.3);
    let pose_a = Isometry3::from_parts(
        Translation3::identity(),
        UnitQuaternion::from_scaled_axis(Vector3::new(std::f64::consts::FRAC_PI_4, 0.0, 0.0)),
    );
    let pose_b = Isometry3::from_parts(
        Translation3::new(0.0, 0.0, 0.84),
        UnitQuaternion::from_scaled_axis(Vector3::new(0.0, std::f64::consts::FRAC_PI_4, 0.0)),
    );
    let contacts = pair(&c, &pose_a, &c, &pose_b, 0.0);
    assert_eq!(contacts.len(), 1);
    assert!((contacts[0].normal.z - 1.0).abs() < 1e-9);
    assert!(matches!(
        pair_contact_jacobian(&c, &pose_a, &c, &pose_b, &contacts[0]),
        Err(sdrs_geometry::GeometryError::UnsupportedContactFeature(_))
    ));
}
