//! One step's derivatives by the implicit function theorem: `∂θ^{t+1}/∂y = −H⁻¹ ∂²O/∂θ^{t+1}∂y`.

use crate::error::{DiffError, Result};
use nalgebra::{DMatrix, Dim, Dyn, IsContiguous, Matrix, RawStorageMut};
use sdrs_dynamics::{FactorError, Linearization, Model};

/// `B ← −H⁻¹ B` with the factor of step `step`'s Hessian that its linearisation carries (the
/// one factorisation the step made at its solution).
pub(crate) fn neg_solve_in_place<C: Dim, S>(
    lin: &Linearization,
    b: &mut Matrix<f64, Dyn, C, S>,
    step: usize,
) -> Result<()>
where
    S: RawStorageMut<f64, Dyn, C> + IsContiguous,
{
    solve_in_place(lin, b, step)?;
    for x in b.as_mut_slice() {
        *x = -*x;
    }
    Ok(())
}

/// `B ← H⁻¹ B` (see [`neg_solve_in_place`]).
fn solve_in_place<C: Dim, S>(
    lin: &Linearization,
    b: &mut Matrix<f64, Dyn, C, S>,
    step: usize,
) -> Result<()>
where
    S: RawStorageMut<f64, Dyn, C> + IsContiguous,
{
    lin.factor
        .solve_in_place(b)
        .map_err(|e| factor_error(e, step))
}

/// The error of a solve with step `step`'s factor.
fn factor_error(e: FactorError, step: usize) -> DiffError {
    match e {
        FactorError::Singular => DiffError::SingularHessian { step },
        other => DiffError::Step {
            step,
            source: other.into(),
        },
    }
}

/// The Jacobians of one step's solution `θ^{t+1}` with respect to its inputs.
#[derive(Debug, Clone, PartialEq)]
pub struct StepJacobian {
    /// `∂θ^{t+1}/∂θ^t` (n x n).
    pub current: DMatrix<f64>,
    /// `∂θ^{t+1}/∂ξ^{t−1}` (n x 6·links), the twists of the previous link poses.
    pub previous: DMatrix<f64>,
    /// `∂θ^{t+1}/∂θ*` (n x n).
    pub target_position: DMatrix<f64>,
    /// `∂θ^{t+1}/∂θ̇*` (n x n).
    pub target_velocity: DMatrix<f64>,
    /// `∂θ^{t+1}/∂τ` (n x n) of the step's generalized forces: `H⁻¹`, since the step's
    /// objective holds `−τ·(θ^{t+1} − θ^t)` and so `∂²O/∂θ^{t+1}∂τ = −I`.
    pub force: DMatrix<f64>,
    /// `∂θ^{t+1}/∂d` over the design vector (n x |d|), when the step provides its blocks.
    pub design: Option<DMatrix<f64>>,
}

/// The step's Jacobians from its [`Linearization`], by solves with the factor of `H` it carries.
///
/// ```
/// use sdrs_diff::step_jacobian;
/// use sdrs_dynamics::scenes::arm7;
/// use sdrs_dynamics::{Motion, Simulator, State};
/// let scene = arm7(0.01)?;
/// let mut sim = Simulator::new(scene.model.clone(), scene.settings.clone())?;
/// let mut motion = Motion::at_rest(&scene.model, State::zero(&scene.model));
/// let before = motion.clone();
/// sim.advance(&mut motion, &scene.control)?;
/// let lin = sim.linearize(&motion.state, &before.state, &before.previous, &scene.control)?;
/// let jac = step_jacobian(&scene.model, &lin, 0)?;
/// // Raising a joint's PD target raises that joint's next angle.
/// assert!((0..7).all(|j| jac.target_position[(j, j)] > 0.0));
/// // So does pushing it: a torque's response is H⁻¹, positive definite.
/// assert!((0..7).all(|j| jac.force[(j, j)] > 0.0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn step_jacobian(model: &Model, lin: &Linearization, step: usize) -> Result<StepJacobian> {
    // H⁻¹ by solves with the linearisation's factor: it is itself the force response and, with
    // its columns scaled, the diagonal target blocks. The other blocks (3n + 6·links + |d|
    // columns) are products with it: for these wide right-hand sides a matrix product runs
    // several times faster than a triangular solve pair per column (measured on UR5 with its
    // design blocks: 4x).
    let d = &lin.derivatives;
    let n = model.dof();
    let inverse = lin.factor.inverse().map_err(|e| factor_error(e, step))?;
    let minus_inverse = -&inverse;
    let design = match (&d.attachments, &d.vertices) {
        (Some(a), Some(v)) => {
            let mut block = DMatrix::zeros(n, model.design_len());
            for part in [a, v] {
                let range = part.range();
                block
                    .columns_mut(range.start, range.len())
                    .copy_from(&part.dense());
            }
            Some(&minus_inverse * block)
        }
        _ => None,
    };
    let diagonal = |b: &nalgebra::DVector<f64>| {
        let mut m = minus_inverse.clone();
        for (mut column, scale) in m.column_iter_mut().zip(b.iter()) {
            column *= *scale;
        }
        m
    };
    Ok(StepJacobian {
        current: &minus_inverse * &d.current,
        previous: body_columns_product(model, &minus_inverse, &d.previous),
        target_position: diagonal(&d.target_position),
        target_velocity: diagonal(&d.target_velocity),
        force: inverse,
        design,
    })
}

/// `A P` for the `n x 6·links` block `P = ∂²O/∂θ^{t+1}∂ξ^{t−1}`, whose only non-zero columns
/// are those of the rigid bodies' first links ([`sdrs_dynamics::StepDerivatives::previous`]):
/// one product over those columns (TALOS reduced: 33 bodies of 60 links), the rest left zero.
fn body_columns_product(model: &Model, a: &DMatrix<f64>, p: &DMatrix<f64>) -> DMatrix<f64> {
    let n = p.nrows();
    let roots: Vec<usize> = (0..model.links().len())
        .filter(|&i| model.body(i) == i)
        .collect();
    // Column-major: a link's 6 columns are `6n` contiguous entries.
    let block = |i: usize| 6 * n * i..6 * n * (i + 1);
    let mut packed = DMatrix::zeros(n, 6 * roots.len());
    for (k, &r) in roots.iter().enumerate() {
        packed.as_mut_slice()[block(k)].copy_from_slice(&p.as_slice()[block(r)]);
    }
    let product = a * packed;
    let mut out = DMatrix::zeros(n, p.ncols());
    for (k, &r) in roots.iter().enumerate() {
        out.as_mut_slice()[block(r)].copy_from_slice(&product.as_slice()[block(k)]);
    }
    out
}
