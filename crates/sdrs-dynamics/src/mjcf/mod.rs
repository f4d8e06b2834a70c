//! MJCF (MuJoCo XML) import: the body tree, joints, geoms, inertia and actuators of the subset
//! the common MuJoCo models use (the gymnasium locomotion and pendulum models among them),
//! checked against MuJoCo's own joint-space mass matrix and bias forces to 1e-8.
//!
//! ```
//! use sdrs_dynamics::{MjcfOptions, mjcf_from_str};
//! let xml = r#"
//! <mujoco model="pendulum">
//!   <compiler angle="degree"/>
//!   <default><joint damping="0.1"/></default>
//!   <worldbody>
//!     <geom name="floor" type="plane" size="5 5 0.1"/>
//!     <body name="arm" pos="0 0 1">
//!       <joint name="swing" type="hinge" axis="0 1 0" range="-90 90"/>
//!       <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.05"/>
//!     </body>
//!   </worldbody>
//!   <actuator><position joint="swing" kp="10"/></actuator>
//! </mujoco>"#;
//! let mj = mjcf_from_str(xml, std::path::Path::new("."), &MjcfOptions::default())?;
//! assert_eq!(mj.model.dof(), 1);
//! assert_eq!(mj.model.links().len(), 2); // the static "world" link (the floor slab) and "arm"
//! let (lower, upper) = mj.model.links()[1].limits.unwrap();
//! assert!((upper - std::f64::consts::FRAC_PI_2).abs() < 1e-12 && lower == -upper);
//! // Capsule mass from MuJoCo's default density 1000 kg/m³.
//! let volume = std::f64::consts::PI * 0.05f64.powi(2) * (0.5 + 4.0 / 3.0 * 0.05);
//! assert!((mj.model.mass(1) - 1000.0 * volume).abs() < 1e-9);
//! // Position servo at 0.3 rad plus the joint's damping, as stable-PD gains (SI, as MuJoCo's).
//! let control = mj.control(&[0.3])?;
//! assert_eq!((control.kp[0], control.position[0]), (10.0, 0.3)); // N·m/rad
//! assert_eq!(control.kd[0], 0.1); // N·m·s/rad
//! # Ok::<(), sdrs_dynamics::DynamicsError>(())
//! ```
//!
//! ## How MJCF maps onto the model
//!
//! - **Files.** `<include file>` elements are replaced by what the included file's top element
//!   holds before anything is read, as MuJoCo assembles a model: nested includes, every path
//!   relative to the main file's directory, each file at most once; an error in an included
//!   element names that file and line. The dm_control suite's models (which all include
//!   `common/skybox.xml`, `visual.xml` and `materials.xml`) load this way.
//! - **Bodies and links.** Bodies are visited depth first (MuJoCo's body and DoF order, so
//!   sdrs's DoF `k` is MuJoCo's `qvel[k]`). A body without joints is a [`JointKind::Fixed`]
//!   link. A body with several hinge/slide/ball joints becomes a chain of links, one per
//!   joint: the first ones, named `BODY/JOINT`, are massless frames without geoms, the last,
//!   named after the body, carries the body's geoms, inertia and children. Unnamed bodies are
//!   named `bodyN` after their MuJoCo body id.
//! - **Joint anchors.** MuJoCo turns a hinge or ball about its anchor `pos` (body frame), so a
//!   joint link's frame is the body frame moved to that anchor: the link's attachment ends in
//!   `T(a)`, the next joint's attachment is `T(a_next − a)`, and the body frame sits at
//!   `T(−a_last)` in the last link's frame ([`MjcfModel::body_offsets`]); geoms, inertia and
//!   child bodies are placed through that offset. Slide joints keep the previous anchor (their
//!   `pos` does not affect motion).
//! - **Coordinates.** Hinge and slide coordinates are `qpos − ref` (MuJoCo's `qpos0`), so
//!   the XML pose is sdrs's zero; limits are `range − ref`. A **free** joint is
//!   [`JointKind::Free`] with an attachment at the body's initial position and identity
//!   rotation, so its translations are world axes (MuJoCo's `qvel[0:3]`); the orientation lives
//!   in the state's reference rotation ([`crate::State::references`]), so at zero rotation
//!   coordinates the rotation rates are body-frame angular velocities (MuJoCo's `qvel[3:6]`).
//!   A **ball** joint is [`JointKind::Spherical`] in the same way. [`MjcfModel::state_from_qpos`]
//!   and [`MjcfModel::qpos`] convert; a `qvel` is sdrs's `q̇` at such a state. Second-order
//!   terms differ: sdrs's rotation chart `Rx(a)Ry(b)Rz(c)` gives `ω̇ = q̈ + (ḃċ, −ȧċ, ȧḃ)`, so
//!   MuJoCo's bias forces are sdrs's Lagrangian bias minus `M` times that term.
//! - **Geoms** box, sphere, capsule, cylinder, ellipsoid (capsule and cylinder also by
//!   `fromto`) become convex hulls (round shapes tessellated with
//!   [`MjcfOptions::segments`] and [`MjcfOptions::sphere_level`]); mesh geoms (STL/OBJ files of
//!   `<asset><mesh>`, relative to `meshdir`) become the convex hull of their vertices, which is
//!   also what MuJoCo collides. All geoms of a link are kept as one triangle mesh in
//!   [`crate::Link::mesh`]. Geoms with `contype="0" conaffinity="0"` (visual only) give mass but
//!   no hull. A link's collision group and mask ([`crate::LinkContact`]) are the union of its
//!   hull geoms' `contype` and `conaffinity` (exact when a body's geoms share them, as usual),
//!   so sdrs's filter follows MuJoCo's rule; `<contact><exclude>` pairs are excluded
//!   ([`Model::exclude_pair`]); so are a body and its parent body (MuJoCo's `filterparent`,
//!   on unless `<option><flag filterparent="disable"/>`; not for bodies in `<worldbody>`;
//!   `<flag contact="disable"/>` leaves every link out of contact, with a world's ground too),
//!   which [`crate::ContactSettings::skip_adjacent`] alone would miss for a body of several
//!   joints (one link per joint: its parent link is the joint chain's, not the parent body's). [`MjcfModel::geoms`] keeps each geom's name,
//!   link, hull and bits.
//! - **Worldbody geoms** go to one static root link named `world`. A plane cannot be a hull:
//!   it becomes a slab of [`FloorSlab::thickness`] below the plane, its half extents the
//!   plane's `size` (or [`FloorSlab::half_extent`] for MuJoCo's infinite size 0); with
//!   [`MjcfOptions::floor`] `None` planes are left out.
//! - **Inertia** as MuJoCo computes it: `<inertial>` (mass, pos, orientation, `diaginertia` or
//!   `fullinertia`) or, by `<compiler inertiafromgeom>` (default `auto`: geoms when there is no
//!   `<inertial>`), the exact solid primitives with mass `density · volume` (density 1000 by
//!   default) or the geom's `mass`; mesh geoms use their convex hull. `settotalmass` scales
//!   every body. The result is [`MassModel::SecondMoment`].
//! - **Defaults**: nested `<default class>`, `class=` and `childclass`, for joint, geom,
//!   actuator, tendon and equality elements; `<compiler angle eulerseq autolimits>`; orientations as `quat`,
//!   `axisangle`, `euler`, `xyaxes` or `zaxis`.
//! - **Actuators** `<motor>`, `<position>` (kp, kv) and `<velocity>` (kv) on hinge and slide
//!   joints, and motors on fixed tendons ([`Actuator`], [`Transmission`]). Position and velocity servos, and the joints' `stiffness`
//!   (about `springref`) and `damping`, are stable-PD terms ([`MjcfModel::control`]; MuJoCo's
//!   gains and sdrs's [`Control`] are both SI, so they carry over as they are). Motors are
//!   constant torques `gear · ctrl`, which stable PD cannot express: [`MjcfModel::motor_forces`]
//!   gives them and [`JointForces`] adds them as a user energy.
//! - **Joint friction** (`frictionloss`) is the joint's dry friction [`crate::Link::friction`],
//!   a dissipation in the step smoothed below [`crate::StepSettings::joint_friction_velocity`]
//!   (MuJoCo imposes it as a soft constraint; both oppose the motion with at most that force).
//! - **Armature** (rotor inertia MuJoCo adds to the mass matrix diagonal) of hinge and slide
//!   joints is [`crate::Link::armature`], a joint-space inertia term of the step, so the step's
//!   mass matrix is MuJoCo's (checked); on ball and free joints it is recorded in
//!   [`MjcfJoint::armature`] and not modelled.
//! - **Joint springs by `springdamper`** (time constant, damping ratio): the stiffness and
//!   damping MuJoCo's compiler derives from the joint's inertia at `qpos0` (checked against
//!   MuJoCo's `jnt_stiffness` and `dof_damping`), then used as `stiffness` and `damping` are.
//! - **Fixed tendons** (`<tendon><fixed>`) are [`crate::Tendon`]s of the model (named after
//!   the tendon, `tendon K` without a name) with their `stiffness` about `springlength` (the
//!   length at `qpos0` when absent), `damping` and `range`; a motor on a tendon pushes along its
//!   coefficients ([`MjcfModel::motor_forces`]).
//! - **Equality constraints** `<equality><joint>` and `<equality><tendon>` with a linear
//!   `polycoef` are stiff tendons named `equality NAME` (`equality K`): the spring and damper
//!   MuJoCo's soft constraint (`solref`, `solimp`) presents to a load, on the constraint's
//!   effective mass at `qpos0`; a constraint holds loads as in MuJoCo (violation within 15% of
//!   MuJoCo's on a coupled test model), not identically. `active="false"` leaves one out.
//! - **Loop closures** `<equality><connect>` and `<equality><weld>` between bodies (or a body
//!   and the world) are [`crate::Weld`]s: springs between the frames MuJoCo holds together,
//!   their stiffness that of the soft constraint on MuJoCo's mean inverse weights of the two
//!   bodies at `qpos0` (`relpose`, `anchor`, and `torquescale="0"` for no turning, read as
//!   MuJoCo does); a four-bar linkage and a welded block hold as tightly as in MuJoCo.
//!
//! ## Refused or ignored
//!
//! Every refusal names the element and its line. Refused: `<frame>`,
//! `<replicate>`, composites and flex bodies, `distance` and `flex` equality constraints,
//! polynomial ones (`polycoef` beyond linear) and site-based connect and weld, explicit contact
//! `<pair>`s,
//! spatial tendons, tendon `frictionloss`, `armature` and actuator force limits, actuators other
//! than motor/position/velocity, servos on tendons, actuators on ball or free joints,
//! `springdamper` on ball and free joints, `coordinate="global"`,
//! plane/hfield/sdf geoms in moving bodies, `fromto` on other geoms, free joints below the
//! top level or with an anchor, a ball joint followed by other joints in its body,
//! `mocap` bodies, `gravcomp`, fluid forces (`option density/viscosity/wind`),
//! `boundmass`/`boundinertia`, `balanceinertia`, shell inertia, and attributes the importer
//! does not know. Ignored (they do not change the rigid-body dynamics, or sdrs has its own
//! contact model): lights, cameras, sites, sensors, keyframes, `<visual>`, `<asset>` textures,
//! materials and skins, solver and contact parameters (`friction`,
//! `solref`, `solimp`, `margin`, `condim`, …).
//!
//! ## Limitations
//! - `option gravity` is kept in [`MjcfModel::gravity`] (zero with `<flag gravity="disable"/>`);
//!   sdrs's stepper takes gravity along −z only ([`crate::StepSettings::gravity`]).
//! - Ball-joint ranges are recorded but not enforced (sdrs's joint limits are for 1-DoF joints).
//! - MuJoCo's soft joint limits allow `qpos0` outside a range; sdrs's limit barrier does not
//!   (the ant's ankles rest outside theirs at `qpos0`; the hopper's hips sit on a limit):
//!   start such models from a configuration strictly inside the limits.

