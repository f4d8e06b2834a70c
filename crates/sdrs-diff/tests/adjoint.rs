//! Adjoint gradients of whole trajectories against central differences of re-simulated
//! trajectories, with contact and friction active throughout.

use nalgebra::{DVector, Isometry3, Vector3};
use sdrs_diff::{
    LossGradient, OpenLoop, Policy, Recording, adjoint, rollout, rollout_policy, step_jacobian,
};
use sdrs_dynamics::scenes::{Scene, chain, rotating_chains};
use sdrs_dynamics::{Control, JointKind, Link, MassModel, Model, Motion, Simulator, State};
use sdrs_geometry::ConvexHull;

const STEPS: usize = 12;

/// Four chains of two 2-DoF links on the spinning hub (17 DoF), with PD towards varied
/// targets, solved to a tight tolerance so that differences of trajectories are clean. The
/// horizon is short: over longer ones (30 steps) a perturbation of 1e-5 occasionally lands
/// the Newton solve on another branch of this non-convex, contact-rich motion, and the
/// differences jump (observed: one attachment entry off by 1e4x at step 1e-5, fine at 1e-4).
fn scene() -> Scene {
    let mut scene = rotating_chains(2, 0.01).unwrap();
    let n = scene.model.dof();
    scene.control.kp = DVector::from_element(n, 10.0);
    scene.control.position = DVector::from_fn(n, |k, _| 0.2 * (k as f64).sin());
    scene.settings.backward = true;
    scene.settings.tolerance = 1e-6;
    scene
}

/// `L = c · θ^H` with fixed weights.
fn weights(n: usize) -> DVector<f64> {
    DVector::from_fn(n, |k, _| ((k + 1) as f64).sin())
}

/// The loss of a trajectory of `model` from `start` (poses before the start held at
/// `previous`) under `controls`.
fn loss(
    model: &Model,
    scene: &Scene,
    start: &State,
    previous: &[Isometry3<f64>],
    controls: &[Control],
) -> f64 {
    let mut sim = Simulator::new(model.clone(), scene.settings.clone()).unwrap();
    let motion = Motion {
        state: start.clone(),
        previous: previous.to_vec(),
    };
    let t = rollout(&mut sim, &motion, controls, Recording::Blocks).unwrap();
    t.last().q.dot(&weights(model.dof()))
}

/// A rollout of `scene` under its control for `STEPS` steps from rest at
/// `q_k = scale cos k`, and the adjoint of `L = c · θ^H` ([`weights`]).
struct Run {
    model: Model,
    start: State,
    previous: Vec<Isometry3<f64>>,
    controls: Vec<Control>,
    trajectory: sdrs_diff::Trajectory,
    gradient: sdrs_diff::TrajectoryGradient,
}

fn run(scene: &Scene, scale: f64) -> Run {
    let model = scene.model.clone();
    let n = model.dof();
    let start = State::new(&model, DVector::from_fn(n, |k, _| scale * (k as f64).cos())).unwrap();
    let motion = Motion::at_rest(&model, start.clone());
    let controls = vec![scene.control.clone(); STEPS];
    let mut sim = Simulator::new(model.clone(), scene.settings.clone()).unwrap();
    let trajectory = rollout(&mut sim, &motion, &controls, Recording::Blocks).unwrap();
    let loss_gradient = LossGradient::final_state(&model, STEPS, weights(n));
    let gradient = adjoint(&mut sim, &trajectory, &loss_gradient).unwrap();
    Run {
        model,
        start,
        previous: motion.previous,
        controls,
        trajectory,
        gradient,
    }
}

fn relative(a: f64, b: f64, scale: f64) -> f64 {
    (a - b).abs() / scale
}

