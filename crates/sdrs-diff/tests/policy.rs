//! Policies: their derivatives against central differences, and what each family promises.

use nalgebra::{DMatrix, DVector};
use proptest::test_runner::TestRunner;
use sdrs_diff::{
    ControlCotangent, ControlTangent, CubicSpline, DiffError, OpenLoop, Policy, PolicyGradient,
    PolicyInput, PolicyTangent, SineWaves, TargetJacobian,
};
use sdrs_dynamics::{Control, State, scenes::chain};
use sdrs_geometry::testing::sample;

fn base() -> (Control, State) {
    let scene = chain(4, 0.01).unwrap();
    let state = State::zero(&scene.model);
    let mut control = scene.control;
    control.kp = DVector::from_element(4, 20.0);
    (control, state)
}

fn input(step: usize, state: &State) -> PolicyInput<'_> {
    PolicyInput {
        step,
        time: (step + 1) as f64 * 0.01,
        current: state,
        previous: None,
    }
}

/// `∂θ*/∂c`, `∂θ̇*/∂c` and `∂τ/∂c` against central differences at random parameters and
/// steps.
fn check_parameter_jacobian(policy: &dyn Policy, runner: &mut TestRunner, steps: usize) {
    let (_, state) = base();
    let h = 1e-6;
    for _ in 0..20 {
        let c = DVector::from_fn(policy.parameters(), |_, _| sample(-2.0..2.0f64, runner));
        let step = sample(0..steps, runner);
        let at = input(step, &state);
        let d = policy.derivatives(&c, &at);
        for k in 0..policy.parameters() {
            let mut plus = c.clone();
            plus[k] += h;
            let mut minus = c.clone();
            minus[k] -= h;
            let (up, down) = (policy.control(&plus, &at), policy.control(&minus, &at));
            let fd_p = (&up.position - &down.position) / (2.0 * h);
            let fd_v = (&up.velocity - &down.velocity) / (2.0 * h);
            let fd_f = (&up.force - &down.force) / (2.0 * h);
            let err_p = (d.parameters.position.column(k) - fd_p).amax();
            let err_v = (d.parameters.velocity.column(k) - fd_v).amax();
            let err_f = (d.parameters.force.column(k) - fd_f).amax();
            assert!(
                err_p < 1e-7 && err_v < 1e-6 && err_f < 1e-7,
                "{policy:?}: parameter {k} at step {step}: errors {err_p:e}, {err_v:e}, {err_f:e}"
            );
        }
    }
}

/// The velocity target is the time derivative of the position target.
fn check_velocity_is_rate(policy: &dyn Policy, c: &DVector<f64>, steps: usize) {
    let (_, state) = base();
    let h = 1e-6;
    for step in 0..steps {
        let t = (step + 1) as f64 * 0.01 - 0.005; // inside a span, away from knots
        let at = |time: f64| PolicyInput {
            time,
            ..input(step, &state)
        };
        let (up, down) = (policy.control(c, &at(t + h)), policy.control(c, &at(t - h)));
        let rate = (&up.position - &down.position) / (2.0 * h);
        let v = policy.control(c, &at(t)).velocity;
        assert!((rate - v).amax() < 1e-6, "{policy:?} at t = {t}");
    }
}

#[test]
fn policy_derivatives_match_differences() {
    let mut runner = TestRunner::deterministic();
    let (control, _) = base();
    let sine = SineWaves::new(control.clone(), vec![0, 2], 2).unwrap();
    check_parameter_jacobian(&sine, &mut runner, 200);
    let c = DVector::from_fn(12, |k, _| 0.3 + 0.1 * k as f64);
    check_velocity_is_rate(&sine, &c, 100);
    for points in [4, 7] {
        let spline = CubicSpline::new(control.clone(), vec![1, 3], points, 0.5).unwrap();
        // Steps beyond the duration too (held at the end value).
        check_parameter_jacobian(&spline, &mut runner, 80);
        let c = DVector::from_fn(2 * points, |k, _| (k as f64).sin());
        check_velocity_is_rate(&spline, &c, 49);
    }
    let open = OpenLoop::new(control.clone(), vec![3], 30).unwrap();
    check_parameter_jacobian(&open, &mut runner, 30);
    let torques = OpenLoop::forces(control, vec![0, 2], 30).unwrap();
    check_parameter_jacobian(&torques, &mut runner, 30);
}

