//! [`NcpError`]: everything that can go wrong in this crate, with what was wrong and what is
//! allowed.

use thiserror::Error;

/// The errors of the NCP solver and the velocity stepper.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum NcpError {
    /// The solver reached its iteration limit before every residual fell below the tolerance.
    #[error(
        "the contact NCP did not converge: after {iterations} iterations the largest residual is {residual:e}, above the tolerance {tolerance:e} (raise max_iterations or the tolerance)"
    )]
    NotConverged {
        /// Iterations run.
        iterations: usize,
        /// The largest of the primal, dual and complementarity residuals at the last iterate,
        /// and of the ADMM dual residual `ρ ‖z − z_prev‖∞` (the iterate must settle too).
        residual: f64,
        /// The tolerance asked for.
        tolerance: f64,
    },
    /// An input holds a NaN or an infinity.
    #[error("{what} has a non-finite entry at index {index}; every entry must be finite")]
    NonFinite {
        /// Which input.
        what: &'static str,
        /// The flat (column-major for matrices) index of the first bad entry.
        index: usize,
    },
    /// An input has the wrong size.
    #[error("{what} has size {actual}, expected {expected}")]
    SizeMismatch {
        /// Which input.
        what: &'static str,
        /// Its size.
        actual: usize,
        /// The size it must have.
        expected: usize,
    },
    /// The Delassus matrix's size is not three rows per contact.
    #[error(
        "the Delassus matrix has {rows} rows; it must have three per contact (tangent 1, tangent 2, normal)"
    )]
    NotThreePerContact {
        /// Its number of rows.
        rows: usize,
    },
    /// A friction coefficient is negative.
    #[error("contact {contact} has friction coefficient {mu}; it must be finite and >= 0")]
    NegativeFriction {
        /// The contact.
        contact: usize,
        /// Its coefficient.
        mu: f64,
    },
    /// The Delassus matrix is not symmetric.
    #[error(
        "the Delassus matrix is not symmetric: entries ({row}, {col}) and ({col}, {row}) differ by {difference:e}"
    )]
    NotSymmetric {
        /// Row of the offending entry.
        row: usize,
        /// Column of the offending entry.
        col: usize,
        /// `|G_rc − G_cr|`.
        difference: f64,
    },
    /// `G + ρ I` could not be factorised: the Delassus matrix has an eigenvalue below `−ρ`,
    /// so it is not positive semi-definite.
    #[error(
        "the Delassus matrix plus {rho:e} I is not positive definite: the Delassus matrix must be positive semi-definite"
    )]
    NotPositiveSemidefinite {
        /// The ADMM penalty `ρ` at the failed factorisation.
        rho: f64,
    },
    /// A solver or stepper setting is out of range.
    #[error("setting `{name}` is {value}; allowed: {allowed}")]
    InvalidSetting {
        /// The setting.
        name: &'static str,
        /// Its value.
        value: f64,
        /// What is allowed.
        allowed: &'static str,
    },
    /// Collision detection refused a pose or setting.
    #[error(transparent)]
    Geometry(#[from] sdrs_geometry::GeometryError),
    /// The joint-space inertia is not positive definite (a DoF moves no mass).
    #[error(
        "the joint-space inertia matrix is not positive definite: every DoF must move some mass"
    )]
    SingularInertia,
    /// The rigid-body algorithms or the model refused the input.
    #[error(transparent)]
    Dynamics(#[from] sdrs_dynamics::DynamicsError),
    /// The implicit differentiation of the contact problem failed.
    #[error(transparent)]
    Implicit(#[from] crate::implicit::ImplicitError),
}
