//! [`NcpProblem`]: the data of eq. 1, `σ = G λ + g` with one friction coefficient per contact.

use crate::error::NcpError;
use nalgebra::{DMatrix, DVector, Vector3};

/// Relative asymmetry of the Delassus matrix tolerated (round-off of `J M⁻¹ Jᵀ`).
const SYMMETRY_TOLERANCE: f64 = 1e-9;

/// A frictional-contact problem (paper eq. 1): find `λ ∈ K_μ` with `σ = G λ + g` and
/// `σ + Γ_μ(σ) ∈ K_μ*` orthogonal to `λ`.
///
/// Per contact the three components are ordered (tangent 1, tangent 2, normal); `G` is the
/// 3n_c x 3n_c Delassus matrix (symmetric positive semi-definite, possibly singular), `g` the
/// free contact velocity and `mu` one friction coefficient per contact.
///
/// ```
/// use sdrs_ncp::NcpProblem;
/// use nalgebra::{DMatrix, DVector};
/// // A unit point mass approaching the ground at 1 m/s.
/// let problem = NcpProblem::new(DMatrix::identity(3, 3), DVector::from_vec(vec![0.0, 0.0, -1.0]), vec![0.5])?;
/// assert_eq!(problem.contacts(), 1);
/// # Ok::<(), sdrs_ncp::NcpError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct NcpProblem {
    delassus: DMatrix<f64>,
    free_velocity: DVector<f64>,
    mu: Vec<f64>,
}

impl NcpProblem {
    /// Checks and stores a problem: `delassus` square with three rows per contact, symmetric
    /// (to a relative 1e-9) and finite, `free_velocity` of the same size and finite, `mu`
    /// with one finite coefficient ≥ 0 per contact.
    pub fn new(
        delassus: DMatrix<f64>,
        free_velocity: DVector<f64>,
        mu: Vec<f64>,
    ) -> Result<Self, NcpError> {
        let m = delassus.nrows();
        if !m.is_multiple_of(3) {
            return Err(NcpError::NotThreePerContact { rows: m });
        }
        check_size("Delassus matrix columns", delassus.ncols(), m)?;
        check_size("free velocity", free_velocity.len(), m)?;
        check_size("friction coefficients", mu.len(), m / 3)?;
        check_finite("Delassus matrix", delassus.as_slice())?;
        check_finite("free velocity", free_velocity.as_slice())?;
        if let Some((contact, &mu)) = mu
            .iter()
            .enumerate()
            .find(|(_, mu)| !(mu.is_finite() && **mu >= 0.0))
        {
            return Err(NcpError::NegativeFriction { contact, mu });
        }
        let scale = 1.0 + delassus.amax();
        for col in 0..m {
            for row in 0..col {
                let difference = (delassus[(row, col)] - delassus[(col, row)]).abs();
                if difference > SYMMETRY_TOLERANCE * scale {
                    return Err(NcpError::NotSymmetric {
                        row,
                        col,
                        difference,
                    });
                }
            }
        }
        Ok(Self {
            delassus,
            free_velocity,
            mu,
        })
    }

    /// Number of contacts `n_c`.
    pub fn contacts(&self) -> usize {
        self.mu.len()
    }

    /// The Delassus matrix `G`.
    pub fn delassus(&self) -> &DMatrix<f64> {
        &self.delassus
    }

    /// The free contact velocity `g`.
    pub fn free_velocity(&self) -> &DVector<f64> {
        &self.free_velocity
    }

    /// The friction coefficients, one per contact.
    pub fn mu(&self) -> &[f64] {
        &self.mu
    }

    /// The contact velocity `σ = G λ + g`.
    pub fn velocity(&self, impulses: &DVector<f64>) -> DVector<f64> {
        &self.delassus * impulses + &self.free_velocity
    }
}

/// Contact `i`'s three components of `x`.
pub(crate) fn block(x: &DVector<f64>, i: usize) -> Vector3<f64> {
    Vector3::new(x[3 * i], x[3 * i + 1], x[3 * i + 2])
}

/// Writes contact `i`'s three components of `x`.
pub(crate) fn set_block(x: &mut DVector<f64>, i: usize, v: &Vector3<f64>) {
    x.fixed_rows_mut::<3>(3 * i).copy_from(v);
}

pub(crate) fn check_size(
    what: &'static str,
    actual: usize,
    expected: usize,
) -> Result<(), NcpError> {
    if actual == expected {
        Ok(())
    } else {
        Err(NcpError::SizeMismatch {
            what,
            actual,
            expected,
        })
    }
}

pub(crate) fn check_finite(what: &'static str, x: &[f64]) -> Result<(), NcpError> {
    match x.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(NcpError::NonFinite { what, index }),
        None => Ok(()),
    }
}
