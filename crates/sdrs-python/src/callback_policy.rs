//! Policies written in Python: `sdrs.CallbackPolicy` calls a Python object for each step's
//! control and for its vector-Jacobian and Jacobian-vector products, so that a torch module
//! (`sdrs.torch.TorchPolicy`) drives the Rust rollouts, objectives and batches, its parameter
//! gradient taken by torch.
//!
//! The object is called with the GIL taken (from any thread: the batches' calls are
//! serialised by it, the steps are not). It sees the states in the identity chart
//! (`sdrs::diff::identity_chart`: spherical and free joints as XYZ angles, canonical branch),
//! as `sdrs.torch.step` does; gradients and tangents are mapped to the stepper's charts here.
//!
//! The Rust [`Policy`] trait cannot fail, so an exception raised by the object is kept (the
//! first one), the step goes on under the base control, and the binding that ran the rollout
//! raises it afterwards ([`guarded`]). The slot is the module's, shared by every such policy;
//! each binding that may call one runs in [`guarded`], which clears it first.

use crate::arrays;
use nalgebra::{DMatrix, DVector};
use pyo3::prelude::*;
use sdrs::diff::{
    ControlCotangent, ControlTangent, Policy, PolicyGradient, PolicyInput, PolicyTangent,
    identity_chart, identity_chart_tangent,
};
use sdrs::dynamics::{Control, Model, State};
use std::sync::{Arc, Mutex};

/// The first exception a Python policy raised since the slot was last cleared.
static DEFERRED: Mutex<Option<PyErr>> = Mutex::new(None);

/// Runs `work`, a call that may run Python policies, and returns its result, unless a Python
/// policy raised meanwhile: then that exception (the cause of whatever else went wrong).
pub fn guarded<T>(work: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    DEFERRED.lock().unwrap_or_else(|e| e.into_inner()).take();
    let result = work();
    match DEFERRED.lock().unwrap_or_else(|e| e.into_inner()).take() {
        Some(e) => Err(e),
        None => result,
    }
}

/// Keeps `e` unless an earlier exception is kept.
fn keep(e: PyErr) {
    let mut slot = DEFERRED.lock().unwrap_or_else(|e| e.into_inner());
    if slot.is_none() {
        *slot = Some(e);
    }
}

/// `(c, step, time, q, q_prev)` as a Python policy's methods take them first.
type Arguments<'py> = (
    Bound<'py, PyAny>,
    usize,
    f64,
    Bound<'py, PyAny>,
    Option<Bound<'py, PyAny>>,
);

/// A policy whose controls and derivatives come from a Python object (see the module docs).
#[derive(Clone)]
pub struct CallbackPolicy {
    model: Arc<Model>,
    base: Control,
    parameters: usize,
    object: Arc<Py<PyAny>>,
}

impl std::fmt::Debug for CallbackPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CallbackPolicy {{ parameters: {} }}", self.parameters)
    }
}

impl CallbackPolicy {
    /// A policy of `parameters` parameters for `model`, starting from `base` and calling
    /// `object`.
    pub fn new(model: Model, base: Control, parameters: usize, object: Py<PyAny>) -> Self {
        Self {
            model: Arc::new(model),
            base,
            parameters,
            object: Arc::new(object),
        }
    }

    /// `∂q/∂δ` at a state's identity-chart coordinates `q`.
    fn chart_tangent(&self, q: &DVector<f64>) -> PyResult<DMatrix<f64>> {
        identity_chart_tangent(&self.model, q).map_err(crate::errors::diff)
    }

    /// The identity-chart coordinates of a state (canonical angles).
    fn coordinates(&self, state: &State) -> PyResult<DVector<f64>> {
        let zeros = DVector::zeros(self.model.dof());
        identity_chart(&self.model, state, &zeros).map_err(crate::errors::diff)
    }

    /// The identity-chart coordinates of the input's states: `(q, q_prev)`.
    fn states(&self, input: &PolicyInput) -> PyResult<(DVector<f64>, Option<DVector<f64>>)> {
        let q = self.coordinates(input.current)?;
        let q_prev = input.previous.map(|s| self.coordinates(s)).transpose()?;
        Ok((q, q_prev))
    }

    /// `(c, step, time, q, q_prev)` as the object takes them, with `(q, q_prev)` from
    /// [`CallbackPolicy::states`].
    fn arguments<'py>(
        py: Python<'py>,
        parameters: &DVector<f64>,
        input: &PolicyInput,
        (q, q_prev): &(DVector<f64>, Option<DVector<f64>>),
    ) -> Arguments<'py> {
        (
            arrays::to_numpy(py, parameters).into_any(),
            input.step,
            input.time,
            arrays::to_numpy(py, q).into_any(),
            q_prev.as_ref().map(|q| arrays::to_numpy(py, q).into_any()),
        )
    }
}

