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
    /// One environment of a batch failed ([`crate::StepBatch`]).
    #[error("environment {index}: {source}")]
    Environment {
        /// The environment's index in the batch.
        index: usize,
        /// What failed there.
        source: Box<DiffError>,
    },
    /// The simulator does not return the blocks the adjoint needs.
    #[error(
        "the simulator must be built with StepSettings::backward = true to record a differentiable trajectory"
    )]
    NoBackwardBlocks,
    /// A design is invalid for the model (e.g. it makes a hull degenerate).
    #[error("design: {source}")]
    Design {
        /// What the model reported.
        source: sdrs_dynamics::DynamicsError,
    },
    /// The start or the simulator of a rollout cannot be set up.
    #[error("{what}: {source}")]
    Setup {
        /// What was being set up.
        what: &'static str,
        /// What the dynamics reported.
        source: sdrs_dynamics::DynamicsError,
    },
    /// A name does not match the model (the message names it and lists the known ones).
    #[error("{source}")]
    Name {
        /// What the model reported.
        source: sdrs_dynamics::DynamicsError,
    },
    /// A loss, point or design parameter cannot be built as asked.
    #[error("{what}: {reason}")]
    InvalidInput {
        /// What was being built.
        what: &'static str,
        /// What is wrong and what is allowed.
        reason: String,
    },
    /// An optimisation's objective failed at its starting point.
    #[error("the objective failed at the starting point: {message}")]
    Objective {
        /// What it reported.
        message: String,
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
    /// An input holds NaN or infinity.
    #[error("{what} holds a non-finite value at index {index}")]
    NonFinite {
        /// What was given.
        what: &'static str,
        /// Where.
        index: usize,
    },
    /// An index is out of range.
    #[error("{what} {index} is out of range: must be below {len}")]
    OutOfRange {
        /// Which index.
        what: &'static str,
        /// Its value.
        index: usize,
        /// The number of entries.
        len: usize,
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
