//! The long-range potential: derivatives of the triangle-pair potential, the closed form of
//! its centred limit, and Theorem 5.4's four properties of the hierarchical sum
//! (Barrier-Form, Smoothness, Non-prehensile, Non-vanishing), plus agreement with the
//! brute-force sum where nothing is blended; the paper's far field (eq. 7) against the counted
//! one: whose force falls with distance through the blends.

use crate::common::{VertexJacobians, pose_derivative_errors};
use nalgebra::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3};
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use sdrs_contact::long_range::radial::centred;
use sdrs_contact::long_range::triangle::{TrianglePotential, triangle_potential};
use sdrs_contact::long_range::{FarField, LongRange, MeshShape};
use sdrs_contact::{ContactModel, Order, PairContact, PairOutcome};
use sdrs_geometry::TriMesh;
use sdrs_geometry::testing::{central_differences, relative_error, sample, unit_vector};
use sdrs_geometry::twist::{Twist, perturb};

fn random_point(runner: &mut TestRunner, centre: Vector3<f64>) -> Point3<f64> {
    Point3::from(centre + Vector3::from_fn(|_, _| sample(-0.5..0.5f64, runner)))
}

/// Two random triangles around centres `gap` apart along x, re-drawn until disjoint.
fn triangle_pair(runner: &mut TestRunner, gap: f64) -> ([Point3<f64>; 3], [Point3<f64>; 3]) {
    loop {
        let a = [(); 3].map(|_| random_point(runner, Vector3::zeros()));
        let b = [(); 3].map(|_| random_point(runner, Vector3::new(gap, 0.0, 0.0)));
        if sdrs_contact::distance::triangle_triangle(&a, &b).distance > 0.05 {
            return (a, b);
        }
    }
}

fn flatten(a: &[Point3<f64>; 3], b: &[Point3<f64>; 3]) -> [f64; 18] {
    std::array::from_fn(|k| {
        if k < 9 {
            a[k / 3][k % 3]
        } else {
            b[(k - 9) / 3][k % 3]
        }
    })
}

fn unflatten(x: &[f64; 18]) -> ([Point3<f64>; 3], [Point3<f64>; 3]) {
    let p = |k: usize| Point3::new(x[3 * k], x[3 * k + 1], x[3 * k + 2]);
    ([p(0), p(1), p(2)], [p(3), p(4), p(5)])
}

#[test]
fn triangle_potential_derivatives_match_differences() {
    let mut runner = TestRunner::deterministic();
    for case in 0..200 {
        let gap = sample(0.3..4.0f64, &mut runner);
        let (a, b) = triangle_pair(&mut runner, gap);
        let t = triangle_potential(&a, &b, None, 100).unwrap().unwrap();
        let x = flatten(&a, &b);
        let at = |x: &[f64; 18]| {
            let (a, b) = unflatten(x);
            triangle_potential(&a, &b, None, 100).unwrap().unwrap()
        };
        let fd = central_differences(|x| at(x).value, &x, 1e-4);
        let e = relative_error(t.gradient.as_slice(), &fd, 1e-12);
        assert!(e < 1e-7, "case {case}: gradient error {e:e}");
        let fd_h: Vec<f64> = central_differences(|x| at(x).gradient, &x, 1e-4)
            .iter()
            .flat_map(|c| c.iter().copied().collect::<Vec<_>>())
            .collect();
        let e = relative_error(t.hessian().as_slice(), &fd_h, 1e-12);
        assert!(e < 1e-6, "case {case}: Hessian error {e:e}");
        // Translation invariance: the forces on the two triangles cancel.
        let net: Vector3<f64> = (0..6)
            .map(|k| t.gradient.fixed_rows::<3>(3 * k).into_owned())
            .sum();
        assert!(
            net.norm() < 1e-9 * t.gradient.norm(),
            "case {case}: net force {net:?}"
        );
    }
}

