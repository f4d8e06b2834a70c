//! The scene file's contents as plain serde types: what a TOML scene says, before any file it
//! names is read.

use sdrs_dynamics::NewtonStart;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A whole scene: time step, gravity, solver and contact settings, ground, robots, objects and
/// how many steps to run.
///
/// Every table refuses keys it does not know. Paths are relative to the scene file, or
/// `package://NAME/...` URIs looked up in [`SceneDescription::package_paths`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneDescription {
    /// Time step Δt (s).
    pub dt: f64,
    /// Gravity along −z (m/s²); 9.81 when absent.
    #[serde(default = "standard_gravity")]
    pub gravity: f64,
    /// Steps to simulate, if the scene says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<usize>,
    /// A fixed ground whose top face is the plane z = 0.
    #[serde(default)]
    pub ground: bool,
    /// Folders searched for `package://NAME/...` paths (as `FOLDER/NAME/...`), relative to the
    /// scene file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub package_paths: Vec<PathBuf>,
    /// Newton solver settings.
    #[serde(default)]
    pub solver: SolverDescription,
    /// Contact model and its settings.
    #[serde(default)]
    pub contact: ContactDescription,
    /// Robots, from URDF or MJCF (`[[robot]]` tables).
    #[serde(default, rename = "robot", skip_serializing_if = "Vec::is_empty")]
    pub robots: Vec<RobotDescription>,
    /// Free rigid objects (`[[object]]` tables).
    #[serde(default, rename = "object", skip_serializing_if = "Vec::is_empty")]
    pub objects: Vec<ObjectDescription>,
}

fn standard_gravity() -> f64 {
    9.81
}

/// Newton solver settings (`[solver]`); each absent one keeps the engine's default
/// (tolerance 1e-4, 100 iterations, eigenvalue floor 1e-3, start `"extrapolated"`, damped
/// round on).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolverDescription {
    /// Convergence tolerance on the objective's gradient (N, or N·m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// Newton iteration cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_iterations: Option<usize>,
    /// Lower bound of the Hessian's eigenvalues in the Newton direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eigenvalue_floor: Option<f64>,
    /// Where Newton starts: `"extrapolated"` (the last step's motion carried on) or
    /// `"current"` (the state at the step's start, the paper's Algorithm 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<NewtonStart>,
    /// Whether a step whose `max_iterations` undamped iterations do not converge goes on
    /// damped for as many again (`true`, the default) or fails (`false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub damped_round: Option<bool>,
}

/// Which contact model a scene uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContactModelName {
    /// SDRS separating-plane barrier between convex hulls.
    #[default]
    Hulls,
    /// Long-range barrier between triangle meshes.
    LongRange,
    /// IPC barrier between triangle meshes.
    Ipc,
    /// No contact at all.
    None,
}

impl ContactModelName {
    /// The name the scene file uses.
    pub fn as_str(self) -> &'static str {
        match self {
            ContactModelName::Hulls => "hulls",
            ContactModelName::LongRange => "long_range",
            ContactModelName::Ipc => "ipc",
            ContactModelName::None => "none",
        }
    }
}

/// What stands in for far node pairs of the `long_range` potential (`far_field`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FarFieldName {
    /// The paper's eq. 7: one centred term per node pair ([`FarField::Centred`]).
    ///
    /// [`FarField::Centred`]: sdrs_contact::long_range::FarField::Centred
    #[default]
    Centred,
    /// One centred term per triangle pair a node pair replaces: the push falls with distance
    /// (ours, [`FarField::Counted`]).
    ///
    /// [`FarField::Counted`]: sdrs_contact::long_range::FarField::Counted
    Counted,
}

/// Contact settings (`[contact]`). With `hulls` and no numbers, `sdrs::World`'s defaults:
/// barrier support 0.4 mm (less for bodies thinner than 4 cm), stiffness `1e5 N · support²`.
/// The mesh models (`long_range`, `ipc`, between the links' collision meshes) need their
/// parameters and stiffness given. No friction unless `friction` is given.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContactDescription {
    /// The contact model: `hulls` (default), `long_range`, `ipc` or `none`.
    #[serde(default)]
    pub model: ContactModelName,
    /// `hulls`: the plane barrier's support distance `s`; `ipc`: the activation distance `d̂`
    /// (m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub support: Option<f64>,
    /// `long_range`: the blending margin `ε` of the hierarchical potential (larger is more
    /// exact and slower).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epsilon: Option<f64>,
    /// `long_range`: what replaces far node pairs, `centred` (the paper's eq. 7, default) or
    /// `counted` (ours: from afar the paper's field pushes harder in the blend than nearer in,
    /// so gradients from afar point away; this one's push falls with distance).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub far_field: Option<FarFieldName>,
    /// Contact stiffness κ; with `hulls`, `1e5 N · support²` when only the support is given.
    /// With `ipc`, about `F / (20 d̂³)` for the largest contact force `F` (N): IPC's barrier
    /// pushes with about `2κd̂⁴/d` at a gap `d`, so that κ holds `F` at a tenth of `d̂`, and
    /// far smaller values hold contacts at gaps squared distances cannot resolve.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stiffness: Option<f64>,
    /// Friction coefficient μ (no friction when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friction: Option<f64>,
}

