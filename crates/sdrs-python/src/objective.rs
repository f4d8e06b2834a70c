//! Losses, design maps and objectives: one call from policy and design parameters to a loss
//! and its gradients ([`sdrs::diff::Objective`]), and rollouts whose backward pass takes the
//! gradient of any loss of the states (what `sdrs.torch` builds on).

use crate::arrays::{self, to_numpy};
use crate::callback_policy::guarded;
use crate::errors::Raise;
use crate::model::PyModel;
use crate::policy::{AnyPolicy, PyPolicy};
use crate::sim::{self, PySimulator, PyTrajectory};
use nalgebra::{DVector, Point3};
use numpy::{PyArray1, PyArrayDyn};
use pyo3::prelude::*;
use sdrs::diff::{
    CentreOfMass, DesignMap, Distance, Effort, Evaluation, LinkPoint, Loss, LossGradient,
    Objective, PointTarget, Policy, Sum, Trajectory, adjoint, rollout_policy,
};
use sdrs::dynamics::{Model, Motion, Simulator, State};
use std::sync::{Arc, Mutex};

/// Adds the classes of this module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyLinkPoint>()?;
    m.add_class::<PyLoss>()?;
    m.add_class::<PyPointTarget>()?;
    m.add_class::<PyCentreOfMass>()?;
    m.add_class::<PyDistance>()?;
    m.add_class::<PyEffort>()?;
    m.add_class::<PySum>()?;
    m.add_class::<PyDesignMap>()?;
    m.add_class::<PyObjective>()?;
    m.add_class::<PyEvaluation>()?;
    m.add_class::<PyRollout>()?;
    Ok(())
}

/// A loss shared between Python objects and threads.
#[derive(Debug, Clone)]
pub struct SharedLoss(Arc<dyn Loss + Send + Sync>);

impl Loss for SharedLoss {
    fn evaluate(
        &self,
        model: &Model,
        trajectory: &Trajectory,
    ) -> sdrs::diff::Result<(f64, LossGradient)> {
        self.0.evaluate(model, trajectory)
    }
}

/// A weighted sum of shared losses, made into a [`Sum`] when evaluated.
#[derive(Debug)]
struct SharedSum(Vec<(f64, SharedLoss)>);

impl Loss for SharedSum {
    fn evaluate(
        &self,
        model: &Model,
        trajectory: &Trajectory,
    ) -> sdrs::diff::Result<(f64, LossGradient)> {
        let sum = self
            .0
            .iter()
            .fold(Sum::new(), |sum, (w, l)| sum.with(*w, l.clone()));
        sum.evaluate(model, trajectory)
    }
}

/// A point on a link: fixed in its frame, or the mean of some hull vertices (moving with
/// the design).
#[pyclass(name = "LinkPoint", module = "sdrs", frozen, from_py_object)]
#[derive(Clone)]
pub struct PyLinkPoint(LinkPoint);

#[pymethods]
impl PyLinkPoint {
    /// The point `point` fixed in the frame of link `link`.
    #[staticmethod]
    fn fixed(model: &PyModel, link: &str, point: &Bound<'_, PyAny>) -> PyResult<Self> {
        let p = arrays::vector3(point, "point")?;
        Ok(Self(
            LinkPoint::fixed(&model.0, link, Point3::from(p)).raise()?,
        ))
    }

    /// The mean of vertices `vertices` of hull `hull` of link `link`.
    #[staticmethod]
    fn vertex_mean(
        model: &PyModel,
        link: &str,
        hull: usize,
        vertices: Vec<usize>,
    ) -> PyResult<Self> {
        Ok(Self(
            LinkPoint::vertex_mean(&model.0, link, hull, &vertices).raise()?,
        ))
    }
}

/// A loss of a trajectory that knows its partial derivatives. Use a subclass:
/// `PointTarget`, `CentreOfMass`, `Distance`, `Effort`, `Sum`.
#[pyclass(name = "Loss", module = "sdrs", subclass, frozen)]
pub struct PyLoss(SharedLoss);

