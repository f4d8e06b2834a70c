//! Policies: open-loop targets or forces, sine waves and cubic splines on chosen
//! coordinates. `sdrs.Policy` is their common base class; the Rust [`Policy`] trait is met by
//! one adapter, [`AnyPolicy`].

use crate::arrays::to_numpy;
use crate::errors::Raise;
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
}

impl AnyPolicy {
    /// The policy behind the enum.
    fn inner(&self) -> &dyn Policy {
        match self {
            AnyPolicy::OpenLoop(p) => p,
            AnyPolicy::SineWaves(p) => p,
            AnyPolicy::CubicSpline(p) => p,
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