mod build;
mod couplings;
mod include;
mod reader;

use crate::error::{DynamicsError, Result};
use crate::kinematics::{Kinematics, State};
use crate::model::Model;
use crate::stepper::{Control, ExternalEnergy};
use nalgebra::{DMatrix, DVector, Isometry3, Quaternion, UnitQuaternion, Vector3};
use std::path::Path;

#[allow(unused_imports)]
use crate::model::{JointKind, MassModel};

/// How to import an MJCF file.
#[derive(Debug, Clone)]
pub struct MjcfOptions {
    /// Segments around tessellated capsules and cylinders (at least 3).
    pub segments: usize,
    /// Subdivision level of tessellated spheres and ellipsoids (icosphere, 0 to 8).
    pub sphere_level: u32,
    /// How worldbody planes become hulls; `None` leaves planes out.
    pub floor: Option<FloorSlab>,
}

/// A worldbody plane as a box below the plane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FloorSlab {
    /// Thickness of the slab below the plane (m).
    pub thickness: f64,
    /// Half extent along the plane's x and y for planes of infinite size (`size` 0) (m).
    pub half_extent: f64,
}

impl Default for MjcfOptions {
    /// 16 segments, sphere level 2, planes as 1 m thick slabs (50 m half extent if infinite).
    fn default() -> Self {
        Self {
            segments: 16,
            sphere_level: 2,
            floor: Some(FloorSlab {
                thickness: 1.0,
                half_extent: 50.0,
            }),
        }
    }
}

