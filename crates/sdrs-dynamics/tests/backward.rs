//! The step's mixed derivative blocks against central differences of the objective's
//! gradient, with contact and friction active.

use nalgebra::{DMatrix, DVector, Isometry3};
use sdrs_dynamics::scenes::{Scene, box_on_incline, rotating_chains};
use sdrs_dynamics::{Control, Motion, Simulator, State};
use sdrs_geometry::testing::relative_error;
use sdrs_geometry::twist::{Twist, perturb};

/// Selects one of a control's target vectors.
type TargetField = fn(&mut Control) -> &mut DVector<f64>;

/// Runs a scene for `steps` steps and returns the simulator (with backward blocks on), the
/// state, the previous poses and the control.
fn running(scene: Scene, steps: usize) -> (Simulator, State, Vec<Isometry3<f64>>, Control) {
    let mut settings = scene.settings.clone();
    settings.backward = true;
    let model = scene.model.clone();
    let mut sim = Simulator::new(model.clone(), settings).unwrap();
    let mut motion = Motion::at_rest(&model, State::zero(&model));
    for _ in 0..steps {
        sim.advance(&mut motion, &scene.control).unwrap();
    }
    (sim, motion.state, motion.previous, scene.control)
}

/// Central differences of `∇O(θ^{t+1})` along `count` directions of an input.
fn differences(
    count: usize,
    h: f64,
    mut gradient: impl FnMut(usize, f64) -> DVector<f64>,
) -> DMatrix<f64> {
    let columns: Vec<DVector<f64>> = (0..count)
        .map(|k| (gradient(k, h) - gradient(k, -h)) / (2.0 * h))
        .collect();
    DMatrix::from_columns(&columns)
}

/// The objective of a step from `current` (earlier poses `previous`) at the coordinates `q`,
/// with central differences (step 1e-6) of its value and of its gradient: `(objective,
/// gradient by differences, Hessian by differences)`.
pub(crate) fn objective_differences(
    sim: &mut Simulator,
    (current, previous, control): (&State, &[Isometry3<f64>], &Control),
    q: &DVector<f64>,
) -> (sdrs_dynamics::Objective, DVector<f64>, DMatrix<f64>) {
    let mut at = |q: &DVector<f64>| {
        let next = State::new(sim.model(), q.clone()).unwrap();
        sim.objective(&next, current, previous, control)
            .unwrap()
            .expect("finite")
    };
    let h = 1e-6;
    let n = q.len();
    let (mut gradient, mut hessian) = (DVector::zeros(n), DMatrix::zeros(n, n));
    for k in 0..n {
        let (mut up, mut down) = (q.clone(), q.clone());
        up[k] += h;
        down[k] -= h;
        let (up, down) = (at(&up), at(&down));
        gradient[k] = (up.value - down.value) / (2.0 * h);
        hessian.set_column(k, &((up.gradient - down.gradient) / (2.0 * h)));
    }
    (at(q), gradient, hessian)
}

