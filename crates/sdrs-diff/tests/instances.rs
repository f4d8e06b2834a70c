//! Adjoint gradients of H = 50 step trajectories with sliding and sticking contact against
//! central differences of re-simulated trajectories, over random instances and every
//! parameter class: initial state, open-loop targets, sine and spline parameters, hull
//! vertices and attachments. Each class is checked along a random direction (a directional
//! derivative needs two rollouts, a full gradient by differences 2·dim).
//!
//! Run with `--nocapture` to see the error distribution.

use nalgebra::{DVector, Point3, Vector3};
use proptest::test_runner::TestRunner;
use sdrs_diff::{
    CubicSpline, LossGradient, OpenLoop, Policy, Recording, SineWaves, adjoint, link_point,
    rollout_policy,
};
use sdrs_dynamics::scenes::{Scene, box_on_incline};
use sdrs_dynamics::{Kinematics, Model, Motion, Simulator, State};
use sdrs_geometry::testing::sample;

const STEPS: usize = 50;
const INSTANCES: usize = 24;
/// A corner of the box (link 1) whose final position the loss measures.
const CORNER: Point3<f64> = Point3::new(0.1, 0.1, -0.1);
/// Weight of the running cost `Σ_t |θ^t|²`.
const RUNNING: f64 = 0.01;

/// One random problem: a 20 cm box on a slab tilted by `tilt`, friction `mu`, PD on its
/// in-plane coordinates, a start with some velocity, and a target for its corner.
struct Instance {
    scene: Scene,
    start: Motion,
    target: Vector3<f64>,
    recording: Recording,
}

fn instance(runner: &mut TestRunner, k: usize) -> Instance {
    let tilt = sample(0.05..0.45f64, runner);
    let mu = sample(0.2..0.8f64, runner);
    let mut scene = box_on_incline(tilt, mu, 0.01).unwrap();
    // Tight solves, so that differences of trajectories are clean: friction's velocity
    // smoothing (1 mm/s, i.e. 10 µm per step) makes the objective vary on that scale, so the
    // differences need steps of 1e-6 and solutions to 1e-9.
    scene.settings.tolerance = 1e-9;
    let contact = scene.settings.contact.as_mut().unwrap();
    let barrier = contact.barrier().unwrap().clone().with_tolerance(1e-12);
    contact.kind = sdrs_dynamics::ContactKind::Hulls(barrier.unwrap());
    scene.settings.backward = k.is_multiple_of(2);
    let gain = sample(40.0..160.0f64, runner); // N·m/rad
    scene.control.kp[0] = gain;
    scene.control.kp[1] = gain;
    let model = &scene.model;
    let state = State::zero(model);
    // Moving at up to 0.3 m/s in the plane.
    let mut before = state.clone();
    before.q[0] -= sample(-0.003..0.003f64, runner);
    before.q[1] -= sample(-0.003..0.003f64, runner);
    let start = Motion {
        state,
        previous: Kinematics::new(model, &before).poses().to_vec(),
    };
    let target = Vector3::new(
        sample(-0.2..0.2f64, runner),
        sample(-0.2..0.2f64, runner),
        sample(-0.1..0.1f64, runner),
    );
    Instance {
        scene,
        start,
        target,
        recording: if k.is_multiple_of(2) {
            Recording::Blocks
        } else {
            Recording::States
        },
    }
}

/// `L = |p_corner(θ^H) − target|² + RUNNING Σ_t |θ^t|²`, and its explicit partials.
fn loss(model: &Model, states: &[State], target: &Vector3<f64>) -> (f64, LossGradient) {
    let last = states.last().unwrap();
    let (p, _, _) = link_point(model, last, 1, &CORNER, &Vector3::zeros());
    let miss = p.coords - target;
    let (_, dq, dattach) = link_point(model, last, 1, &CORNER, &(2.0 * miss));
    let mut grad = LossGradient::zeros(model, states.len() - 1);
    let mut value = miss.norm_squared();
    for (t, s) in states.iter().enumerate() {
        value += RUNNING * s.q.norm_squared();
        grad.states[t] = 2.0 * RUNNING * &s.q;
    }
    grad.states[states.len() - 1] += dq;
    grad.design.rows_mut(0, dattach.len()).copy_from(&dattach);
    (value, grad)
}

/// The loss of a rollout of `model` under `policy` from `start`.
fn run(
    inst: &Instance,
    model: &Model,
    start: &Motion,
    policy: &dyn Policy,
    c: &DVector<f64>,
) -> f64 {
    let mut settings = inst.scene.settings.clone();
    settings.backward = false;
    let mut sim = Simulator::new(model.clone(), settings).unwrap();
    let t = rollout_policy(&mut sim, start, policy, c, STEPS, Recording::States).unwrap();
    loss(model, &t.states, &inst.target).0
}