/// The MJCF joint types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MjcfJointKind {
    /// `hinge`: [`JointKind::Revolute`].
    Hinge,
    /// `slide`: [`JointKind::Prismatic`].
    Slide,
    /// `ball`: [`JointKind::Spherical`] (quaternion in `qpos`).
    Ball,
    /// `free`: [`JointKind::Free`] (position and quaternion in `qpos`).
    Free,
}

impl MjcfJointKind {
    /// Entries in MuJoCo's `qpos`.
    pub fn nq(self) -> usize {
        match self {
            MjcfJointKind::Hinge | MjcfJointKind::Slide => 1,
            MjcfJointKind::Ball => 4,
            MjcfJointKind::Free => 7,
        }
    }

    /// Entries in MuJoCo's `qvel` (= sdrs DoFs).
    pub fn nv(self) -> usize {
        match self {
            MjcfJointKind::Hinge | MjcfJointKind::Slide => 1,
            MjcfJointKind::Ball => 3,
            MjcfJointKind::Free => 6,
        }
    }
}

/// One MJCF joint and where it went.
#[derive(Debug, Clone, PartialEq)]
pub struct MjcfJoint {
    /// Its name (a free joint without one is named `root_joint` on its link).
    pub name: Option<String>,
    /// Its type.
    pub kind: MjcfJointKind,
    /// The link whose joint it is.
    pub link: usize,
    /// Its first DoF (sdrs coordinate index, = MuJoCo `qvel` address).
    pub dof: usize,
    /// Its MuJoCo `qpos` address.
    pub qpos_address: usize,
    /// `ref` (hinge: rad, slide: m): MuJoCo's `qpos0`, sdrs's zero.
    pub reference: f64,
    /// `range` in MuJoCo's `qpos` units (rad or m; a ball's is `(0, max angle)`), if limited.
    pub range: Option<(f64, f64)>,
    /// Rotor inertia MuJoCo adds to the mass matrix diagonal: the link's
    /// [`crate::Link::armature`] for hinge and slide joints, not modelled for ball and free ones.
    pub armature: f64,
    /// Dry friction per DoF (N·m or N), the link's [`crate::Link::friction`].
    pub frictionloss: f64,
    /// Viscous damping coefficient (N·s/m or N·m·s/rad), a PD damping term in
    /// [`MjcfModel::control`].
    pub damping: f64,
    /// Spring stiffness about `springref`, a PD spring in [`MjcfModel::control`].
    pub stiffness: f64,
    /// Spring rest position in `qpos` units.
    pub springref: f64,
    /// `springdamper = (time constant, damping ratio)` when both are positive: then
    /// `stiffness` and `damping` are MuJoCo's values derived from them (the module docs of
    /// the importer's couplings: `k = m/(τζ)²`, `d = 2m/τ` on the joint's effective mass at
    /// `qpos0`).
    pub springdamper: Option<(f64, f64)>,
}