/// A triangle of size `10^size` with corners in a cube, or (when `collinear`) with its third
/// corner on the line through the first two: a degenerate triangle is still a valid input.
fn triangle() -> impl Strategy<Value = [Point3<f64>; 3]> {
    (
        prop::array::uniform3(prop::array::uniform3(-1.0..1.0f64)),
        -2.0..1.0f64,
        any::<bool>(),
        0.0..1.0f64,
    )
        .prop_map(|(corners, size, collinear, t)| {
            let mut c = corners.map(|x| Point3::from(x) * 10f64.powf(size));
            if collinear {
                c[2] = c[0] + (c[1] - c[0]) * t;
            }
            c
        })
}

proptest! {
    #![proptest_config(sdrs_geometry::testing::cases(256))]

    /// The triangle pair's inner solve converges on every separated pair, from gaps of 1e-9 to
    /// 10, for tiny, large and degenerate triangles, cold and from a warm start at another
    /// feasible plane (the optimum scaled by one half), to the same value.
    #[test]
    fn triangle_solve_converges_on_any_separated_pair(
        a in triangle(), b in triangle(), n in unit_vector(), exponent in -9.0..1.0f64,
    ) {
        // B moved along −n until its extent along n ends `gap` below A's.
        let along = |t: &[Point3<f64>; 3], f: fn(f64, f64) -> f64, start: f64| {
            t.iter().map(|p| p.coords.dot(&n)).fold(start, f)
        };
        let gap = 10f64.powf(exponent);
        let shift = along(&a, f64::min, f64::INFINITY) - along(&b, f64::max, f64::NEG_INFINITY) - gap;
        let b = b.map(|p| p + n * shift);
        let cold = triangle_potential(&a, &b, None, 100).unwrap().expect("separated");
        prop_assert!(cold.value.is_finite() && cold.value > 0.0);
        let warm = triangle_potential(&a, &b, Some(cold.plane * 0.5), 100).unwrap().expect("separated");
        prop_assert!((warm.value - cold.value).abs() <= 1e-10 * cold.value, "{} vs {}", warm.value, cold.value);
    }
}

#[test]
fn collapsed_triangles_give_the_centred_closed_form() {
    for r in [0.05, 0.3, 1.0, 7.0, 100.0] {
        let a = [Point3::origin(); 3];
        let b = [Point3::new(r, 0.0, 0.0); 3];
        let t = triangle_potential(&a, &b, None, 100).unwrap().unwrap();
        let expected = centred(r).value;
        assert!(
            (t.value - expected).abs() < 1e-12 * expected,
            "r = {r}: {} vs {expected}",
            t.value
        );
    }
}

#[test]
fn triangle_forces_push_apart_and_grow_without_bound() {
    let mut runner = TestRunner::deterministic();
    for case in 0..200 {
        let gap = sample(0.3..3.0f64, &mut runner);
        let (a, b) = triangle_pair(&mut runner, gap);
        let t = triangle_potential(&a, &b, None, 100).unwrap().unwrap();
        let c = sdrs_contact::distance::triangle_triangle(&a, &b);
        let apart = c.a - c.b; // from B towards A
        for k in 0..6 {
            let force = -t.gradient.fixed_rows::<3>(3 * k).into_owned();
            let sign = if k < 3 { 1.0 } else { -1.0 };
            assert!(
                sign * force.dot(&apart) > 0.0,
                "case {case}: vertex {k}'s force {force:?} does not push away"
            );
        }
    }
    // Barrier: the energy grows without bound as two parallel triangles meet.
    let a = [
        Point3::origin(),
        Point3::new(1.0, 0.0, 0.0),
        Point3::new(0.0, 1.0, 0.0),
    ];
    let mut last = 0.0;
    for gap in [1e-1, 1e-2, 1e-3, 1e-4, 1e-5] {
        let b = a.map(|p| p + Vector3::new(0.0, 0.0, gap));
        let v = triangle_potential(&a, &b, None, 100)
            .unwrap()
            .unwrap()
            .value;
        assert!(v > last && v > 1.0 / gap, "gap {gap}: {v}");
        last = v;
    }
    let touching = a.map(|p| p + Vector3::new(0.5, 0.0, 0.0));
    assert!(
        triangle_potential(&a, &touching, None, 100)
            .unwrap()
            .is_none()
    );
}