impl PyLoss {
    fn of(loss: impl Loss + Send + Sync + 'static) -> Self {
        Self(SharedLoss(Arc::new(loss)))
    }
}

/// `every_step` for the losses that have it: the loss summed over every step.
fn when<L>(loss: L, every_step: bool, every: fn(L) -> L) -> L {
    if every_step { every(loss) } else { loss }
}

/// The squared distance of a link point to `target` at the end (or summed over every step).
#[pyclass(name = "PointTarget", module = "sdrs", extends = PyLoss, frozen)]
pub struct PyPointTarget;

#[pymethods]
impl PyPointTarget {
    #[new]
    #[pyo3(signature = (point, target, every_step=false))]
    fn new(
        point: &PyLinkPoint,
        target: &Bound<'_, PyAny>,
        every_step: bool,
    ) -> PyResult<PyClassInitializer<Self>> {
        let target = arrays::vector3(target, "target")?;
        let loss = PointTarget::at(point.0.clone(), target).raise()?;
        Ok(
            PyClassInitializer::from(PyLoss::of(when(loss, every_step, PointTarget::every_step)))
                .add_subclass(Self),
        )
    }
}

/// The squared distance of the centre of mass of some links (all for `None`) to `target`.
#[pyclass(name = "CentreOfMass", module = "sdrs", extends = PyLoss, frozen)]
pub struct PyCentreOfMass;

#[pymethods]
impl PyCentreOfMass {
    #[new]
    #[pyo3(signature = (model, target, links=None, every_step=false))]
    fn new(
        model: &PyModel,
        target: &Bound<'_, PyAny>,
        links: Option<Vec<String>>,
        every_step: bool,
    ) -> PyResult<PyClassInitializer<Self>> {
        let target = arrays::vector3(target, "target")?;
        let loss = match links {
            Some(names) => {
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                CentreOfMass::links(&model.0, &names, target)
            }
            None => CentreOfMass::robot(&model.0, target),
        }
        .raise()?;
        Ok(
            PyClassInitializer::from(PyLoss::of(when(loss, every_step, CentreOfMass::every_step)))
                .add_subclass(Self),
        )
    }
}

/// `(|a − b| − distance)²` of two link points.
#[pyclass(name = "Distance", module = "sdrs", extends = PyLoss, frozen)]
pub struct PyDistance;

#[pymethods]
impl PyDistance {
    #[new]
    #[pyo3(signature = (a, b, distance, every_step=false))]
    fn new(
        a: &PyLinkPoint,
        b: &PyLinkPoint,
        distance: f64,
        every_step: bool,
    ) -> PyResult<PyClassInitializer<Self>> {
        let loss = Distance::new(a.0.clone(), b.0.clone(), distance).raise()?;
        Ok(
            PyClassInitializer::from(PyLoss::of(when(loss, every_step, Distance::every_step)))
                .add_subclass(Self),
        )
    }
}

/// Control effort: `torque · Σ|τ|² + target_change · Σ|Δθ*|²`.
#[pyclass(name = "Effort", module = "sdrs", extends = PyLoss, frozen)]
pub struct PyEffort;

#[pymethods]
impl PyEffort {
    #[new]
    #[pyo3(signature = (torque=0.0, target_change=0.0))]
    fn new(torque: f64, target_change: f64) -> PyClassInitializer<Self> {
        PyClassInitializer::from(PyLoss::of(Effort::new(torque, target_change))).add_subclass(Self)
    }
}

/// A weighted sum of losses: `Sum([(weight, loss), ...])`.
#[pyclass(name = "Sum", module = "sdrs", extends = PyLoss, frozen)]
pub struct PySum;

