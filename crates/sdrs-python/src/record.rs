//! Trajectory files (`sdrs::record`): reading back what `Trajectory.save` wrote.

use crate::arrays;
use crate::errors::Raise;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use sdrs::TrajectoryFile;

/// Adds the functions of this module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(load_trajectory, m)?)
}

/// Reads a JSON-lines trajectory file: a dict with `dt`, the model's `links` and `dofs`
/// names, and the `states` `(T, n)`.
#[pyfunction]
fn load_trajectory(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Bound<'_, PyDict>> {
    let file = TrajectoryFile::read(&path).raise()?;
    let n = file.header.dofs.len();
    let states: Vec<_> = file.steps.iter().map(|s| s.state().q).collect();
    let out = PyDict::new(py);
    out.set_item("dt", file.header.dt)?;
    out.set_item("links", file.header.links.clone())?;
    out.set_item("dofs", file.header.dofs.clone())?;
    out.set_item(
        "states",
        arrays::rows_to_numpy(py, states.iter().map(|q| q.as_slice()), n)?,
    )?;
    Ok(out)
}
