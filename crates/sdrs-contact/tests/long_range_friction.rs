//! Long-range friction (appendix A.3): a block sliding over a slab, both triangle meshes.
//! Step-(t+1) and step-t derivatives against differences (the frames rebuilt at every
//! perturbed step-t state), forces that oppose the slip and cancel between the bodies, the
//! local support (only triangle pairs within the margin rub), and bad input.

use crate::common::pose_derivative_errors;
use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use proptest::test_runner::TestRunner;
use sdrs_contact::friction::PlaneFriction;
use sdrs_contact::long_range::MeshShape;
use sdrs_contact::long_range::friction::{LongRangeFriction, TriangleFrames};
use sdrs_contact::{ContactError, LaggedFriction, Order, PairContact};
use sdrs_geometry::TriMesh;
use sdrs_geometry::testing::{central_differences, relative_error, sample};
use sdrs_geometry::twist::{Twist, perturb};

const DT: f64 = 0.01;
const STIFFNESS: f64 = 1e-3;
const EPSILON: f64 = 0.5;

struct Sliding {
    slab: MeshShape,
    block: MeshShape,
    now: [Isometry3<f64>; 2],
    next: [Isometry3<f64>; 2],
}

fn model() -> LongRangeFriction {
    let friction = PlaneFriction::new(0.6, DT)
        .unwrap()
        .with_velocity_epsilon(1e-4)
        .unwrap();
    LongRangeFriction::new(friction, EPSILON).unwrap()
}

/// A 0.2 m block 2-10 mm above a 2 m slab (slightly tilted, turned about the vertical), the
/// whole scene under a random rigid motion, and step-(t+1) poses a few mm and mrad away.
fn sliding(runner: &mut TestRunner) -> Sliding {
    let slab = MeshShape::new(TriMesh::cuboid(Vector3::new(1.0, 1.0, 0.1)).unwrap()).unwrap();
    let block = MeshShape::new(TriMesh::cuboid(Vector3::repeat(0.1)).unwrap()).unwrap();
    let mut u = |lo: f64, hi: f64| sample(lo..hi, runner);
    let world = Isometry3::new(
        Vector3::new(u(-1.0, 1.0), u(-1.0, 1.0), u(-1.0, 1.0)),
        Vector3::new(u(-3.0, 3.0), u(-3.0, 3.0), u(-3.0, 3.0)),
    );
    let tilt = UnitQuaternion::from_scaled_axis(Vector3::new(
        u(-0.01, 0.01),
        u(-0.01, 0.01),
        u(-3.0, 3.0),
    ));
    let at = Isometry3::from_parts(
        Translation3::new(u(-0.5, 0.5), u(-0.5, 0.5), 0.2 + u(2e-3, 1e-2)),
        tilt,
    );
    let mut step = |p: &Isometry3<f64>| {
        let shift = Vector3::new(u(-5e-3, 5e-3), u(-5e-3, 5e-3), u(0.0, 1e-3));
        let turn = Vector3::new(u(-1e-3, 1e-3), u(-1e-3, 1e-3), u(-1e-2, 1e-2));
        Translation3::from(shift) * p * UnitQuaternion::from_scaled_axis(turn)
    };
    let now = [world, world * at];
    let next = [step(&now[0]), step(&now[1])];
    Sliding {
        slab,
        block,
        now,
        next,
    }
}

fn frames(s: &Sliding, now: &[Isometry3<f64>; 2]) -> TriangleFrames {
    model()
        .frames(STIFFNESS, &s.slab, &now[0], &s.block, &now[1])
        .unwrap()
}

fn twists(x: &[f64; 12]) -> (Twist, Twist) {
    (
        Twist::from_column_slice(&x[..6]),
        Twist::from_column_slice(&x[6..]),
    )
}

#[test]
fn pose_derivatives_match_differences() {
    let mut runner = TestRunner::deterministic();
    for case in 0..8 {
        let s = sliding(&mut runner);
        let f = model();
        let mut lagged = frames(&s, &s.now);
        assert!(
            lagged.len() > 10,
            "case {case}: {} rubbing pairs",
            lagged.len()
        );
        let c = f
            .evaluate(&mut lagged, &s.next[0], &s.next[1], Order::Hessian)
            .unwrap();
        let at = |x: &[f64; 12], order| {
            let (xa, xb) = twists(x);
            let mut lagged = frames(&s, &s.now);
            let (a, b) = (perturb(&s.next[0], &xa), perturb(&s.next[1], &xb));
            f.evaluate(&mut lagged, &a, &b, order).unwrap()
        };
        // The energy varies on the slip smoothing length √ε_v·Δt = 1e-4 m: steps well below.
        let (eg, eh) = pose_derivative_errors(&c, 1e-6, at);
        assert!(
            eg < 1e-6 && eh < 1e-5,
            "case {case}: gradient {eg:e}, Hessian {eh:e}"
        );
    }
}