#[pymethods]
impl PySum {
    #[new]
    fn new(terms: Vec<(f64, PyRef<'_, PyLoss>)>) -> PyClassInitializer<Self> {
        let terms = terms.into_iter().map(|(w, l)| (w, l.0.clone())).collect();
        PyClassInitializer::from(PyLoss::of(SharedSum(terms))).add_subclass(Self)
    }
}

/// A low-dimensional design `d = d₀ + B p` of a model, built by name: link attachments, hull
/// vertices, link lengths, or entry by entry.
#[pyclass(name = "DesignMap", module = "sdrs", from_py_object)]
#[derive(Clone)]
pub struct PyDesignMap(DesignMap);

#[pymethods]
impl PyDesignMap {
    #[new]
    fn new(model: &PyModel, parameters: usize) -> Self {
        Self(DesignMap::new(&model.0, parameters))
    }

    /// Number of design parameters `p`.
    #[getter]
    fn parameters(&self) -> usize {
        self.0.parameters()
    }

    /// `B[entry, parameter] = weight`.
    fn set(&mut self, entry: usize, parameter: usize, weight: f64) -> PyResult<()> {
        self.0.set(entry, parameter, weight).raise()
    }

    /// Coordinate `axis` (0, 1, 2) of link `link`'s attachment moves by `weight` per unit of
    /// `parameter`.
    fn attachment(
        &mut self,
        model: &PyModel,
        link: &str,
        axis: usize,
        parameter: usize,
        weight: f64,
    ) -> PyResult<()> {
        self.0
            .attachment(&model.0, link, axis, parameter, weight)
            .raise()?;
        Ok(())
    }

    /// Vertices `vertices` of hull `hull` of link `link` move by `direction` (link frame) per
    /// unit of `parameter`.
    fn hull_vertices(
        &mut self,
        model: &PyModel,
        link: &str,
        hull: usize,
        vertices: Vec<usize>,
        direction: &Bound<'_, PyAny>,
        parameter: usize,
    ) -> PyResult<()> {
        let direction = arrays::vector3(direction, "direction")?;
        self.0
            .hull_vertices(&model.0, link, hull, &vertices, &direction, parameter)
            .raise()?;
        Ok(())
    }

    /// Link `link`'s length changes by `parameter` (its children's attachments and its lower
    /// hull vertices move together).
    fn link_length(&mut self, model: &PyModel, link: &str, parameter: usize) -> PyResult<()> {
        self.0.link_length(&model.0, link, parameter).raise()?;
        Ok(())
    }

    /// The design vector for parameters `p`.
    fn design<'py>(
        &self,
        py: Python<'py>,
        p: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let p = arrays::vector(p, "p", Some(self.0.parameters()))?;
        Ok(to_numpy(py, &self.0.design(&p).raise()?))
    }
}

/// A differentiable task: the simulator's model and settings with a design map, starting at
/// rest at `start` (default: neutral), driven for `steps` steps by `policy`, scored by `loss`.
/// `evaluate(c, p)` gives the loss and its gradients; every evaluation uses a fresh simulator,
/// so its result depends on `(c, p)` alone.
#[pyclass(name = "Objective", module = "sdrs", frozen)]
pub struct PyObjective(pub Objective<AnyPolicy, SharedLoss>);

impl PyObjective {
    /// The policy parameters from a Python value.
    pub fn policy_parameters(&self, c: &Bound<'_, PyAny>) -> PyResult<DVector<f64>> {
        arrays::vector(c, "c (policy parameters)", Some(self.0.policy.parameters()))
    }

    /// The design parameters from a Python value (zeros for `None`).
    pub fn design_parameters(&self, p: Option<&Bound<'_, PyAny>>) -> PyResult<DVector<f64>> {
        let k = self.0.design.parameters();
        p.map_or_else(
            || Ok(DVector::zeros(k)),
            |p| arrays::vector(p, "p (design parameters)", Some(k)),
        )
    }

