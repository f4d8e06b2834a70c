//! Building a world: hulls, links, contact settings, [`sdrs::World`], scene files and the
//! handles of robots and objects.

use crate::arrays;
use crate::errors::Raise;
use crate::model::PyModel;
use crate::sim::{PyControl, PyMotion, PySimulator};
use nalgebra::Point3;
use numpy::{PyArray1, PyArrayDyn};
use pyo3::exceptions::{PyUserWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyRange;
use sdrs::contact::PlaneBarrier;
use sdrs::contact::ipc::potential::Ipc;
use sdrs::contact::long_range::{FarField, LongRange};
use sdrs::dynamics::{
    ContactKind, ContactSettings, FrictionSettings, JointKind, Link, MassModel, MjcfModel,
    MjcfOptions, Model, NewtonStart, Srdf, UrdfOptions, load_mjcf, load_urdf,
};
use sdrs::geometry::ConvexHull;
use sdrs::{ObjectHandle, RobotHandle, Scene, World};
use std::str::FromStr;
use std::sync::Arc;

/// Adds the classes of this module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyHull>()?;
    m.add_class::<PyLink>()?;
    m.add_class::<PyContactSettings>()?;
    m.add_class::<PyWorld>()?;
    m.add_class::<PyScene>()?;
    m.add_class::<PySceneSetup>()?;
    m.add_class::<PyRobotHandle>()?;
    m.add_class::<PyObjectHandle>()?;
    Ok(())
}

/// A convex hull in V-representation: the collision shape of a link, whose vertices are
/// design variables.
///
/// `Hull(vertices)` takes an `(n, 3)` array of points (the hull of them is kept);
/// `Hull.box(half_extents)` is a box centred at the origin.
#[pyclass(name = "Hull", module = "sdrs", frozen, from_py_object)]
#[derive(Clone)]
pub struct PyHull(pub ConvexHull);

#[pymethods]
impl PyHull {
    #[new]
    fn new(vertices: &Bound<'_, PyAny>) -> PyResult<Self> {
        let m = arrays::matrix(vertices, "vertices", None, Some(3))?;
        let points = m
            .row_iter()
            .map(|r| Point3::new(r[0], r[1], r[2]))
            .collect();
        Ok(Self(ConvexHull::new(points).raise()?))
    }

    /// A box with half extents `(hx, hy, hz)` centred at the origin.
    #[staticmethod]
    #[pyo3(name = "box")]
    fn cuboid(half_extents: &Bound<'_, PyAny>) -> PyResult<Self> {
        let h = arrays::vector3(half_extents, "half_extents")?;
        Ok(Self(ConvexHull::cuboid(h).raise()?))
    }

    /// The vertices, `(n, 3)`, in the order design maps index them.
    #[getter]
    fn vertices<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
        let rows: Vec<[f64; 3]> = self.0.vertices().iter().map(|p| [p.x, p.y, p.z]).collect();
        arrays::rows_to_numpy(py, rows.into_iter(), 3)
    }

    fn __repr__(&self) -> String {
        format!("Hull({} vertices)", self.0.vertices().len())
    }
}

/// One link of a robot: its joint to the parent, attachment, hulls and lumped mass.
///
/// `joint` is `"fixed"`, `"revolute"`, `"prismatic"`, `"spherical"` or `"free"`; revolute
/// and prismatic joints need `axis`. `parent` is the index of an earlier link in the same
/// list (`None` for a root, placed at the robot's base). The attachment (the joint frame in
/// the parent's frame) is `xyz` and roll-pitch-yaw `rpy`. `limits = (lower, upper)` bounds a
/// 1-DoF joint. `friction` is the joint's dry friction per DoF (N·m or N, MuJoCo's
/// `frictionloss`) and `armature` the rotor inertia of a revolute or prismatic joint (kg·m² or
/// kg, MuJoCo's `armature`); both 0 by default.
#[pyclass(name = "Link", module = "sdrs", frozen, from_py_object)]
#[derive(Clone)]
pub struct PyLink(pub Link);