#[test]
fn a_four_point_spline_is_one_cubic_through_its_end_points() {
    let (control, state) = base();
    let spline = CubicSpline::new(control.clone(), vec![2], 4, 1.0).unwrap();
    let c = DVector::from_vec(vec![1.0, -2.0, 3.0, 0.5]);
    let at = |time: f64| PolicyInput {
        time,
        ..input(0, &state)
    };
    // Bernstein form: B(u) = Σ C(3,i) u^i (1−u)^{3−i} c_i.
    for u in [0.0, 0.1, 0.37, 0.5, 0.9, 1.0] {
        let w = [
            (1.0 - u) * (1.0f64 - u) * (1.0 - u),
            3.0 * u * (1.0 - u) * (1.0 - u),
            3.0 * u * u * (1.0 - u),
            u * u * u,
        ];
        let expected: f64 = w.iter().zip(c.iter()).map(|(w, c)| w * c).sum();
        let got = spline.control(&c, &at(u));
        assert!((got.position[2] - expected).abs() < 1e-12, "u = {u}");
        // Other DoFs keep the base targets.
        assert_eq!(got.position[0], control.position[0]);
    }
    // Held at the end value with zero velocity after the duration.
    let late = spline.control(&c, &at(1.5));
    assert_eq!((late.position[2], late.velocity[2]), (0.5, 0.0));
    // Constant control values give a constant target (the basis sums to one).
    let flat = spline.initial();
    for u in [0.0, 0.3, 0.8] {
        let got = spline.control(&flat, &at(u));
        assert!((got.position[2] - control.position[2]).abs() < 1e-12);
        assert!(got.velocity[2].abs() < 1e-12);
    }
}

#[test]
fn policies_refuse_bad_input() {
    let (control, _) = base();
    assert!(matches!(
        CubicSpline::new(control.clone(), vec![0], 3, 1.0),
        Err(DiffError::InvalidSetting { .. })
    ));
    assert!(matches!(
        CubicSpline::new(control.clone(), vec![0], 4, 0.0),
        Err(DiffError::InvalidSetting { .. })
    ));
    assert!(matches!(
        SineWaves::new(control.clone(), vec![4], 1),
        Err(DiffError::OutOfRange { index: 4, .. })
    ));
    assert!(matches!(
        OpenLoop::new(control.clone(), vec![0], 0),
        Err(DiffError::InvalidSetting { .. })
    ));
    let sine = SineWaves::new(control, vec![0], 1).unwrap();
    assert!(matches!(
        sine.check(&DVector::zeros(2)),
        Err(DiffError::LengthMismatch { .. })
    ));
    assert!(matches!(
        sine.check(&DVector::from_vec(vec![0.0, f64::NAN, 0.0])),
        Err(DiffError::NonFinite { index: 1, .. })
    ));
}

fn random(n: usize, runner: &mut TestRunner) -> DVector<f64> {
    DVector::from_fn(n, |_, _| sample(-1.0..1.0f64, runner))
}

/// A policy's pushforward against central differences of its control along random
/// directions of `c`, `θ^t` and `θ^{t−1}` together, and its pullback against the pushforward
/// (`⟨w, J s⟩ = ⟨Jᵀ w, s⟩` for random `w`, `s`), at `c` and `input`. Also used by the
/// feedback policy of `modes.rs`.
pub(crate) fn check_products(
    policy: &dyn Policy,
    c: &DVector<f64>,
    input: &PolicyInput,
    runner: &mut TestRunner,
) {
    let (n, p) = (input.current.q.len(), policy.parameters());
    let h = 1e-6;
    for _ in 0..3 {
        let (dc, dq) = (random(p, runner), random(n, runner));
        let dq_before = input.previous.map(|_| random(n, runner));
        let mut u = ControlTangent::zeros(n, 1);
        let before_direction = dq_before
            .as_ref()
            .map(|d| DMatrix::from_column_slice(n, 1, d.as_slice()));
        policy.pushforward(
            c,
            input,
            PolicyTangent {
                parameters: &DMatrix::from_column_slice(p, 1, dc.as_slice()),
                current: &DMatrix::from_column_slice(n, 1, dq.as_slice()),
                previous: before_direction.as_ref(),
            },
            &mut u,
        );
        let moved = |s: f64| {
            let mut current = input.current.clone();
            current.q += &dq * s;
            let previous = input.previous.map(|b| {
                let mut b = b.clone();
                b.q += dq_before.as_ref().expect("a previous direction") * s;
                b
            });
            let at = PolicyInput {
                current: &current,
                previous: previous.as_ref(),
                ..*input
            };
            policy.control(&(c + &dc * s), &at)
        };
        let (up, down) = (moved(h), moved(-h));
        let fd = [
            (&up.position - &down.position) / (2.0 * h),
            (&up.velocity - &down.velocity) / (2.0 * h),
            (&up.force - &down.force) / (2.0 * h),
        ];
        for (what, (fd, jvp)) in ["position", "velocity", "force"].iter().zip(fd.iter().zip([
            &u.position,
            &u.velocity,
            &u.force,
        ])) {
            let err = (fd - jvp.column(0)).amax();
            assert!(
                err < 1e-6 * (1.0 + fd.amax()),
                "{policy:?} step {}: pushforward of the {what} target off by {err:e}",
                input.step
            );
        }
        // The pullback of random weights, accumulated onto non-zero buffers.
        let w = [random(n, runner), random(n, runner), random(n, runner)];
        let offset = [random(p, runner), random(n, runner), random(n, runner)];
        let mut g = offset.clone();
        let [gc, gq, gb] = &mut g;
        policy.pullback(
            c,
            input,
            ControlCotangent {
                position: &w[0],
                velocity: &w[1],
                force: &w[2],
            },
            PolicyGradient {
                parameters: gc,
                current: gq,
                previous: input.previous.map(|_| gb),
            },
        );
        let reverse = (&g[0] - &offset[0]).dot(&dc)
            + (&g[1] - &offset[1]).dot(&dq)
            + dq_before
                .as_ref()
                .map_or(0.0, |d| (&g[2] - &offset[2]).dot(d));
        let forward = w[0].dot(&u.position.column(0))
            + w[1].dot(&u.velocity.column(0))
            + w[2].dot(&u.force.column(0));
        assert!(
            (reverse - forward).abs() < 1e-12 * (1.0 + forward.abs()),
            "{policy:?} step {}: pullback {reverse} vs pushforward {forward}",
            input.step
        );
        if input.previous.is_none() {
            assert_eq!(
                g[2], offset[2],
                "no previous state: its gradient stays as it was"
            );
        }
    }
}