    /// Simulates from rest at `start` (the objective's start for `None`) with policy
    /// parameters `c` and design parameters `p`: the designed model, its simulator, the
    /// trajectory and the start.
    pub fn simulate(
        &self,
        c: &DVector<f64>,
        p: &DVector<f64>,
        start: Option<DVector<f64>>,
    ) -> sdrs::diff::Result<(Model, Simulator, Trajectory, State)> {
        let o = &self.0;
        let model = o.design.model(&o.model, p)?;
        let start = match start {
            Some(q) => State::new(&model, q),
            None => o.start.check(&model).map(|()| o.start.clone()),
        }
        .map_err(|source| sdrs::diff::DiffError::Setup {
            what: "the rollout's start state",
            source,
        })?;
        let mut sim = Simulator::new(model.clone(), o.settings.clone()).map_err(|source| {
            sdrs::diff::DiffError::Setup {
                what: "the rollout's simulator",
                source,
            }
        })?;
        let motion = Motion::at_rest(&model, start.clone());
        let trajectory = rollout_policy(&mut sim, &motion, &o.policy, c, o.steps, o.recording)?;
        Ok((model, sim, trajectory, start))
    }
}

#[pymethods]
impl PyObjective {
    #[new]
    #[pyo3(signature = (simulator, policy, loss, steps, design=None, start=None, recording="states"))]
    fn new(
        simulator: &PySimulator,
        policy: &PyPolicy,
        loss: &PyLoss,
        steps: usize,
        design: Option<&PyDesignMap>,
        start: Option<&Bound<'_, PyAny>>,
        recording: &str,
    ) -> PyResult<Self> {
        let model = simulator.model_ref().clone();
        let recording = sim::recording(recording)?;
        let mut settings = simulator.lock().settings().clone();
        settings.backward = recording == sdrs::diff::Recording::Blocks;
        Ok(Self(Objective {
            start: sim::state(&model, start)?,
            design: design.map_or_else(|| DesignMap::new(&model, 0), |d| d.0.clone()),
            policy: policy.policy().clone(),
            loss: loss.0.clone(),
            steps,
            settings,
            recording,
            model,
        }))
    }

    /// Number of policy parameters.
    #[getter]
    fn parameters(&self) -> usize {
        self.0.policy.parameters()
    }

    /// Number of design parameters.
    #[getter(design_parameters)]
    fn design_count(&self) -> usize {
        self.0.design.parameters()
    }

    /// The horizon H.
    #[getter]
    fn steps(&self) -> usize {
        self.0.steps
    }

    /// The model with design parameters `p` (the base design for `None`).
    #[pyo3(signature = (p=None))]
    fn model(&self, p: Option<&Bound<'_, PyAny>>) -> PyResult<PyModel> {
        let p = self.design_parameters(p)?;
        Ok(PyModel(self.0.design.model(&self.0.model, &p).raise()?))
    }