#[pymethods]
impl PyLink {
    #[new]
    #[pyo3(signature = (name, joint, *, axis=None, parent=None, xyz=None, rpy=None, hulls=Vec::new(), mass=1.0, limits=None, joint_name=None, friction=0.0, armature=0.0))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        name: String,
        joint: &str,
        axis: Option<&Bound<'_, PyAny>>,
        parent: Option<usize>,
        xyz: Option<&Bound<'_, PyAny>>,
        rpy: Option<&Bound<'_, PyAny>>,
        hulls: Vec<PyHull>,
        mass: f64,
        limits: Option<(f64, f64)>,
        joint_name: Option<String>,
        friction: f64,
        armature: f64,
    ) -> PyResult<Self> {
        let axis = || -> PyResult<_> {
            let a = axis.ok_or_else(|| {
                PyValueError::new_err(format!("link '{name}': a {joint} joint needs an axis"))
            })?;
            arrays::vector3(a, "axis")
        };
        let kind = match joint {
            "fixed" => JointKind::Fixed,
            "revolute" => JointKind::Revolute { axis: axis()? },
            "prismatic" => JointKind::Prismatic { axis: axis()? },
            "spherical" => JointKind::Spherical,
            "free" => JointKind::Free,
            other => {
                return Err(PyValueError::new_err(format!(
                    "link '{name}': unknown joint kind '{other}' (allowed: fixed, revolute, \
                     prismatic, spherical, free)"
                )));
            }
        };
        let attachment = arrays::pose(xyz, rpy)?;
        let hulls = hulls.into_iter().map(|h| h.0).collect();
        let mut link = Link::new(
            name,
            parent,
            attachment,
            kind,
            hulls,
            MassModel::Lumped { mass },
        );
        if let Some(j) = joint_name {
            link = link.with_joint_name(j);
        }
        if let Some((lower, upper)) = limits {
            link = link.with_limits(lower, upper);
        }
        Ok(Self(link.with_friction(friction).with_armature(armature)))
    }

    /// The link's name.
    #[getter]
    fn name(&self) -> &str {
        &self.0.name
    }

    fn __repr__(&self) -> String {
        format!("Link('{}', {})", self.0.name, self.0.joint.kind_name())
    }
}

/// Contact settings: the `model` (`"hulls"`, SDRS's separating-plane barrier between convex
/// hulls, of support `support` (default 1 cm, the authors' setting: bodies rest about 2 cm
/// apart; `World`'s own contact, until replaced, has a support of at most 0.4 mm, scaled to
/// its thinnest body, and stiffness 1e5 N times its square); `"long_range"`, the long-range potential
/// between collision meshes with blending margin `epsilon` and far field `far_field`
/// (`"centred"`, the paper's eq. 7, by default; `"counted"`, ours, whose push falls with
/// distance); `"ipc"`, the IPC barrier between collision meshes with activation distance
/// `support`), its `stiffness`, optional friction of coefficient `mu`; `skip_adjacent` leaves
/// parent-child pairs out. For `"ipc"` take `stiffness` near `F / (20 * support**3)` for the
/// largest contact force `F` (N): IPC's barrier pushes with about `2κd̂⁴/d` at a gap `d`, and
/// far smaller values hold contacts at gaps too small to resolve, where Newton stalls.
#[pyclass(name = "ContactSettings", module = "sdrs", frozen, from_py_object)]
#[derive(Clone)]
pub struct PyContactSettings(pub ContactSettings);

