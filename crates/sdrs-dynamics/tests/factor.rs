//! `HessianFactor`: dense and sparse Cholesky, the modified Newton matrix, LU, errors, and the
//! factor a step hands to the backward pass.

use nalgebra::{DMatrix, DVector};
use sdrs_dynamics::factor::{FactorError, FactorMethod, HessianFactor, SparseRule};
use sdrs_dynamics::scenes::{chain, rotating_chains};
use sdrs_dynamics::{Motion, Simulator, State};

/// Deterministic numbers in [-1, 1).
struct Numbers(u64);

impl Numbers {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }

    fn matrix(&mut self, rows: usize, columns: usize) -> DMatrix<f64> {
        DMatrix::from_fn(rows, columns, |_, _| self.next())
    }
}

/// `A Aᵀ + shift·I` for a random `A`, zero outside `pattern` (symmetric).
fn spd(n: usize, shift: f64, numbers: &mut Numbers) -> DMatrix<f64> {
    let a = numbers.matrix(n, n);
    &a * a.transpose() + DMatrix::identity(n, n) * shift
}

/// A Hessian shaped like a scene of `bodies` free bodies (6 DoFs each, dense 6 x 6 blocks),
/// with the bodies of `pairs` coupled.
fn bodies_hessian(bodies: usize, pairs: &[(usize, usize)], numbers: &mut Numbers) -> DMatrix<f64> {
    let n = 6 * bodies;
    let mut h = DMatrix::zeros(n, n);
    for b in 0..bodies {
        h.view_mut((6 * b, 6 * b), (6, 6))
            .copy_from(&spd(6, 10.0, numbers));
    }
    for &(a, b) in pairs {
        // A contact's coupling: J_aᵀ K J_b and its transpose, with the diagonal blocks it adds.
        let j = numbers.matrix(6, 6) * 0.5;
        let mut coupled = DMatrix::zeros(n, 6);
        coupled.view_mut((6 * a, 0), (6, 6)).copy_from(&j);
        coupled.view_mut((6 * b, 0), (6, 6)).copy_from(&(-&j));
        h += &coupled * coupled.transpose();
    }
    h
}

fn residual(h: &DMatrix<f64>, x: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    (h * x - b).norm() / b.norm()
}

#[test]
fn dense_cholesky_solves_many_right_hand_sides() {
    let mut numbers = Numbers(7);
    for n in [1, 2, 7, 25, 60] {
        let h = spd(n, 1.0, &mut numbers);
        let mut factor = HessianFactor::new();
        assert_eq!(
            factor.factorize(&h),
            Ok(FactorMethod::DenseCholesky),
            "n = {n}"
        );
        let b = numbers.matrix(n, 3);
        let x = factor.solve(&b).unwrap();
        assert!(residual(&h, &x, &b) < 1e-12, "n = {n}");
        let expected = h.clone().cholesky().unwrap().solve(&b);
        assert!((&x - expected).norm() < 1e-10 * x.norm());
    }
}

#[test]
fn sparse_cholesky_on_free_bodies_matches_dense() {
    let mut numbers = Numbers(11);
    let bodies = 16;
    let n = 6 * bodies;
    assert!(n >= SparseRule::MEASURED.min_dof);
    let h = bodies_hessian(bodies, &[(0, 5), (3, 4), (15, 1)], &mut numbers);
    let mut factor = HessianFactor::new();
    assert_eq!(factor.factorize(&h), Ok(FactorMethod::SparseCholesky));
    assert_eq!(factor.dim(), n);
    assert!(factor.fill().unwrap() <= SparseRule::MEASURED.max_fill);
    let b = numbers.matrix(n, 4);
    let x = factor.solve(&b).unwrap();
    assert!(residual(&h, &x, &b) < 1e-12);
    let dense = h.clone().cholesky().unwrap().solve(&b);
    assert!((&x - dense).norm() < 1e-10 * x.norm());
    // Forced either way, the two kernels agree.
    let mut forced = HessianFactor::with_rule(SparseRule::DENSE);
    assert_eq!(forced.factorize(&h), Ok(FactorMethod::DenseCholesky));
    assert_eq!(forced.fill(), Some(1.0));
    assert!((forced.solve(&b).unwrap() - &x).norm() < 1e-10 * x.norm());
    let mut forced = HessianFactor::with_rule(SparseRule::SPARSE);
    let small = spd(5, 1.0, &mut numbers);
    assert_eq!(forced.factorize(&small), Ok(FactorMethod::SparseCholesky));
    let c = numbers.matrix(5, 1);
    assert!(residual(&small, &forced.solve(&c).unwrap(), &c) < 1e-12);
    // A new contact (a non-zero outside the analysed pattern): analysed again, still exact.
    let h = bodies_hessian(bodies, &[(0, 5), (2, 9), (7, 12)], &mut numbers);
    assert_eq!(factor.factorize(&h), Ok(FactorMethod::SparseCholesky));
    let x = factor.solve(&b).unwrap();
    assert!(residual(&h, &x, &b) < 1e-12);
    // Fewer contacts fit the pattern: the analysis is kept, the factor exact.
    let h = bodies_hessian(bodies, &[(7, 12)], &mut numbers);
    assert_eq!(factor.factorize(&h), Ok(FactorMethod::SparseCholesky));
    let x = factor.solve(&b).unwrap();
    assert!(residual(&h, &x, &b) < 1e-12);
}