fn ball(radius: f64, level: u32) -> MeshShape {
    MeshShape::new(TriMesh::icosphere(radius, level).unwrap()).unwrap()
}

fn eval(
    model: &LongRange,
    a: &MeshShape,
    pa: &Isometry3<f64>,
    b: &MeshShape,
    pb: &Isometry3<f64>,
    order: Order,
) -> PairContact {
    match model
        .evaluate(a, pa, b, pb, &mut Default::default(), order)
        .unwrap()
    {
        PairOutcome::Separated(c) => c,
        PairOutcome::Penetrating => panic!("penetrating"),
    }
}

#[test]
fn hierarchical_pose_derivatives_match_differences_across_blend_regions() {
    for far in [FarField::Centred, FarField::Counted] {
        hierarchical_pose_derivatives_match_differences_across_blend_regions_with(
            LongRange::new(0.5).unwrap().with_far_field(far),
        );
    }
}

fn hierarchical_pose_derivatives_match_differences_across_blend_regions_with(model: LongRange) {
    let a = ball(0.5, 1);
    let b = ball(0.3, 1);
    let turn = UnitQuaternion::from_scaled_axis(Vector3::new(0.3, -0.2, 0.5));
    // From nearly touching (exact leaf pairs) through blending at many levels to far apart.
    let mut seen = (0, 0);
    for distance in [0.83, 0.9, 1.0, 1.2, 1.5, 2.0, 3.0, 6.0] {
        let pa = Isometry3::identity();
        let pb = Isometry3::from_parts(Translation3::new(distance, 0.1, -0.05), turn);
        let (out, census) = model
            .evaluate_counted(&a, &pa, &b, &pb, &mut Default::default(), Order::Hessian)
            .unwrap();
        let c = out.contact().unwrap().clone();
        seen.0 += census.exact;
        seen.1 += census.blended;
        let at = |x: &[f64; 12], order: Order| {
            let xa = Twist::from_column_slice(&x[..6]);
            let xb = Twist::from_column_slice(&x[6..]);
            eval(
                &model,
                &a,
                &perturb(&pa, &xa),
                &b,
                &perturb(&pb, &xb),
                order,
            )
        };
        let (g, h) = pose_derivative_errors(&c, 1e-5, at);
        assert!(
            g < 1e-7,
            "distance {distance}: gradient error {g:e} ({census:?})"
        );
        assert!(
            h < 1e-6,
            "distance {distance}: Hessian error {h:e} ({census:?})"
        );
    }
    assert!(
        seen.0 > 0 && seen.1 > 0,
        "exact and blended terms were both exercised: {seen:?}"
    );
}

/// Shape derivatives: the gradient and the pose-vertex mixed block of every vertex of both
/// meshes (body frames) against central differences of the potential and of its pose
/// gradient with that vertex moved (the hierarchy's radii held, as `MeshShape::moved` does),
/// from nearly touching (exact pairs) through nested blends to far.
#[test]
fn vertex_derivatives_match_differences() {
    for far in [FarField::Centred, FarField::Counted] {
        vertex_derivatives_match_differences_with(LongRange::new(0.5).unwrap().with_far_field(far));
    }
}

fn vertex_derivatives_match_differences_with(model: LongRange) {
    let a = ball(0.5, 1);
    let b = ball(0.3, 1);
    let turn = UnitQuaternion::from_scaled_axis(Vector3::new(0.3, -0.2, 0.5));
    let pa = Isometry3::rotation(Vector3::new(0.0, 0.4, 0.1));
    for distance in [0.83, 1.0, 1.5, 3.0] {
        let pb = Isometry3::from_parts(Translation3::new(distance, 0.1, -0.05), turn);
        let c = eval(&model, &a, &pa, &b, &pb, Order::Design);
        let counts = [a.mesh().vertices().len(), b.mesh().vertices().len()];
        assert_eq!(c.vertices.len(), counts[0] + counts[1]);
        let mut jacobians = VertexJacobians::default();
        for listed in &c.vertices {
            let shape = [&a, &b][listed.body];
            jacobians.add(listed, 1e-6, |x, order| {
                let mut vertices = shape.mesh().vertices().to_vec();
                vertices[listed.vertex] += Vector3::new(x[0], x[1], x[2]);
                let moved = shape.moved(vertices).unwrap();
                let (sa, sb) = if listed.body == 0 {
                    (&moved, &b)
                } else {
                    (&a, &moved)
                };
                eval(&model, sa, &pa, sb, &pb, order)
            });
        }
        let (g, m) = jacobians.errors();
        assert!(
            g < 1e-6 && m < 1e-5,
            "distance {distance}: gradient {g:e}, mixed {m:e}"
        );
    }
}

