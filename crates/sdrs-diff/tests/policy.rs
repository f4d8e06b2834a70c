//! Policies: their derivatives against central differences, and what each family promises.

use nalgebra::DVector;
use proptest::test_runner::TestRunner;
use sdrs_diff::{CubicSpline, DiffError, OpenLoop, Policy, PolicyInput, SineWaves};
use sdrs_dynamics::{Control, State, scenes::chain};
use sdrs_geometry::testing::sample;

fn base() -> (Control, State) {
    let scene = chain(4, 0.01).unwrap();
    let state = State::zero(&scene.model);
    let mut control = scene.control;
    control.kp = DVector::from_element(4, 10.0);
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
