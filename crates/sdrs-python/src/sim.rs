//! Stepping and rolling out: controls, motions, the simulator, recorded trajectories, and
//! their adjoint and tangent derivatives.

use crate::arrays::{self, to_numpy};
use crate::callback_policy::guarded;
use crate::errors::Raise;
use crate::model::PyModel;
use crate::policy::PyPolicy;
use nalgebra::{DMatrix, DVector};
use numpy::{PyArray1, PyArrayDyn};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use sdrs::TrajectoryFile;
use sdrs::diff::{
    LossGradient, Recording, Seeds, Trajectory, adjoint, identity_chart, rollout, rollout_policy,
    tangent,
};
use sdrs::dynamics::stepper::PhysicalParameter;
use sdrs::dynamics::{Control, Gain, Model, Motion, Simulator, State};
use std::sync::Mutex;

/// Adds the classes of this module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyControl>()?;
    m.add_class::<PyMotion>()?;
    m.add_class::<PySimulator>()?;
    m.add_class::<PyTrajectory>()?;
    m.add_class::<PyGradient>()?;
    Ok(())
}

/// `"states"` or `"blocks"` as a [`Recording`].
pub fn recording(name: &str) -> PyResult<Recording> {
    match name {
        "states" => Ok(Recording::States),
        "blocks" => Ok(Recording::Blocks),
        other => Err(PyValueError::new_err(format!(
            "recording '{other}' is unknown: use 'states' (recompute the blocks backward) or \
             'blocks' (keep them)"
        ))),
    }
}

/// One step's actuation, each one value per coordinate: stable-PD stiffness `kp` (N·m/rad,
/// N/m on a prismatic coordinate) and damping `kd` (N·m·s/rad, N·s/m), targets `position`,
/// `velocity` and generalized forces `force` (N·m, N). The PD force is
/// `kp (position − q) + kd (velocity − q̇)`, taken implicitly over the step (stable PD).
/// `Control(model)` is passive.
#[pyclass(name = "Control", module = "sdrs", from_py_object)]
#[derive(Clone)]
pub struct PyControl(pub Control);

/// A control vector's setter: the length of the coordinates, finite.
fn set(target: &mut DVector<f64>, value: &Bound<'_, PyAny>, name: &str) -> PyResult<()> {
    *target = arrays::vector(value, name, Some(target.len()))?;
    Ok(())
}

/// A gain's setter: as [`set`], and at least 0; errors name the gain's units.
fn set_gain(target: &mut DVector<f64>, value: &Bound<'_, PyAny>, gain: Gain) -> PyResult<()> {
    let name = format!("{} ({})", gain.key(), gain.units());
    let gains = arrays::vector(value, &name, Some(target.len()))?;
    for (j, &g) in gains.iter().enumerate() {
        gain.check(j, g).raise()?;
    }
    *target = gains;
    Ok(())
}

#[pymethods]
impl PyControl {
    #[new]
    fn new(model: &PyModel) -> Self {
        Self(Control::passive(&model.0))
    }

    /// PD stiffness per coordinate (N·m/rad, N/m on a prismatic coordinate; at least 0).
    #[getter]
    fn get_kp<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        to_numpy(py, &self.0.kp)
    }
    #[setter]
    fn set_kp(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        set_gain(&mut self.0.kp, value, Gain::Stiffness)
    }
    /// PD damping per coordinate (N·m·s/rad, N·s/m on a prismatic coordinate; at least 0).
    #[getter]
    fn get_kd<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        to_numpy(py, &self.0.kd)
    }
    #[setter]
    fn set_kd(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        set_gain(&mut self.0.kd, value, Gain::Damping)
    }
    /// Target positions.
    #[getter]
    fn get_position<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        to_numpy(py, &self.0.position)
    }
    #[setter]
    fn set_position(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        set(&mut self.0.position, value, "position")
    }
    /// Target velocities.
    #[getter]
    fn get_velocity<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        to_numpy(py, &self.0.velocity)
    }
    #[setter]
    fn set_velocity(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        set(&mut self.0.velocity, value, "velocity")
    }
    /// Generalized forces.
    #[getter]
    fn get_force<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        to_numpy(py, &self.0.force)
    }
    #[setter]
    fn set_force(&mut self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        set(&mut self.0.force, value, "force")
    }

    /// A copy.
    fn copy(&self) -> Self {
        self.clone()
    }
}