/// The dense parameter Jacobians the policies handed the adjoint before pullbacks (their
/// old `derivatives`), rebuilt here as the reference: open-loop unit entries, sine-wave
/// partials, and the spline's full Cox–de Boor basis over every control point.
mod old {
    use super::*;

    pub fn open_loop(
        n: usize,
        dofs: &[usize],
        steps: usize,
        step: usize,
        force: bool,
    ) -> TargetJacobian {
        let m = dofs.len();
        let mut j = TargetJacobian::zeros(n, steps * m);
        let block = if force { &mut j.force } else { &mut j.position };
        if step < steps {
            for (a, &d) in dofs.iter().enumerate() {
                block[(d, step * m + a)] = 1.0;
            }
        }
        j
    }

    pub fn sine(
        n: usize,
        dofs: &[usize],
        waves: usize,
        c: &DVector<f64>,
        tau: f64,
    ) -> TargetJacobian {
        let mut j = TargetJacobian::zeros(n, 3 * waves * dofs.len());
        for (a, &d) in dofs.iter().enumerate() {
            for w in 0..waves {
                let at = 3 * (a * waves + w);
                let (amp, om, phi) = (c[at], c[at + 1], c[at + 2]);
                let (s, co) = (om * tau + phi).sin_cos();
                let dx = [s, amp * tau * co, amp * co];
                let dv = [om * co, amp * co - amp * om * tau * s, -amp * om * s];
                for k in 0..3 {
                    j.position[(d, at + k)] = dx[k];
                    j.velocity[(d, at + k)] = dv[k];
                }
            }
        }
        j
    }

    pub fn spline(
        n: usize,
        dofs: &[usize],
        points: usize,
        duration: f64,
        time: f64,
    ) -> TargetJacobian {
        let spans = (points - 3) as f64;
        let k: Vec<f64> = (0..points + 4)
            .map(|i| (i.saturating_sub(3).min(points - 3) as f64) / spans)
            .collect();
        let u = (time / duration).clamp(0.0, 1.0);
        let s = (3..points).rev().find(|&s| k[s] <= u).unwrap_or(3);
        let mut b = vec![vec![0.0; points + 4]; 4];
        b[0][s] = 1.0;
        for p in 1..=3 {
            for i in s - p..=s {
                let left = if k[i + p] > k[i] {
                    (u - k[i]) / (k[i + p] - k[i]) * b[p - 1][i]
                } else {
                    0.0
                };
                let right = if k[i + p + 1] > k[i + 1] {
                    (k[i + p + 1] - u) / (k[i + p + 1] - k[i + 1]) * b[p - 1][i + 1]
                } else {
                    0.0
                };
                b[p][i] = left + right;
            }
        }
        let mut j = TargetJacobian::zeros(n, points * dofs.len());
        for (a, &d) in dofs.iter().enumerate() {
            for i in 0..points {
                let l = if k[i + 3] > k[i] {
                    3.0 / (k[i + 3] - k[i]) * b[2][i]
                } else {
                    0.0
                };
                let r = if k[i + 4] > k[i + 1] {
                    3.0 / (k[i + 4] - k[i + 1]) * b[2][i + 1]
                } else {
                    0.0
                };
                j.position[(d, a * points + i)] = b[3][i];
                j.velocity[(d, a * points + i)] = if time < duration {
                    (l - r) / duration
                } else {
                    0.0
                };
            }
        }
        j
    }
}