fn unit(runner: &mut TestRunner, n: usize) -> DVector<f64> {
    let v = DVector::from_fn(n, |_, _| sample(-1.0..1.0f64, runner));
    v.normalize()
}

#[test]
fn trajectory_gradients_over_random_instances() {
    let mut runner = TestRunner::deterministic();
    let mut errors: Vec<(f64, String)> = Vec::new();
    for k in 0..INSTANCES {
        let inst = instance(&mut runner, k);
        let model = inst.scene.model.clone();
        let base = inst.scene.control.clone();
        let open = OpenLoop::new(base.clone(), vec![0, 1], STEPS).unwrap();
        let sine = SineWaves::new(base.clone(), vec![0, 1], 1).unwrap();
        let spline = CubicSpline::new(base, vec![0], 4, STEPS as f64 * 0.01).unwrap();
        let c_open = DVector::from_fn(open.parameters(), |_, _| {
            sample(-0.05..0.05f64, &mut runner)
        });
        let c_sine = DVector::from_fn(sine.parameters(), |i, _| match i % 3 {
            0 => sample(-0.05..0.05f64, &mut runner),
            1 => sample(2.0..8.0f64, &mut runner),
            _ => sample(0.0..6.0f64, &mut runner),
        });
        let c_spline = DVector::from_fn(4, |_, _| sample(-0.05..0.05f64, &mut runner));
        let policies: [(&str, &dyn Policy, &DVector<f64>); 3] = [
            ("open-loop targets", &open, &c_open),
            ("sine parameters", &sine, &c_sine),
            ("spline parameters", &spline, &c_spline),
        ];
        let mut record = |class: &str, analytic: f64, plus: f64, minus: f64, h: f64| {
            let fd = (plus - minus) / (2.0 * h);
            let e = (analytic - fd).abs() / analytic.abs().max(fd.abs()).max(1e-12);
            errors.push((
                e,
                format!("instance {k} {class}: adjoint {analytic:e}, differences {fd:e}"),
            ));
        };
        for (i, (class, policy, c)) in policies.into_iter().enumerate() {
            let mut sim = Simulator::new(model.clone(), inst.scene.settings.clone()).unwrap();
            let t =
                rollout_policy(&mut sim, &inst.start, policy, c, STEPS, inst.recording).unwrap();
            assert!(t.active_pairs.iter().all(|&a| a > 0), "contact throughout");
            let g = adjoint(&mut sim, &t, &loss(&model, &t.states, &inst.target).1).unwrap();
            let h = 1e-6;
            let v = unit(&mut runner, c.len());
            let at = |s: f64| run(&inst, &model, &inst.start, policy, &(c + &v * s));
            record(class, g.parameters.dot(&v), at(h), at(-h), h);
            if i != 1 {
                continue;
            }
            // The other classes along the sine-driven trajectory.
            let v = unit(&mut runner, model.dof());
            let at = |s: f64| {
                let mut start = inst.start.clone();
                start.state.q += &v * s;
                run(&inst, &model, &start, policy, c)
            };
            record("initial state", g.initial.dot(&v), at(h), at(-h), h);
            let design = model.design();
            let d = g.design.as_ref().expect("lumped masses");
            let attachments = 3 * model.links().len();
            let box_vertices = model.design_index(1, Some((0, 0)))..design.len();
            for (class, entries) in [
                ("attachments", 0..attachments),
                ("hull vertices", box_vertices),
            ] {
                let mut v = DVector::zeros(design.len());
                let dir = unit(&mut runner, entries.len());
                v.rows_mut(entries.start, entries.len()).copy_from(&dir);
                let at = |s: f64| {
                    let other = model.with_design(&(&design + &v * s)).unwrap();
                    run(&inst, &other, &inst.start, policy, c)
                };
                record(class, d.dot(&v), at(h), at(-h), h);
            }
        }
    }
    errors.sort_by(|a, b| b.0.total_cmp(&a.0));
    let quantile = |q: f64| errors[((1.0 - q) * (errors.len() - 1) as f64).round() as usize].0;
    let below = errors.iter().filter(|e| e.0 < 1e-4).count() as f64 / errors.len() as f64;
    eprintln!(
        "{} checks: median {:.1e}, 90% {:.1e}, 95% {:.1e}, max {:.1e}; {:.1}% below 1e-4; worst: {}",
        errors.len(),
        quantile(0.5),
        quantile(0.9),
        quantile(0.95),
        errors[0].0,
        100.0 * below,
        errors[0].1
    );
    assert!(
        below >= 0.95 && errors[0].0 < 1e-2,
        "{:.1}% below 1e-4 (need 95%), worst {:e}: {}",
        100.0 * below,
        errors[0].0,
        errors[0].1
    );
}
