//! Batches of environments stepped one step at a time, on all cores with the GIL released,
//! and the vector-Jacobian products of those steps ([`sdrs::diff::StepBatch`],
//! [`sdrs::diff::step_coordinates`]): what `sdrs.torch.step` and the vector environments
//! call.

use crate::arrays;
use crate::errors::Raise;
use crate::model::PyModel;
use crate::sim::{PyControl, PySimulator};
use nalgebra::{DMatrix, DVector};
use numpy::PyArrayDyn;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;
use sdrs::diff::{CoordinateStep, StepBatch};
use sdrs::dynamics::{Control, Model};
use std::sync::Mutex;

/// Adds the classes of this module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyStepBatch>()?;
    m.add_class::<PyStepRecord>()?;
    Ok(())
}

/// `B` environments of one model, each with its own simulator (its own warm starts), stepped
/// together: the state of environment `b` is the coordinate pair `(q_prev[b], q[b])`, the
/// configuration one step ago and now (spherical and free joints as XYZ angles, as
/// `Motion.at_rest` takes them), whose difference over `dt` is the velocity.
///
/// `StepBatch(simulator, size, gradients=True)` copies `simulator`'s model, settings and
/// contact `size` times; with `gradients` the steps keep what their backward pass needs
/// (`step_record`), without it they only step (faster). `control` holds the PD gains (and
/// the targets and forces used where a step is given none).
#[pyclass(name = "StepBatch", module = "sdrs", frozen)]
pub struct PyStepBatch {
    batch: Mutex<StepBatch>,
    control: Mutex<Control>,
    /// Wall time of the last call's steps themselves (s), without reading and writing arrays.
    seconds: Mutex<f64>,
    /// The environments whose step failed in the last call, with the messages.
    failures: Mutex<Vec<(usize, String)>>,
}

impl PyStepBatch {
    fn lock(&self) -> std::sync::MutexGuard<'_, StepBatch> {
        self.batch.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn template(&self) -> Control {
        self.control
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The rows of a `(B, n)` array, or `None`.
    fn rows(
        x: Option<&Bound<'_, PyAny>>,
        name: &str,
        b: usize,
        n: usize,
    ) -> PyResult<Option<Vec<DVector<f64>>>> {
        x.map(|x| {
            let m: DMatrix<f64> = arrays::matrix(x, name, Some(b), Some(n))?;
            Ok((0..b).map(|r| m.row(r).transpose()).collect())
        })
        .transpose()
    }

    /// Steps every environment; the steps keep their records when the batch has gradients.
    /// With `on_failure = "hold"` a failed environment's step is `None` (it stays at `q`) and
    /// its message goes to `last_failures`; with `"raise"` the first failure raises.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        py: Python<'_>,
        q_prev: &Bound<'_, PyAny>,
        q: &Bound<'_, PyAny>,
        position: Option<&Bound<'_, PyAny>>,
        velocity: Option<&Bound<'_, PyAny>>,
        force: Option<&Bound<'_, PyAny>>,
        on_failure: &str,
    ) -> PyResult<Stepped> {
        let hold = match on_failure {
            "raise" => false,
            "hold" => true,
            other => {
                return Err(PyValueError::new_err(format!(
                    "on_failure must be \"raise\" (the first failed environment raises) or \
                     \"hold\" (a failed environment stays where it is, listed in \
                     last_failures), not {other:?}"
                )));
            }
        };
        let mut batch = self.lock();
        let (b, model) = (batch.len(), batch.model().clone());
        let n = model.dof();
        let previous = Self::rows(Some(q_prev), "q_prev", b, n)?.unwrap_or_default();
        let current = Self::rows(Some(q), "q", b, n)?.unwrap_or_default();
        let position = Self::rows(position, "position", b, n)?;
        let velocity = Self::rows(velocity, "velocity", b, n)?;
        let force = Self::rows(force, "force", b, n)?;
        let template = self.template();
        let controls: Vec<Control> = (0..b)
            .map(|r| {
                let mut c = template.clone();
                for (given, field) in [
                    (&position, &mut c.position),
                    (&velocity, &mut c.velocity),
                    (&force, &mut c.force),
                ] {
                    if let Some(rows) = given {
                        *field = rows[r].clone();
                    }
                }
                c
            })
            .collect();
        let batch = &mut *batch;
        let clock = std::time::Instant::now();
        let results = py.detach(|| batch.step_each(&previous, &current, &controls));
        *self.seconds.lock().unwrap_or_else(|e| e.into_inner()) = clock.elapsed().as_secs_f64();
        let mut failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        failures.clear();
        let mut steps = Vec::with_capacity(b);
        for (index, result) in results.raise()?.into_iter().enumerate() {
            match result {
                Ok(step) => steps.push(Some(step)),
                Err(e) if hold => {
                    failures.push((index, e.to_string()));
                    steps.push(None);
                }
                Err(e) => {
                    return Err(sdrs::diff::DiffError::Environment {
                        index,
                        source: Box::new(e),
                    })
                    .raise();
                }
            }
        }
        Ok(Stepped {
            model,
            current,
            steps,
        })
    }
}