#[test]
fn step_t_derivatives_match_differences() {
    let mut runner = TestRunner::deterministic();
    for case in 0..8 {
        let s = sliding(&mut runner);
        let f = model();
        let all = f
            .evaluate_lagged(&mut frames(&s, &s.now), &s.next[0], &s.next[1])
            .unwrap();
        let at = |x: &[f64; 12], order| -> PairContact {
            let (xa, xb) = twists(x);
            let now = [perturb(&s.now[0], &xa), perturb(&s.now[1], &xb)];
            f.evaluate(&mut frames(&s, &now), &s.next[0], &s.next[1], order)
                .unwrap()
        };
        let h = 1e-6;
        let fd = central_differences(|x| at(x, Order::Value).value, &[0.0; 12], h);
        let err = relative_error(all.step_gradient.as_slice(), &fd, 1e-12);
        assert!(err < 1e-5, "case {case}: step-t gradient error {err:e}");
        let fd: Vec<f64> = central_differences(|x| at(x, Order::Gradient).gradient, &[0.0; 12], h)
            .iter()
            .flat_map(|c| c.iter().copied())
            .collect();
        let err = relative_error(all.step_mixed.as_slice(), &fd, 1e-12);
        assert!(err < 1e-5, "case {case}: step-t mixed error {err:e}");
    }
}

#[test]
fn friction_opposes_the_slip_and_the_forces_cancel() {
    let mut runner = TestRunner::deterministic();
    for case in 0..8 {
        let s = sliding(&mut runner);
        // The block alone slides 5 mm along a random in-plane direction.
        let up = s.now[0].rotation * Vector3::z();
        let along = (s.now[0].rotation * Vector3::new(sample(-1.0..1.0, &mut runner), 1.0, 0.0))
            .normalize();
        let next = Translation3::from(along * 5e-3) * s.now[1];
        let mut lagged = frames(&s, &s.now);
        let c = model()
            .evaluate(&mut lagged, &s.now[0], &next, Order::Gradient)
            .unwrap();
        let on_block = -c.gradient.fixed_rows::<3>(6).into_owned();
        let on_slab = -c.gradient.fixed_rows::<3>(0).into_owned();
        assert!(
            (on_block + on_slab).norm() < 1e-9 * on_block.norm(),
            "case {case}"
        );
        assert!(
            on_block.dot(&along) < -0.999 * on_block.norm(),
            "case {case}: {on_block:?}"
        );
        // In each pair's plane, which the block's tilt (≤ 10 mrad) and the pair's geometry
        // turn slightly away from the slab's face.
        assert!(
            on_block.dot(&up).abs() < 0.05 * on_block.norm(),
            "case {case}"
        );
        // Coulomb's bound: each pressed corner of the block resists with at most μ|f⊥|.
        let pressing: f64 = lagged
            .frames()
            .flat_map(|f| f.points())
            .filter(|p| p.body == 1)
            .map(|p| p.normal_force)
            .sum();
        assert!(on_block.norm() <= 0.6 * pressing, "case {case}");
    }
}

#[test]
fn only_triangle_pairs_within_the_margin_rub() {
    let mut runner = TestRunner::deterministic();
    let s = sliding(&mut runner);
    let lagged = frames(&s, &s.now);
    // Every pair of triangles whose centroids are closer than (1 + ε)(R_i + R_j), by brute force.
    let placed = |shape: &MeshShape, pose: &Isometry3<f64>| -> Vec<(nalgebra::Point3<f64>, f64)> {
        let m = shape.mesh();
        m.triangles()
            .iter()
            .map(|t| {
                let p = t.map(|v| pose * m.vertices()[v as usize]);
                let c = nalgebra::Point3::from((p[0].coords + p[1].coords + p[2].coords) / 3.0);
                (c, p.iter().map(|q| (q - c).norm()).fold(0.0, f64::max))
            })
            .collect()
    };
    let (a, b) = (placed(&s.slab, &s.now[0]), placed(&s.block, &s.now[1]));
    let within = a
        .iter()
        .flat_map(|x| b.iter().map(move |y| (x, y)))
        .filter(|((ca, ra), (cb, rb))| (ca - cb).norm() < (1.0 + EPSILON) * (ra + rb))
        .count();
    assert!(within > 0);
    assert_eq!(lagged.len(), within);
    // Far apart, nothing rubs (the normal potential still acts; friction is local).
    let far = [s.now[0], Translation3::new(0.0, 0.0, 10.0) * s.now[1]];
    assert!(frames(&s, &far).is_empty());
}