#[test]
fn the_hierarchical_potential_is_a_barrier_pushes_apart_and_never_vanishes() {
    for far in [FarField::Centred, FarField::Counted] {
        the_hierarchical_potential_is_a_barrier_pushes_apart_and_never_vanishes_with(
            LongRange::new(0.5).unwrap().with_far_field(far),
        );
    }
}

fn the_hierarchical_potential_is_a_barrier_pushes_apart_and_never_vanishes_with(model: LongRange) {
    let a = ball(0.5, 1);
    let b = ball(0.5, 1);
    let pa = Isometry3::identity();
    // The icospheres' faces are closer to the centre than their vertices (radius 0.5): put
    // them 1 + gap apart so that two vertices face each other across the gap.
    let mut last = 0.0;
    for gap in [1e-1, 1e-2, 1e-3, 1e-4] {
        let pb = Isometry3::translation(1.0 + gap, 0.0, 0.0);
        let v = eval(&model, &a, &pa, &b, &pb, Order::Value).value;
        assert!(v > last, "gap {gap}: energy {v} does not grow");
        last = v;
    }
    assert!(last > 1e4, "energy at 0.1 mm: {last}");
    let overlapping = Isometry3::translation(0.9, 0.0, 0.0);
    assert_eq!(
        model
            .evaluate(
                &a,
                &pa,
                &b,
                &overlapping,
                &mut Default::default(),
                Order::Value
            )
            .unwrap(),
        PairOutcome::Penetrating
    );
    // Non-prehensile and non-vanishing: from 1.2 to 100 size units apart, the force on each
    // body points away from the other, equal and opposite, and never zero.
    for distance in [1.2, 3.0, 10.0, 100.0] {
        let dir = Vector3::new(1.0, 0.4, -0.3).normalize();
        let pb = Isometry3::translation(dir.x * distance, dir.y * distance, dir.z * distance);
        let c = eval(&model, &a, &pa, &b, &pb, Order::Gradient);
        let (fa, fb) = (
            -c.gradient.fixed_rows::<3>(0),
            -c.gradient.fixed_rows::<3>(6),
        );
        assert!(
            fa.dot(&-dir) > 0.0 && fb.dot(&dir) > 0.0,
            "distance {distance}"
        );
        assert!((fa + fb).norm() < 1e-9 * fa.norm(), "distance {distance}");
        assert!(fa.norm() > 0.0, "distance {distance}: the force vanished");
    }
}

