use nalgebra::{Isometry3, Translation3, Vector3};
use proptest::prelude::*;
use sdrs_geometry::ConvexHull;
use sdrs_geometry::gjk::{GjkCache, GjkSettings, Proximity, distance, gjk_distance};
use sdrs_geometry::testing::{hull, hull_with, place_at_gap, pose, unit_vector};

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

/// Depth of `p` inside hull `h` at `pose`: its distance to the nearest face plane (negative
/// outside). A vertex of B at depth `δ` inside A keeps the hulls intersecting under any
/// translation shorter than `δ`, so the pair's penetration depth is at least `δ`.
fn depth_inside(h: &ConvexHull, pose: &Isometry3<f64>, p: &nalgebra::Point3<f64>) -> f64 {
    let q = pose.inverse_transform_point(p);
    let v = h.vertices();
    h.triangles()
        .iter()
        .filter_map(|t| {
            let [a, b, c] = t.map(|i| v[i as usize]);
            let n = (b - a).cross(&(c - a));
            let len = n.norm();
            (len > 0.0).then(|| (a - q).dot(&n) / len)
        })
        .fold(f64::INFINITY, f64::min)
}

/// A lower bound on the penetration depth of the pair (0 or less when no vertex of one hull
/// is inside the other).
fn penetration_bound(
    a: &ConvexHull,
    pa: &Isometry3<f64>,
    b: &ConvexHull,
    pb: &Isometry3<f64>,
) -> f64 {
    let inside = |h: &ConvexHull, ph: &Isometry3<f64>, g: &ConvexHull, pg: &Isometry3<f64>| {
        g.vertices()
            .iter()
            .map(|v| depth_inside(h, ph, &(pg * v)))
            .fold(f64::NEG_INFINITY, f64::max)
    };
    inside(a, pa, b, pb).max(inside(b, pb, a, pa))
}

/// Distance between segments `p1 q1` and `p2 q2` (Ericson, sec. 5.1.9). Nearly parallel
/// segments take an end point; their closest pair is then also a vertex–face pair.
fn segment_distance(p1: Vector3<f64>, q1: Vector3<f64>, p2: Vector3<f64>, q2: Vector3<f64>) -> f64 {
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, e, b) = (d1.norm_squared(), d2.norm_squared(), d1.dot(&d2));
    let (c, f) = (d1.dot(&r), d2.dot(&r));
    let denom = a * e - b * b;
    let mut s = if denom > 1e-14 * a * e {
        ((b * f - c * e) / denom).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mut t = (b * s + f) / e;
    if t < 0.0 {
        t = 0.0;
        s = (-c / a).clamp(0.0, 1.0);
    } else if t > 1.0 {
        t = 1.0;
        s = ((b - c) / a).clamp(0.0, 1.0);
    }
    ((p1 + d1 * s) - (p2 + d2 * t)).norm()
}

/// Whether `p`, in the plane of triangle `a b c` (normal `n`), lies inside it.
fn in_triangle(p: Vector3<f64>, [a, b, c]: [Vector3<f64>; 3], n: Vector3<f64>) -> bool {
    [(a, b), (b, c), (c, a)]
        .iter()
        .all(|(u, v)| (v - u).cross(&(p - u)).dot(&n) >= 0.0)
}

/// Whether segment `p q` crosses triangle `t`.
fn segment_crosses(p: Vector3<f64>, q: Vector3<f64>, t: [Vector3<f64>; 3]) -> bool {
    let n = (t[1] - t[0]).cross(&(t[2] - t[0]));
    let (sp, sq) = ((p - t[0]).dot(&n), (q - t[0]).dot(&n));
    sp * sq <= 0.0 && sp != sq && in_triangle(p + (q - p) * (sp / (sp - sq)), t, n)
}