/// A pose: translation `xyz` (m) and a rotation, either roll-pitch-yaw `rpy` (rad, about
/// fixed x, then y, then z, as in URDF) or a unit `quaternion` `[w, x, y, z]`; identity when
/// absent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoseDescription {
    /// Translation (m).
    #[serde(default)]
    pub xyz: [f64; 3],
    /// Roll, pitch, yaw (rad).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rpy: Option<[f64; 3]>,
    /// Rotation as a quaternion `[w, x, y, z]` (normalised when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quaternion: Option<[f64; 4]>,
}

/// A robot from a URDF or an MJCF file (`[[robot]]`, with exactly one of `urdf` and `mjcf`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RobotDescription {
    /// The URDF file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub urdf: Option<PathBuf>,
    /// An MJCF (MuJoCo XML) file: its bodies, joints, geoms and contact exclusions, starting at
    /// `qpos0` moved just inside any limit it sits on (its worldbody planes are left out: use
    /// the scene's `ground`). Its hinge and slide joints' springs and dampers act, and its
    /// actuators under `ctrl`, and so do its joints' friction and armature, its fixed
    /// tendons and its equality constraints. Its time step and gravity are not read (the
    /// scene's `dt` and `gravity` hold), nor armature, springs and dampers on ball and free
    /// joints; `srdf`, `floating_base` and `joint_friction` do not apply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mjcf: Option<PathBuf>,
    /// An SRDF of the robot: its disabled collision pairs apply, and its group states can be
    /// the start configuration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub srdf: Option<PathBuf>,
    /// Whether the base floats (a free joint); when absent, as the SRDF's virtual joint says,
    /// else fixed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floating_base: Option<bool>,
    /// Whether a URDF's `<dynamics friction>` is the joints' dry friction (N·m or N), as
    /// MuJoCo reads it; absent: not read (`UrdfOptions::joint_friction`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joint_friction: Option<bool>,
    /// Where the robot's root stands.
    #[serde(default)]
    pub base: PoseDescription,
    /// An SRDF `<group_state>` to start in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_state: Option<String>,
    /// Start values of 1-DoF joints by name (rad or m), over the group state; unlisted
    /// joints start at their neutral value (zero, or just inside their limits).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub start: BTreeMap<String, f64>,
    /// A prefix added to every link and joint name (to tell two copies of a robot apart).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    /// Control of 1-DoF joints by name (without the prefix); the key `"*"` applies to every
    /// 1-DoF joint that has no entry of its own. On an MJCF robot's joint an entry replaces
    /// the file's actuators, spring and damper there.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub control: BTreeMap<String, JointControlDescription>,
    /// An MJCF robot's actuator controls, MuJoCo's `ctrl` in the file's actuator order, one
    /// per actuator (clamped into each `ctrlrange`): motors apply `gear · ctrl` (within their
    /// `forcerange`), position and velocity servos act as stable PD (their `forcerange` is not
    /// applied). Absent, every control is 0, as in MuJoCo.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ctrl: Option<Vec<f64>>,
}

/// The control of one joint: stable PD towards a target, and a constant generalized force.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointControlDescription {
    /// PD stiffness `k` (N·m/rad on a revolute joint, N/m on a prismatic one): the spring
    /// force is `k (θ* − θ)`. At least 0.
    #[serde(default)]
    pub kp: f64,
    /// PD damping `c` (N·m·s/rad on a revolute joint, N·s/m on a prismatic one): the damper
    /// force is `c (θ̇* − θ̇)`. At least 0.
    #[serde(default)]
    pub kd: f64,
    /// Target position θ* (rad or m); the joint's start value when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<f64>,
    /// Target velocity θ̇* (rad/s or m/s).
    #[serde(default)]
    pub velocity: f64,
    /// Constant generalized force τ (N·m or N).
    #[serde(default)]
    pub force: f64,
}

/// A free rigid object (`[[object]]`): 6 DoF, with a mass or a density.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObjectDescription {
    /// The object's link name.
    pub name: String,
    /// Its shape.
    pub shape: ShapeDescription,
    /// Total mass (kg), spread over the hull's vertices (SDRS eq. 4); give this or `density`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mass: Option<f64>,
    /// Uniform density (kg/m³) of the solid; give this or `mass`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub density: Option<f64>,
    /// Start pose.
    #[serde(default)]
    pub pose: PoseDescription,
    /// Start linear velocity (m/s, world frame).
    #[serde(default)]
    pub velocity: [f64; 3],
    /// Start angular velocity (rad/s, world frame).
    #[serde(default)]
    pub angular_velocity: [f64; 3],
}

/// An object's shape, in its own frame (centred on the origin): `shape = { type = "box",
/// half_extents = [...] }` and so on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ShapeDescription {
    /// A box.
    Box {
        /// Half the side lengths along x, y, z (m).
        half_extents: [f64; 3],
    },
    /// A sphere, as the hull of an icosphere.
    Sphere {
        /// Radius (m).
        radius: f64,
        /// Icosahedron subdivisions (0 to 8; `20 · 4^n` faces); 2 when absent.
        #[serde(default = "default_subdivisions")]
        subdivisions: u32,
    },
    /// A capsule along z.
    Capsule {
        /// Radius (m).
        radius: f64,
        /// Half the length of the cylindrical part (m).
        half_height: f64,
    },
    /// A triangle mesh (OBJ, STL or COLLADA), split into convex hulls.
    Mesh {
        /// The mesh file.
        path: PathBuf,
        /// Scale along x, y, z; 1 when absent.
        #[serde(default = "unit_scale")]
        scale: [f64; 3],
    },
}

fn default_subdivisions() -> u32 {
    2
}

fn unit_scale() -> [f64; 3] {
    [1.0; 3]
}