/// How an actuator acts on its joint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ActuatorKind {
    /// `<motor>`: force `gear · ctrl`.
    Motor,
    /// `<position>`: force `gear · (kp (ctrl − gear q) − kv gear q̇)`.
    Position {
        /// Position gain (N·m/rad, N/m on a slide, per unit of actuator length).
        kp: f64,
        /// Velocity gain (N·m·s/rad, N·s/m on a slide; 0 if absent).
        kv: f64,
    },
    /// `<velocity>`: force `gear · kv (ctrl − gear q̇)`.
    Velocity {
        /// Velocity gain (N·m·s/rad, N·s/m on a slide).
        kv: f64,
    },
}

/// What an actuator drives.
#[derive(Debug, Clone, PartialEq)]
pub enum Transmission {
    /// A hinge or slide joint: its DoF.
    Joint {
        /// The DoF.
        dof: usize,
    },
    /// A fixed tendon (motors only): its index in [`Model::tendons`]; the force pushes along
    /// the tendon's coefficients.
    Tendon {
        /// The tendon's index.
        index: usize,
    },
}

/// One actuator on a hinge or slide joint, or (a motor) on a fixed tendon.
#[derive(Debug, Clone, PartialEq)]
pub struct Actuator {
    /// Its name, if any.
    pub name: Option<String>,
    /// The name of the joint or tendon it drives.
    pub target: String,
    /// What it drives.
    pub transmission: Transmission,
    /// Its kind and gains.
    pub kind: ActuatorKind,
    /// Transmission ratio (`gear[0]`).
    pub gear: f64,
    /// Control range, if limited (controls are clamped into it).
    pub ctrlrange: Option<(f64, f64)>,
    /// Force range, if limited (motor forces are clamped into it).
    pub forcerange: Option<(f64, f64)>,
}