/// Two coordinate vectors, one step apart: `(q_prev, q)`.
type Pair<'py> = (Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<f64>>);

/// A running simulation's state: the configuration `q` and the link poses one step earlier
/// (which carry its velocity).
#[pyclass(name = "Motion", module = "sdrs", from_py_object)]
#[derive(Clone)]
pub struct PyMotion(pub Motion);

/// The state of `model` at coordinates `q` (its neutral configuration for `None`).
pub fn state(model: &Model, q: Option<&Bound<'_, PyAny>>) -> PyResult<State> {
    match q {
        Some(q) => {
            let q = arrays::vector(q, "q", Some(model.dof()))?;
            State::new(model, q).raise()
        }
        None => Ok(State::neutral(model)),
    }
}

#[pymethods]
impl PyMotion {
    /// At rest at coordinates `q` (default: the neutral configuration).
    #[staticmethod]
    #[pyo3(signature = (model, q=None))]
    fn at_rest(model: &PyModel, q: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        Ok(Self(Motion::at_rest(&model.0, state(&model.0, q)?)))
    }

    /// At `q` moving with generalized velocity `v` over steps of `dt`.
    #[staticmethod]
    fn from_velocity(
        model: &PyModel,
        q: &Bound<'_, PyAny>,
        v: &Bound<'_, PyAny>,
        dt: f64,
    ) -> PyResult<Self> {
        let s = state(&model.0, Some(q))?;
        let v = arrays::vector(v, "v", Some(model.0.dof()))?;
        Ok(Self(Motion::from_velocity(&model.0, s, &v, dt).raise()?))
    }

    /// The coordinates θ^t.
    #[getter]
    fn q<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        to_numpy(py, &self.0.state.q)
    }

    /// The motion as the coordinate pair `(q_prev, q)` that `StepBatch` and
    /// `sdrs.torch.step` take: the configuration one step ago and now, spherical and free
    /// joints as XYZ angles (`q`'s on their canonical branch, `q_prev`'s nearest `q`'s).
    fn coordinate_pair<'py>(&self, py: Python<'py>, model: &PyModel) -> PyResult<Pair<'py>> {
        let model = &model.0;
        let q = identity_chart(model, &self.0.state, &DVector::zeros(model.dof())).raise()?;
        let earlier = model
            .state_from_poses(&self.0.previous, &self.0.state)
            .raise()?;
        let q_prev = identity_chart(model, &earlier, &q).raise()?;
        Ok((to_numpy(py, &q_prev), to_numpy(py, &q)))
    }

    /// The generalized velocity over the last step of `dt`.
    fn velocity<'py>(
        &self,
        py: Python<'py>,
        model: &PyModel,
        dt: f64,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        Ok(to_numpy(py, &self.0.velocity(&model.0, dt).raise()?))
    }

    /// A copy.
    fn copy(&self) -> Self {
        self.clone()
    }
}

/// A simulator for one model and its step settings: `step` advances a motion by one time
/// step; `rollout` / `rollout_policy` record trajectories that `adjoint` and `tangent`
/// differentiate.
#[pyclass(name = "Simulator", module = "sdrs", frozen)]
pub struct PySimulator {
    model: Model,
    sim: Mutex<Simulator>,
}

impl PySimulator {
    /// Wraps a simulator for `model`.
    pub fn new(model: Model, sim: Simulator) -> Self {
        Self {
            model,
            sim: Mutex::new(sim),
        }
    }

    /// The simulator, locked (a call that panicked elsewhere does not poison it for good).
    pub fn lock(&self) -> std::sync::MutexGuard<'_, Simulator> {
        self.sim.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The model.
    pub fn model_ref(&self) -> &Model {
        &self.model
    }
}

#[pymethods]
impl PySimulator {
    /// The model simulated.
    #[getter]
    fn model(&self) -> PyModel {
        PyModel(self.model.clone())
    }

    /// The time step (s).
    #[getter]
    fn dt(&self) -> f64 {
        self.lock().settings().dt
    }