#[test]
fn pullbacks_and_pushforwards_match_differences_and_the_old_dense_jacobians() {
    let mut runner = TestRunner::deterministic();
    let (control, state) = base();
    let n = state.q.len();
    let steps = 30;
    let open = OpenLoop::new(control.clone(), vec![3, 1], steps).unwrap();
    let torques = OpenLoop::forces(control.clone(), vec![0, 2], steps).unwrap();
    let sine = SineWaves::new(control.clone(), vec![0, 2], 2).unwrap();
    let splines = [4, 7].map(|points| {
        (
            points,
            CubicSpline::new(control.clone(), vec![1, 3], points, 0.2).unwrap(),
        )
    });
    for _ in 0..10 {
        // Steps past the horizon and past the spline's duration too.
        let step = sample(0..steps + 5, &mut runner);
        let at = input(step, &state);
        let tau = at.time;
        let mut cases: Vec<(&dyn Policy, DVector<f64>, TargetJacobian)> = Vec::new();
        let c_open = random(open.parameters(), &mut runner);
        let c_sine = random(sine.parameters(), &mut runner);
        // The old open-loop Jacobian was zero past the horizon while the control holds the
        // last step's values: the pullback follows the control (checked against differences).
        if step < steps {
            let reference = old::open_loop(n, &[3, 1], steps, step, false);
            cases.push((&open, c_open.clone(), reference));
            let reference = old::open_loop(n, &[0, 2], steps, step, true);
            cases.push((&torques, c_open.clone(), reference));
        }
        cases.push((
            &sine,
            c_sine.clone(),
            old::sine(n, &[0, 2], 2, &c_sine, tau),
        ));
        for (points, spline) in &splines {
            let c = random(spline.parameters(), &mut runner);
            cases.push((spline, c, old::spline(n, &[1, 3], *points, 0.2, tau)));
        }
        for (policy, c, reference) in cases {
            let d = policy.derivatives(&c, &at);
            for (what, new, old) in [
                ("position", &d.parameters.position, &reference.position),
                ("velocity", &d.parameters.velocity, &reference.velocity),
                ("force", &d.parameters.force, &reference.force),
            ] {
                let err = (new - old).amax();
                assert!(
                    err < 1e-12 * (1.0 + old.amax()),
                    "{policy:?} step {step}: {what} Jacobian off by {err:e}"
                );
            }
            assert!(
                d.current.is_none() && d.previous.is_none(),
                "open-loop policies have no feedback"
            );
            check_products(policy, &c, &at, &mut runner);
        }
        for policy in [&open as &dyn Policy, &torques] {
            check_products(policy, &c_open, &at, &mut runner);
        }
    }
}

#[test]
fn open_loop_and_spline_pullbacks_touch_only_their_steps_parameters() {
    let (control, state) = base();
    let (steps, m, n) = (50, 4, state.q.len());
    let open = OpenLoop::new(control.clone(), vec![0, 1, 2, 3], steps).unwrap();
    let spline = CubicSpline::new(control, vec![0, 1, 2, 3], 20, 0.5).unwrap();
    let ones = DVector::from_element(n, 1.0);
    for (policy, touched) in [(&open as &dyn Policy, m), (&spline, 4 * m)] {
        for step in [0, 17, 49] {
            let mut g = DVector::zeros(policy.parameters());
            let mut now = DVector::zeros(n);
            policy.pullback(
                &DVector::zeros(policy.parameters()),
                &input(step, &state),
                ControlCotangent {
                    position: &ones,
                    velocity: &ones,
                    force: &ones,
                },
                PolicyGradient {
                    parameters: &mut g,
                    current: &mut now,
                    previous: None,
                },
            );
            let nonzero: Vec<usize> = (0..g.len()).filter(|&k| g[k] != 0.0).collect();
            assert!(
                nonzero.len() <= touched,
                "{policy:?} step {step} touches {nonzero:?}"
            );
            assert!(
                !nonzero.is_empty(),
                "{policy:?} step {step} touches nothing"
            );
            assert_eq!(
                now,
                DVector::zeros(n),
                "open-loop policies do not feed back"
            );
            if policy.parameters() == steps * m {
                assert_eq!(nonzero, (step * m..(step + 1) * m).collect::<Vec<_>>());
            }
        }
    }
}