/// One geom and where it went.
#[derive(Debug, Clone, PartialEq)]
pub struct MjcfGeom {
    /// Its name, if any.
    pub name: Option<String>,
    /// The link it belongs to (`None` for worldbody geoms when no `world` link was made).
    pub link: Option<usize>,
    /// Its hull's index in the link's hulls (`None` for visual-only geoms and dropped planes).
    pub hull: Option<usize>,
    /// MuJoCo's `contype` bits.
    pub contype: u32,
    /// MuJoCo's `conaffinity` bits.
    pub conaffinity: u32,
}

/// An imported MJCF model.
#[derive(Debug, Clone)]
pub struct MjcfModel {
    /// The `<mujoco model>` name.
    pub name: String,
    /// The articulated model.
    pub model: Model,
    /// The joints, in MuJoCo order.
    pub joints: Vec<MjcfJoint>,
    /// The actuators, in MuJoCo order (the order of `ctrl`).
    pub actuators: Vec<Actuator>,
    /// The geoms, in MuJoCo order.
    pub geoms: Vec<MjcfGeom>,
    /// Per MuJoCo body (0 is the world): its name, its link (`None` for the world without
    /// geoms) and the body frame in that link's frame.
    pub body_offsets: Vec<(String, Option<usize>, Isometry3<f64>)>,
    /// Link pairs excluded from contact by `<contact><exclude>` (already excluded in `model`).
    pub excluded: Vec<(usize, usize)>,
    /// `option gravity` (m/s²; zero when `<option><flag gravity="disable"/>`).
    pub gravity: Vector3<f64>,
    /// `option timestep` (s).
    pub timestep: f64,
    /// MuJoCo's `qpos0`.
    pub qpos0: DVector<f64>,
    /// Per link, its initial reference rotation (free and ball joints).
    initial_references: Vec<UnitQuaternion<f64>>,
    /// Per free joint, the attachment translation subtracted from `qpos[0:3]`.
    free_origins: Vec<Vector3<f64>>,
}