    /// The physical parameters `adjoint` differentiates with respect to (`Gradient.physical`,
    /// in this order): `"gravity"`, `"contact_stiffness"`, `"friction"` (the friction
    /// coefficient), `("kp", joint)` and `("kd", joint)` (a 1-DoF joint's name, or a coordinate
    /// index), `("mass", link)` (a link's name or index; its centre of mass and inertia per
    /// unit mass held). Empty by default. Read back with indices.
    #[getter]
    fn get_physical_parameters<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        self.lock()
            .settings()
            .parameters
            .iter()
            .map(|p| parameter_to_python(py, p))
            .collect()
    }

    #[setter]
    fn set_physical_parameters(&self, value: Vec<Bound<'_, PyAny>>) -> PyResult<()> {
        let parameters = value
            .iter()
            .map(|item| parameter_from_python(&self.model, item))
            .collect::<PyResult<Vec<_>>>()?;
        self.lock().set_parameters(parameters).raise()
    }

    /// Advances `motion` by one step under `control`; returns the step's Newton iterations,
    /// whether any of them was damped (`damped`), and active contact pairs.
    fn step<'py>(
        &self,
        py: Python<'py>,
        motion: &mut PyMotion,
        control: &PyControl,
    ) -> PyResult<Bound<'py, PyDict>> {
        let m = &mut motion.0;
        let report = py.detach(|| self.lock().advance(m, &control.0)).raise()?;
        let out = PyDict::new(py);
        out.set_item("iterations", report.iterations)?;
        out.set_item("damped", report.damped)?;
        out.set_item("active_pairs", report.active_pairs)?;
        Ok(out)
    }

    /// Simulates one step per control from `motion` (left unchanged) and records the
    /// trajectory; `recording` is `"states"` or `"blocks"`.
    #[pyo3(signature = (motion, controls, recording="states"))]
    fn rollout(
        &self,
        py: Python<'_>,
        motion: &PyMotion,
        controls: Vec<PyControl>,
        recording: &str,
    ) -> PyResult<PyTrajectory> {
        let recording = self::recording(recording)?;
        let controls: Vec<Control> = controls.into_iter().map(|c| c.0).collect();
        let t = py
            .detach(|| rollout(&mut self.lock(), &motion.0, &controls, recording))
            .raise()?;
        Ok(PyTrajectory(t))
    }

    /// Simulates `steps` steps from `motion` under `policy` with `parameters`.
    #[pyo3(signature = (motion, policy, parameters, steps, recording="states"))]
    fn rollout_policy(
        &self,
        py: Python<'_>,
        motion: &PyMotion,
        policy: &PyPolicy,
        parameters: &Bound<'_, PyAny>,
        steps: usize,
        recording: &str,
    ) -> PyResult<PyTrajectory> {
        let recording = self::recording(recording)?;
        let c = arrays::vector(parameters, "parameters", Some(policy.count()))?;
        let p = policy.policy();
        let t = guarded(|| {
            py.detach(|| rollout_policy(&mut self.lock(), &motion.0, p, &c, steps, recording))
                .raise()
        })?;
        Ok(PyTrajectory(t))
    }

    /// Reverse mode: the gradient of a loss whose partial derivatives with respect to the
    /// states θ^0 … θ^H are `state_gradients` (`(H + 1, n)`), with respect to the start, the
    /// controls, the policy parameters and the design.
    fn adjoint(
        &self,
        py: Python<'_>,
        trajectory: &PyTrajectory,
        state_gradients: &Bound<'_, PyAny>,
    ) -> PyResult<PyGradient> {
        let loss = state_loss(&self.model, &trajectory.0, state_gradients)?;
        let g = guarded(|| {
            py.detach(|| adjoint(&mut self.lock(), &trajectory.0, &loss))
                .raise()
        })?;
        Ok(PyGradient(g))
    }

    /// Forward mode: `dθ^t/ds` for every step, `(H + 1, n, k)`, for `k` directions given as
    /// the start's `initial` `(n, k)` and optionally the policy parameters' `parameters`
    /// `(m, k)` and the design's `design` `(|d|, k)`.
    #[pyo3(signature = (trajectory, initial, parameters=None, design=None))]
    fn tangent<'py>(
        &self,
        py: Python<'py>,
        trajectory: &PyTrajectory,
        initial: &Bound<'py, PyAny>,
        parameters: Option<&Bound<'py, PyAny>>,
        design: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let n = self.model.dof();
        let initial = arrays::matrix(initial, "initial", Some(n), None)?;
        let k = initial.ncols();
        let mut seeds = Seeds::zeros(&self.model, trajectory.0.parameters(), k);
        seeds.initial = initial;
        if let Some(p) = parameters {
            seeds.parameters =
                arrays::matrix(p, "parameters", Some(trajectory.0.parameters()), Some(k))?;
        }
        if let Some(d) = design {
            seeds.design = arrays::matrix(d, "design", Some(self.model.design_len()), Some(k))?;
        }
        let jacobians = guarded(|| {
            py.detach(|| tangent(&mut self.lock(), &trajectory.0, &seeds))
                .raise()
        })?;
        let mut flat = Vec::with_capacity(jacobians.len() * n * k);
        for j in &jacobians {
            flat.extend(j.transpose().iter());
        }
        arrays::shaped(py, flat, &[jacobians.len(), n, k])
    }
}