#[test]
fn without_blending_the_hierarchy_is_the_brute_force_sum() {
    // Two unit squares (two triangles each) 5 cm apart, facing each other: every node pair's
    // spheres overlap, so no pair is blended and the sum is the exact one of eq. 3.
    let square = |z: f64| {
        TriMesh::new(
            vec![
                Point3::new(0.0, 0.0, z),
                Point3::new(1.0, 0.0, z),
                Point3::new(1.0, 1.0, z),
                Point3::new(0.0, 1.0, z),
            ],
            vec![[0, 1, 2], [0, 2, 3]],
        )
        .unwrap()
    };
    let a = MeshShape::new(square(0.0)).unwrap();
    let b = MeshShape::new(square(0.05)).unwrap();
    let model = LongRange::new(0.5).unwrap();
    let id = Isometry3::identity();
    let (h, census) = model
        .evaluate_counted(&a, &id, &b, &id, &mut Default::default(), Order::Hessian)
        .unwrap();
    assert_eq!((census.blended, census.centred, census.exact), (0, 0, 4));
    let bf = model.brute_force(&a, &id, &b, &id, Order::Hessian).unwrap();
    let (h, bf) = (h.contact().unwrap(), bf.contact().unwrap());
    assert!((h.value - bf.value).abs() < 1e-12 * bf.value);
    assert!((h.gradient - bf.gradient).norm() < 1e-12 * bf.gradient.norm());
    assert!((h.hessian - bf.hessian).norm() < 1e-12 * bf.hessian.norm());
    // Further apart the hierarchy blends and stays below the exact sum (Lemma 5.1 iii).
    let far = Isometry3::translation(0.0, 0.0, 3.0);
    let (h, census) = model
        .evaluate_counted(&a, &id, &b, &far, &mut Default::default(), Order::Value)
        .unwrap();
    let bf = model.brute_force(&a, &id, &b, &far, Order::Value).unwrap();
    assert!(census.centred > 0);
    assert!(h.value() <= bf.value() && h.value() > 0.0);
}

#[test]
fn long_range_refuses_bad_input() {
    assert!(LongRange::new(0.0).is_err());
    assert!(LongRange::new(f64::NAN).is_err());
    let model = LongRange::new(0.5).unwrap();
    let a = ball(0.5, 0);
    let bad = Isometry3::translation(f64::NAN, 0.0, 0.0);
    assert!(
        model
            .evaluate(
                &a,
                &Isometry3::identity(),
                &a,
                &bad,
                &mut Default::default(),
                Order::Value
            )
            .is_err()
    );
    // A moved shape keeps its triangles: it needs as many vertices.
    assert!(matches!(
        a.moved(vec![Point3::origin(); 3]),
        Err(sdrs_contact::ContactError::Geometry { .. })
    ));
}

#[test]
fn warm_starts_change_the_cost_not_the_result() {
    use sdrs_contact::long_range::LongRangeCache;
    let model = LongRange::new(0.1).unwrap();
    let a = ball(0.5, 2);
    let id = Isometry3::identity();
    let mut cache = LongRangeCache::default();
    let first = Isometry3::translation(1.01, 0.0, 0.0);
    model
        .evaluate_counted(&a, &id, &a, &first, &mut cache, Order::Hessian)
        .unwrap();
    let moved = Isometry3::translation(1.0101, 0.0, 0.0001);
    let (warm, warm_census) = model
        .evaluate_counted(&a, &id, &a, &moved, &mut cache, Order::Hessian)
        .unwrap();
    let (cold, cold_census) = model
        .evaluate_counted(
            &a,
            &id,
            &a,
            &moved,
            &mut LongRangeCache::default(),
            Order::Hessian,
        )
        .unwrap();
    let (w, c) = (warm.contact().unwrap(), cold.contact().unwrap());
    assert!((w.value - c.value).abs() < 1e-12 * c.value);
    assert!((w.gradient - c.gradient).norm() < 1e-9 * c.gradient.norm());
    assert!((w.hessian - c.hessian).norm() < 1e-8 * c.hessian.norm());
    assert!(
        5 * warm_census.iterations < 4 * cold_census.iterations,
        "warm {} vs cold {} Newton iterations",
        warm_census.iterations,
        cold_census.iterations
    );
}

/// The recursion's top levels run as parallel branches merged in a fixed order: the result
/// is bit-identical for any number of threads, shape derivatives included.
#[test]
fn results_are_bit_identical_for_any_thread_count() {
    let model = LongRange::new(0.5).unwrap();
    let (a, b) = (ball(0.5, 2), ball(0.3, 2));
    let pb = Isometry3::from_parts(
        Translation3::new(0.85, 0.1, -0.05),
        UnitQuaternion::from_scaled_axis(Vector3::new(0.3, -0.2, 0.5)),
    );
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| eval(&model, &a, &Isometry3::identity(), &b, &pb, Order::Design))
    };
    let one = run(1);
    assert!(one.value > 0.0 && !one.vertices.is_empty());
    assert_eq!(one, run(2));
    assert_eq!(one, run(3));
}