/// Distance from `p` to triangle `a b c`.
fn point_triangle_distance(p: Vector3<f64>, [a, b, c]: [Vector3<f64>; 3]) -> f64 {
    let n = (b - a).cross(&(c - a));
    if in_triangle(p, [a, b, c], n) {
        ((p - a).dot(&n) / n.norm()).abs()
    } else {
        [(a, b), (b, c), (c, a)]
            .iter()
            .map(|(u, v)| segment_distance(p, p, *u, *v))
            .fold(f64::INFINITY, f64::min)
    }
}

/// The exact distance between two hulls by enumeration (0 if an edge of one crosses a face of
/// the other): the closest pair of two separated convex polytopes is a vertex–face or an
/// edge–edge pair, and every candidate is a distance between two points of the hulls, so the
/// minimum is exact to round-off of the coordinates. (parry's GJK stops at its own tolerance,
/// about 1e-8 relative, too coarse an oracle here.) Call it where no vertex of one hull is
/// inside the other.
fn exact_distance(a: &ConvexHull, pa: &Isometry3<f64>, b: &ConvexHull, pb: &Isometry3<f64>) -> f64 {
    let world = |h: &ConvexHull, p: &Isometry3<f64>| -> Vec<Vector3<f64>> {
        h.vertices().iter().map(|v| (p * v).coords).collect()
    };
    let edges = |h: &ConvexHull, w: &[Vector3<f64>]| -> Vec<(Vector3<f64>, Vector3<f64>)> {
        let mut e: Vec<(u32, u32)> = h
            .triangles()
            .iter()
            .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
            .map(|(i, j)| (i.min(j), i.max(j)))
            .collect();
        e.sort_unstable();
        e.dedup();
        e.into_iter()
            .map(|(i, j)| (w[i as usize], w[j as usize]))
            .collect()
    };
    let (wa, wb) = (world(a, pa), world(b, pb));
    let mut best = f64::INFINITY;
    let (ea, eb) = (edges(a, &wa), edges(b, &wb));
    for (faces, w, points, other_edges) in [(a, &wa, &wb, &eb), (b, &wb, &wa, &ea)] {
        for t in faces.triangles() {
            let tri = t.map(|i| w[i as usize]);
            if other_edges
                .iter()
                .any(|(p, q)| segment_crosses(*p, *q, tri))
            {
                return 0.0;
            }
            for p in points.iter() {
                best = best.min(point_triangle_distance(*p, tri));
            }
        }
    }
    for (p1, q1) in &ea {
        for (p2, q2) in &eb {
            best = best.min(segment_distance(*p1, *q1, *p2, *q2));
        }
    }
    best
}

/// `pose` moved by a small rigid motion: translation `t` and rotation vector `r` (world frame,
/// about the pose's origin), as successive Newton iterates move a body.
fn nudge(pose: &Isometry3<f64>, t: &Vector3<f64>, r: &Vector3<f64>) -> Isometry3<f64> {
    let mut p = *pose;
    p.rotation = nalgebra::UnitQuaternion::from_scaled_axis(*r) * p.rotation;
    p.translation.vector += t;
    p
}

/// A box of half-extents `h` resting on the top face (+z) of box `ha`, in `ha`'s frame: turned
/// by `yaw` about z (faces stay parallel), upside down if `flip`, tilted by the rotation vector
/// `tilt`, its centre over `(fx · ha.x, fy · ha.y)` and its lowest point `gap` above the face
/// (`gap < 0` sinks it in).
#[allow(clippy::too_many_arguments)]
fn stacked(
    ha: &Vector3<f64>,
    hb: &Vector3<f64>,
    yaw: f64,
    flip: bool,
    tilt: &Vector3<f64>,
    fx: f64,
    fy: f64,
    gap: f64,
) -> Isometry3<f64> {
    use nalgebra::UnitQuaternion;
    let mut r = UnitQuaternion::from_axis_angle(&Vector3::z_axis(), yaw);
    if flip {
        r = UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI) * r;
    }
    let r = UnitQuaternion::from_scaled_axis(*tilt) * r;
    // Lowest corner of the rotated box relative to its centre.
    let low = (r * Vector3::x()).z.abs() * hb.x
        + (r * Vector3::y()).z.abs() * hb.y
        + (r * Vector3::z()).z.abs() * hb.z;
    Isometry3::from_parts(Translation3::new(fx * ha.x, fy * ha.y, ha.z + gap + low), r)
}