#[test]
fn dense_where_the_sparse_factor_fills_in() {
    let mut numbers = Numbers(13);
    // Every body touches every other: the factor is full.
    let pairs: Vec<_> = (0..8)
        .flat_map(|a| (a + 1..8).map(move |b| (a, b)))
        .collect();
    let h = bodies_hessian(8, &pairs, &mut numbers);
    let mut factor = HessianFactor::new();
    assert_eq!(factor.factorize(&h), Ok(FactorMethod::DenseCholesky));
}

/// The inverse of `V max(|Λ|, floor) Vᵀ`.
fn modified_inverse(h: &DMatrix<f64>, floor: f64) -> DMatrix<f64> {
    let eigen = h.clone().symmetric_eigen();
    let scaled = DMatrix::from_diagonal(&eigen.eigenvalues.map(|l| 1.0 / l.abs().max(floor)));
    &eigen.eigenvectors * scaled * eigen.eigenvectors.transpose()
}

#[test]
fn modified_newton_matrix_clamps_the_spectrum() {
    let mut numbers = Numbers(17);
    let floor = 1e-3;
    for n in [5, 40, 96] {
        // Indefinite.
        let h = spd(n, 0.0, &mut numbers) - DMatrix::identity(n, n) * (0.5 * n as f64);
        let mut factor = HessianFactor::new();
        assert_eq!(
            factor.factorize_modified(&h, floor),
            Ok(FactorMethod::ModifiedEigen)
        );
        let b = numbers.matrix(n, 2);
        let x = factor.solve(&b).unwrap();
        let expected = modified_inverse(&h, floor) * &b;
        assert!((&x - &expected).norm() < 1e-9 * expected.norm(), "n = {n}");
        // Positive definite with its smallest eigenvalue below the floor: clamped too.
        let mut eigen = spd(n, 1.0, &mut numbers).symmetric_eigen();
        eigen.eigenvalues[0] = 0.25 * floor;
        let h = eigen.recompose();
        let h = (&h + h.transpose()) * 0.5;
        assert_eq!(
            factor.factorize_modified(&h, floor),
            Ok(FactorMethod::ModifiedEigen)
        );
        // Just above the floor (where the comparison-matrix bound cannot tell, so the shifted
        // factorisation decides): H itself, not clamped.
        eigen.eigenvalues[0] = 1.5 * floor;
        let h = eigen.recompose();
        let h = (&h + h.transpose()) * 0.5;
        assert_eq!(
            factor.factorize_modified(&h, floor),
            Ok(FactorMethod::DenseCholesky)
        );
        let x = factor.solve(&b).unwrap();
        assert!(residual(&h, &x, &b) < 1e-9, "n = {n}");
        // Well above the floor: H itself, by Cholesky.
        let h = spd(n, 1.0, &mut numbers);
        let method = factor.factorize_modified(&h, floor).unwrap();
        assert_ne!(method, FactorMethod::ModifiedEigen);
        let x = factor.solve(&b).unwrap();
        assert!(residual(&h, &x, &b) < 1e-12);
    }
    // The sparse path keeps the same rule.
    let h = bodies_hessian(16, &[(1, 2)], &mut numbers);
    let mut eigen = h.clone().symmetric_eigen();
    let smallest = eigen.eigenvalues.imin();
    eigen.eigenvalues[smallest] = -2.0;
    let indefinite = eigen.recompose();
    let mut factor = HessianFactor::new();
    assert_eq!(
        factor.factorize_modified(&h, floor),
        Ok(FactorMethod::SparseCholesky)
    );
    assert_eq!(
        factor.factorize_modified(&indefinite, floor),
        Ok(FactorMethod::ModifiedEigen)
    );
}

