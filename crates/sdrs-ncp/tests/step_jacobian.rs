//! Every block of the step Jacobian (forward mode) and its vector-Jacobian product against
//! central finite differences of `NcpSimulator::step`, away from mode boundaries, with the
//! contact modes of each case asserted.

use nalgebra::{DMatrix, DVector, Isometry3, Vector3};
use sdrs_dynamics::{Control, JointKind, Link, MassModel, Model, State};
use sdrs_geometry::ConvexHull;
use sdrs_ncp::{ContactMode, NcpSettings, NcpSimulator, SolverSettings, StepJacobian};

/// A tight solver (fixed penalty), so that differences of solutions resolve the
/// finite-difference step.
pub fn tight_solver(tolerance: f64, max_iterations: usize) -> SolverSettings {
    SolverSettings::builder()
        .tolerance(tolerance)
        .max_iterations(max_iterations)
        .adaptive_rho(false)
        .build()
        .unwrap()
}

/// `(q⁺, v⁺)` of one step from `(state, v)` under `control`, on a copy of `sim`; also the
/// number of contacts.
fn step(
    sim: &NcpSimulator,
    state: &State,
    v: &DVector<f64>,
    control: &Control,
) -> (State, DVector<f64>, usize) {
    let (mut state, mut v) = (state.clone(), v.clone());
    let report = sim.clone().step(&mut state, &mut v, control).unwrap();
    (state, v, report.contacts.len())
}

/// The central-difference step Jacobian `[∂(q⁺, v⁺)/∂q | ∂/∂v | ∂/∂u]` (2n x 3n), with `q`
/// perturbed by `Model::integrate`, with the step `eps`; panics if a perturbation changes the
/// contact set.
pub fn finite_difference_jacobian(
    sim: &NcpSimulator,
    state: &State,
    v: &DVector<f64>,
    control: &Control,
    eps: f64,
) -> DMatrix<f64> {
    let model = sim.model().clone();
    let n = model.dof();
    let (base, _, contacts) = step(sim, state, v, control);
    let mut out = DMatrix::zeros(2 * n, 3 * n);
    for col in 0..3 * n {
        let at = |sign: f64| {
            let (mut s, mut w, mut c) = (state.clone(), v.clone(), control.clone());
            let k = col % n;
            match col / n {
                0 => {
                    let dq = DVector::from_fn(n, |i, _| if i == k { sign * eps } else { 0.0 });
                    s = model.integrate(state, &dq).unwrap();
                }
                1 => w[k] += sign * eps,
                _ => c.force[k] += sign * eps,
            }
            let (q, v, count) = step(sim, &s, &w, &c);
            assert_eq!(count, contacts, "column {col} changes the contact set");
            (model.difference(&base, &q).unwrap(), v)
        };
        let ((qp, vp), (qm, vm)) = (at(1.0), at(-1.0));
        out.view_mut((0, col), (n, 1))
            .copy_from(&((qp - qm) / (2.0 * eps)));
        out.view_mut((n, col), (n, 1))
            .copy_from(&((vp - vm) / (2.0 * eps)));
    }
    out
}

/// The analytic Jacobian in the same layout.
fn stacked(j: &StepJacobian) -> DMatrix<f64> {
    let n = j.dof();
    let mut out = DMatrix::zeros(2 * n, 3 * n);
    for (r, c, block) in [
        (0, 0, &j.dq_dq),
        (0, n, &j.dq_dv),
        (0, 2 * n, &j.dq_du),
        (n, 0, &j.dv_dq),
        (n, n, &j.dv_dv),
        (n, 2 * n, &j.dv_du),
    ] {
        out.view_mut((r, c), (n, n)).copy_from(block);
    }
    out
}

/// How a step Jacobian is checked: the finite-difference step and the tolerance (relative to
/// each block's largest entry, at least 1).
#[derive(Clone, Copy)]
pub struct Check {
    /// Central-difference step.
    pub eps: f64,
    /// Largest error allowed.
    pub tolerance: f64,
}

/// The check of a solve to 1e-13: steps of 1e-6, errors below 1e-5.
pub const TIGHT: Check = Check {
    eps: 1e-6,
    tolerance: 1e-5,
};

/// The check of a solve to 1e-10: on a rank-deficient patch a tilt `ε` makes the four
/// points' gaps non-coplanar at `O(ε²)` and ADMM stalls at a residual near `2 ε²` (one point
/// should open by that much), so the steps stay at 1e-6; the solve's residual 1e-10 over the
/// step 1e-6, times the patch's conditioning, leaves errors up to 1e-3 (8e-4 seen: a slip of
/// 1e-10 m/s where the exact solution sticks).
pub const LOOSE: Check = Check {
    eps: 1e-6,
    tolerance: 1e-3,
};