/// A near-touching pair: two boxes with nearly parallel faces (planks among them) at a gap of
/// ±1e-6 to 1e-2 of their size, or two random hulls placed at such a gap along a random
/// direction; posed anywhere.
fn near_touching_pair()
-> impl Strategy<Value = (ConvexHull, Isometry3<f64>, ConvexHull, Isometry3<f64>)> {
    let extent = || {
        prop_oneof![
            Just(Vector3::new(1.0, 0.2, 0.1)),
            (-1.5..0.0f64, -1.5..0.0f64, -1.5..0.0f64).prop_map(|(x, y, z)| Vector3::new(
                10f64.powf(x),
                10f64.powf(y),
                10f64.powf(z)
            )),
        ]
    };
    let tilt = prop_oneof![
        Just(Vector3::zeros()),
        (unit_vector(), -7.0..-1.5f64).prop_map(|(axis, e)| axis * 10f64.powf(e)),
    ];
    let yaw = prop_oneof![
        Just(0.0),
        Just(std::f64::consts::FRAC_PI_2),
        0.0..std::f64::consts::TAU
    ];
    let gap = (-6.0..-2.0f64, any::<bool>()).prop_map(|(e, sink)| {
        let g = 10f64.powf(e);
        if sink { -g } else { g }
    });
    let boxes = (
        extent(),
        extent(),
        yaw,
        any::<bool>(),
        tilt,
        (-1.2..1.2f64, -1.2..1.2f64),
        gap.clone(),
        pose(2.0),
    )
        .prop_map(|(ha, hb, yaw, flip, tilt, (fx, fy), gap, pa)| {
            let a = ConvexHull::cuboid(ha).unwrap();
            let b = ConvexHull::cuboid(hb).unwrap();
            let size = ha.norm() + hb.norm();
            let pb = pa * stacked(&ha, &hb, yaw, flip, &tilt, fx, fy, gap * size);
            (a, pa, b, pb)
        });
    let hulls = (
        hull(4, 60),
        hull(4, 60),
        pose(2.0),
        pose(2.0),
        unit_vector(),
        gap,
    )
        .prop_map(|(a, b, pa, pb, n, gap)| {
            let size = a.bounding_sphere_radius() + b.bounding_sphere_radius();
            let pb = place_at_gap(&a, &pa, &b, &pb, &n, gap * size);
            (a, pa, b, pb)
        });
    prop_oneof![3 => boxes, 1 => hulls]
}

/// Translation and rotation vector of A, then of B.
type Nudge = (Vector3<f64>, Vector3<f64>, Vector3<f64>, Vector3<f64>);

/// Small rigid motions of both bodies, from 1e-9 to 1e-2 of the size, as successive Newton
/// iterates (or time steps) produce.
fn nudges() -> impl Strategy<Value = Vec<Nudge>> {
    let small = || (unit_vector(), -9.0..-2.0f64).prop_map(|(d, e)| d * 10f64.powf(e));
    proptest::collection::vec((small(), small(), small(), small()), 1..4)
}

