//! # sdrs-python
//!
//! The native module `sdrs._sdrs` of the Python package `sdrs` (see `python/`): the facade
//! ([`sdrs::World`], scene files, names), the dynamics (simulator, motions, controls), the
//! gradients of `sdrs-diff` (objectives, losses, policies, design maps, adjoint and tangent)
//! and its optimisers, with NumPy `float64` arrays in and out. Every class and function's
//! docstring is its doc comment here; `python/sdrs/_sdrs.pyi` gives the types.
//!
//! Errors keep the Rust message: simulation failures raise `sdrs.SimulationError` (or its
//! subclasses `PenetrationError`, `ConvergenceError`), unknown names `KeyError`, other bad
//! input `ValueError` (module `errors`). Heavy calls release the GIL; batches run on rayon
//! (module `batch`), each item on a fresh simulator, so results do not depend on the thread count.

use pyo3::prelude::*;

mod arrays;
mod batch;
mod callback_policy;
mod errors;
mod model;
mod objective;
mod optim;
mod policy;
mod record;
mod sim;
mod step_batch;
mod world;

/// The native module: every class and function of the `sdrs` package.
#[pymodule]
fn _sdrs(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    world::register(m)?;
    model::register(m)?;
    sim::register(m)?;
    policy::register(m)?;
    objective::register(m)?;
    batch::register(m)?;
    optim::register(m)?;
    record::register(m)?;
    step_batch::register(m)?;
    Ok(())
}
