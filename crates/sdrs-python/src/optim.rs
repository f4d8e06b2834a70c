//! The optimisers of `sdrs-diff`: Adam, the projected step of SDRS eq. 15, and the
//! trust-region loop `minimise` over an objective's policy (and design) parameters.

use crate::arrays::{self, to_numpy};
use crate::callback_policy::guarded;
use crate::errors::Raise;
use crate::objective::PyObjective;
use nalgebra::DVector;
use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use sdrs::diff::{Adam, Block, minimise, projected_step};

/// Adds the classes and functions of this module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyAdam>()?;
    m.add_class::<PyBlock>()?;
    m.add_class::<PyOptimum>()?;
    m.add_function(wrap_pyfunction!(py_projected_step, m)?)?;
    m.add_function(wrap_pyfunction!(py_minimise, m)?)?;
    Ok(())
}

/// Adam (Kingma and Ba) for `n` parameters: `step(params, gradient)` returns the new
/// parameters; with `lower` and `upper` (arrays of `n` finite values) each step is projected
/// onto that box; with `decay_to` and `decay_over` the step size decays geometrically to
/// `learning_rate * decay_to` over the first `decay_over` steps (`learning_rate` reads the
/// size of the next step).
#[pyclass(name = "Adam", module = "sdrs")]
pub struct PyAdam(Adam);

#[pymethods]
impl PyAdam {
    #[new]
    #[pyo3(signature = (n, learning_rate, beta1=0.9, beta2=0.999, epsilon=1e-8, lower=None, upper=None, decay_to=None, decay_over=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        n: usize,
        learning_rate: f64,
        beta1: f64,
        beta2: f64,
        epsilon: f64,
        lower: Option<&Bound<'_, PyAny>>,
        upper: Option<&Bound<'_, PyAny>>,
        decay_to: Option<f64>,
        decay_over: Option<usize>,
    ) -> PyResult<Self> {
        let mut adam = Adam::new(n, learning_rate);
        (adam.beta1, adam.beta2, adam.epsilon) = (beta1, beta2, epsilon);
        adam = match (decay_to, decay_over) {
            (None, None) => adam,
            (Some(to), Some(over)) => adam.with_decay(to, over).raise()?,
            _ => {
                return Err(PyValueError::new_err(
                    "Adam: give both decay_to and decay_over, or neither",
                ));
            }
        };
        match (lower, upper) {
            (None, None) => Ok(Self(adam)),
            (Some(lower), Some(upper)) => {
                let lower = arrays::vector(lower, "lower", Some(n))?;
                let upper = arrays::vector(upper, "upper", Some(n))?;
                Ok(Self(adam.with_bounds(lower, upper).raise()?))
            }
            _ => Err(PyValueError::new_err(
                "Adam: give both lower and upper bounds, or neither",
            )),
        }
    }

    /// One step from `params` along `gradient`: the new parameters.
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        params: &Bound<'py, PyAny>,
        gradient: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let mut x = arrays::vector(params, "params", None)?;
        let g = arrays::vector(gradient, "gradient", None)?;
        self.0.step(&mut x, &g).raise()?;
        Ok(to_numpy(py, &x))
    }

    /// The size of the next step (`learning_rate` unless it decays).
    #[getter]
    fn learning_rate(&self) -> f64 {
        self.0.current_learning_rate()
    }
}

/// The step of SDRS eq. 15: the minimiser of `gᵀΔ` with `|Δ| ≤ radius` and
/// `lower ≤ x + Δ ≤ upper`.
#[pyfunction]
#[pyo3(name = "projected_step")]
fn py_projected_step<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    gradient: &Bound<'py, PyAny>,
    radius: f64,
    lower: &Bound<'py, PyAny>,
    upper: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let x = arrays::vector(x, "x", None)?;
    let n = Some(x.len());
    let g = arrays::vector(gradient, "gradient", n)?;
    let lo = arrays::vector(lower, "lower", n)?;
    let hi = arrays::vector(upper, "upper", n)?;
    Ok(to_numpy(
        py,
        &projected_step(&x, &g, radius, &lo, &hi).raise()?,
    ))
}