#[pymethods]
impl PyContactSettings {
    #[new]
    #[pyo3(signature = (stiffness=1.0, mu=None, skip_adjacent=false, model="hulls", support=None, epsilon=None, far_field=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        stiffness: f64,
        mu: Option<f64>,
        skip_adjacent: bool,
        model: &str,
        support: Option<f64>,
        epsilon: Option<f64>,
        far_field: Option<&str>,
    ) -> PyResult<Self> {
        let needs = |value: Option<f64>, what: &str| {
            value.ok_or_else(|| {
                PyValueError::new_err(format!("contact model '{model}' needs {what}"))
            })
        };
        let refuse = |value: Option<f64>, name: &str| match value {
            Some(_) => Err(PyValueError::new_err(format!(
                "contact model '{model}' takes no `{name}`"
            ))),
            None => Ok(()),
        };
        if far_field.is_some() && model != "long_range" {
            return Err(PyValueError::new_err(format!(
                "contact model '{model}' takes no `far_field` (only 'long_range' does)"
            )));
        }
        let kind = match model {
            "hulls" => {
                refuse(epsilon, "epsilon")?;
                ContactKind::Hulls(match support {
                    Some(s) => PlaneBarrier::new(s).raise()?,
                    None => PlaneBarrier::default(),
                })
            }
            "long_range" => {
                refuse(support, "support")?;
                let epsilon = needs(epsilon, "`epsilon`, the blending margin ε > 0")?;
                let far_field = match far_field.unwrap_or("centred") {
                    "centred" => FarField::Centred,
                    "counted" => FarField::Counted,
                    other => {
                        return Err(PyValueError::new_err(format!(
                            "far field '{other}' is unknown: use 'centred' or 'counted'"
                        )));
                    }
                };
                ContactKind::LongRange(LongRange::new(epsilon).raise()?.with_far_field(far_field))
            }
            "ipc" => {
                refuse(epsilon, "epsilon")?;
                let dhat = needs(support, "`support`, the activation distance d̂ > 0 (m)")?;
                ContactKind::Ipc(Ipc::new(dhat).raise()?)
            }
            other => {
                return Err(PyValueError::new_err(format!(
                    "contact model '{other}' is unknown: use 'hulls', 'long_range' or 'ipc'"
                )));
            }
        };
        let mut contact = ContactSettings::new(kind, stiffness).raise()?;
        if let Some(mu) = mu {
            contact = contact.with_friction(FrictionSettings::new(mu).raise()?);
        }
        Ok(Self(contact.with_skip_adjacent(skip_adjacent)))
    }

    /// The contact model: `"hulls"`, `"long_range"` or `"ipc"`.
    #[getter]
    fn model(&self) -> &'static str {
        match self.0.kind {
            ContactKind::Hulls(_) => "hulls",
            ContactKind::LongRange(_) => "long_range",
            ContactKind::Ipc(_) => "ipc",
            // `ContactKind` is non-exhaustive: a model added after these bindings.
            _ => "other",
        }
    }

    /// The long-range potential's far field, `"centred"` or `"counted"`; `None` for the other
    /// models.
    #[getter]
    fn far_field(&self) -> Option<&'static str> {
        match &self.0.kind {
            ContactKind::LongRange(potential) => Some(match potential.far_field() {
                FarField::Centred => "centred",
                FarField::Counted => "counted",
            }),
            _ => None,
        }
    }

    /// Barrier stiffness κ.
    #[getter]
    fn stiffness(&self) -> f64 {
        self.0.stiffness
    }

    /// Friction coefficient, or `None` without friction.
    #[getter]
    fn mu(&self) -> Option<f64> {
        self.0.friction.as_ref().map(|f| f.mu)
    }

    /// Whether parent-child link pairs are left out of contact.
    #[getter]
    fn skip_adjacent(&self) -> bool {
        self.0.skip_adjacent
    }
}

/// A world under construction (`sdrs::World`): robots, free objects and a ground, built into
/// a [`Simulator`](PySimulator) by `build()`.
#[pyclass(name = "World", module = "sdrs")]
pub struct PyWorld(World);

#[pymethods]
impl PyWorld {
    #[new]
    fn new(dt: f64) -> PyResult<Self> {
        Ok(Self(World::new(dt).raise()?))
    }

    /// Adds the 40 m x 40 m ground slab whose top face is z = 0.
    fn add_ground(&mut self) {
        self.0 = self.0.clone().with_ground();
    }

    /// Friction of coefficient `mu` on the current contact.
    fn set_friction(&mut self, mu: f64) -> PyResult<()> {
        self.0 = self.0.clone().with_friction(mu).raise()?;
        Ok(())
    }

    /// Replaces the contact settings (`None`: no contact); they are kept as given.
    fn set_contact(&mut self, contact: Option<PyContactSettings>) {
        self.0.set_contact(contact.map(|c| c.0));
    }