#[test]
fn trajectory_gradients_match_differences_with_contact_and_friction() {
    let scene = scene();
    let Run {
        model,
        start,
        previous,
        controls,
        trajectory,
        gradient: g,
    } = run(&scene, 0.05);
    let n = model.dof();
    assert!(
        trajectory.active_pairs.iter().all(|&a| a > 0),
        "contact throughout"
    );
    let design_gradient = g.design.clone().expect("lumped masses, no user energies");
    // Steps: 1e-5 for the initial state and the design (contact makes the loss vary on the
    // scale of the barrier's support), 1e-4 for the PD targets, whose small, smooth influence
    // would otherwise drown in the loss's round-off (the solves stop at |∇O|∞ < 1e-6).
    let (h, h_targets) = (1e-5, 1e-4);
    let mut errors = Vec::new();
    let mut check = |what: String, analytic: f64, plus: f64, minus: f64, h: f64, scale: f64| {
        let fd = (plus - minus) / (2.0 * h);
        let e = relative(analytic, fd, scale);
        errors.push((e, what, analytic, fd));
    };
    // Initial coordinates (poses before the start held).
    let scale = g.initial.amax();
    for k in 0..n {
        let at = |s: f64| {
            let mut x = start.clone();
            x.q[k] += s;
            loss(&model, &scene, &x, &previous, &controls)
        };
        check(format!("θ0[{k}]"), g.initial[k], at(h), at(-h), h, scale);
    }
    // PD position targets of a few steps.
    for t in [0, STEPS / 2, STEPS - 1] {
        let scale = g.target_position[t].amax();
        for k in 0..n {
            let at = |s: f64| {
                let mut c = controls.clone();
                c[t].position[k] += s;
                loss(&model, &scene, &start, &previous, &c)
            };
            let (plus, minus) = (at(h_targets), at(-h_targets));
            let analytic = g.target_position[t][k];
            check(
                format!("θ*[{t}][{k}]"),
                analytic,
                plus,
                minus,
                h_targets,
                scale,
            );
        }
    }
    // Design: every attachment and a spread of hull vertices.
    let design = model.design();
    let scale = design_gradient.amax();
    let entries: Vec<usize> = (0..3 * model.links().len())
        .chain((3 * model.links().len()..design.len()).step_by(7))
        .collect();
    for &k in &entries {
        let at = |s: f64| {
            let mut d = design.clone();
            d[k] += s;
            let other = model.with_design(&d).unwrap();
            // θ^0 and T^{−1} held: the previous poses are the unperturbed ones.
            loss(&other, &scene, &start, &previous, &controls)
        };
        check(
            format!("d[{k}]"),
            design_gradient[k],
            at(h),
            at(-h),
            h,
            scale,
        );
    }
    errors.sort_by(|a, b| b.0.total_cmp(&a.0));
    let below = |x: f64| errors.iter().filter(|e| e.0 < x).count() as f64 / errors.len() as f64;
    let worst = &errors[0];
    // Errors are relative to the largest gradient entry of the same kind.
    assert!(
        worst.0 < 1e-3 && below(1e-4) >= 0.9,
        "worst relative error {:e} at {} (adjoint {}, differences {}); {:.0}% of {} entries below 1e-4",
        worst.0,
        worst.1,
        worst.2,
        worst.3,
        100.0 * below(1e-4),
        errors.len()
    );
}

/// Weights on the block's position alone: its rotation coordinates are re-centred every step,
/// so a loss on them would depend on the chart.
fn position_weights(n: usize) -> DVector<f64> {
    DVector::from_fn(n, |k, _| if k < 3 { ((k + 1) as f64).sin() } else { 0.0 })
}

/// Through long-range contact and friction (a block sliding to a stop on a slab, both
/// triangle meshes): the gradient of its final position with respect to its initial state
/// and the velocity it starts with (the poses before the start) against differences.
#[test]
fn trajectory_gradients_through_long_range_friction_match_differences() {
    use sdrs_dynamics::scenes::sliding_block;
    const H: usize = 10;
    const MU: f64 = 0.3;
    let simulator = || {
        let scene = sliding_block(0.5, MU, 0.01).unwrap();
        let mut settings = scene.scene.settings.clone();
        settings.backward = true;
        settings.tolerance = 1e-9;
        let sim =
            Simulator::with_contact(scene.scene.model.clone(), settings, Box::new(scene.contact))
                .unwrap();
        (sim, scene.start, scene.scene.control, scene.scene.model)
    };
    let (mut sim, start, control, model) = simulator();
    let n = model.dof();
    let controls = vec![control; H];
    let trajectory = rollout(&mut sim, &start, &controls, Recording::States).unwrap();
    assert!(trajectory.active_pairs.iter().all(|&a| a > 0));
    let g = adjoint(
        &mut sim,
        &trajectory,
        &LossGradient::final_state(&model, H, position_weights(n)),
    )
    .unwrap();
    let loss = |motion: &Motion| {
        let (mut sim, _, _, _) = simulator();
        let t = rollout(&mut sim, motion, &controls, Recording::States).unwrap();
        t.last().q.dot(&position_weights(n))
    };
    // Steps well below the friction's slip smoothing (1 mm/s · 10 ms = 1e-5 m).
    let h = 1e-6;
    let mut worst: f64 = 0.0;
    let scale = g.initial.amax().max(g.initial_previous.amax());
    for k in 0..n {
        let mut plus = start.clone();
        plus.state.q[k] += h;
        let mut minus = start.clone();
        minus.state.q[k] -= h;
        let fd = (loss(&plus) - loss(&minus)) / (2.0 * h);
        let e = relative(g.initial[k], fd, scale);
        worst = worst.max(e);
        assert!(e < 1e-5, "θ^0[{k}]: {} vs {fd}", g.initial[k]);
    }
    // The pose before the start, moved along x (the start velocity) and turned about z.
    for k in [0, 5] {
        let shifted = |by: f64| {
            let mut m = start.clone();
            let mut xi = sdrs_geometry::twist::Twist::zeros();
            xi[k] = by;
            m.previous[1] = sdrs_geometry::twist::perturb(&m.previous[1], &xi);
            m
        };
        let fd = (loss(&shifted(h)) - loss(&shifted(-h))) / (2.0 * h);
        let analytic = g.initial_previous[6 + k];
        let e = relative(analytic, fd, scale);
        worst = worst.max(e);
        assert!(e < 1e-5, "ξ^-1[{k}]: {analytic} vs {fd}");
    }
    eprintln!("long-range friction trajectory: worst relative error {worst:e}");
}

