//! Policies: open-loop targets or forces, sine waves and cubic splines on chosen
//! coordinates. `sdrs.Policy` is their common base class; the Rust [`Policy`] trait is met by
//! one adapter, [`AnyPolicy`].

use crate::arrays::to_numpy;
use crate::callback_policy::CallbackPolicy;
use crate::errors::Raise;
use crate::model::PyModel;
use crate::sim::PyControl;
use nalgebra::DVector;
use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use sdrs::diff::{
    Channel, ControlCotangent, ControlTangent, CubicSpline, OpenLoop, Policy, PolicyGradient,
    PolicyInput, PolicyTangent, SineWaves,
};
use sdrs::dynamics::Control;

/// Adds the classes of this module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyPolicy>()?;
    m.add_class::<PyOpenLoop>()?;
    m.add_class::<PySineWaves>()?;
    m.add_class::<PyCubicSpline>()?;
    m.add_class::<PyCallbackPolicy>()?;
    Ok(())
}

/// One of the built-in policies, as the Rust [`Policy`] trait: the adapter every rollout and
/// objective of the bindings goes through.
#[derive(Debug, Clone)]
pub enum AnyPolicy {
    /// Open-loop targets or forces.
    OpenLoop(OpenLoop),
    /// Sine waves.
    SineWaves(SineWaves),
    /// A cubic spline.
    CubicSpline(CubicSpline),
    /// A policy written in Python.
    Callback(CallbackPolicy),
}

impl AnyPolicy {
    /// The policy behind the enum.
    fn inner(&self) -> &dyn Policy {
        match self {
            AnyPolicy::OpenLoop(p) => p,
            AnyPolicy::SineWaves(p) => p,
            AnyPolicy::CubicSpline(p) => p,
            AnyPolicy::Callback(p) => p,
        }
    }
}

impl Policy for AnyPolicy {
    fn parameters(&self) -> usize {
        self.inner().parameters()
    }

    fn control(&self, parameters: &DVector<f64>, input: &PolicyInput) -> Control {
        self.inner().control(parameters, input)
    }

    fn pullback(
        &self,
        parameters: &DVector<f64>,
        input: &PolicyInput,
        cotangent: ControlCotangent,
        gradient: PolicyGradient,
    ) {
        self.inner()
            .pullback(parameters, input, cotangent, gradient)
    }

    fn pushforward(
        &self,
        parameters: &DVector<f64>,
        input: &PolicyInput,
        tangent: PolicyTangent,
        control: &mut ControlTangent,
    ) {
        self.inner()
            .pushforward(parameters, input, tangent, control)
    }

    fn check(&self, parameters: &DVector<f64>) -> sdrs::diff::Result<()> {
        self.inner().check(parameters)
    }
}

/// A control policy: the controls of every step from its parameters (and the state). Use one
/// of its subclasses `OpenLoop`, `SineWaves`, `CubicSpline`.
#[pyclass(name = "Policy", module = "sdrs", subclass, frozen)]
pub struct PyPolicy(pub AnyPolicy);

impl PyPolicy {
    /// Number of parameters.
    pub fn count(&self) -> usize {
        self.0.parameters()
    }

    /// The policy for rollouts.
    pub fn policy(&self) -> &AnyPolicy {
        &self.0
    }
}

#[pymethods]
impl PyPolicy {
    /// Number of parameters.
    #[getter]
    fn parameters(&self) -> usize {
        self.count()
    }

    fn __repr__(&self) -> String {
        format!("{:?}", self.0).chars().take(200).collect()
    }
}

/// Open-loop controls: one value per step and actuated coordinate (`dofs`), step-major,
/// replacing `base`'s target positions (`channel="position"`) or generalized forces
/// (`channel="force"`).
#[pyclass(name = "OpenLoop", module = "sdrs", extends = PyPolicy, frozen)]
pub struct PyOpenLoop(OpenLoop);