    /// Adds a free object (6 DoF) of `mass` kg with `hull`, starting at `xyz`, `rpy`.
    #[pyo3(signature = (name, hull, mass, xyz=None, rpy=None))]
    fn add_object(
        &mut self,
        name: &str,
        hull: PyHull,
        mass: f64,
        xyz: Option<&Bound<'_, PyAny>>,
        rpy: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyObjectHandle> {
        let pose = arrays::pose(xyz, rpy)?;
        Ok(PyObjectHandle(self.0.add_object(name, hull.0, mass, pose)))
    }

    /// Adds a robot's links (parents first) with its roots placed at `xyz`, `rpy`, every
    /// link and joint name prefixed with `prefix`.
    #[pyo3(signature = (links, xyz=None, rpy=None, prefix=""))]
    fn add_robot(
        &mut self,
        links: Vec<PyLink>,
        xyz: Option<&Bound<'_, PyAny>>,
        rpy: Option<&Bound<'_, PyAny>>,
        prefix: &str,
    ) -> PyResult<PyRobotHandle> {
        let base = arrays::pose(xyz, rpy)?;
        let links = links.into_iter().map(|l| l.0).collect();
        Ok(PyRobotHandle::new(self.0.add_robot_as(prefix, links, base)))
    }

    /// Adds a robot from a URDF file with its root at `xyz`, `rpy`, every link and joint name
    /// prefixed with `prefix`.
    ///
    /// - `floating`: attach the root with a free joint (6 coordinates: translation, then
    ///   rotation) instead of fixing it to the world. `None` (the default) takes the SRDF's
    ///   `<virtual_joint>` (`floating` floats) when `srdf` is given, and fixes the root
    ///   otherwise.
    /// - `package_paths`: folders searched for `package://NAME/...` URIs (as `DIR/NAME/...`),
    ///   before the URDF's ancestor folders named `NAME`.
    /// - `srdf`: an SRDF file whose `disable_collisions` pairs are left out of contact, and
    ///   whose group states `RobotHandle.group_state` gives.
    /// - `joint_friction`: read each joint's `<dynamics friction>` as its dry friction (N·m or
    ///   N), as MuJoCo does; off by default.
    #[pyo3(signature = (path, xyz=None, rpy=None, prefix="", *, floating=None, package_paths=None, srdf=None, joint_friction=false))]
    #[allow(clippy::too_many_arguments)]
    fn add_urdf(
        &mut self,
        path: std::path::PathBuf,
        xyz: Option<&Bound<'_, PyAny>>,
        rpy: Option<&Bound<'_, PyAny>>,
        prefix: &str,
        floating: Option<bool>,
        package_paths: Option<Vec<std::path::PathBuf>>,
        srdf: Option<std::path::PathBuf>,
        joint_friction: bool,
    ) -> PyResult<PyRobotHandle> {
        let base = arrays::pose(xyz, rpy)?;
        let srdf = srdf.map(Srdf::from_file).transpose().raise()?;
        let options = UrdfOptions {
            package_paths: package_paths.unwrap_or_default(),
            floating_base: floating
                .or_else(|| srdf.as_ref().and_then(Srdf::floating_base))
                .unwrap_or(false),
            joint_friction,
            ..UrdfOptions::default()
        };
        let mut model = load_urdf(path, &options).raise()?;
        if let Some(srdf) = &srdf {
            srdf.apply(&mut model).raise()?;
        }
        let robot = self.0.add_model_as(prefix, &model, base);
        Ok(PyRobotHandle(
            robot,
            None,
            srdf.map(|srdf| Arc::new(UrdfSrdf { model, srdf })),
        ))
    }

    /// Adds a robot from an MJCF (MuJoCo XML) file with its root at `xyz`, `rpy`: its bodies,
    /// joints, geoms and contact exclusions. Its worldbody planes become 1 m thick slabs when
    /// `floor`, and are left out otherwise (add the world's own ground). Its actuators and its
    /// joints' springs and dampers act through a `Control`: `RobotHandle.set_ctrl(control,
    /// ctrl)` writes them for MuJoCo's `ctrl`. Its time step and gravity are not read.
    #[pyo3(signature = (path, xyz=None, rpy=None, prefix="", floor=false))]
    fn add_mjcf(
        &mut self,
        path: std::path::PathBuf,
        xyz: Option<&Bound<'_, PyAny>>,
        rpy: Option<&Bound<'_, PyAny>>,
        prefix: &str,
        floor: bool,
    ) -> PyResult<PyRobotHandle> {
        let base = arrays::pose(xyz, rpy)?;
        let defaults = MjcfOptions::default();
        let options = MjcfOptions {
            floor: if floor { defaults.floor } else { None },
            ..defaults
        };
        let mjcf = load_mjcf(path, &options).raise()?;
        let robot = self.0.add_mjcf_model_as(prefix, &mjcf, base);
        Ok(PyRobotHandle(robot, Some(Arc::new(mjcf)), None))
    }

    /// Gravity (m/s², along −z).
    #[getter]
    fn get_gravity(&mut self) -> f64 {
        self.0.settings_mut().gravity
    }

    #[setter]
    fn set_gravity(&mut self, gravity: f64) -> PyResult<()> {
        let settings = self.0.settings_mut();
        *settings = settings.clone().with_gravity(gravity).raise()?;
        Ok(())
    }

    /// The Newton tolerance of each step (|∇O|∞, N or N·m).
    #[getter]
    fn get_tolerance(&mut self) -> f64 {
        self.0.settings_mut().tolerance
    }

    #[setter]
    fn set_tolerance(&mut self, tolerance: f64) -> PyResult<()> {
        let settings = self.0.settings_mut();
        *settings = settings.clone().with_tolerance(tolerance).raise()?;
        Ok(())
    }

    /// The joint speed (rad/s or m/s) below which a joint's dry friction (`Link(friction=)`,
    /// MJCF `frictionloss`) turns viscous: a joint held by less than its friction creeps at
    /// about this speed. Default 1e-4; positive.
    #[getter]
    fn get_joint_friction_velocity(&mut self) -> f64 {
        self.0.settings_mut().joint_friction_velocity
    }

    #[setter]
    fn set_joint_friction_velocity(&mut self, velocity: f64) -> PyResult<()> {
        let mut settings = self.0.settings_mut().clone();
        settings.joint_friction_velocity = velocity;
        settings.check().raise()?;
        *self.0.settings_mut() = settings;
        Ok(())
    }

    /// The Newton iteration cap of each step (at least 1). A step that has not converged
    /// after it goes on damped for as many again, then raises `ConvergenceError`.
    #[getter]
    fn get_max_iterations(&mut self) -> usize {
        self.0.settings_mut().max_iterations
    }

    #[setter]
    fn set_max_iterations(&mut self, max_iterations: usize) -> PyResult<()> {
        let settings = self.0.settings_mut();
        *settings = settings
            .clone()
            .with_max_iterations(max_iterations)
            .raise()?;
        Ok(())
    }

    /// Where each step's Newton solve starts: `"extrapolated"` (the last step's motion carried
    /// on; the default) or `"current"` (the state at the step's start, the paper's
    /// Algorithm 1). Optimise through impacts with `"current"`: where an impact's step has two
    /// minima, the extrapolated start's choice between two starts can make a loss jump under
    /// tiny changes of its inputs.
    #[getter]
    fn get_newton_start(&mut self) -> &'static str {
        match self.0.settings_mut().start {
            NewtonStart::Extrapolated => "extrapolated",
            NewtonStart::Current => "current",
        }
    }