/// One block of parameters for `minimise`: its box `[lower, upper]`, its initial
/// trust-region radius and the largest radius.
#[pyclass(name = "Block", module = "sdrs", frozen, from_py_object)]
#[derive(Clone)]
pub struct PyBlock(Block);

#[pymethods]
impl PyBlock {
    #[new]
    fn new(
        lower: &Bound<'_, PyAny>,
        upper: &Bound<'_, PyAny>,
        radius: f64,
        max_radius: f64,
    ) -> PyResult<Self> {
        let lower = arrays::vector(lower, "lower", None)?;
        let upper = arrays::vector(upper, "upper", Some(lower.len()))?;
        Ok(Self(Block {
            lower,
            upper,
            radius,
            max_radius,
        }))
    }
}

/// Where `minimise` ended: the best `parameters` (one array per block), their `loss`, the
/// best loss after each iteration `history` (the start's first), and `failures`: the
/// iterations whose trial the objective failed at (e.g. a rollout the simulator could not
/// step), with why, as `(iteration, message)` (those steps were not taken).
#[pyclass(name = "Optimum", module = "sdrs", frozen, get_all)]
pub struct PyOptimum {
    /// The best parameters, per block.
    parameters: Vec<Py<PyArray1<f64>>>,
    /// The loss there.
    loss: f64,
    /// The best loss after each iteration.
    history: Vec<f64>,
    /// The iterations whose trial failed, and why.
    failures: Vec<(usize, String)>,
}

/// The trust-region loop of SDRS sec. V (`sdrs_diff::minimise`) on `objective`: block 0 is
/// the policy parameters, block 1 (optional) the design parameters, starting at `start`
/// (one array per block), for `iterations` iterations. Runs in Rust with the GIL released.
#[pyfunction]
#[pyo3(name = "minimise")]
fn py_minimise(
    py: Python<'_>,
    objective: &PyObjective,
    start: Vec<Bound<'_, PyAny>>,
    blocks: Vec<PyBlock>,
    iterations: usize,
) -> PyResult<PyOptimum> {
    if start.is_empty() || start.len() > 2 {
        return Err(PyValueError::new_err(format!(
            "minimise takes 1 block (policy parameters) or 2 (policy, design), got {}",
            start.len()
        )));
    }
    let mut x0 = vec![objective.policy_parameters(&start[0])?];
    if let Some(p) = start.get(1) {
        x0.push(objective.design_parameters(Some(p))?);
    }
    let codesign = x0.len() == 2;
    let zeros = DVector::zeros(objective.0.design.parameters());
    let evaluate = |x: &[DVector<f64>]| -> Result<_, sdrs::diff::DiffError> {
        let e = objective.0.evaluate(&x[0], x.get(1).unwrap_or(&zeros))?;
        let mut gradient = vec![e.parameters.clone()];
        if codesign {
            gradient.push(
                e.design
                    .clone()
                    .ok_or(sdrs::diff::DiffError::InvalidInput {
                        what: "the design gradient",
                        reason: "the steps gave no design blocks".into(),
                    })?,
            );
        }
        Ok((e.loss, gradient, ()))
    };
    let blocks = blocks.into_iter().map(|b| b.0).collect();
    let mut failures = Vec::new();
    let best = guarded(|| {
        py.detach(|| {
            minimise(x0, blocks, evaluate, iterations, |p| {
                if let Some(why) = &p.failure {
                    failures.push((p.iteration, why.clone()));
                }
            })
        })
        .raise()
    })?;
    Ok(PyOptimum {
        parameters: best
            .parameters
            .iter()
            .map(|p| to_numpy(py, p).unbind())
            .collect(),
        loss: best.loss,
        history: best.history,
        failures,
    })
}
