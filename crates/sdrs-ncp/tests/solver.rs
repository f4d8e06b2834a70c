//! The NCP solver on synthetic problems: known single-contact solutions in each mode, random
//! physical problems (cone feasibility, complementarity, De Saxcé conditions), warm start, a
//! singular Delassus matrix, and every error.

use nalgebra::{DMatrix, DVector, Matrix3, Vector3};
use proptest::prelude::*;
use sdrs_ncp::{ContactMode, NcpError, NcpProblem, NcpSolution, SolverSettings, solve};

const TOL: f64 = 1e-9;
const MODE_TOL: f64 = 1e-6;

fn single(delassus: Matrix3<f64>, g: Vector3<f64>, mu: f64) -> NcpProblem {
    NcpProblem::new(
        DMatrix::from_column_slice(3, 3, delassus.as_slice()),
        DVector::from_column_slice(g.as_slice()),
        vec![mu],
    )
    .unwrap()
}

fn three(x: &DVector<f64>, i: usize) -> Vector3<f64> {
    Vector3::new(x[3 * i], x[3 * i + 1], x[3 * i + 2])
}

/// Checks eq. 1 with the De Saxcé conditions contact by contact: `λ ∈ K_μ`,
/// `σ̂ = σ + Γ(σ) ∈ K_μ*`, `λ · σ̂ = 0`, and in each mode its own conditions.
fn check_ncp(problem: &NcpProblem, solution: &NcpSolution, accuracy: f64) {
    let sigma = problem.velocity(&solution.impulses);
    assert!((&sigma - &solution.velocities).amax() < 1e-12);
    for (i, &mu) in problem.mu().iter().enumerate() {
        let l = three(&solution.impulses, i);
        let s = three(&sigma, i);
        let hat = s + Vector3::new(0.0, 0.0, mu * s.xy().norm());
        assert!(
            l.xy().norm() <= mu * l.z + accuracy,
            "λ_{i} = {l} outside K_{mu}"
        );
        assert!(
            mu * hat.xy().norm() <= hat.z + accuracy,
            "σ̂_{i} = {hat} outside K*_{mu}"
        );
        assert!(l.dot(&hat).abs() <= accuracy, "λ·σ̂ = {}", l.dot(&hat));
        match ContactMode::classify(&l, &s, MODE_TOL) {
            ContactMode::Breaking => assert!(s.z >= -accuracy, "breaking contact approaching: {s}"),
            ContactMode::Sticking => assert!(s.norm() <= MODE_TOL, "sticking contact moving: {s}"),
            ContactMode::Sliding => {
                // Signorini holds on σ_N itself; the force opposes the slip on the boundary.
                assert!(
                    s.z.abs() <= 1e3 * accuracy,
                    "sliding contact with normal velocity {s}"
                );
                let opposing = -l.z * mu * s.xy() / s.xy().norm();
                assert!(
                    (l.xy() - opposing).norm() <= 1e3 * accuracy,
                    "λ_T = {} ≠ {opposing}",
                    l.xy()
                );
            }
        }
    }
}

#[test]
fn single_contact_breaking() {
    let problem = single(Matrix3::identity(), Vector3::new(0.3, -0.1, 1.0), 0.5);
    let solution = solve(&problem, &SolverSettings::default(), None).unwrap();
    assert!(solution.impulses.amax() < 1e-10);
    assert!((&solution.velocities - problem.free_velocity()).amax() < 1e-10);
    assert_eq!(solution.modes(&problem, MODE_TOL), [ContactMode::Breaking]);
}

#[test]
fn single_contact_sticking() {
    // Slip 0.2236 < μ × 1: the impulse −g stops the point.
    let problem = single(Matrix3::identity(), Vector3::new(0.2, 0.1, -1.0), 0.5);
    let solution = solve(&problem, &SolverSettings::default(), None).unwrap();
    assert!((&solution.impulses + problem.free_velocity()).amax() < 1e-8);
    assert!(solution.velocities.amax() < 1e-8);
    assert_eq!(solution.modes(&problem, MODE_TOL), [ContactMode::Sticking]);
    check_ncp(&problem, &solution, 1e-8);
}

