//! The one error type of `sdrs-contact`.

use thiserror::Error;

/// What can go wrong when a contact potential is set up or evaluated.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ContactError {
    /// A setting is outside its allowed range.
    #[error("invalid setting {name} = {value}: {allowed}")]
    InvalidSetting {
        /// Setting name.
        name: &'static str,
        /// The value given.
        value: f64,
        /// What is allowed.
        allowed: &'static str,
    },
    /// A pose has a non-finite entry.
    #[error("pose of body {body} has a non-finite entry; poses must be finite")]
    NonFinitePose {
        /// 0 for the first body of the pair, 1 for the second.
        body: usize,
    },
    /// A pose's rotation is not a unit quaternion (a zero or scaled quaternion would scale the
    /// body instead of turning it).
    #[error(
        "pose of body {body} has a rotation quaternion of norm {norm}; rotations must be unit \
         quaternions (norm within 1e-6 of 1)"
    )]
    NonUnitRotation {
        /// 0 for the first body of the pair, 1 for the second.
        body: usize,
        /// The quaternion's norm.
        norm: f64,
    },
    /// A vertex handed to a primitive has a non-finite coordinate.
    #[error(
        "vertex {vertex} of body {body} has a non-finite coordinate ({value:?}); vertices must be \
         finite"
    )]
    NonFiniteVertex {
        /// 0 for the first body (or triangle), 1 for the second.
        body: usize,
        /// Index of the vertex.
        vertex: usize,
        /// Its coordinates.
        value: [f64; 3],
    },
    /// A friction frame was requested for a penetrating pair (step t must be collision-free).
    #[error("cannot build a friction frame: the hulls penetrate at step t")]
    PenetratingFrame,
    /// The inner Newton solve for the plane velocity of friction did not converge.
    #[error(
        "friction plane-velocity solve did not converge after {iterations} iterations (|grad| = {gradient_norm:.3e})"
    )]
    FrictionNotConverged {
        /// Iterations taken.
        iterations: usize,
        /// Final gradient norm with respect to (u, ω).
        gradient_norm: f64,
    },
    /// The inner Newton solve for the separating plane did not converge.
    #[error(
        "{solve} separating-plane solve did not converge after {iterations} iterations \
         (|grad| = {gradient_norm:.3e}, scale {scale:.3e}, energy {energy:.3e})"
    )]
    NotConverged {
        /// Which plane solve: `"SDRS hull-pair"` (the plane barrier of eq. 6-7) or
        /// `"long-range triangle-pair"` (the long-range potential's eq. 3).
        solve: &'static str,
        /// Iterations taken.
        iterations: usize,
        /// Final gradient norm with respect to the plane.
        gradient_norm: f64,
        /// The gradient scale the tolerance is relative to.
        scale: f64,
        /// Energy at the last iterate.
        energy: f64,
    },
    /// An intermediate result overflowed double precision.
    #[error(
        "{what} is not finite: coordinates or gaps are too extreme for double precision \
         (translations near 1e150 m, or gaps many orders of magnitude below the shapes' size)"
    )]
    Overflow {
        /// Which quantity overflowed.
        what: &'static str,
    },
    /// A request this model does not support.
    #[error("not supported: {what}")]
    Unsupported {
        /// What was asked for.
        what: &'static str,
    },
    /// A shape could not be prepared (e.g. an empty mesh).
    #[error("shape: {message}")]
    Geometry {
        /// What the geometry crate reported.
        message: String,
    },
    /// A batch names a body that does not exist.
    #[error("pair {pair} refers to body {index}, but only {len} shapes and poses were given")]
    BodyOutOfRange {
        /// Index of the pair in the batch.
        pair: usize,
        /// The offending body index.
        index: usize,
        /// Number of bodies.
        len: usize,
    },
    /// Two inputs of a batch that must have equal lengths do not.
    #[error("{what}: expected {expected} entries, got {got}")]
    LengthMismatch {
        /// Which input.
        what: &'static str,
        /// Required length.
        expected: usize,
        /// Given length.
        got: usize,
    },
    /// An error for one pair of a batch, naming the pair.
    #[error("contact pair {pair} (hulls {first} and {second}): {source}")]
    Pair {
        /// Index of the pair in the batch.
        pair: usize,
        /// First hull index.
        first: usize,
        /// Second hull index.
        second: usize,
        /// What went wrong.
        source: Box<ContactError>,
    },
}

/// Shorthand for results of this crate.
pub type Result<T, E = ContactError> = std::result::Result<T, E>;

/// `value` if it is finite and positive, else an `InvalidSetting` error naming it.
pub(crate) fn positive(name: &'static str, value: f64) -> Result<f64> {
    if value > 0.0 && value.is_finite() {
        Ok(value)
    } else {
        Err(ContactError::InvalidSetting {
            name,
            value,
            allowed: "finite and positive",
        })
    }
}

/// `value` if it is a valid relative tolerance of an inner solve, in `(0, 1e-3]`.
pub(crate) fn tolerance(value: f64) -> Result<f64> {
    if value > 0.0 && value <= 1e-3 {
        Ok(value)
    } else {
        Err(ContactError::InvalidSetting {
            name: "tolerance",
            value,
            allowed: "in (0, 1e-3]",
        })
    }
}