/// Issue 18 (sort under receding-horizon control, frame 10): a rod lying on the ground pushes
/// a cube, the rod's bottom face meeting the cube's side face edge-on 0.8 mm apart. The
/// pair's plane from the previous evaluation (a configuration where the rod's bottom
/// triangle was just below the cube's lowest corner, so a nearly horizontal plane was
/// optimal) is still feasible here, but a corner lies 1.6e-8 from it: `L` = 6.3e7 there
/// against the optimum's 8.6e3, and its plane Hessian (entries 1e23, a rank-one
/// term 1e24 times the rest) does not factor in double precision. The solve took that start
/// because it was feasible, and failed before its first step ("0 iterations,
/// |grad| = 4.149e15"); from the closest-point plane it converges.
#[test]
fn a_stale_warm_start_touching_a_corner_gives_way_to_the_closest_point_plane() {
    let p = |x: f64, y: f64, z: f64| Point3::new(x, y, z);
    let rod = [
        p(
            0.49076271259940796,
            -0.2265297678054781,
            0.000258993477098568,
        ),
        p(
            -0.10928059487280092,
            -0.18718482701464959,
            0.00018976936002024908,
        ),
        p(
            0.49071904367175523,
            -0.18652979165169836,
            0.0002581438819611037,
        ),
    ];
    let cube = [
        p(
            0.194504650257454,
            -0.1852180265507614,
            0.00027984072135722043,
        ),
        p(
            0.2945013601102501,
            -0.18598445652338247,
            0.0005455543129996437,
        ),
        p(
            0.1942369758692133,
            -0.18547294938582387,
            0.10027915754287378,
        ),
    ];
    let stale = nalgebra::Vector4::new(
        0.000615720596015945,
        -0.22110438280310676,
        -0.9510042443888191,
        -0.04080616404788603,
    );
    let gap = sdrs_contact::distance::triangle_triangle(&rod, &cube).distance;
    // The stale plane separates the triangles, with a corner 1.6e-8 from it.
    let slack = |x: &Point3<f64>| stale.xyz().dot(&x.coords) + stale.w;
    let slacks: Vec<f64> = rod
        .iter()
        .map(slack)
        .chain(cube.iter().map(|x| -slack(x)))
        .collect();
    assert!(
        slacks.iter().all(|&s| s > 0.0)
            && slacks.iter().copied().fold(f64::INFINITY, f64::min) < 1e-7,
        "{slacks:?}"
    );
    assert!(gap > 1e-4, "gap {gap}");
    let cold = triangle_potential(&rod, &cube, None, 100)
        .unwrap()
        .expect("separated");
    let warm = warm_from(&rod, &cube, stale, &cold);
    assert!((warm.plane - cold.plane).norm() <= 1e-8 * cold.plane.norm());
}

/// The pair's potential warm-started at `start`, asserted equal to the `cold` one.
fn warm_from(
    a: &[Point3<f64>; 3],
    b: &[Point3<f64>; 3],
    start: nalgebra::Vector4<f64>,
    cold: &TrianglePotential,
) -> TrianglePotential {
    let warm = triangle_potential(a, b, Some(start), 100)
        .unwrap()
        .expect("separated");
    assert!(
        (warm.value - cold.value).abs() <= 1e-10 * cold.value,
        "{} vs {}",
        warm.value,
        cold.value
    );
    warm
}