#[pymethods]
impl PyOpenLoop {
    #[new]
    #[pyo3(signature = (base, dofs, steps, channel="position"))]
    fn new(
        base: &PyControl,
        dofs: Vec<usize>,
        steps: usize,
        channel: &str,
    ) -> PyResult<PyClassInitializer<Self>> {
        let channel = match channel {
            "position" => Channel::Position,
            "force" => Channel::Force,
            other => {
                return Err(PyValueError::new_err(format!(
                    "channel '{other}' is unknown: use 'position' or 'force'"
                )));
            }
        };
        let p = OpenLoop::with_channel(base.0.clone(), dofs, steps, channel).raise()?;
        Ok(
            PyClassInitializer::from(PyPolicy(AnyPolicy::OpenLoop(p.clone())))
                .add_subclass(Self(p)),
        )
    }

    /// The parameters that reproduce `base` (its targets or forces at every step).
    fn initial<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        to_numpy(py, &self.0.initial())
    }
}

/// Sine waves on the target positions of `dofs`: `waves` waves per coordinate, each with an
/// amplitude, a frequency and a phase.
#[pyclass(name = "SineWaves", module = "sdrs", extends = PyPolicy, frozen)]
pub struct PySineWaves;

#[pymethods]
impl PySineWaves {
    #[new]
    fn new(base: &PyControl, dofs: Vec<usize>, waves: usize) -> PyResult<PyClassInitializer<Self>> {
        let p = SineWaves::new(base.0.clone(), dofs, waves).raise()?;
        Ok(PyClassInitializer::from(PyPolicy(AnyPolicy::SineWaves(p))).add_subclass(Self))
    }
}

/// A cubic spline through `points` control values per coordinate of `dofs` over `duration`
/// seconds, driving their target positions.
#[pyclass(name = "CubicSpline", module = "sdrs", extends = PyPolicy, frozen)]
pub struct PyCubicSpline;

#[pymethods]
impl PyCubicSpline {
    #[new]
    fn new(
        base: &PyControl,
        dofs: Vec<usize>,
        points: usize,
        duration: f64,
    ) -> PyResult<PyClassInitializer<Self>> {
        let p = CubicSpline::new(base.0.clone(), dofs, points, duration).raise()?;
        Ok(PyClassInitializer::from(PyPolicy(AnyPolicy::CubicSpline(p))).add_subclass(Self))
    }
}

/// A policy written in Python: `object` gives each step's control and its derivatives
/// (`sdrs.torch.TorchPolicy` is one, for a torch module). Its methods, with `c` the
/// `parameters` parameters, `q`, `q_prev` the configuration now and one step ago (identity
/// chart: spherical and free joints as XYZ angles; `q_prev` is `None` at a rollout's first
/// step) and arrays of float64:
///
/// - `control(c, step, time, q, q_prev) -> (position, velocity, force)`: the PD targets and
///   generalized forces (`None` for `base`'s);
/// - `vjp(c, step, time, q, q_prev, g_position, g_velocity, g_force) -> (dc, dq, dq_prev)`:
///   the gradients of `g · control` (`None` for zero; `dq_prev` is ignored at the first step);
/// - `jvp(c, step, time, q, q_prev, s_c, s_q, s_prev) -> (position, velocity, force)`: the
///   controls' tangents (`n x k`) for the inputs' (`m x k`, `n x k`; `s_prev` is `None` at the
///   first step), for forward mode (`Simulator.tangent`).
///
/// An exception in them is raised once the call that ran the rollout returns.
#[pyclass(name = "CallbackPolicy", module = "sdrs", extends = PyPolicy, frozen)]
pub struct PyCallbackPolicy;

#[pymethods]
impl PyCallbackPolicy {
    #[new]
    fn new(
        model: &PyModel,
        base: &PyControl,
        parameters: usize,
        object: Py<PyAny>,
    ) -> PyResult<PyClassInitializer<Self>> {
        if base.0.kp.len() != model.0.dof() {
            return Err(PyValueError::new_err(format!(
                "base is a control for {} coordinates, the model has {}",
                base.0.kp.len(),
                model.0.dof()
            )));
        }
        let p = CallbackPolicy::new(model.0.clone(), base.0.clone(), parameters, object);
        Ok(PyClassInitializer::from(PyPolicy(AnyPolicy::Callback(p))).add_subclass(Self))
    }
}