/// Checks every block of the step Jacobian at `(state, v, control)` against central
/// differences, and the VJP against the transposed JVP; returns the modes and whether eq. 11
/// was rank deficient.
pub fn check_step(
    sim: &NcpSimulator,
    state: &State,
    v: &DVector<f64>,
    control: &Control,
    check: Check,
) -> (Vec<ContactMode>, bool) {
    let Check { eps, tolerance } = check;
    let mut stepped = sim.clone();
    let (mut s, mut w) = (state.clone(), v.clone());
    let (_, record) = stepped.step_recorded(&mut s, &mut w, control).unwrap();
    let jacobian = stepped.step_jacobian(&record).unwrap();
    let analytic = stacked(&jacobian);
    // Cold starts: a warm start at the unperturbed solution can already meet the solver's
    // tolerance, whose residuals are of second order in the friction direction.
    let fd = finite_difference_jacobian(sim, state, v, control, eps);
    let n = jacobian.dof();
    let names = ["q⁺", "v⁺"];
    let inputs = ["q", "v", "u"];
    for (bi, name) in names.iter().enumerate() {
        for (bj, input) in inputs.iter().enumerate() {
            let a = analytic.view((bi * n, bj * n), (n, n));
            let f = fd.view((bi * n, bj * n), (n, n));
            let scale = a.amax().max(1.0);
            let error = (a - f).amax();
            assert!(
                error <= tolerance * scale,
                "∂{name}/∂{input}: error {error:e} (scale {scale:e})\nanalytic {a}\nfinite differences {f}"
            );
        }
    }
    // Reverse mode: ⟨w, J d⟩ = ⟨Jᵀ w, d⟩.
    let d = DVector::from_fn(3 * n, |i, _| ((i * 7 + 3) as f64).sin());
    let c = DVector::from_fn(2 * n, |i, _| ((i * 5 + 1) as f64).cos());
    let (dq, dv) = jacobian
        .jvp(
            &d.rows(0, n).into_owned(),
            &d.rows(n, n).into_owned(),
            &d.rows(2 * n, n).into_owned(),
        )
        .unwrap();
    let (gq, gv, gu) = jacobian
        .vjp(&c.rows(0, n).into_owned(), &c.rows(n, n).into_owned())
        .unwrap();
    let lhs = c.rows(0, n).dot(&dq) + c.rows(n, n).dot(&dv);
    let rhs = gq.dot(&d.rows(0, n)) + gv.dot(&d.rows(n, n)) + gu.dot(&d.rows(2 * n, n));
    assert!(
        (lhs - rhs).abs() <= 1e-10 * (1.0 + lhs.abs()),
        "{lhs} vs {rhs}"
    );
    (jacobian.modes.clone(), jacobian.rank_deficient)
}

/// A 1 kg cube of half-size 0.1 m on a free joint.
pub fn cube() -> Model {
    let hull = ConvexHull::cuboid(Vector3::repeat(0.1)).unwrap();
    let link = Link::new(
        "cube",
        None,
        Isometry3::identity(),
        JointKind::Free,
        vec![hull],
        MassModel::Lumped { mass: 1.0 },
    );
    Model::new(vec![link]).unwrap()
}

fn cube_state(model: &Model, q: [f64; 6]) -> State {
    State::new(model, DVector::from_row_slice(&q)).unwrap()
}

fn ground_settings(mu: f64) -> NcpSettings {
    ground_settings_with(mu, 1e-13)
}

fn ground_settings_with(mu: f64, tolerance: f64) -> NcpSettings {
    NcpSettings::new(1e-3)
        .unwrap()
        .with_friction(mu)
        .unwrap()
        .with_ground(Vector3::z(), 0.0)
        .unwrap()
        .with_solver(tight_solver(tolerance, 200_000))
}

#[test]
fn free_body_tumbling_in_the_air() {
    let model = cube();
    let sim = NcpSimulator::new(model.clone(), ground_settings(0.5));
    let state = cube_state(&model, [0.1, -0.2, 1.0, 0.3, -0.2, 0.5]);
    let v = DVector::from_row_slice(&[0.5, -1.0, 2.0, 3.0, -2.0, 4.0]);
    let mut control = Control::passive(&model);
    control.force = DVector::from_row_slice(&[0.5, 1.0, -0.3, 0.2, -0.1, 0.3]);
    let (modes, _) = check_step(&sim, &state, &v, &control, TIGHT);
    assert!(modes.is_empty());
}

