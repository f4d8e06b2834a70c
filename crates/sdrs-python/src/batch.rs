//! Batches of rollouts and gradients on all cores (rayon). Every item runs on its own fresh
//! simulator ([`sdrs::diff::Objective::evaluate`]), so the results do not depend on the
//! number of threads or on the order they finish in.

use crate::arrays;
use crate::callback_policy::guarded;
use crate::errors::Raise;
use crate::objective::PyObjective;
use nalgebra::{DMatrix, DVector};
use numpy::PyArrayDyn;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;

/// Adds the functions of this module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(evaluate_batch, m)?)?;
    m.add_function(wrap_pyfunction!(rollout_batch, m)?)?;
    Ok(())
}

/// The rows of `cs` (`(B, m)`) and of `ps` (`(B, k)`, zeros for `None`) as parameter pairs.
fn pairs(
    objective: &PyObjective,
    cs: &Bound<'_, PyAny>,
    ps: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<(DVector<f64>, DVector<f64>)>> {
    let m = sdrs::diff::Policy::parameters(&objective.0.policy);
    let k = objective.0.design.parameters();
    let cs = arrays::matrix(cs, "cs", None, Some(m))?;
    let ps = match ps {
        Some(ps) => arrays::matrix(ps, "ps", Some(cs.nrows()), Some(k))?,
        None => DMatrix::zeros(cs.nrows(), k),
    };
    Ok((0..cs.nrows())
        .map(|b| (cs.row(b).transpose(), ps.row(b).transpose()))
        .collect())
}

/// Runs `work` on `threads` threads (all cores for `None`) with the GIL released.
fn on_threads<T: Send>(
    py: Python<'_>,
    threads: Option<usize>,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        if n == 0 {
            return Err(PyValueError::new_err(
                "threads must be at least 1 (or None for all cores)",
            ));
        }
        builder = builder.num_threads(n);
    }
    let pool = builder
        .build()
        .map_err(|e| PyValueError::new_err(format!("cannot start {threads:?} threads: {e}")))?;
    Ok(py.detach(|| pool.install(work)))
}

/// The objective's loss and gradients for every row of `cs` (policy parameters, `(B, m)`) and
/// `ps` (design parameters, `(B, k)`; zeros for `None`), in parallel on `threads` threads
/// (all cores for `None`): `(losses (B,), dc (B, m), dp (B, k))`. The same numbers as
/// `objective.evaluate` row by row.
#[pyfunction]
#[pyo3(signature = (objective, cs, ps=None, threads=None))]
#[allow(clippy::type_complexity)]
fn evaluate_batch<'py>(
    py: Python<'py>,
    objective: &PyObjective,
    cs: &Bound<'py, PyAny>,
    ps: Option<&Bound<'py, PyAny>>,
    threads: Option<usize>,
) -> PyResult<(
    Bound<'py, PyArrayDyn<f64>>,
    Bound<'py, PyArrayDyn<f64>>,
    Bound<'py, PyArrayDyn<f64>>,
)> {
    let items = pairs(objective, cs, ps)?;
    let results = guarded(|| {
        on_threads(py, threads, || {
            items
                .par_iter()
                .map(|(c, p)| objective.0.evaluate(c, p))
                .collect::<Result<Vec<_>, _>>()
        })?
        .raise()
    })?;
    let (m, k) = (
        sdrs::diff::Policy::parameters(&objective.0.policy),
        objective.0.design.parameters(),
    );
    let b = results.len();
    let losses = results.iter().map(|e| e.loss).collect();
    let dc = results
        .iter()
        .flat_map(|e| e.parameters.iter().copied())
        .collect();
    let dp = results
        .iter()
        .flat_map(|e| {
            e.design
                .clone()
                .unwrap_or_else(|| DVector::zeros(k))
                .data
                .as_vec()
                .clone()
        })
        .collect();
    Ok((
        arrays::shaped(py, losses, &[b])?,
        arrays::shaped(py, dc, &[b, m])?,
        arrays::shaped(py, dp, &[b, k])?,
    ))
}

/// The objective's rollouts for every row of `cs` and `ps` (as in `evaluate_batch`), in
/// parallel: the states, `(B, H + 1, n)`.
#[pyfunction]
#[pyo3(signature = (objective, cs, ps=None, threads=None))]
fn rollout_batch<'py>(
    py: Python<'py>,
    objective: &PyObjective,
    cs: &Bound<'py, PyAny>,
    ps: Option<&Bound<'py, PyAny>>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
    let items = pairs(objective, cs, ps)?;
    let trajectories = guarded(|| {
        on_threads(py, threads, || {
            items
                .par_iter()
                .map(|(c, p)| objective.simulate(c, p, None).map(|(_, _, t, _)| t))
                .collect::<Result<Vec<_>, _>>()
        })?
        .raise()
    })?;
    let n = objective.0.model.dof();
    let h = objective.0.steps + 1;
    let flat = trajectories
        .iter()
        .flat_map(|t| t.states.iter().flat_map(|s| s.q.iter().copied()))
        .collect();
    arrays::shaped(py, flat, &[trajectories.len(), h, n])
}