    /// The loss and its gradients for policy parameters `c` and design parameters `p`.
    #[pyo3(signature = (c, p=None))]
    fn evaluate(
        &self,
        py: Python<'_>,
        c: &Bound<'_, PyAny>,
        p: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyEvaluation> {
        let c = self.policy_parameters(c)?;
        let p = self.design_parameters(p)?;
        guarded(|| py.detach(|| self.0.evaluate(&c, &p)).raise()).map(PyEvaluation)
    }

    /// A rollout from rest at `q0` (the objective's start for `None`) whose `backward` takes
    /// the gradient of any loss of its states.
    #[pyo3(signature = (c, p=None, q0=None))]
    fn rollout(
        &self,
        py: Python<'_>,
        c: &Bound<'_, PyAny>,
        p: Option<&Bound<'_, PyAny>>,
        q0: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyRollout> {
        let c = self.policy_parameters(c)?;
        let p = self.design_parameters(p)?;
        let q0 = q0
            .map(|q| arrays::vector(q, "q0", Some(self.0.model.dof())))
            .transpose()?;
        let (model, sim, trajectory, start) =
            guarded(|| py.detach(|| self.simulate(&c, &p, q0)).raise())?;
        Ok(PyRollout {
            model,
            sim: Mutex::new(sim),
            trajectory: PyTrajectory(trajectory),
            start,
            design: self.0.design.clone(),
        })
    }
}

/// A loss and its total derivatives: `loss`, `parameters` (dL/dc), `design` (dL/dp, `None`
/// without design blocks), `initial` (dL/dθ^0 for a start at rest), and the trajectory's
/// `states` `(H + 1, n)` and `active_pairs`.
#[pyclass(name = "Evaluation", module = "sdrs", frozen)]
pub struct PyEvaluation(pub Evaluation);

#[pymethods]
impl PyEvaluation {
    /// The loss's value.
    #[getter]
    fn loss(&self) -> f64 {
        self.0.loss
    }
    /// dL/dc.
    #[getter]
    fn parameters<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        to_numpy(py, &self.0.parameters)
    }
    /// dL/dp, or `None`.
    #[getter]
    fn design<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f64>>> {
        self.0.design.as_ref().map(|d| to_numpy(py, d))
    }
    /// dL/dθ^0 for a start at rest.
    #[getter]
    fn initial<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        to_numpy(py, &self.0.initial)
    }
    /// The states, `(H + 1, n)`.
    #[getter]
    fn states<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let n = self.0.initial.len();
        arrays::rows_to_numpy(
            py,
            self.0.trajectory.states.iter().map(|s| s.q.as_slice()),
            n,
        )
    }
    /// Active hull pairs at every step.
    #[getter]
    fn active_pairs(&self) -> Vec<usize> {
        self.0.trajectory.active_pairs.clone()
    }
}

/// A rollout of an objective's policy from rest, kept for its backward pass.
#[pyclass(name = "Rollout", module = "sdrs", frozen)]
pub struct PyRollout {
    model: Model,
    sim: Mutex<Simulator>,
    trajectory: PyTrajectory,
    start: State,
    design: DesignMap,
}

#[pymethods]
impl PyRollout {
    /// The states, `(H + 1, n)`.
    #[getter]
    fn states<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let n = self.model.dof();
        arrays::rows_to_numpy(
            py,
            self.trajectory.0.states.iter().map(|s| s.q.as_slice()),
            n,
        )
    }

    /// The gradient of a loss with partials `state_gradients` (`(H + 1, n)`) with respect to
    /// the start `q0` (at rest: the poses before it move with it), the policy parameters `c`
    /// and the design parameters `p` (`None` without design blocks): `(dq0, dc, dp)`.
    #[allow(clippy::type_complexity)]
    fn backward<'py>(
        &self,
        py: Python<'py>,
        state_gradients: &Bound<'py, PyAny>,
    ) -> PyResult<(
        Bound<'py, PyArray1<f64>>,
        Bound<'py, PyArray1<f64>>,
        Option<Bound<'py, PyArray1<f64>>>,
    )> {
        let loss = sim::state_loss(&self.model, &self.trajectory.0, state_gradients)?;
        let mut g = guarded(|| {
            py.detach(|| {
                // On a copy of the simulator as the rollout left it: its warm starts change
                // the contact planes' inner solves at round-off, and every backward pass must
                // give the same numbers as the first (and as `Objective.evaluate`).
                let mut sim = self.sim.lock().unwrap_or_else(|e| e.into_inner()).clone();
                adjoint(&mut sim, &self.trajectory.0, &loss)
            })
            .raise()
        })?;
        g.start_at_rest(&self.model, &self.start);
        let dp = g
            .design
            .as_ref()
            .map(|d| to_numpy(py, &self.design.pullback(d)));
        Ok((to_numpy(py, &g.initial), to_numpy(py, &g.parameters), dp))
    }
}