#[test]
fn single_contact_sliding_with_anisotropic_inertia() {
    // G = diag(2, 2, 0.5): the normal impulse 2 stops σ_N = −1; friction μ λ_N = 1 along −x
    // slows the slip 3 by 2 (tangent compliance 2); the slip keeps its direction.
    let delassus = Matrix3::from_diagonal(&Vector3::new(2.0, 2.0, 0.5));
    let problem = single(delassus, Vector3::new(3.0, 0.0, -1.0), 0.5);
    let solution = solve(&problem, &SolverSettings::default(), None).unwrap();
    let expected = DVector::from_vec(vec![-1.0, 0.0, 2.0]);
    assert!(
        (&solution.impulses - expected).amax() < 1e-8,
        "{}",
        solution.impulses
    );
    assert!((solution.velocities[0] - 1.0).abs() < 1e-8);
    assert!(solution.velocities[2].abs() < 1e-8);
    assert_eq!(solution.modes(&problem, MODE_TOL), [ContactMode::Sliding]);
    check_ncp(&problem, &solution, 1e-8);
}

#[test]
fn frictionless_contact_only_pushes_along_the_normal() {
    let problem = single(Matrix3::identity(), Vector3::new(1.0, 2.0, -3.0), 0.0);
    let solution = solve(&problem, &SolverSettings::default(), None).unwrap();
    assert!((&solution.impulses - DVector::from_vec(vec![0.0, 0.0, 3.0])).amax() < 1e-8);
}

/// A random physical problem: `G = J M⁻¹ Jᵀ`, `g = J v` with random contact Jacobian `J`
/// (3 n_c x n), SPD `M = R Rᵀ + I` from `mass_root` `R` and velocity `v`. The tests here take
/// n ≥ 3 n_c (with random rank-deficient `J` the De Saxcé fixed point of ADMM does not always
/// converge; the singular case is tested on the physical box below and, in bulk, in
/// `convergence`).
pub(crate) fn physical(
    jacobian: &DMatrix<f64>,
    mass_root: &DMatrix<f64>,
    v: &DVector<f64>,
    mu: Vec<f64>,
) -> NcpProblem {
    let n = mass_root.nrows();
    let mass = mass_root * mass_root.transpose() + DMatrix::identity(n, n);
    let minv_jt = mass.cholesky().unwrap().solve(&jacobian.transpose());
    let delassus = jacobian * &minv_jt;
    let delassus = (&delassus + delassus.transpose()) * 0.5;
    NcpProblem::new(delassus, jacobian * v, mu).unwrap()
}