/// A vector of `n` entries from `x`, or `None` for Python's `None`.
fn optional(x: &Bound<'_, PyAny>, name: &str, n: usize) -> PyResult<Option<DVector<f64>>> {
    if x.is_none() {
        Ok(None)
    } else {
        arrays::vector(x, name, Some(n)).map(Some)
    }
}

impl Policy for CallbackPolicy {
    fn parameters(&self) -> usize {
        self.parameters
    }

    fn control(&self, parameters: &DVector<f64>, input: &PolicyInput) -> Control {
        let n = self.model.dof();
        let result = Python::attach(|py| -> PyResult<Control> {
            let args = Self::arguments(py, parameters, input, &self.states(input)?);
            let out = self.object.bind(py).call_method1("control", args)?;
            let (position, velocity, force): (Bound<PyAny>, Bound<PyAny>, Bound<PyAny>) =
                out.extract()?;
            let mut control = self.base.clone();
            for (given, name, field) in [
                (&position, "position", &mut control.position),
                (&velocity, "velocity", &mut control.velocity),
                (&force, "force", &mut control.force),
            ] {
                if let Some(v) = optional(given, name, n)? {
                    *field = v;
                }
            }
            Ok(control)
        });
        result.unwrap_or_else(|e| {
            keep(e);
            self.base.clone()
        })
    }

    fn pullback(
        &self,
        parameters: &DVector<f64>,
        input: &PolicyInput,
        cotangent: ControlCotangent,
        gradient: PolicyGradient,
    ) {
        let n = self.model.dof();
        let result = Python::attach(|py| -> PyResult<()> {
            let states = self.states(input)?;
            let (c, step, time, q, q_prev) = Self::arguments(py, parameters, input, &states);
            let g = |v: &DVector<f64>| arrays::to_numpy(py, v).into_any();
            let out = self.object.bind(py).call_method1(
                "vjp",
                (
                    c,
                    step,
                    time,
                    q,
                    q_prev,
                    g(cotangent.position),
                    g(cotangent.velocity),
                    g(cotangent.force),
                ),
            )?;
            let (dc, dq, dq_prev): (Bound<PyAny>, Bound<PyAny>, Bound<PyAny>) = out.extract()?;
            *gradient.parameters += arrays::vector(&dc, "vjp's dc", Some(self.parameters))?;
            // Gradients in angles to gradients in the stepper's rotation vectors.
            if let Some(dq) = optional(&dq, "vjp's dq", n)? {
                *gradient.current += self.chart_tangent(&states.0)?.tr_mul(&dq);
            }
            if let (Some(at), Some(buffer)) = (&states.1, gradient.previous)
                && let Some(dq) = optional(&dq_prev, "vjp's dq_prev", n)?
            {
                *buffer += self.chart_tangent(at)?.tr_mul(&dq);
            }
            Ok(())
        });
        if let Err(e) = result {
            keep(e);
        }
    }

    fn pushforward(
        &self,
        parameters: &DVector<f64>,
        input: &PolicyInput,
        tangent: PolicyTangent,
        control: &mut ControlTangent,
    ) {
        let n = self.model.dof();
        let k = tangent.current.ncols();
        let result = Python::attach(|py| -> PyResult<()> {
            let states = self.states(input)?;
            let (c, step, time, q, q_prev) = Self::arguments(py, parameters, input, &states);
            let m = |x: &DMatrix<f64>| arrays::matrix_to_numpy(py, x);
            // Tangents of the stepper's rotation vectors to tangents of the angles.
            let s_q = self.chart_tangent(&states.0)? * tangent.current;
            let s_prev = match (&states.1, tangent.previous) {
                (Some(at), Some(s)) => Some(m(&(self.chart_tangent(at)? * s))?),
                _ => None,
            };
            let out = self.object.bind(py).call_method1(
                "jvp",
                (
                    c,
                    step,
                    time,
                    q,
                    q_prev,
                    m(tangent.parameters)?,
                    m(&s_q)?,
                    s_prev,
                ),
            )?;
            let (position, velocity, force): (Bound<PyAny>, Bound<PyAny>, Bound<PyAny>) =
                out.extract()?;
            for (given, name, field) in [
                (&position, "jvp's position", &mut control.position),
                (&velocity, "jvp's velocity", &mut control.velocity),
                (&force, "jvp's force", &mut control.force),
            ] {
                if !given.is_none() {
                    *field += arrays::matrix(given, name, Some(n), Some(k))?;
                }
            }
            Ok(())
        });
        if let Err(e) = result {
            keep(e);
        }
    }
}