/// The partials of a loss of the states alone, from an `(H + 1, n)` array.
pub fn state_loss(
    model: &Model,
    trajectory: &Trajectory,
    gradients: &Bound<'_, PyAny>,
) -> PyResult<LossGradient> {
    let steps = trajectory.steps();
    let g: DMatrix<f64> = arrays::matrix(
        gradients,
        "state_gradients",
        Some(steps + 1),
        Some(model.dof()),
    )?;
    let mut loss = LossGradient::zeros(model, steps);
    for (t, row) in loss.states.iter_mut().enumerate() {
        *row = g.row(t).transpose();
    }
    Ok(loss)
}

/// A recorded trajectory: states θ^0 … θ^H, the controls of the H steps and what the
/// backward pass needs.
#[pyclass(name = "Trajectory", module = "sdrs", frozen)]
pub struct PyTrajectory(pub Trajectory);

#[pymethods]
impl PyTrajectory {
    /// Number of steps H.
    #[getter]
    fn steps(&self) -> usize {
        self.0.steps()
    }

    /// The states' coordinates, `(H + 1, n)`.
    #[getter]
    fn states<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let n = self.0.states[0].q.len();
        arrays::rows_to_numpy(py, self.0.states.iter().map(|s| s.q.as_slice()), n)
    }

    /// Every step's PD target positions, `(H, n)`.
    #[getter]
    fn target_positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let n = self.0.states[0].q.len();
        arrays::rows_to_numpy(py, self.0.controls.iter().map(|c| c.position.as_slice()), n)
    }

    /// Every step's generalized forces, `(H, n)`.
    #[getter]
    fn forces<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let n = self.0.states[0].q.len();
        arrays::rows_to_numpy(py, self.0.controls.iter().map(|c| c.force.as_slice()), n)
    }

    /// Newton iterations of every step.
    #[getter]
    fn iterations(&self) -> Vec<usize> {
        self.0.iterations.clone()
    }

    /// Active hull pairs at every step's solution.
    #[getter]
    fn active_pairs(&self) -> Vec<usize> {
        self.0.active_pairs.clone()
    }

    /// Writes the states as a trajectory file of `model` with step `dt`: JSON lines, or NumPy
    /// `.npz` when `path` ends in `.npz`.
    fn save(&self, model: &PyModel, dt: f64, path: std::path::PathBuf) -> PyResult<()> {
        let file = TrajectoryFile::from_trajectory(&model.0, dt, &self.0).raise()?;
        if path.extension().is_some_and(|e| e == "npz") {
            file.write_npz(&path).raise()
        } else {
            file.write_jsonl(&path).raise()
        }
    }
}