#[test]
fn box_sliding_on_the_ground() {
    let model = cube();
    let sim = NcpSimulator::new(model.clone(), ground_settings(0.3));
    // Half the penetration tolerance deep (a speculative contact, away from the Baumgarte
    // kink at depth ε), sliding along x and sinking, with a sideways slip; no spin, so the
    // normal impulses the 4-point patch leaves undetermined move nothing (see
    // tests/trajectory.rs).
    let state = cube_state(&model, [0.0, 0.0, 0.09995, 0.0, 0.0, 0.2]);
    let v = DVector::from_row_slice(&[1.0, 0.3, -0.2, 0.0, 0.0, 0.0]);
    let control = Control::passive(&model);
    let (modes, _) = check_step(&sim, &state, &v, &control, TIGHT);
    assert_eq!(modes, vec![ContactMode::Sliding; 4]);
}

#[test]
fn box_sticking_on_an_incline() {
    // A 20° incline with μ = 0.9 > tan 20°: the box sticks; 4 sticking points over 6 DoFs
    // make eq. 11 rank deficient (pseudo-inverse).
    let model = cube();
    let angle = 20f64.to_radians();
    let normal = Vector3::new(angle.sin(), 0.0, angle.cos());
    let settings = ground_settings_with(0.9, 1e-10)
        .with_ground(normal, 0.0)
        .unwrap();
    let sim = NcpSimulator::new(model.clone(), settings);
    let centre = normal * (0.1 - 5e-5);
    let state = cube_state(&model, [centre.x, centre.y, centre.z, 0.0, angle, 0.0]);
    let approach = -0.05 * normal;
    let v = DVector::from_row_slice(&[approach.x, approach.y, approach.z, 0.0, 0.0, 0.0]);
    let (modes, rank_deficient) = check_step(&sim, &state, &v, &Control::passive(&model), LOOSE);
    assert_eq!(modes, vec![ContactMode::Sticking; 4]);
    assert!(rank_deficient);
}

#[test]
fn box_resting_on_a_four_point_patch() {
    let model = cube();
    let sim = NcpSimulator::new(model.clone(), ground_settings_with(0.5, 1e-10));
    let state = cube_state(&model, [0.0, 0.0, 0.09995, 0.0, 0.0, 0.0]);
    let v = DVector::from_row_slice(&[0.0, 0.0, -0.1, 0.0, 0.0, 0.0]);
    let (modes, rank_deficient) = check_step(&sim, &state, &v, &Control::passive(&model), LOOSE);
    assert_eq!(modes, vec![ContactMode::Sticking; 4]);
    assert!(rank_deficient);
}

#[test]
fn breaking_contact_within_the_margin() {
    // 3 mm above the ground (margin 1 cm) and moving up: four breaking contacts.
    let model = cube();
    let sim = NcpSimulator::new(model.clone(), ground_settings(0.5));
    let state = cube_state(&model, [0.0, 0.0, 0.103, 0.0, 0.0, 0.0]);
    let v = DVector::from_row_slice(&[0.3, 0.0, 0.5, 0.2, 0.1, -0.3]);
    let (modes, _) = check_step(&sim, &state, &v, &Control::passive(&model), TIGHT);
    assert!(!modes.is_empty());
    assert!(
        modes.iter().all(|m| *m == ContactMode::Breaking),
        "{modes:?}"
    );
}

#[test]
fn tilted_box_sliding_on_an_edge() {
    // Tilted about x, the box touches along an edge (two points) while sliding and spinning:
    // a regular reduced system with sliding and sticking rows coupled through rotation.
    let model = cube();
    let sim = NcpSimulator::new(model.clone(), ground_settings(0.3));
    let tilt: f64 = 0.3;
    // The lowest edge's height: 0.1 (cos t + sin t) above the centre's footprint.
    let z = 0.1 * (tilt.cos() + tilt.sin()) - 5e-5;
    let state = cube_state(&model, [0.0, 0.0, z, tilt, 0.0, 0.0]);
    let v = DVector::from_row_slice(&[1.0, 0.2, -0.3, 0.5, 0.0, 0.3]);
    let (modes, rank_deficient) = check_step(&sim, &state, &v, &Control::passive(&model), TIGHT);
    assert_eq!(modes.len(), 2);
    assert!(
        modes.iter().all(|m| *m == ContactMode::Sliding),
        "{modes:?}"
    );
    assert!(!rank_deficient);
}