/// Reads the MJCF file at `path` with the files it includes; included files and meshes are
/// resolved against its directory.
pub fn load_mjcf(path: impl AsRef<Path>, options: &MjcfOptions) -> Result<MjcfModel> {
    let path = path.as_ref();
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| DynamicsError::Mjcf {
        file: file.clone(),
        line: None,
        element: "file".into(),
        message: e.to_string(),
    })?;
    let base = path.parent().unwrap_or(Path::new("."));
    build::import(&text, (&file, Some(path)), base, options)
}

/// Parses MJCF text; mesh files are resolved against `base_dir` (and `<compiler meshdir>`),
/// and so are included files.
pub fn mjcf_from_str(text: &str, base_dir: &Path, options: &MjcfOptions) -> Result<MjcfModel> {
    build::import(text, ("<string>", None), base_dir, options)
}

fn mapping_error(message: String) -> DynamicsError {
    DynamicsError::Mjcf {
        file: "<model>".into(),
        line: None,
        element: "qpos/ctrl".into(),
        message,
    }
}

fn check_slice(what: &str, v: &[f64], expected: usize) -> Result<()> {
    if v.len() != expected {
        return Err(mapping_error(format!(
            "{what} has {} entries, the model needs {expected}",
            v.len()
        )));
    }
    if let Some(i) = v.iter().position(|x| !x.is_finite()) {
        return Err(mapping_error(format!("{what}[{i}] is not finite")));
    }
    Ok(())
}

impl MjcfModel {
    /// MuJoCo's `nq`.
    pub fn nq(&self) -> usize {
        self.qpos0.len()
    }

    /// The state at `qpos0` (the XML's pose).
    pub fn initial_state(&self) -> State {
        State {
            q: DVector::zeros(self.model.dof()),
            references: self.initial_references.clone(),
        }
    }

    /// The sdrs state of a MuJoCo `qpos`: hinge and slide coordinates `qpos − ref`, free
    /// translations relative to the body's initial position, ball and free orientations in the
    /// references (quaternions normalised) with zero rotation coordinates. MuJoCo's `qvel` is
    /// then the state's `q̇` as it is.
    pub fn state_from_qpos(&self, qpos: &[f64]) -> Result<State> {
        check_slice("qpos", qpos, self.nq())?;
        let mut state = self.initial_state();
        let mut free = self.free_origins.iter();
        for j in &self.joints {
            let a = j.qpos_address;
            match j.kind {
                MjcfJointKind::Hinge | MjcfJointKind::Slide => {
                    state.q[j.dof] = qpos[a] - j.reference;
                }
                MjcfJointKind::Ball | MjcfJointKind::Free => {
                    let at = if j.kind == MjcfJointKind::Free {
                        a + 3
                    } else {
                        a
                    };
                    let q = Quaternion::new(qpos[at], qpos[at + 1], qpos[at + 2], qpos[at + 3]);
                    if !(q.norm() > 1e-12) {
                        return Err(mapping_error(format!(
                            "qpos[{at}..{}] is a zero quaternion",
                            at + 4
                        )));
                    }
                    state.references[j.link] = UnitQuaternion::from_quaternion(q);
                    if j.kind == MjcfJointKind::Free {
                        let origin = free.next().copied().unwrap_or_default();
                        for k in 0..3 {
                            state.q[j.dof + k] = qpos[a + k] - origin[k];
                        }
                    }
                }
            }
        }
        Ok(state)
    }

    /// MuJoCo's `qpos` of an sdrs state (rotation coordinates folded into the quaternions).
    pub fn qpos(&self, state: &State) -> Result<DVector<f64>> {
        crate::error::check_vector("state", &state.q, self.model.dof())?;
        if state.references.len() != self.model.links().len() {
            return Err(DynamicsError::LengthMismatch {
                what: "state references",
                actual: state.references.len(),
                expected: self.model.links().len(),
            });
        }
        let state = state.recentred(&self.model);
        let mut qpos = DVector::zeros(self.nq());
        let mut free = self.free_origins.iter();
        for j in &self.joints {
            let a = j.qpos_address;
            match j.kind {
                MjcfJointKind::Hinge | MjcfJointKind::Slide => {
                    qpos[a] = state.q[j.dof] + j.reference;
                }
                MjcfJointKind::Ball | MjcfJointKind::Free => {
                    let at = if j.kind == MjcfJointKind::Free {
                        let origin = free.next().copied().unwrap_or_default();
                        for k in 0..3 {
                            qpos[a + k] = state.q[j.dof + k] + origin[k];
                        }
                        a + 3
                    } else {
                        a
                    };
                    let r = state.references[j.link];
                    qpos[at] = r.w;
                    qpos[at + 1] = r.i;
                    qpos[at + 2] = r.j;
                    qpos[at + 3] = r.k;
                }
            }
        }
        Ok(qpos)
    }