/// What one call stepped: the model, every environment's `q`, and its step (`None` where it
/// failed and was held).
struct Stepped {
    model: Model,
    current: Vec<DVector<f64>>,
    steps: Vec<Option<CoordinateStep>>,
}

/// The results' coordinates, `(B, n)`: a held environment's are its current ones.
fn next_states<'py>(
    py: Python<'py>,
    current: &[DVector<f64>],
    steps: &[Option<CoordinateStep>],
    n: usize,
) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
    let rows = steps
        .iter()
        .zip(current)
        .map(|(s, q)| s.as_ref().map_or(q.as_slice(), |s| s.next.as_slice()));
    arrays::rows_to_numpy(py, rows, n)
}

#[pymethods]
impl PyStepBatch {
    #[new]
    #[pyo3(signature = (simulator, size, gradients=true))]
    fn new(simulator: &PySimulator, size: usize, gradients: bool) -> PyResult<Self> {
        let mut sim = simulator.lock().clone();
        let mut settings = sim.settings().clone();
        settings.backward = gradients;
        if settings.backward != sim.settings().backward {
            sim = sdrs::dynamics::Simulator::new(sim.model().clone(), settings).raise()?;
        }
        let control = Control::passive(sim.model());
        Ok(Self {
            batch: Mutex::new(StepBatch::new(&sim, size).raise()?),
            control: Mutex::new(control),
            seconds: Mutex::new(0.0),
            failures: Mutex::new(Vec::new()),
        })
    }

    /// The environments whose step failed in the last `step` or `step_record` call with
    /// `on_failure="hold"`, each with the error's message: `{index: message}`.
    #[getter]
    fn last_failures(&self) -> std::collections::BTreeMap<usize, String> {
        let failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        failures.iter().cloned().collect()
    }

    /// Wall time (s) of the last `step` or `step_record` call's steps themselves, without
    /// reading the inputs and writing the result: the call's time minus this is the Python
    /// overhead.
    #[getter]
    fn last_step_seconds(&self) -> f64 {
        *self.seconds.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The number of environments `B`.
    #[getter]
    fn size(&self) -> usize {
        self.lock().len()
    }

    /// The model simulated (with the batch's current design).
    #[getter]
    fn model(&self) -> PyModel {
        PyModel(self.lock().model().clone())
    }

    /// The time step (s).
    #[getter]
    fn dt(&self) -> f64 {
        self.lock().settings().dt
    }

    /// Whether steps keep what their backward pass needs.
    #[getter]
    fn gradients(&self) -> bool {
        self.lock().settings().backward
    }

    /// A copy of the control every environment starts from: PD gains `kp`, `kd` (SI), and
    /// the targets and forces a step uses where it is given none.
    #[getter]
    fn get_control(&self) -> PyControl {
        PyControl(self.template())
    }
    #[setter]
    fn set_control(&self, control: &PyControl) -> PyResult<()> {
        let n = self.lock().model().dof();
        if control.0.kp.len() != n {
            return Err(PyValueError::new_err(format!(
                "the control is for a model with {} coordinates, the batch's has {n}",
                control.0.kp.len()
            )));
        }
        *self.control.lock().unwrap_or_else(|e| e.into_inner()) = control.0.clone();
        Ok(())
    }

    /// The model's design vector (attachments, then hull vertices).
    #[getter]
    fn design<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<f64>> {
        arrays::to_numpy(py, &self.lock().model().design())
    }

    /// Rebuilds every environment for design vector `d` (`Model.with_design`), without warm
    /// starts.
    fn set_design(&self, py: Python<'_>, d: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut batch = self.lock();
        let d = arrays::vector(d, "design", Some(batch.model().design_len()))?;
        let batch = &mut *batch;
        py.detach(|| batch.set_design(&d)).raise()
    }

    /// Forgets the warm starts of environments `indices` (all for `None`), so that their next
    /// steps depend on their inputs alone: call it when an environment is reset.
    #[pyo3(signature = (indices=None))]
    fn reset(&self, indices: Option<Vec<usize>>) -> PyResult<()> {
        self.lock().reset(indices.as_deref()).raise()
    }

    /// One step of every environment from `(q_prev, q)` (each `(B, n)`) with PD targets
    /// `position`, `velocity` and generalized forces `force` (each `(B, n)`; the batch's
    /// `control` where `None`): `q_next`, `(B, n)`. A failed step raises (`on_failure =
    /// "raise"`) or leaves its environment at `q` and is listed in `last_failures`
    /// (`"hold"`).
    #[pyo3(signature = (q_prev, q, position=None, velocity=None, force=None, on_failure="raise"))]
    #[allow(clippy::too_many_arguments)]
    fn step<'py>(
        &self,
        py: Python<'py>,
        q_prev: &Bound<'py, PyAny>,
        q: &Bound<'py, PyAny>,
        position: Option<&Bound<'py, PyAny>>,
        velocity: Option<&Bound<'py, PyAny>>,
        force: Option<&Bound<'py, PyAny>>,
        on_failure: &str,
    ) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let s = self.run(py, q_prev, q, position, velocity, force, on_failure)?;
        next_states(py, &s.current, &s.steps, s.model.dof())
    }

    /// As `step`, and the steps' record for their backward pass: `(q_next, record)`. Needs a
    /// batch with `gradients`. A held environment's `q_next` is its `q`, and so is its
    /// derivative.
    #[pyo3(signature = (q_prev, q, position=None, velocity=None, force=None, on_failure="raise"))]
    #[allow(clippy::too_many_arguments)]
    fn step_record<'py>(
        &self,
        py: Python<'py>,
        q_prev: &Bound<'py, PyAny>,
        q: &Bound<'py, PyAny>,
        position: Option<&Bound<'py, PyAny>>,
        velocity: Option<&Bound<'py, PyAny>>,
        force: Option<&Bound<'py, PyAny>>,
        on_failure: &str,
    ) -> PyResult<(Bound<'py, PyArrayDyn<f64>>, PyStepRecord)> {
        if !self.gradients() {
            return Err(PyValueError::new_err(
                "this batch was built with gradients=False: build it with gradients=True to \
                 differentiate its steps",
            ));
        }
        let s = self.run(py, q_prev, q, position, velocity, force, on_failure)?;
        let q_next = next_states(py, &s.current, &s.steps, s.model.dof())?;
        let (model, steps) = (s.model, s.steps);
        Ok((q_next, PyStepRecord { model, steps }))
    }
}