    #[setter]
    fn set_newton_start(&mut self, start: &str) -> PyResult<()> {
        self.0.settings_mut().start = match start {
            "extrapolated" => NewtonStart::Extrapolated,
            "current" => NewtonStart::Current,
            other => {
                return Err(PyValueError::new_err(format!(
                    "newton_start must be \"extrapolated\" or \"current\", not {other:?}"
                )));
            }
        };
        Ok(())
    }

    /// Whether Newton's directions come from the contact model's force-anchored model (the
    /// default, fewer iterations for robots in motion) or from the exact Hessian. The step's
    /// solution is the same within the tolerance either way, but anchored directions carry
    /// force estimates from step to step, so where inside the tolerance a step stops depends
    /// on the steps before: finite differences of a rollout at steps near the solver's
    /// round-off (1e-8 and below) keep to one Newton path with `False`.
    #[getter]
    fn get_anchored_newton(&mut self) -> bool {
        self.0.settings_mut().anchored_newton
    }

    #[setter]
    fn set_anchored_newton(&mut self, on: bool) {
        self.0.settings_mut().anchored_newton = on;
    }

    /// The contact settings, or `None` without contact.
    #[getter]
    fn contact(&mut self) -> Option<PyContactSettings> {
        self.0.settings_mut().contact.clone().map(PyContactSettings)
    }

    /// The model and its simulator (the world stays as it is, to build again).
    fn build(&self, py: Python<'_>) -> PyResult<PySimulator> {
        let world = self.0.clone();
        let (model, sim) = py.detach(|| world.build()).raise()?;
        Ok(PySimulator::new(model, sim))
    }
}

