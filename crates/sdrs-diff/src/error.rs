//! Typed errors of the differentiation crate.

use thiserror::Error;

/// What can go wrong when recording or differentiating a trajectory.
#[derive(Debug, Error)]
pub enum DiffError {
    /// A time step failed.
    #[error("step {step}: {source}")]
    Step {
        /// The step index.
        step: usize,
        /// What the stepper reported.
        source: sdrs_dynamics::DynamicsError,
    },
    /// The simulator does not return the blocks the adjoint needs.
    #[error(
        "the simulator must be built with StepSettings::backward = true to record a differentiable trajectory"
    )]
    NoBackwardBlocks,
    /// A design block is unavailable (solid-hull masses or user energies).
    #[error("step {step}: the {block} block is not available ({why})")]
    MissingBlock {
        /// The step index.
        step: usize,
        /// Which block.
        block: &'static str,
        /// Why.
        why: &'static str,
    },
    /// A step's Hessian cannot be factorised.
    #[error("step {step}: the Hessian at the solution is singular")]
    SingularHessian {
        /// The step index.
        step: usize,
    },
    /// A setting or input is out of range.
    #[error("{name} = {value} is invalid: must be {allowed}")]
    InvalidSetting {
        /// What was given.
        name: &'static str,
        /// Its value.
        value: f64,
        /// What is allowed.
        allowed: &'static str,
    },
    /// A vector has the wrong length.
    #[error("{what} has length {actual}, expected {expected}")]
    LengthMismatch {
        /// What was given.
        what: &'static str,
        /// Its length.
        actual: usize,
        /// The length allowed.
        expected: usize,
    },
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, DiffError>;
