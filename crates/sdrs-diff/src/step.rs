//! One step's derivatives by the implicit function theorem: `∂θ^{t+1}/∂y = −H⁻¹ ∂²O/∂θ^{t+1}∂y`.

use crate::error::{DiffError, Result};
use nalgebra::{Cholesky, DMatrix, DVector, Dyn, LU};
use sdrs_dynamics::{Linearization, Model};

/// A factorised step Hessian: Cholesky when positive definite (the usual case at a
/// minimiser), LU otherwise.
#[derive(Debug, Clone)]
pub enum Factor {
    /// `H = L Lᵀ`.
    Cholesky(Cholesky<f64, Dyn>),
    /// `P H = L U`, for a singular-free indefinite `H`.
    Lu(LU<f64, Dyn, Dyn>),
}

impl Factor {
    /// Factorises the Hessian of step `step`.
    pub fn new(hessian: &DMatrix<f64>, step: usize) -> Result<Self> {
        if let Some(c) = hessian.clone().cholesky() {
            return Ok(Self::Cholesky(c));
        }
        let lu = hessian.clone().lu();
        if lu.is_invertible() {
            Ok(Self::Lu(lu))
        } else {
            Err(DiffError::SingularHessian { step })
        }
    }

    /// `H⁻¹`.
    pub fn inverse(&self) -> DMatrix<f64> {
        match self {
            Self::Cholesky(c) => c.inverse(),
            Self::Lu(lu) => lu.try_inverse().expect("checked invertible"),
        }
    }

    /// `−H⁻¹ b`.
    pub fn neg_solve_vector(&self, b: &DVector<f64>) -> DVector<f64> {
        let x = match self {
            Self::Cholesky(c) => c.solve(b),
            Self::Lu(lu) => lu.solve(b).expect("checked invertible"),
        };
        -x
    }

    /// `−H⁻¹ B` (the columns of `B` are right-hand sides).
    pub fn neg_solve(&self, b: &DMatrix<f64>) -> DMatrix<f64> {
        let x = match self {
            Self::Cholesky(c) => c.solve(b),
            Self::Lu(lu) => lu.solve(b).expect("checked invertible"),
        };
        -x
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

/// The step's Jacobians from its [`Linearization`], with one factorisation of `H`.
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
    // One inverse, then products: with the blocks' 3n + 6·links (+ |d|) columns, n
    // triangular solve pairs and matrix products beat a solve pair per column several times.
    let minus_inverse = -Factor::new(&lin.hessian, step)?.inverse();
    let d = &lin.derivatives;
    let design = match (&d.attachments, &d.vertices) {
        (Some(a), Some(v)) => {
            let mut block = DMatrix::zeros(model.dof(), model.design_len());
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
        previous: &minus_inverse * &d.previous,
        target_position: diagonal(&d.target_position),
        target_velocity: diagonal(&d.target_velocity),
        force: -minus_inverse,
        design,
    })
}