/// A scene file (TOML): robots, objects, ground, contact, solver settings and controls.
/// Pickles as its TOML text (with the folder its relative paths start from), which is how
/// `sdrs.ray` ships scenes to workers.
#[pyclass(name = "Scene", module = "sdrs", frozen)]
pub struct PyScene(Scene);

#[pymethods]
impl PyScene {
    /// Reads the scene file at `path`; relative paths start from its folder.
    #[staticmethod]
    fn from_file(path: std::path::PathBuf) -> PyResult<Self> {
        Ok(Self(Scene::from_file(path).raise()?))
    }

    /// Reads a scene from TOML `text`; relative paths start from `directory` (default: the
    /// current folder).
    #[staticmethod]
    #[pyo3(signature = (text, directory=None))]
    fn from_str(text: &str, directory: Option<std::path::PathBuf>) -> PyResult<Self> {
        let scene = Scene::from_str(text).raise()?;
        Ok(Self(match directory {
            Some(d) => scene.with_directory(d),
            None => scene,
        }))
    }

    /// The scene as TOML text (reads back into the same scene).
    fn to_toml(&self) -> PyResult<String> {
        self.0.to_toml().raise()
    }

    /// The folder relative paths start from.
    #[getter]
    fn directory(&self) -> std::path::PathBuf {
        self.0.directory().to_path_buf()
    }

    /// The world the scene describes: simulator, start motion, control, robots and objects.
    fn build(&self, py: Python<'_>) -> PyResult<PySceneSetup> {
        let setup = py.detach(|| self.0.build()).raise()?;
        warn_all(py, &setup.warnings)?;
        Ok(PySceneSetup {
            simulator: Py::new(py, PySimulator::new(setup.model, setup.simulator))?,
            motion: Py::new(py, PyMotion(setup.motion))?,
            control: Py::new(py, PyControl(setup.control))?,
            steps: setup.steps,
            robots: setup
                .robots
                .into_iter()
                .zip(setup.mjcf)
                .map(|(robot, mjcf)| PyRobotHandle(robot, mjcf.map(Arc::new), None))
                .collect(),
            objects: setup.object_links.iter().map(|l| l.index()).collect(),
        })
    }

    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, (String, std::path::PathBuf))> {
        let from_str = py.get_type::<PyScene>().getattr("from_str")?;
        Ok((from_str, (self.to_toml()?, self.directory())))
    }
}

/// What a scene builds: the simulator (with its model), the start motion, the control, the
/// number of steps the file asks for, the robots and the objects' links.
#[pyclass(name = "SceneSetup", module = "sdrs", frozen, get_all)]
pub struct PySceneSetup {
    /// The simulator (its `model` is the scene's model).
    simulator: Py<PySimulator>,
    /// The start motion.
    motion: Py<PyMotion>,
    /// The control of every step (PD gains and targets from the file).
    control: Py<PyControl>,
    /// The `steps` the file asks for, if any.
    steps: Option<usize>,
    /// The robots, in file order.
    robots: Vec<PyRobotHandle>,
    /// The objects' link indices, in file order.
    objects: Vec<usize>,
}

/// A robot in a world: its links, its coordinates and the prefix of its names, the MJCF
/// file it came from, if it did (its actuators, springs and dampers), and its URDF's SRDF, if
/// `World.add_urdf` was given one (its group states).
#[pyclass(name = "RobotHandle", module = "sdrs", frozen, from_py_object)]
#[derive(Clone)]
pub struct PyRobotHandle(
    pub RobotHandle,
    Option<Arc<MjcfModel>>,
    Option<Arc<UrdfSrdf>>,
);

/// A URDF robot's own model (names without the world's prefix) and its SRDF.
pub struct UrdfSrdf {
    model: Model,
    srdf: Srdf,
}

impl PyRobotHandle {
    /// A robot from neither an MJCF file nor a URDF with an SRDF.
    pub fn new(robot: RobotHandle) -> Self {
        Self(robot, None, None)
    }
}

#[pymethods]
impl PyRobotHandle {
    /// Its link indices in the world's model.
    #[getter]
    fn links<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyRange>> {
        let r = self.0.link_range();
        PyRange::new(py, r.start as isize, r.end as isize)
    }

    /// Its coordinates in the world's state.
    #[getter]
    fn dofs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyRange>> {
        let r = self.0.dofs();
        PyRange::new(py, r.start as isize, r.end as isize)
    }