/// The book stack's planks (2 x 0.4 x 0.2 m) one on another, 0.1 to 1 mm apart, slightly
/// tilted and turned, in tilted world poses: every query, cold, repeated with its own cache or
/// warm-started from the pose before, gives the exact distance. Four support points of one
/// plank face tie against one corner of the other, so GJK meets simplices that are flat to
/// round-off; one of them used to be taken for a tetrahedron enclosing the origin (a separated
/// pair reported as intersecting, depending on the cache).
#[test]
fn stacked_planks_are_separated_whatever_the_cache() {
    const STEPS: usize = 5000;
    use nalgebra::UnitQuaternion;
    let half = Vector3::new(1.0, 0.2, 0.1);
    let plank = ConvexHull::cuboid(half).unwrap();
    let settings = GjkSettings::default();
    let mut checked = 0;
    for (k, gap) in [1e-4, 2.5e-4, 4e-4, 1e-3].into_iter().enumerate() {
        for step in 0..STEPS {
            let t = step as f64 + 0.25 * k as f64;
            let world = Isometry3::from_parts(
                Translation3::new(0.3 * t.sin(), 0.2 * t.cos(), 0.1 * t),
                UnitQuaternion::from_scaled_axis(Vector3::new(
                    0.7 * (1.3 * t).sin(),
                    0.5 * (0.7 * t).cos(),
                    2.9 * t,
                )),
            );
            let tilt = Vector3::new(1e-4 * (2.1 * t).sin(), 3e-4 * (1.7 * t).cos(), 0.0);
            let yaw = [0.0, std::f64::consts::FRAC_PI_2, 0.05 * t][step % 3];
            let local = stacked(
                &half,
                &half,
                yaw,
                step % 2 == 1,
                &tilt,
                0.3 * t.sin(),
                0.5 * t.cos(),
                gap,
            );
            let (pa, pb) = (world, world * local);
            let exact = exact_distance(&plank, &pa, &plank, &pb);
            let before = nudge(
                &pb,
                &Vector3::new(2e-5, -1e-5, 3e-5),
                &Vector3::new(1e-5, 0.0, -2e-5),
            );
            let mut caches = [GjkCache::default(); 3];
            gjk_distance(&plank, &pa, &plank, &pb, &settings, &mut caches[1]);
            gjk_distance(&plank, &pa, &plank, &before, &settings, &mut caches[2]);
            for (c, mut cache) in caches.into_iter().enumerate() {
                let p = gjk_distance(&plank, &pa, &plank, &pb, &settings, &mut cache);
                let s = p.separation().unwrap_or_else(|| {
                    panic!("gap {gap}, step {step}, cache {c}: intersecting at distance {exact:e}")
                });
                assert!(
                    (s.distance - exact).abs() <= 1e-9 * exact,
                    "gap {gap}, step {step}, cache {c}: {:e}, exact {exact:e}",
                    s.distance
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 4 * STEPS * 3);
}

proptest! {
    #![proptest_config(sdrs_geometry::testing::cases(1000))]

    /// GJK's verdict and distance do not depend on its warm-start cache: a cold query, and
    /// queries warm-started by the caches left by nearby poses (a few small moves of both
    /// bodies), by an unrelated pose or by the same query, all agree with the exact answer — on
    /// the verdict whenever the pair is clearly apart (exact distance above 1e-9 of the size)
    /// or clearly overlapping (a vertex more than that inside the other hull), and on the
    /// distance to 1e-9 relative (or coordinate round-off).
    #[test]
    fn verdict_and_distance_do_not_depend_on_the_cache(
        (a, pa, b, pb) in near_touching_pair(),
        moves in nudges(),
        stale in pose(2.0),
    ) {
        let settings = GjkSettings::default();
        let size = a.bounding_sphere_radius() + b.bounding_sphere_radius();
        let clear = 1e-9 * size;
        // Distances agree to 1e-9 relative, or to the round-off of the coordinates (the
        // vertices' world positions are only known to ε · size) for the smallest ones.
        let round_off = 16.0 * f64::EPSILON * size;
        let depth = penetration_bound(&a, &pa, &b, &pb);
        // The exact distance where no vertex is inside the other hull.
        let exact = (depth <= 0.0).then(|| exact_distance(&a, &pa, &b, &pb));
        let cold = gjk_distance(&a, &pa, &b, &pb, &settings, &mut GjkCache::default());
        // Caches left by a path of nearby poses ending next to (pa, pb), by an unrelated pose
        // and by the same query.
        let mut caches = Vec::new();
        let mut cache = GjkCache::default();
        let (mut qa, mut qb) = (pa, pb);
        for (ta, ra, tb, rb) in moves.iter().rev() {
            qa = nudge(&qa, &(ta * size), ra);
            qb = nudge(&qb, &(tb * size), rb);
            gjk_distance(&a, &qa, &b, &qb, &settings, &mut cache);
            caches.push(cache);
        }
        let mut far = GjkCache::default();
        gjk_distance(&a, &pa, &b, &stale, &settings, &mut far);
        caches.push(far);
        let mut same = GjkCache::default();
        gjk_distance(&a, &pa, &b, &pb, &settings, &mut same);
        caches.push(same);
        for (k, mut cache) in caches.into_iter().enumerate() {
            let warm = gjk_distance(&a, &pa, &b, &pb, &settings, &mut cache);
            for (name, p) in [("cold", &cold), ("warm", &warm)] {
                match p {
                    Proximity::Separated(s) => {
                        prop_assert!(depth <= clear,
                            "{} (cache {}): separated at {:e}, but a vertex is {:e} deep",
                            name, k, s.distance, depth);
                        if let Some(exact) = exact {
                            prop_assert!((s.distance - exact).abs() <= 1e-9 * exact + round_off,
                                "{} (cache {}): {:e}, exact {:e}", name, k, s.distance, exact);
                        }
                    }
                    Proximity::Intersecting { .. } => prop_assert!(exact.is_none_or(|e| e <= clear),
                        "{} (cache {}): intersecting, exact distance {:?}", name, k, exact),
                }
            }
            if let (Proximity::Separated(c), Proximity::Separated(w)) = (&cold, &warm) {
                prop_assert!((c.distance - w.distance).abs() <= 1e-9 * c.distance + round_off,
                    "cache {}: cold {:e} warm {:e}", k, c.distance, w.distance);
            }
        }
    }
}

fn iterations(p: &Proximity) -> usize {
    match p {
        Proximity::Separated(s) => s.iterations,
        Proximity::Intersecting { iterations } => *iterations,
    }
}

proptest! {
    #![proptest_config(sdrs_geometry::testing::cases(200))]

    /// A warm start never costs more iterations than a cold one: random pairs of 4 to 768
    /// vertices 1 mm to 10 cm apart, queried again at the same poses with the cache of the
    /// first query (one iteration: the cached simplex is the answer), and at poses moved by
    /// 0.1 mm along the separating direction (the benchmark's warm case).
    #[test]
    fn warm_start_never_takes_more_iterations_than_cold(
        (a, b) in prop_oneof![4usize..=120, Just(96), Just(768)]
            .prop_flat_map(|m| (hull_with(m), hull_with(m))),
        pa in pose(1.0), pb in pose(1.0), n in unit_vector(), exponent in -3.0..-1.0f64,
    ) {
        let settings = GjkSettings::default();
        let pb = place_at_gap(&a, &pa, &b, &pb, &n, 10f64.powf(exponent));
        let moved = Translation3::from(n * 1e-4) * pb;
        for pose_b in [pb, moved] {
            let mut cache = GjkCache::default();
            gjk_distance(&a, &pa, &b, &pb, &settings, &mut cache);
            let cold = gjk_distance(&a, &pa, &b, &pose_b, &settings, &mut GjkCache::default());
            let warm = gjk_distance(&a, &pa, &b, &pose_b, &settings, &mut cache);
            prop_assert!(iterations(&warm) <= iterations(&cold),
                "warm {} > cold {} iterations", iterations(&warm), iterations(&cold));
            if pose_b == pb {
                prop_assert_eq!(iterations(&warm), 1);
            }
        }
    }
}