#[test]
fn bad_input_is_refused() {
    let mut runner = TestRunner::deterministic();
    let s = sliding(&mut runner);
    let f = model();
    assert!(matches!(
        LongRangeFriction::new(PlaneFriction::new(0.5, DT).unwrap(), 0.0),
        Err(ContactError::InvalidSetting { .. })
    ));
    assert!(
        f.frames(-1.0, &s.slab, &s.now[0], &s.block, &s.now[1])
            .is_err()
    );
    // Touching at step t: the lagged forces are infinite.
    let inside = [s.now[0], s.now[0]];
    assert!(matches!(
        f.frames(STIFFNESS, &s.slab, &inside[0], &s.block, &inside[1]),
        Err(ContactError::PenetratingFrame)
    ));
    let mut lagged = frames(&s, &s.now);
    assert!(matches!(
        f.evaluate(&mut lagged, &s.next[0], &s.next[1], Order::Design),
        Err(ContactError::Unsupported { .. })
    ));
    let mut bad = s.next[1];
    bad.translation.x = f64::NAN;
    assert!(matches!(
        f.evaluate(&mut lagged, &s.next[0], &bad, Order::Value),
        Err(ContactError::NonFinitePose { body: 1 })
    ));
}

/// Issue 18 (sort under receding-horizon control, frame 15): a cube tipped 47° on the ground
/// grid, and a trial pose of the time step's line search 1 m away and 0.67 m under the grid
/// (the long-range potential between a surface mesh and a cube does not see a jump through
/// it). The slips are ~25 m/s against a smoothing `√ε_v` of 1 mm/s: the trust-region solve of
/// one triangle pair crept along a kink of the (nearly) sum-of-norms energy and stopped after
/// 1000 iterations with |grad| = 3.5e-9, failing the step. Through the smoothing path it
/// converges, with forces that cancel and derivatives that match differences.
#[test]
fn friction_converges_at_slips_far_above_the_smoothing() {
    use nalgebra::{Point3, Quaternion};
    let model = LongRangeFriction::new(PlaneFriction::new(0.5, 0.04).unwrap(), 0.1).unwrap();
    // The ground grid's triangle under the cube (the frames depend on triangle pairs only).
    let ground = MeshShape::new(
        TriMesh::new(
            vec![
                Point3::new(-1.5, 0.0, 0.0),
                Point3::new(0.0, 0.0, 0.0),
                Point3::new(0.0, 1.5, 0.0),
            ],
            vec![[0, 1, 2]],
        )
        .unwrap(),
    )
    .unwrap();
    let cube = MeshShape::new(TriMesh::cuboid(Vector3::repeat(0.05)).unwrap()).unwrap();
    let pose = |q: [f64; 4], t: [f64; 3]| {
        Isometry3::from_parts(
            Translation3::new(t[0], t[1], t[2]),
            UnitQuaternion::new_unchecked(Quaternion::new(q[3], q[0], q[1], q[2])),
        )
    };
    let now = pose(
        [
            -0.40339558827167055,
            -0.0021939906124991398,
            0.00017771752744276457,
            0.9150230347836198,
        ],
        [
            0.14785901855215555,
            0.09333387159209106,
            0.07143176880772906,
        ],
    );
    let next = pose(
        [
            0.5604084120335585,
            -0.013458210206193727,
            0.8160843025724445,
            -0.14059765074466196,
        ],
        [1.1845327175441933, 0.3233677477167873, -0.6680287458676805],
    );
    let id = Isometry3::identity();
    let frames = || model.frames(3e-8, &ground, &id, &cube, &now).unwrap();
    let c = model
        .evaluate(&mut frames(), &id, &next, Order::Hessian)
        .unwrap();
    assert!(c.value > 0.0 && c.value.is_finite());
    let (fa, fb) = (c.gradient.fixed_rows::<3>(0), c.gradient.fixed_rows::<3>(6));
    assert!((fa + fb).norm() <= 1e-9 * fa.norm(), "{fa:?} vs {fb:?}");
    let at = |x: &[f64; 12], order| {
        let (xa, xb) = twists(x);
        let (a, b) = (perturb(&id, &xa), perturb(&next, &xb));
        model.evaluate(&mut frames(), &a, &b, order).unwrap()
    };
    let (eg, eh) = pose_derivative_errors(&c, 1e-7, at);
    assert!(eg < 1e-5 && eh < 1e-4, "gradient {eg:e}, Hessian {eh:e}");
}