/// What a trajectory under an open-loop policy over every DoF keeps (floats): the states,
/// the policy's parameters once, and every step's blocks, the design blocks as stored.
fn recorded_floats(steps: usize) -> usize {
    let mut scene = chain(6, 0.01).unwrap();
    scene.settings.backward = true;
    let model = scene.model.clone();
    let n = model.dof();
    let policy = OpenLoop::new(scene.control.clone(), (0..n).collect(), steps).unwrap();
    let c = DVector::from_fn(policy.parameters(), |k, _| 0.1 * (k as f64).sin());
    let mut sim = Simulator::new(model.clone(), scene.settings).unwrap();
    let start = Motion::at_rest(&model, State::zero(&model));
    let t = rollout_policy(&mut sim, &start, &policy, &c, steps, Recording::Blocks).unwrap();
    let recorded = t.policy.as_ref().expect("recorded through a policy");
    assert_eq!(recorded.parameters.len(), steps * n);
    let blocks: usize = t
        .linearizations
        .iter()
        .map(|lin| {
            let d = &lin.derivatives;
            let (vertices, attachments) = (
                d.vertices.as_ref().expect("lumped masses"),
                d.attachments.as_ref().expect("no user energies"),
            );
            // A chain link's vertices move only the DoFs of its root path: the stored
            // vertex block is 21/36 of the dense n x 3·vertices one.
            assert!(
                4 * vertices.stored() < 3 * n * vertices.range().len(),
                "vertex blocks stored {} of {} dense entries",
                vertices.stored(),
                n * vertices.range().len()
            );
            lin.hessian.len()
                + d.current.len()
                + d.previous.len()
                + d.target_position.len()
                + d.target_velocity.len()
                + vertices.stored()
                + attachments.stored()
        })
        .sum();
    // The adjoint runs on it (and its gradient has one entry per parameter).
    let loss = LossGradient::final_state(&model, steps, DVector::from_element(n, 1.0));
    assert_eq!(
        adjoint(&mut sim, &t, &loss).unwrap().parameters.len(),
        steps * n
    );
    t.states.len() * n + recorded.parameters.len() + blocks
}

#[test]
fn an_open_loop_trajectory_keeps_memory_linear_in_the_horizon() {
    // Per-step policy Jacobians (|θ| x H·m each) made this quadratic: 4x the steps cost
    // 16x the floats.
    let (short, long) = (recorded_floats(10), recorded_floats(40));
    assert!(
        long <= 4 * short + short / 10,
        "10 steps keep {short} floats, 40 steps {long}"
    );
}