/// A physical parameter as Python gives it (see `Simulator.physical_parameters`).
fn parameter_from_python(model: &Model, item: &Bound<'_, PyAny>) -> PyResult<PhysicalParameter> {
    const FORMS: &str = "\"gravity\", \"contact_stiffness\", \"friction\", (\"kp\", joint), \
                         (\"kd\", joint) or (\"mass\", link)";
    if let Ok(name) = item.extract::<String>() {
        return match name.as_str() {
            "gravity" => Ok(PhysicalParameter::Gravity),
            "contact_stiffness" => Ok(PhysicalParameter::ContactStiffness),
            "friction" => Ok(PhysicalParameter::FrictionCoefficient),
            other => Err(PyValueError::new_err(format!(
                "physical parameter '{other}' is unknown: use {FORMS}"
            ))),
        };
    }
    let Ok((kind, which)) = item.extract::<(String, Bound<'_, PyAny>)>() else {
        return Err(PyValueError::new_err(format!(
            "a physical parameter is {FORMS}, not {item}"
        )));
    };
    let index = |what: &str, names: &dyn Fn(&str) -> PyResult<usize>| -> PyResult<usize> {
        match which.extract::<usize>() {
            Ok(i) => Ok(i),
            Err(_) => match which.extract::<String>() {
                Ok(name) => names(&name),
                Err(_) => Err(PyValueError::new_err(format!(
                    "({kind:?}, {which}): give the {what}'s name or an index"
                ))),
            },
        }
    };
    let dof = |name: &str| -> PyResult<usize> {
        let joint = model.joint(name).raise()?;
        let dofs = model.dofs(joint);
        if dofs.len() != 1 {
            return Err(PyValueError::new_err(format!(
                "joint '{name}' has {} coordinates: give the coordinate's index instead",
                dofs.len()
            )));
        }
        Ok(dofs.start)
    };
    let link = |name: &str| model.link_index(name).raise();
    match kind.as_str() {
        "kp" => Ok(PhysicalParameter::PdStiffness {
            dof: index("1-DoF joint (or a coordinate)", &dof)?,
        }),
        "kd" => Ok(PhysicalParameter::PdDamping {
            dof: index("1-DoF joint (or a coordinate)", &dof)?,
        }),
        "mass" => Ok(PhysicalParameter::LinkMass {
            link: index("link", &link)?,
        }),
        other => Err(PyValueError::new_err(format!(
            "physical parameter kind '{other}' is unknown: use {FORMS}"
        ))),
    }
}

/// A physical parameter as `Simulator.physical_parameters` reads back: a name, or a kind and
/// an index.
fn parameter_to_python<'py>(
    py: Python<'py>,
    parameter: &PhysicalParameter,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(match *parameter {
        PhysicalParameter::Gravity => "gravity".into_pyobject(py)?.into_any(),
        PhysicalParameter::ContactStiffness => "contact_stiffness".into_pyobject(py)?.into_any(),
        PhysicalParameter::FrictionCoefficient => "friction".into_pyobject(py)?.into_any(),
        PhysicalParameter::PdStiffness { dof } => ("kp", dof).into_pyobject(py)?.into_any(),
        PhysicalParameter::PdDamping { dof } => ("kd", dof).into_pyobject(py)?.into_any(),
        PhysicalParameter::LinkMass { link } => ("mass", link).into_pyobject(py)?.into_any(),
    })
}

/// What the adjoint gives: the gradient with respect to the start `initial` (n), the poses
/// before it `initial_previous` (6 per link), every step's `target_position` and `force`
/// (`(H, n)`), the policy `parameters`, the full `design` vector and the simulator's
/// `physical` parameters.
#[pyclass(name = "Gradient", module = "sdrs", frozen)]
pub struct PyGradient(pub sdrs::diff::TrajectoryGradient);

#[pymethods]
impl PyGradient {
    /// `dL/dθ^0` with the previous poses held.
    #[getter]
    fn initial<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        to_numpy(py, &self.0.initial)
    }
    /// `dL/dξ^{−1}`: the twists of the link poses before the first step.
    #[getter]
    fn initial_previous<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        to_numpy(py, &self.0.initial_previous)
    }
    /// `dL/dc` of the policy parameters.
    #[getter]
    fn parameters<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        to_numpy(py, &self.0.parameters)
    }
    /// `dL/dp` of the simulator's `physical_parameters`, in their order.
    #[getter]
    fn physical<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        to_numpy(py, &self.0.physical)
    }
    /// `dL/dd` of the model's design vector, or `None` without design blocks.
    #[getter]
    fn design<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyArray1<f64>>> {
        self.0.design.as_ref().map(|d| to_numpy(py, d))
    }
    /// `dL/dθ*^t` of every step's PD target positions, `(H, n)`.
    #[getter]
    fn target_position<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let n = self.0.initial.len();
        arrays::rows_to_numpy(py, self.0.target_position.iter().map(|v| v.as_slice()), n)
    }
    /// `dL/dτ^t` of every step's generalized forces, `(H, n)`.
    #[getter]
    fn force<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let n = self.0.initial.len();
        arrays::rows_to_numpy(py, self.0.force.iter().map(|v| v.as_slice()), n)
    }
}