/// Issue 18 (4-cube sort with a standing post, `--rod=-0.375,-0.32,0`, frame 1): the post's
/// side face and a cube's side face, parallel and 6.75 cm apart, overlap in height. Across the
/// centroids' direction their extents were separated by only 1e-9, and the cold start took
/// that plane: `L` = 8.5e8 there, its plane Hessian did not factor, and the solve failed before
/// its first step. The cold start now needs half the centroids' distance before it trusts that
/// direction; it converges from the closest-point plane, to the same optimum as from another
/// warm start.
#[test]
fn parallel_faces_overlapping_across_the_centroids_converge_from_a_cold_start() {
    let p = |x: f64, y: f64, z: f64| Point3::new(x, y, z);
    let post = [
        p(
            -0.21247687663442075,
            -0.3174730770474708,
            0.010271584289083785,
        ),
        p(-0.21247633482864814, -0.317472441749982, 0.1702715842869052),
        p(
            -0.25247633482841875,
            -0.3174724436861011,
            0.17027171973835603,
        ),
    ];
    let cube = [
        p(
            -0.20000078194054893,
            -0.24999352695543275,
            0.0014546567614929645,
        ),
        p(
            -0.2002628114214754,
            -0.2499950814904864,
            0.10145431345157639,
        ),
        p(
            -0.30026246812360047,
            -0.2499951682725703,
            0.1011922839692693,
        ),
    ];
    let gap = sdrs_contact::distance::triangle_triangle(&post, &cube).distance;
    assert!((gap - 0.0675).abs() < 1e-4, "gap {gap}");
    let cold = triangle_potential(&post, &cube, None, 100)
        .unwrap()
        .expect("separated");
    assert!(cold.iterations <= 20, "{} iterations", cold.iterations);
    // The cube is on the plane's negative side, in +y of the post.
    assert!(cold.plane.y < 0.0 && cold.value.is_finite());
    warm_from(&post, &cube, cold.plane * 0.5, &cold);
}

/// The potential and the force along the line of centres on a 10 cm cube from a 60 x 4 x 8 cm
/// rod (12 triangles each) `d` m apart, centre to centre, under `model` (with `brute`, the
/// brute-force sum of its exact triangle pairs).
fn rod_on_cube(model: &LongRange, brute: bool, d: f64) -> (f64, f64) {
    let rod = MeshShape::new(TriMesh::cuboid(Vector3::new(0.3, 0.02, 0.04)).unwrap()).unwrap();
    let cube = MeshShape::new(TriMesh::cuboid(Vector3::repeat(0.05)).unwrap()).unwrap();
    let (at, home) = (Isometry3::translation(0.0, -d, 0.0), Isometry3::identity());
    let c = if brute {
        model
            .brute_force(&rod, &at, &cube, &home, Order::Gradient)
            .unwrap()
            .contact()
            .unwrap()
            .clone()
    } else {
        eval(model, &rod, &at, &cube, &home, Order::Gradient)
    };
    (c.value, -c.gradient[7])
}

#[test]
fn the_papers_far_field_pushes_harder_in_its_blend_than_nearer_in() {
    // Eq. 7's single centred term per node pair replaces a near sum of 144 triangle pairs:
    // where the roots blend (their spheres touch at 0.39 m centre to centre, ε = 0.1), the
    // dropping potential pushes 5x harder than at 0.425 m (measured: 1.29e4 and 6.47e4).
    let model = LongRange::new(0.1).unwrap();
    let (near, blend) = (
        rod_on_cube(&model, false, 0.425).1,
        rod_on_cube(&model, false, 0.575).1,
    );
    assert!(near > 0.0 && blend > 3.0 * near, "{near:e}, {blend:e}");
}

#[test]
fn the_counted_far_field_pushes_less_the_farther_apart_and_tracks_the_exact_sum() {
    // From 4 cm apart (0.11 m between centres) to 2.4 m, through the blends of every level
    // (measured: forces within 12% of the brute-force sum's up to 0.7 m, values within 0.6%).
    let model = LongRange::new(0.5)
        .unwrap()
        .with_far_field(FarField::Counted);
    let mut last = f64::INFINITY;
    for k in 0..=92 {
        let d = 0.11 + 0.025 * k as f64;
        let (value, push) = rod_on_cube(&model, false, d);
        assert!(push > 0.0 && push < last, "{d} m: {push:e} after {last:e}");
        last = push;
        if d <= 0.7 {
            let (exact, exact_push) = rod_on_cube(&model, true, d);
            assert!(
                (value - exact).abs() < 1e-2 * exact,
                "{d} m: {value} vs {exact}"
            );
            assert!(
                (push - exact_push).abs() < 0.15 * exact_push,
                "{d} m: {push:e} vs {exact_push:e}"
            );
        }
    }
}