/// A 3-link chain with a fixed `weight` (with its own hull and mass) hung on each of its last
/// two links: 5 links, 3 bodies.
fn chain_with_fixed_weights() -> Scene {
    let mut scene = chain(3, 0.01).unwrap();
    let mut links = scene.model.links().to_vec();
    for (parent, name) in [(1, "weight1"), (2, "weight2")] {
        let corners = ConvexHull::cuboid(Vector3::new(0.03, 0.01, 0.02))
            .unwrap()
            .vertices()
            .iter()
            .map(|v| v + Vector3::new(0.01, -0.02, 0.0))
            .collect();
        links.push(Link::new(
            name,
            Some(parent),
            Isometry3::new(
                Vector3::new(0.05, 0.02, -0.04),
                Vector3::new(0.3, -0.2, 0.1),
            ),
            JointKind::Fixed,
            vec![ConvexHull::new(corners).unwrap()],
            MassModel::Lumped { mass: 0.3 },
        ));
    }
    scene.model = Model::new(links).unwrap();
    let n = scene.model.dof();
    scene.control = Control::passive(&scene.model);
    scene.control.kp = DVector::from_element(n, 4.0);
    scene.control.position = DVector::from_fn(n, |k, _| 0.3 * (k as f64 + 1.0).sin());
    scene.settings.backward = true;
    scene.settings.tolerance = 1e-9;
    scene
}

#[test]
fn trajectory_design_gradients_through_fixed_links_match_differences() {
    // The weights are merged into their bodies' inertia: their hull vertices and attachments
    // (and the previous poses the step reads per body) must still carry exact gradients.
    let scene = chain_with_fixed_weights();
    let Run {
        model,
        start,
        previous,
        controls,
        gradient: g,
        ..
    } = run(&scene, 0.4);
    assert_eq!((model.body(3), model.body(4)), (1, 2));
    let n = model.dof();
    let design_gradient = g.design.clone().expect("lumped masses, no user energies");
    let h = 1e-6;
    let scale = design_gradient.amax();
    let design = model.design();
    let mut worst: (f64, usize) = (0.0, 0);
    for k in 0..design.len() {
        let at = |s: f64| {
            let mut d = design.clone();
            d[k] += s;
            loss(
                &model.with_design(&d).unwrap(),
                &scene,
                &start,
                &previous,
                &controls,
            )
        };
        let fd = (at(h) - at(-h)) / (2.0 * h);
        let e = relative(design_gradient[k], fd, scale);
        if e > worst.0 {
            worst = (e, k);
        }
    }
    assert!(
        worst.0 < 1e-5,
        "worst relative error {:e} at design entry {} of {}",
        worst.0,
        worst.1,
        design.len()
    );
    let scale = g.initial.amax();
    for k in 0..n {
        let at = |s: f64| {
            let mut x = start.clone();
            x.q[k] += s;
            loss(&model, &scene, &x, &previous, &controls)
        };
        let fd = (at(h) - at(-h)) / (2.0 * h);
        let e = relative(g.initial[k], fd, scale);
        assert!(
            e < 1e-5,
            "θ0[{k}]: adjoint {} vs {fd} ({e:e})",
            g.initial[k]
        );
    }
}

#[test]
fn step_jacobians_through_fixed_links_are_the_same_with_and_without_design_blocks() {
    // Without design blocks the step assembles inertia per rigid body and multiplies only the
    // bodies' previous-pose columns; with them it also builds every link's terms. Both are
    // `−H⁻¹` times the same mixed blocks.
    let scene = chain_with_fixed_weights();
    let model = scene.model.clone();
    let start = Motion::at_rest(
        &model,
        State::new(
            &model,
            DVector::from_fn(model.dof(), |k, _| 0.2 * (k as f64).cos()),
        )
        .unwrap(),
    );
    let jacobian = |design: bool| {
        let mut settings = scene.settings.clone();
        settings.design_derivatives = design;
        let mut sim = Simulator::new(model.clone(), settings).unwrap();
        let mut after = start.clone();
        sim.advance(&mut after, &scene.control).unwrap();
        let lin = sim
            .linearize(&after.state, &start.state, &start.previous, &scene.control)
            .unwrap();
        let jac = step_jacobian(&model, &lin, 0).unwrap();
        let dense = -lin.factor.solve(&lin.derivatives.previous).unwrap();
        assert!((&jac.previous - &dense).amax() <= 1e-12 * dense.amax());
        jac
    };
    let (with, without) = (jacobian(true), jacobian(false));
    assert!(without.previous.amax() > 0.0 && without.current.amax() > 0.0);
    for (a, b) in [
        (&with.current, &without.current),
        (&with.previous, &without.previous),
        (&with.force, &without.force),
    ] {
        assert!((a - b).amax() <= 1e-10 * a.amax(), "{:e}", (a - b).amax());
    }
}