#[test]
fn lu_for_indefinite_and_an_error_for_singular() {
    let mut numbers = Numbers(19);
    let n = 12;
    let h = spd(n, 0.0, &mut numbers) - DMatrix::identity(n, n) * 3.0;
    let mut factor = HessianFactor::new();
    assert_eq!(factor.factorize(&h), Ok(FactorMethod::Lu));
    let b = numbers.matrix(n, 2);
    let x = factor.solve(&b).unwrap();
    assert!(residual(&h, &x, &b) < 1e-10);
    let mut singular = h.clone();
    singular.row_mut(3).fill(0.0);
    singular.column_mut(3).fill(0.0);
    assert_eq!(factor.factorize(&singular), Err(FactorError::Singular));
    assert_eq!(factor.method(), None);
    assert_eq!(factor.solve(&b), Err(FactorError::Singular));
}

#[test]
fn bad_input_is_an_error() {
    let mut factor = HessianFactor::new();
    let b = DVector::from_element(2, 1.0);
    assert_eq!(factor.solve(&b), Err(FactorError::Empty));
    assert_eq!(
        factor.factorize(&DMatrix::zeros(2, 3)),
        Err(FactorError::NotSquare {
            rows: 2,
            columns: 3
        })
    );
    let mut h = DMatrix::identity(2, 2);
    h[(1, 0)] = f64::NAN;
    assert!(matches!(
        factor.factorize_modified(&h, 1e-3),
        Err(FactorError::NonFinite {
            row: 1,
            column: 0,
            ..
        })
    ));
    let h = DMatrix::identity(2, 2);
    assert_eq!(
        factor.factorize_modified(&h, -1.0),
        Err(FactorError::BadFloor { floor: -1.0 })
    );
    factor.factorize(&h).unwrap();
    assert_eq!(
        factor.solve(&DVector::zeros(3)),
        Err(FactorError::DimensionMismatch { rows: 3, dim: 2 })
    );
    let error = sdrs_dynamics::DynamicsError::from(FactorError::Singular).to_string();
    assert!(error.contains("singular"), "{error}");
}

/// The factor a step (with backward blocks) and a linearisation carry solves with their
/// Hessian: on a chain (dense) and on the contact-rich rotating chains.
#[test]
fn steps_hand_their_factor_to_the_backward_pass() {
    for scene in [chain(4, 0.01).unwrap(), rotating_chains(4, 0.01).unwrap()] {
        let mut settings = scene.settings.clone();
        settings.backward = true;
        let mut sim = Simulator::new(scene.model.clone(), settings).unwrap();
        let mut motion = Motion::at_rest(&scene.model, State::zero(&scene.model));
        let before = motion.clone();
        let report = sim.advance(&mut motion, &scene.control).unwrap();
        let n = scene.model.dof();
        let b = DMatrix::from_fn(n, 2, |i, j| (i + 3 * j) as f64 - 2.0);
        let at_step = report.linearization.expect("backward is set");
        let x = at_step.factor.solve(&b).unwrap();
        assert!(residual(&at_step.hessian, &x, &b) < 1e-10);
        let lin = sim
            .linearize(
                &motion.state,
                &before.state,
                &before.previous,
                &scene.control,
            )
            .unwrap();
        let x = lin.factor.solve(&b).unwrap();
        assert!(residual(&lin.hessian, &x, &b) < 1e-10);
    }
}

#[test]
fn the_inverse_is_the_solves_with_the_identity_for_every_method() {
    let mut numbers = Numbers(23);
    let n = 40;
    let spd_h = spd(n, 1.0, &mut numbers);
    let indefinite = spd(n, 0.0, &mut numbers) - DMatrix::identity(n, n) * 3.0;
    let sparse_h = bodies_hessian(16, &[(1, 2)], &mut numbers);
    for (h, method) in [
        (&spd_h, FactorMethod::DenseCholesky),
        (&indefinite, FactorMethod::Lu),
        (&sparse_h, FactorMethod::SparseCholesky),
    ] {
        let mut factor = HessianFactor::new();
        assert_eq!(factor.factorize(h), Ok(method));
        let inverse = factor.inverse().unwrap();
        let solved = factor
            .solve(&DMatrix::identity(h.nrows(), h.nrows()))
            .unwrap();
        assert!(
            (&inverse - &solved).amax() < 1e-10 * solved.amax(),
            "{method:?}"
        );
        assert!(residual(h, &inverse, &DMatrix::identity(h.nrows(), h.nrows())) < 1e-10);
    }
    assert_eq!(HessianFactor::new().inverse(), Err(FactorError::Empty));
}