    /// Stable-PD control for the controls `ctrl` (one per actuator, clamped into
    /// `ctrlrange`): the position and velocity servos plus the joints' springs
    /// (`stiffness` about `springref`) and dampers (`damping`), i.e. what MuJoCo applies
    /// besides motors and armature. Terms on one DoF are combined exactly (the sum of two
    /// springs is one spring at the weighted target, up to a constant energy). Motors add
    /// nothing here: see [`MjcfModel::motor_forces`].
    /// Stiffnesses and dampings are MuJoCo's own (N·m/rad, N·m·s/rad; N/m, N·s/m on slides),
    /// which is what [`Control`] holds.
    pub fn control(&self, ctrl: &[f64]) -> Result<Control> {
        self.pd(ctrl, true)
    }

    /// The control of a step for MuJoCo's `ctrl` (one per actuator, in
    /// the file's order; `None`: all 0): [`MjcfModel::control`] (servos, springs, dampers)
    /// with the motors' [`MjcfModel::motor_forces`] as its generalized force. What a scene
    /// applies for a robot's `ctrl`; [`Control::write_at`] puts it at a robot's coordinates
    /// in a world. A count other than the actuators' is refused, naming them.
    pub fn step_control(&self, ctrl: Option<&[f64]>) -> Result<Control> {
        let zeros = vec![0.0; self.actuators.len()];
        let ctrl = ctrl.unwrap_or(&zeros);
        if ctrl.len() != self.actuators.len() {
            return Err(DynamicsError::ActuatorCount {
                given: ctrl.len(),
                actuators: self.actuators.iter().map(Actuator::label).collect(),
            });
        }
        let mut control = self.control(ctrl)?;
        control.force = self.motor_forces(ctrl)?;
        Ok(control)
    }

    /// As [`MjcfModel::control`], without the joints' springs and dampers.
    pub fn actuator_control(&self, ctrl: &[f64]) -> Result<Control> {
        self.pd(ctrl, false)
    }

    fn pd(&self, ctrl: &[f64], passive: bool) -> Result<Control> {
        check_slice("ctrl", ctrl, self.actuators.len())?;
        let n = self.model.dof();
        // Springs k(θ* − θ) and dampers c(θ̇* − θ̇) in force units, summed as k, kθ*, c, cθ̇*.
        let (mut k, mut kt, mut c, mut cv) = (
            DVector::<f64>::zeros(n),
            DVector::<f64>::zeros(n),
            DVector::<f64>::zeros(n),
            DVector::<f64>::zeros(n),
        );
        for (a, &u) in self.actuators.iter().zip(ctrl) {
            // Servos act on joints only (the importer refuses them on tendons).
            let Transmission::Joint { dof } = a.transmission else {
                continue;
            };
            let u = clamp(u, a.ctrlrange);
            let g = a.gear;
            let reference = self.joint_reference(dof);
            match a.kind {
                ActuatorKind::Motor => {}
                ActuatorKind::Position { kp, kv } => {
                    if g != 0.0 {
                        k[dof] += kp * g * g;
                        kt[dof] += kp * g * g * (u / g - reference);
                    }
                    c[dof] += kv * g * g;
                }
                ActuatorKind::Velocity { kv } => {
                    c[dof] += kv * g * g;
                    cv[dof] += kv * g * u;
                }
            }
        }
        if passive {
            for j in &self.joints {
                if matches!(j.kind, MjcfJointKind::Hinge | MjcfJointKind::Slide) {
                    k[j.dof] += j.stiffness;
                    kt[j.dof] += j.stiffness * (j.springref - j.reference);
                    c[j.dof] += j.damping;
                }
            }
        }
        let mut control = Control::passive(&self.model);
        for i in 0..n {
            if k[i] != 0.0 {
                control.kp[i] = k[i];
                control.position[i] = kt[i] / k[i];
            }
            if c[i] != 0.0 {
                control.kd[i] = c[i];
                control.velocity[i] = cv[i] / c[i];
            }
        }
        Ok(control)
    }

