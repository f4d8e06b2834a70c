//! Rust errors as Python exceptions, with the Rust message.
//!
//! - A simulation that fails (a penetrating start, a step whose Newton solve does not
//!   converge, an infinite or NaN objective, a singular Hessian in the backward pass) raises
//!   `sdrs.SimulationError`, or its subclass `PenetrationError` / `ConvergenceError`.
//! - An unknown link, joint or body name raises `KeyError` (the message lists close names).
//! - A file that cannot be read raises `OSError`.
//! - Everything else the caller gave wrong (shapes, NaN, settings, designs, malformed files)
//!   raises `ValueError`.

use pyo3::exceptions::{PyException, PyKeyError, PyOSError, PyValueError};
use pyo3::prelude::*;
use sdrs::contact::ContactError;
use sdrs::diff::DiffError;
use sdrs::dynamics::DynamicsError;
use sdrs::geometry::GeometryError;
use sdrs::record::TrajectoryError;
use sdrs::scene::SceneError;

pyo3::create_exception!(
    sdrs,
    SimulationError,
    PyException,
    "A simulation failed: a step, a rollout or its derivatives could not be computed."
);
pyo3::create_exception!(
    sdrs,
    PenetrationError,
    SimulationError,
    "Two links overlap where a step starts, so the contact barrier is infinite there."
);
pyo3::create_exception!(
    sdrs,
    ConvergenceError,
    SimulationError,
    "A time step's Newton solve did not reach its tolerance."
);

/// Adds the exception classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("SimulationError", py.get_type::<SimulationError>())?;
    m.add("PenetrationError", py.get_type::<PenetrationError>())?;
    m.add("ConvergenceError", py.get_type::<ConvergenceError>())?;
    Ok(())
}

/// The Python exception class for a dynamics error (the message is set by the caller).
fn dynamics_class(error: &DynamicsError, message: String) -> PyErr {
    use DynamicsError as E;
    match error {
        E::InitialPenetration { .. } => PenetrationError::new_err(message),
        E::NotConverged { .. } => ConvergenceError::new_err(message),
        E::ForbiddenStart { .. }
        | E::NotANumber { .. }
        | E::InfiniteEnergy
        | E::UnreachablePose { .. }
        | E::Contact { .. } => SimulationError::new_err(message),
        E::UnknownName { .. } => PyKeyError::new_err(message),
        _ => PyValueError::new_err(message),
    }
}

/// A dynamics error as a Python exception.
pub fn dynamics(error: DynamicsError) -> PyErr {
    dynamics_class(&error, error.to_string())
}

/// A differentiation error as a Python exception: a failed step keeps its class (with the
/// step's index in the message).
pub fn diff(error: DiffError) -> PyErr {
    diff_class(&error, error.to_string())
}

/// The Python exception class for a differentiation error (with `message`): an
/// environment's error keeps the class of what failed there.
fn diff_class(error: &DiffError, message: String) -> PyErr {
    match error {
        DiffError::Environment { source, .. } => diff_class(source, message),
        DiffError::Step { source, .. }
        | DiffError::Setup { source, .. }
        | DiffError::Name { source }
        | DiffError::Design { source } => dynamics_class(source, message),
        DiffError::SingularHessian { .. } | DiffError::Objective { .. } => {
            SimulationError::new_err(message)
        }
        _ => PyValueError::new_err(message),
    }
}

/// A scene-file error as a Python exception.
pub fn scene(error: SceneError) -> PyErr {
    match error {
        SceneError::Read { .. } => PyOSError::new_err(error.to_string()),
        _ => PyValueError::new_err(error.to_string()),
    }
}

/// A geometry error (a hull that cannot be built) as a `ValueError`.
pub fn geometry(error: GeometryError) -> PyErr {
    PyValueError::new_err(error.to_string())
}

/// A contact-model parameter out of range as a `ValueError`.
pub fn contact(error: ContactError) -> PyErr {
    PyValueError::new_err(error.to_string())
}

/// A trajectory-file error as a Python exception.
pub fn record(error: TrajectoryError) -> PyErr {
    match error {
        TrajectoryError::Io { .. } => PyOSError::new_err(error.to_string()),
        _ => PyValueError::new_err(error.to_string()),
    }
}

/// `Result<T, E>` → `PyResult<T>` for the Rust error types above.
pub trait Raise<T> {
    /// The value, or the error as a Python exception.
    fn raise(self) -> PyResult<T>;
}

macro_rules! raise_with {
    ($error:ty, $convert:ident) => {
        impl<T> Raise<T> for Result<T, $error> {
            fn raise(self) -> PyResult<T> {
                self.map_err($convert)
            }
        }
    };
}

raise_with!(DynamicsError, dynamics);
raise_with!(DiffError, diff);
raise_with!(SceneError, scene);
raise_with!(GeometryError, geometry);
raise_with!(ContactError, contact);
raise_with!(TrajectoryError, record);
