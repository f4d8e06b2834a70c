//! The ways of getting derivatives agree: forward tangents with the adjoint, a states-only
//! recording with a full one, feedback policies and single-step Jacobians with differences.

use nalgebra::DVector;
use sdrs_diff::{
    ControlCotangent, ControlTangent, LossGradient, Policy, PolicyGradient, PolicyInput,
    PolicyTangent, Recording, Seeds, SineWaves, adjoint, rollout, rollout_policy, step_jacobian,
    tangent,
};
use sdrs_dynamics::scenes::rotating_chains;
use sdrs_dynamics::{Control, Motion, Simulator, State};

const STEPS: usize = 12;

fn relative(a: &DVector<f64>, b: &DVector<f64>) -> f64 {
    assert!(a.amax() > 0.0, "a zero gradient checks nothing");
    (a - b).amax() / a.amax().max(b.amax())
}

#[test]
fn tangents_are_the_adjoint_transposed_and_states_only_recording_agrees() {
    let mut scene = rotating_chains(2, 0.01).unwrap();
    scene.settings.backward = true;
    scene.control.kp = DVector::from_element(scene.model.dof(), 10.0);
    let model = scene.model.clone();
    let n = model.dof();
    let policy = SineWaves::new(scene.control.clone(), vec![1, 2, 5], 1).unwrap();
    let c = DVector::from_fn(9, |k, _| [0.1, 4.0, 0.3][k % 3] * (1.0 + 0.1 * k as f64));
    let start = Motion::at_rest(
        &model,
        State::new(&model, DVector::from_fn(n, |k, _| 0.05 * (k as f64).cos())).unwrap(),
    );
    let mut sim = Simulator::new(model.clone(), scene.settings.clone()).unwrap();
    let t = rollout_policy(&mut sim, &start, &policy, &c, STEPS, Recording::Blocks).unwrap();
    assert!(t.active_pairs.iter().all(|&a| a > 0), "contact throughout");
    let w = DVector::from_fn(n, |k, _| ((k + 1) as f64).sin());
    let mut loss = LossGradient::final_state(&model, STEPS, w.clone());
    // A running cost too.
    loss.states[STEPS / 2] = DVector::from_element(n, 0.3);
    let g = adjoint(&mut sim, &t, &loss).unwrap();
    // Seeds: two initial-state, two parameter and two design directions.
    let k = 6;
    let mut seeds = Seeds::zeros(&model, 9, k);
    let d = model.design_len();
    for j in 0..k {
        let v = |len: usize| DVector::from_fn(len, |i, _| ((i * 7 + j * 3) as f64).sin());
        match j / 2 {
            0 => seeds.initial.set_column(j, &v(n)),
            1 => seeds.parameters.set_column(j, &v(9)),
            _ => seeds.design.set_column(j, &v(d)),
        }
    }
    let jac = tangent(&mut sim, &t, &seeds).unwrap();
    let forward = jac[STEPS].tr_mul(&w) + jac[STEPS / 2].tr_mul(&loss.states[STEPS / 2]);
    let design = g.design.as_ref().unwrap();
    let reverse = DVector::from_fn(k, |j, _| {
        g.initial.dot(&seeds.initial.column(j))
            + g.parameters.dot(&seeds.parameters.column(j))
            + design.dot(&seeds.design.column(j))
    });
    assert!(
        relative(&forward, &reverse) < 1e-9,
        "forward {forward:?} vs reverse {reverse:?}"
    );
    // States-only recording: the same gradients from recomputed blocks.
    let mut settings = scene.settings.clone();
    settings.backward = false;
    let mut light = Simulator::new(model.clone(), settings).unwrap();
    let s = rollout_policy(&mut light, &start, &policy, &c, STEPS, Recording::States).unwrap();
    assert!(s.linearizations.is_empty());
    let h = adjoint(&mut light, &s, &loss).unwrap();
    for (what, a, b) in [
        ("initial", &g.initial, &h.initial),
        ("parameters", &g.parameters, &h.parameters),
        ("design", design, h.design.as_ref().unwrap()),
    ] {
        assert!(relative(a, b) < 1e-6, "{what}: {:e}", relative(a, b));
    }
}

/// `θ* = c + K θ^t` on every DoF, `θ̇* = κ (θ^t − θ^{t−1}) / Δt`, `τ = −β θ^t`: a feedback
/// policy.
#[derive(Debug, Clone)]
struct Feedback {
    base: Control,
    gain: f64,
    velocity_gain: f64,
    force_gain: f64,
    dt: f64,
}

impl Policy for Feedback {
    fn parameters(&self) -> usize {
        self.base.kp.len()
    }

    fn control(&self, c: &DVector<f64>, input: &PolicyInput) -> Control {
        let mut u = self.base.clone();
        u.position = c + &input.current.q * self.gain;
        u.force = &input.current.q * -self.force_gain;
        if let Some(before) = input.previous {
            u.velocity = (&input.current.q - &before.q) * (self.velocity_gain / self.dt);
        }
        u
    }