    /// The prefix of its link and joint names.
    #[getter]
    fn prefix(&self) -> &str {
        self.0.prefix()
    }

    /// Its link named `name` (without the prefix), as a link index of `model`.
    fn link(&self, model: &PyModel, name: &str) -> PyResult<usize> {
        Ok(self.0.link(&model.0, name).raise()?.index())
    }

    /// The coordinates of its joint named `name` (without the prefix) in `model`'s state.
    fn joint_dofs(&self, model: &PyModel, name: &str) -> PyResult<Vec<usize>> {
        let joint = self.0.joint(&model.0, name).raise()?;
        Ok(model.0.dofs(joint).collect())
    }

    /// Its MJCF file's actuators, in `ctrl` order (`"name on joint"`; empty for a robot not
    /// from an MJCF file).
    #[getter]
    fn actuators(&self) -> Vec<String> {
        self.1
            .iter()
            .flat_map(|m| m.actuators.iter().map(|a| a.label()))
            .collect()
    }

    /// Writes what its MJCF file applies under MuJoCo's controls `ctrl` (one per actuator,
    /// in `actuators` order; `None`: all 0) into `control` at its coordinates: motors as
    /// joint forces (`gear · ctrl`), position and velocity servos and the hinge and slide
    /// joints' springs and dampers as stable PD (MuJoCo's gains are SI, as `Control`'s).
    /// Other coordinates of `control` are left as they are.
    #[pyo3(signature = (control, ctrl=None))]
    fn set_ctrl(&self, control: &mut PyControl, ctrl: Option<Vec<f64>>) -> PyResult<()> {
        let Some(mjcf) = &self.1 else {
            return Err(PyValueError::new_err(format!(
                "the robot at coordinates {:?} did not come from an MJCF file (World.add_mjcf or \
                 a scene's `mjcf = ...`), so it has no actuators: set the Control's kp, kd, \
                 position, velocity and force at its dofs instead",
                self.0.dofs()
            )));
        };
        let own = mjcf.step_control(ctrl.as_deref()).raise()?;
        control.0.write_at(self.0.dofs().start, &own).raise()
    }

    /// The names of its SRDF's group states (empty without an SRDF).
    #[getter]
    fn group_states(&self) -> Vec<String> {
        self.2.as_ref().map_or_else(Vec::new, |u| {
            u.srdf.state_names().into_iter().map(String::from).collect()
        })
    }

    /// Its coordinates in its SRDF's group state `name` (joints the state does not list at 0,
    /// a floating base where the state's root joint puts it, relative to where the robot was
    /// placed): write them at `dofs` of a world's `q`. Entries naming a joint the robot does
    /// not have, or giving values for a joint it fixes, are skipped with a `UserWarning`.
    fn group_state<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let Some(u) = &self.2 else {
            return Err(PyValueError::new_err(format!(
                "the robot at coordinates {:?} has no SRDF (World.add_urdf(..., srdf=PATH))",
                self.0.dofs()
            )));
        };
        let zero = sdrs::dynamics::State::zero(&u.model);
        let configured = u.srdf.configuration(&u.model, name, &zero).raise()?;
        warn_all(py, &configured.skipped)?;
        Ok(arrays::to_numpy(py, &configured.state.q))
    }
}

/// One Python `UserWarning` per message (what a build or a group state skipped).
fn warn_all(py: Python<'_>, messages: &[impl std::fmt::Display]) -> PyResult<()> {
    for message in messages {
        let text = std::ffi::CString::new(message.to_string()).unwrap_or_default();
        PyErr::warn(py, &py.get_type::<PyUserWarning>(), &text, 1)?;
    }
    Ok(())
}

/// A free object in a world: its link and its six coordinates.
#[pyclass(name = "ObjectHandle", module = "sdrs", frozen, from_py_object)]
#[derive(Clone)]
pub struct PyObjectHandle(pub ObjectHandle);

#[pymethods]
impl PyObjectHandle {
    /// Its link index.
    #[getter]
    fn link(&self) -> usize {
        self.0.link().index()
    }

    /// Its six coordinates (translation, then rotation) in the world's state.
    #[getter]
    fn dofs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyRange>> {
        let r = self.0.dofs();
        PyRange::new(py, r.start as isize, r.end as isize)
    }
}