    fn joint_reference(&self, dof: usize) -> f64 {
        self.joints
            .iter()
            .find(|j| j.dof == dof)
            .map_or(0.0, |j| j.reference)
    }

    /// Generalized forces of the motors for the controls `ctrl` (clamped into `ctrlrange`,
    /// forces into `forcerange`): `gear · ctrl` on each motor's DoF, or along its tendon's
    /// coefficients (`c · gear · ctrl`), for [`JointForces`].
    pub fn motor_forces(&self, ctrl: &[f64]) -> Result<DVector<f64>> {
        check_slice("ctrl", ctrl, self.actuators.len())?;
        let mut tau = DVector::zeros(self.model.dof());
        for (a, &u) in self.actuators.iter().zip(ctrl) {
            if a.kind != ActuatorKind::Motor {
                continue;
            }
            let force = a.gear * clamp(clamp(u, a.ctrlrange), a.forcerange);
            match a.transmission {
                Transmission::Joint { dof } => tau[dof] += force,
                Transmission::Tendon { index } => {
                    for &(link, c) in &self.model.tendons()[index].joints {
                        tau[self.model.dof_offset(link)] += c * force;
                    }
                }
            }
        }
        Ok(tau)
    }

    /// The body named `name`: its link and the body frame in the link's frame.
    pub fn body(&self, name: &str) -> Result<(usize, Isometry3<f64>)> {
        self.body_offsets
            .iter()
            .find_map(|(n, link, offset)| (n == name).then_some((*link, *offset)))
            .and_then(|(link, offset)| link.map(|l| (l, offset)))
            .ok_or_else(|| DynamicsError::UnknownName {
                kind: "body",
                name: name.to_string(),
                known: self
                    .body_offsets
                    .iter()
                    .take(12)
                    .map(|b| b.0.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

impl Actuator {
    /// `NAME on JOINT` (`NAME on tendon TENDON` for a tendon, `(unnamed) on ...` without a
    /// name), as listings show it.
    pub fn label(&self) -> String {
        let tendon = match self.transmission {
            Transmission::Joint { .. } => "",
            Transmission::Tendon { .. } => "tendon ",
        };
        format!(
            "{} on {tendon}{}",
            self.name.as_deref().unwrap_or("(unnamed)"),
            self.target
        )
    }
}

fn clamp(u: f64, range: Option<(f64, f64)>) -> f64 {
    match range {
        Some((lo, hi)) => u.clamp(lo.min(hi), hi.max(lo)),
        None => u,
    }
}

/// Constant generalized forces `τ` as a user energy `−τ·q` (the way in for MuJoCo motors,
/// [`MjcfModel::motor_forces`]): add it to [`crate::StepSettings::external`].
#[derive(Debug, Clone, PartialEq)]
pub struct JointForces {
    forces: DVector<f64>,
}

impl JointForces {
    /// Forces `tau` (one per DoF of `model`, finite).
    pub fn new(model: &Model, tau: DVector<f64>) -> Result<Self> {
        crate::error::check_vector("joint forces", &tau, model.dof())?;
        Ok(Self { forces: tau })
    }

    /// The forces.
    pub fn forces(&self) -> &DVector<f64> {
        &self.forces
    }
}

impl ExternalEnergy for JointForces {
    fn add(
        &self,
        _model: &Model,
        _kinematics: &Kinematics,
        state: &State,
        gradient: &mut DVector<f64>,
        _hessian: Option<&mut DMatrix<f64>>,
    ) -> f64 {
        if self.forces.len() != gradient.len() || self.forces.len() != state.q.len() {
            // Built for another model: forbid every state, so the step reports it.
            return f64::INFINITY;
        }
        *gradient -= &self.forces;
        -self.forces.dot(&state.q)
    }
}