    fn pullback(
        &self,
        _: &DVector<f64>,
        input: &PolicyInput,
        g: ControlCotangent,
        out: PolicyGradient,
    ) {
        let v = self.velocity_gain / self.dt;
        *out.parameters += g.position;
        *out.current += g.position * self.gain - g.force * self.force_gain;
        if input.previous.is_some() {
            *out.current += g.velocity * v;
        }
        if let Some(before) = out.previous {
            *before -= g.velocity * v;
        }
    }

    fn pushforward(
        &self,
        _: &DVector<f64>,
        input: &PolicyInput,
        s: PolicyTangent,
        out: &mut ControlTangent,
    ) {
        out.position += s.parameters + s.current * self.gain;
        out.force -= s.current * self.force_gain;
        if let (Some(before), Some(_)) = (s.previous, input.previous) {
            out.velocity += (s.current - before) * (self.velocity_gain / self.dt);
        }
    }
}

#[test]
fn feedback_policies_are_differentiated_through_the_states() {
    let scene = crate::pd_chain();
    let model = scene.model.clone();
    let policy = Feedback {
        base: scene.control.clone(),
        gain: 0.5,
        velocity_gain: 0.3,
        force_gain: 0.2,
        dt: 0.01,
    };
    let c = DVector::from_vec(vec![0.3, -0.2, 0.4]);
    let q0 = DVector::from_vec(vec![0.1, 0.2, -0.1]);
    let w = DVector::from_vec(vec![1.0, -0.5, 0.25]);
    let run = |c: &DVector<f64>, q0: &DVector<f64>| {
        let mut sim = Simulator::new(model.clone(), scene.settings.clone()).unwrap();
        let start = Motion::at_rest(&model, State::new(&model, q0.clone()).unwrap());
        let mut start_held = start.clone();
        // Hold the poses before the start at the unperturbed state's.
        start_held.previous = Motion::at_rest(
            &model,
            State::new(&model, DVector::from_vec(vec![0.1, 0.2, -0.1])).unwrap(),
        )
        .previous;
        let t = rollout_policy(&mut sim, &start_held, &policy, c, 40, Recording::Blocks).unwrap();
        (t.last().q.dot(&w), t, sim)
    };
    let (_, t, mut sim) = run(&c, &q0);
    let g = adjoint(
        &mut sim,
        &t,
        &LossGradient::final_state(&model, 40, w.clone()),
    )
    .unwrap();
    let h = 1e-6;
    for k in 0..3 {
        let e = DVector::from_fn(3, |i, _| if i == k { h } else { 0.0 });
        let fd_c = (run(&(&c + &e), &q0).0 - run(&(&c - &e), &q0).0) / (2.0 * h);
        let fd_q = (run(&c, &(&q0 + &e)).0 - run(&c, &(&q0 - &e)).0) / (2.0 * h);
        assert!(
            (g.parameters[k] - fd_c).abs() < 1e-6 * fd_c.abs().max(1.0),
            "c[{k}]: {} vs {fd_c}",
            g.parameters[k]
        );
        assert!(
            (g.initial[k] - fd_q).abs() < 1e-6 * fd_q.abs().max(1.0),
            "θ0[{k}]: {} vs {fd_q}",
            g.initial[k]
        );
    }
}

#[test]
fn step_jacobians_match_differences_of_steps() {
    let mut scene = rotating_chains(2, 0.01).unwrap();
    scene.settings.backward = true;
    scene.settings.tolerance = 1e-9;
    scene.control.kp = DVector::from_element(scene.model.dof(), 10.0);
    let model = scene.model.clone();
    let n = model.dof();
    let mut sim = Simulator::new(model.clone(), scene.settings.clone()).unwrap();
    // Run into contact first, then linearise one step.
    let start = Motion::at_rest(&model, State::zero(&model));
    let t = rollout(
        &mut sim,
        &start,
        &vec![scene.control.clone(); 30],
        Recording::Blocks,
    )
    .unwrap();
    assert!(t.active_pairs[29] > 0);
    let (now, previous) = (&t.states[29], t.previous_poses(&model, 29));
    let lin = sim
        .linearize(&t.states[30], now, &previous, &scene.control)
        .unwrap();
    let jac = step_jacobian(&model, &lin, 29).unwrap();
    let h = 1e-6;
    for k in 0..n {
        let mut step = |s: f64| {
            let mut x = now.clone();
            x.q[k] += s;
            sim.step(&x, &previous, &scene.control).unwrap().0.q
        };
        let fd = (step(h) - step(-h)) / (2.0 * h);
        let err = (jac.current.column(k) - &fd).amax() / jac.current.amax();
        assert!(err < 1e-5, "∂θ^(t+1)/∂θ^t column {k}: {err:e}");
    }
    for k in [0, 3, 8] {
        let mut step = |s: f64| {
            let mut u = scene.control.clone();
            u.position[k] += s;
            sim.step(now, &previous, &u).unwrap().0.q
        };
        let fd = (step(h) - step(-h)) / (2.0 * h);
        let err = (jac.target_position.column(k) - &fd).amax() / jac.target_position.amax();
        assert!(err < 1e-5, "∂θ^(t+1)/∂θ* column {k}: {err:e}");
    }
}