/// Checks every mixed block of a step of `scene` after `steps` steps against differences.
pub(crate) fn check(scene: Scene, steps: usize) {
    let settings = scene.settings.clone();
    let (mut sim, current, previous, control) = running(scene, steps);
    let (next, report) = sim.step(&current, &previous, &control).unwrap();
    let blocks = report
        .linearization
        .expect("backward blocks requested")
        .derivatives;
    if settings.contact.is_some() {
        assert!(report.active_pairs > 0, "the check needs active contact");
    }
    let n = current.q.len();
    let h = 1e-6;
    let mut at = |cur: &State, prev: &[Isometry3<f64>], ctl: &Control| {
        sim.objective(&next, cur, prev, ctl)
            .unwrap()
            .expect("finite")
            .gradient
    };
    let fd = differences(n, h, |k, s| {
        let mut c = current.clone();
        c.q[k] += s;
        at(&c, &previous, &control)
    });
    let err = relative_error(blocks.current.as_slice(), fd.as_slice(), 1e-9);
    assert!(err < 1e-5, "∂²O/∂θ^(t+1)∂θ^t error {err:e}");
    let fd = differences(6 * previous.len(), h, |k, s| {
        let mut p = previous.clone();
        let mut xi = Twist::zeros();
        xi[k % 6] = s;
        p[k / 6] = perturb(&p[k / 6], &xi);
        at(&current, &p, &control)
    });
    let err = relative_error(blocks.previous.as_slice(), fd.as_slice(), 1e-9);
    assert!(err < 1e-5, "∂²O/∂θ^(t+1)∂ξ^(t-1) error {err:e}");
    // The gradient is linear in the targets: a large step has no truncation error and keeps
    // the inner solves' round-off (about 1e-11 in the gradient) far below the tolerance.
    let linear = 1e-3;
    let targets: [(&str, &DVector<f64>, TargetField); 2] = [
        ("position", &blocks.target_position, |c| &mut c.position),
        ("velocity", &blocks.target_velocity, |c| &mut c.velocity),
    ];
    for (name, block, target) in targets {
        let fd = differences(n, linear, |k, s| {
            let mut c = control.clone();
            target(&mut c)[k] += s;
            at(&current, &previous, &c)
        });
        let err = relative_error(
            DMatrix::from_diagonal(block).as_slice(),
            fd.as_slice(),
            1e-9,
        );
        assert!(err < 1e-5, "target {name} block error {err:e}");
    }
    // Design: a model with the moved entry, a fresh simulator, the same states. For the
    // attachments θ^t and the previous poses are held, so T^t moves with the design.
    let model = sim.model().clone();
    let design = model.design();
    let offset = 3 * model.links().len();
    let moved = |k: usize, s: f64| {
        let mut d = design.clone();
        d[k] += s;
        let mut other = Simulator::new(model.with_design(&d).unwrap(), settings.clone()).unwrap();
        other
            .objective(&next, &current, &previous, &control)
            .unwrap()
            .expect("finite")
            .gradient
    };
    let vertices = blocks
        .vertices
        .expect("lumped masses have vertex blocks")
        .dense();
    let fd = differences(design.len() - offset, h, |k, s| moved(offset + k, s));
    let err = relative_error(vertices.as_slice(), fd.as_slice(), 1e-9);
    assert!(err < 1e-5, "∂²O/∂θ^(t+1)∂x error {err:e}");
    // Joints with armature recover θ^{t−1} through the attachments, which their blocks leave
    // out: a step with armature gives none.
    match blocks.attachments {
        Some(attachments) => {
            let fd = differences(offset, h, moved);
            let err = relative_error(attachments.dense().as_slice(), fd.as_slice(), 1e-9);
            assert!(err < 1e-5, "∂²O/∂θ^(t+1)∂t^d error {err:e}");
        }
        None => assert!(
            !model.joint_armature().is_empty(),
            "attachment blocks without user energies or armature"
        ),
    }
}

#[test]
fn step_blocks_match_differences_for_a_box_sliding_with_friction() {
    let mut scene = box_on_incline(0.4, 0.3, 0.01).unwrap();
    // Some PD on the box, so the PD blocks are exercised too.
    scene.control.kp = DVector::from_element(6, 6.0);
    scene.control.kd = DVector::from_element(6, 2.0);
    scene.control.velocity = DVector::from_element(6, 0.2);
    check(scene, 30);
}

#[test]
fn step_blocks_match_differences_for_colliding_rotating_chains() {
    let mut scene = rotating_chains(3, 0.01).unwrap();
    let n = scene.model.dof();
    scene.control.kp = DVector::from_element(n, 1.0);
    scene.control.position = DVector::from_fn(n, |k, _| 0.1 * (k as f64).sin());
    check(scene, 60);
}

#[test]
fn only_a_step_with_backward_reports_its_linearization_and_both_take_the_same_steps() {
    // A box sliding to rest on a shallow incline: moving steps, then steps at rest (whose
    // single evaluation has no Hessian without the backward pass).
    let scene = box_on_incline(0.1, 0.5, 0.01).unwrap();
    let run = |backward: bool| {
        let mut settings = scene.settings.clone();
        settings.backward = backward;
        let mut sim = Simulator::new(scene.model.clone(), settings).unwrap();
        let mut motion = Motion::at_rest(&scene.model, State::zero(&scene.model));
        let mut at_rest = 0;
        let states: Vec<DVector<f64>> = (0..120)
            .map(|_| {
                let report = sim.advance(&mut motion, &scene.control).unwrap();
                at_rest += usize::from(report.iterations == 0);
                match &report.linearization {
                    Some(lin) => {
                        assert!(backward, "a linearization nobody asked for");
                        let n = scene.model.dof();
                        assert_eq!(lin.hessian.shape(), (n, n));
                        assert!(lin.hessian.iter().any(|h| *h != 0.0));
                    }
                    None => assert!(!backward, "no linearization for the backward pass"),
                }
                motion.state.q.clone()
            })
            .collect();
        (states, at_rest)
    };
    let ((with, rest_with), (without, rest_without)) = (run(true), run(false));
    assert!(rest_with > 10 && rest_without > 10, "the box comes to rest");
    for (k, (a, b)) in with.iter().zip(&without).enumerate() {
        assert!(
            (a - b).amax() < 1e-12,
            "step {k}: {:e} apart",
            (a - b).amax()
        );
    }
}