/// One batched step's record: `iterations` per environment, and `backward`.
#[pyclass(name = "StepRecord", module = "sdrs", frozen)]
pub struct PyStepRecord {
    model: Model,
    /// Each environment's step, `None` where it failed and was held.
    steps: Vec<Option<CoordinateStep>>,
}

/// The cotangent of a held environment (`q_next = q`): `grad` to `q`, nothing elsewhere.
fn held(model: &Model, grad: &DVector<f64>) -> sdrs::diff::StepCotangent {
    let zeros = || DVector::zeros(model.dof());
    sdrs::diff::StepCotangent {
        previous: zeros(),
        current: grad.clone(),
        target_position: zeros(),
        target_velocity: zeros(),
        force: zeros(),
        design: Some(DVector::zeros(model.design_len())),
    }
}

#[pymethods]
impl PyStepRecord {
    /// Newton iterations of every environment's step (0 where it failed and was held).
    #[getter]
    fn iterations(&self) -> Vec<usize> {
        self.steps
            .iter()
            .map(|s| s.as_ref().map_or(0, |s| s.iterations))
            .collect()
    }

    /// Active hull pairs at every environment's solution (0 where it failed and was held).
    #[getter]
    fn active_pairs(&self) -> Vec<usize> {
        self.steps
            .iter()
            .map(|s| s.as_ref().map_or(0, |s| s.active_pairs))
            .collect()
    }

    /// The vector-Jacobian product of the steps for the gradient `grad` (`(B, n)`) of a scalar
    /// with respect to `q_next`: its gradient with respect to `q_prev`, `q`, `position`,
    /// `velocity`, `force` (each `(B, n)`) and the design vector (`(B, |d|)`, `None` when the
    /// steps give no design blocks), as a dict of those names.
    fn backward<'py>(
        &self,
        py: Python<'py>,
        grad: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let (b, n) = (self.steps.len(), self.model.dof());
        let g = arrays::matrix(grad, "grad", Some(b), Some(n))?;
        let rows: Vec<DVector<f64>> = (0..b).map(|r| g.row(r).transpose()).collect();
        let cotangents = py
            .detach(|| {
                self.steps
                    .par_iter()
                    .zip(&rows)
                    .enumerate()
                    .map(|(index, (step, g))| match step {
                        Some(step) => step.vjp(&self.model, g).map_err(|e| {
                            sdrs::diff::DiffError::Environment {
                                index,
                                source: Box::new(e),
                            }
                        }),
                        None => Ok(held(&self.model, g)),
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .raise()?;
        let out = pyo3::types::PyDict::new(py);
        let field = |f: fn(&sdrs::diff::StepCotangent) -> &DVector<f64>| {
            arrays::rows_to_numpy(py, cotangents.iter().map(|c| f(c).as_slice()), n)
        };
        out.set_item("q_prev", field(|c| &c.previous)?)?;
        out.set_item("q", field(|c| &c.current)?)?;
        out.set_item("position", field(|c| &c.target_position)?)?;
        out.set_item("velocity", field(|c| &c.target_velocity)?)?;
        out.set_item("force", field(|c| &c.force)?)?;
        let designs: Option<Vec<&DVector<f64>>> =
            cotangents.iter().map(|c| c.design.as_ref()).collect();
        let design = designs
            .map(|d| {
                let k = self.model.design_len();
                arrays::rows_to_numpy(py, d.iter().map(|d| d.as_slice()), k)
            })
            .transpose()?;
        out.set_item("design", design)?;
        Ok(out)
    }
}