fn random_problem() -> impl Strategy<Value = NcpProblem> {
    (1usize..5, 0usize..6).prop_flat_map(|(contacts, extra)| {
        let dof = 3 * contacts + extra;
        let m = 3 * contacts;
        (
            proptest::collection::vec(-1.0..1.0f64, m * dof),
            proptest::collection::vec(-1.0..1.0f64, dof * dof),
            proptest::collection::vec(-2.0..2.0f64, dof),
            proptest::collection::vec(0.05..1.2f64, contacts),
        )
            .prop_map(move |(j, r, v, mu)| {
                physical(
                    &DMatrix::from_vec(m, dof, j),
                    &DMatrix::from_vec(dof, dof, r),
                    &DVector::from_vec(v),
                    mu,
                )
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_problems_satisfy_the_ncp(problem in random_problem()) {
        let settings = SolverSettings::builder().tolerance(TOL).max_iterations(20_000).build().unwrap();
        let solution = solve(&problem, &settings, None).unwrap();
        prop_assert!(solution.residuals.max() <= TOL);
        check_ncp(&problem, &solution, 1e-8);
    }
}

/// Four corners of a 1 kg box, 0.4 x 0.4 x 0.2 m, on the ground: 12 contact rows for 6 DoFs.
fn box_on_ground(v_free: [f64; 6], mu: f64) -> NcpProblem {
    let (m, a, b, c) = (1.0, 0.2, 0.2, 0.1);
    let inertia = Vector3::new(
        m * (4.0 * b * b + 4.0 * c * c) / 12.0,
        m * (4.0 * a * a + 4.0 * c * c) / 12.0,
        m * (4.0 * a * a + 4.0 * b * b) / 12.0,
    );
    let mut jacobian = DMatrix::zeros(12, 6);
    for (i, (sx, sy)) in [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)]
        .into_iter()
        .enumerate()
    {
        let p = Vector3::new(sx * a, sy * b, -c);
        // Point velocity v + ω × p = v − [p]× ω.
        jacobian
            .fixed_view_mut::<3, 3>(3 * i, 0)
            .copy_from(&Matrix3::identity());
        jacobian
            .fixed_view_mut::<3, 3>(3 * i, 3)
            .copy_from(&(-p.cross_matrix()));
    }
    let mut minv = DMatrix::zeros(6, 6);
    for k in 0..3 {
        minv[(k, k)] = 1.0 / m;
        minv[(k + 3, k + 3)] = 1.0 / inertia[k];
    }
    let delassus = &jacobian * minv * jacobian.transpose();
    let delassus = (&delassus + delassus.transpose()) * 0.5;
    let g = &jacobian * DVector::from_row_slice(&v_free);
    NcpProblem::new(delassus, g, vec![mu; 4]).unwrap()
}

#[test]
fn box_resting_on_four_corners_converges_with_singular_delassus() {
    let dt = 1e-3;
    let problem = box_on_ground([0.0, 0.0, -9.81 * dt, 0.0, 0.0, 0.0], 0.8);
    let eigen = problem.delassus().clone().symmetric_eigen();
    let rank = eigen.eigenvalues.iter().filter(|e| **e > 1e-9).count();
    assert_eq!(rank, 6, "G should be singular: 12 rows, 6 DoFs");
    let solution = solve(&problem, &SolverSettings::default(), None).unwrap();
    check_ncp(&problem, &solution, 1e-8);
    let normal: f64 = (0..4).map(|i| solution.impulses[3 * i + 2]).sum();
    assert!(
        (normal - 9.81 * dt).abs() < 1e-8,
        "total normal impulse {normal}"
    );
    assert!(solution.velocities.amax() < 1e-8);
    assert!(
        solution
            .modes(&problem, MODE_TOL)
            .iter()
            .all(|m| *m == ContactMode::Sticking)
    );
}

#[test]
fn box_sliding_on_four_corners_loses_mu_g_dt_of_speed() {
    let (dt, mu) = (1e-3, 0.3);
    let problem = box_on_ground([1.0, 0.0, -9.81 * dt, 0.0, 0.0, 0.0], mu);
    let solution = solve(&problem, &SolverSettings::default(), None).unwrap();
    check_ncp(&problem, &solution, 1e-8);
    let friction: f64 = (0..4).map(|i| solution.impulses[3 * i]).sum();
    assert!(
        (friction + mu * 9.81 * dt).abs() < 1e-8,
        "friction impulse {friction}"
    );
    assert!(
        solution
            .modes(&problem, MODE_TOL)
            .iter()
            .all(|m| *m == ContactMode::Sliding)
    );
}

#[test]
fn warm_start_needs_fewer_iterations() {
    let dt = 1e-3;
    let settings = SolverSettings::default();
    let first = box_on_ground([0.5, 0.0, -9.81 * dt, 0.0, 0.0, 0.2], 0.3);
    let cold = solve(&first, &settings, None).unwrap();
    assert!(cold.iterations > 1);
    // The same problem from its own solution: nothing to do.
    assert_eq!(
        solve(&first, &settings, Some(&cold.impulses))
            .unwrap()
            .iterations,
        0
    );
    // The next step (slightly slower): the previous impulses are a good start.
    let next = box_on_ground([0.497, 0.0, -9.81 * dt, 0.0, 0.0, 0.199], 0.3);
    let cold_next = solve(&next, &settings, None).unwrap();
    let warm_next = solve(&next, &settings, Some(&cold.impulses)).unwrap();
    assert!(
        warm_next.iterations < cold_next.iterations,
        "warm {} vs cold {}",
        warm_next.iterations,
        cold_next.iterations
    );
    check_ncp(&next, &warm_next, 1e-8);
}

#[test]
fn too_few_iterations_is_a_typed_error() {
    let problem = box_on_ground([1.0, 0.0, -0.01, 0.0, 0.0, 0.0], 0.3);
    let settings = SolverSettings::builder().max_iterations(2).build().unwrap();
    match solve(&problem, &settings, None) {
        Err(NcpError::NotConverged {
            iterations,
            residual,
            tolerance,
        }) => {
            assert_eq!(iterations, 2);
            assert!(residual > tolerance && residual.is_finite());
        }
        other => panic!("expected NotConverged, got {other:?}"),
    }
}

#[test]
fn bad_inputs_are_typed_errors() {
    let g = DVector::from_vec(vec![0.0, 0.0, -1.0]);
    let eye = DMatrix::identity(3, 3);
    let mut nan = eye.clone();
    nan[(1, 1)] = f64::NAN;
    assert!(matches!(
        NcpProblem::new(nan, g.clone(), vec![0.5]),
        Err(NcpError::NonFinite { index: 4, .. })
    ));
    assert!(matches!(
        NcpProblem::new(
            eye.clone(),
            DVector::from_vec(vec![0.0, f64::INFINITY, 0.0]),
            vec![0.5]
        ),
        Err(NcpError::NonFinite {
            what: "free velocity",
            index: 1
        })
    ));
    assert!(matches!(
        NcpProblem::new(DMatrix::identity(4, 4), DVector::zeros(4), vec![0.5]),
        Err(NcpError::NotThreePerContact { rows: 4 })
    ));
    assert!(matches!(
        NcpProblem::new(eye.clone(), DVector::zeros(6), vec![0.5]),
        Err(NcpError::SizeMismatch {
            actual: 6,
            expected: 3,
            ..
        })
    ));
    assert!(matches!(
        NcpProblem::new(eye.clone(), g.clone(), vec![0.5, 0.5]),
        Err(NcpError::SizeMismatch { .. })
    ));
    assert!(matches!(
        NcpProblem::new(eye.clone(), g.clone(), vec![-0.1]),
        Err(NcpError::NegativeFriction { contact: 0, .. })
    ));
    assert!(matches!(
        NcpProblem::new(eye.clone(), g.clone(), vec![f64::NAN]),
        Err(NcpError::NegativeFriction { .. })
    ));
    let mut skew = eye.clone();
    skew[(0, 2)] = 0.1;
    assert!(matches!(
        NcpProblem::new(skew, g.clone(), vec![0.5]),
        Err(NcpError::NotSymmetric { row: 0, col: 2, .. })
    ));
    let problem = NcpProblem::new(eye.clone(), g.clone(), vec![0.5]).unwrap();
    let settings = SolverSettings::default();
    assert!(matches!(
        solve(&problem, &settings, Some(&DVector::zeros(6))),
        Err(NcpError::SizeMismatch { .. })
    ));
    assert!(matches!(
        solve(
            &problem,
            &settings,
            Some(&DVector::from_vec(vec![f64::NAN, 0.0, 0.0]))
        ),
        Err(NcpError::NonFinite { .. })
    ));
    let indefinite = NcpProblem::new(-eye * 10.0, g, vec![0.5]).unwrap();
    let fixed_rho = SolverSettings::builder().rho(1.0).build().unwrap();
    assert!(matches!(
        solve(&indefinite, &fixed_rho, None),
        Err(NcpError::NotPositiveSemidefinite { .. })
    ));
    for bad in [
        SolverSettings::builder().tolerance(0.0).build(),
        SolverSettings::builder().tolerance(f64::NAN).build(),
        SolverSettings::builder().max_iterations(0).build(),
        SolverSettings::builder().rho(-1.0).build(),
    ] {
        assert!(matches!(bad, Err(NcpError::InvalidSetting { .. })));
    }
}

#[test]
fn no_contacts_is_a_trivial_problem() {
    let problem = NcpProblem::new(DMatrix::zeros(0, 0), DVector::zeros(0), vec![]).unwrap();
    let solution = solve(&problem, &SolverSettings::default(), None).unwrap();
    assert_eq!(solution.impulses.len(), 0);
    assert_eq!(solution.iterations, 0);
}
