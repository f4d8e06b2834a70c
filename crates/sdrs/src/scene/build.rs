//! Building a scene's world: settings, contact, robots and objects into a model, a simulator,
//! a start motion and a control.

use super::Scene;
use super::description::{
    ContactModelName, FarFieldName, JointControlDescription, ObjectDescription, PoseDescription,
    RobotDescription, SceneDescription, ShapeDescription,
};
use super::error::{KeyPath, Result};
use crate::{RobotHandle, World};
use nalgebra::{Isometry3, Quaternion, Translation3, UnitQuaternion, Vector3};
use sdrs_contact::PlaneBarrier;
use sdrs_contact::ipc::potential::Ipc;
use sdrs_contact::long_range::{FarField, LongRange};
use sdrs_dynamics::{
    ContactKind, ContactSettings, Control, DynamicsError, Gain, JointKind, Link, LinkId, MassModel,
    MjcfModel, MjcfOptions, Model, Motion, Simulator, Srdf, State, StepSettings, UrdfOptions,
    load_mjcf, load_urdf,
};
use sdrs_geometry::{ConvexHull, GeometryError, TriMesh};
use std::path::Path;

/// Segments around a capsule, and rings per hemisphere.
const CAPSULE_SEGMENTS: usize = 16;
const CAPSULE_RINGS: usize = 4;

/// A built scene: everything needed to run it.
#[derive(Debug)]
pub struct SceneSetup {
    /// The world's model: the ground (if any), then each robot's links, then each object.
    pub model: Model,
    /// A simulator with the scene's settings.
    pub simulator: Simulator,
    /// The start: robots in their start configurations, objects at their poses with their
    /// start velocities.
    pub motion: Motion,
    /// The control of every step: the robots' PD gains, targets and joint forces.
    pub control: Control,
    /// The number of steps the scene asks for, if it does.
    pub steps: Option<usize>,
    /// Each robot's links and coordinates in [`SceneSetup::model`], in the scene's order.
    pub robots: Vec<RobotHandle>,
    /// Each robot's MJCF file (`None` for a URDF robot), in the scene's order: a new `ctrl`
    /// for robot `i` is `mjcf[i].step_control(ctrl)` written at `robots[i].dofs().start`
    /// ([`Control::write_at`]).
    pub mjcf: Vec<Option<MjcfModel>>,
    /// Each object's link in [`SceneSetup::model`], in the scene's order.
    pub object_links: Vec<LinkId>,
    /// What the build skipped and why, one message each: a robot's SRDF group-state entries
    /// naming joints its model does not have or fixes (`srdf::SrdfWarning`).
    pub warnings: Vec<String>,
}

/// A robot read from its URDF (and SRDF) or MJCF file, in its own model, with its start
/// configuration.
struct LoadedRobot {
    model: Model,
    srdf: Option<Srdf>,
    start: State,
    mjcf: Option<MjcfRobot>,
    /// The group-state entries skipped, as messages.
    warnings: Vec<String>,
}

/// An MJCF robot's file and what it applies to the joints (its actuators under the scene's
/// `ctrl`, its hinge and slide joints' springs and dampers), before the scene's `control`
/// entries.
struct MjcfRobot {
    file: MjcfModel,
    control: Control,
}

pub(super) fn build(scene: &Scene) -> Result<SceneSetup> {
    let d = &scene.description;
    let origin = &scene.origin;
    let mut world = World::new(d.dt).map_err(|e| origin.error(&KeyPath::root("dt"), e))?;
    apply_settings(scene, world.settings_mut())?;
    world = apply_contact(scene, world)?;
    if d.ground {
        world = world.with_ground();
    }
    let limit_support = world.settings_mut().limit_support;
    let mut robots = Vec::new();
    for (i, description) in d.robots.iter().enumerate() {
        let robot = load_robot(scene, i, description, limit_support)?;
        let base = pose(
            scene,
            &KeyPath::entry("robot", i).key("base"),
            &description.base,
        )?;
        let prefix = description.prefix.as_deref().unwrap_or("");
        let handle = world.add_model_as(prefix, &robot.model, base);
        robots.push((handle, robot));
    }
    let mut objects = Vec::new();
    for (i, object) in d.objects.iter().enumerate() {
        let link = object_link(scene, i, object)?;
        objects.push(world.add_robot(vec![link], Isometry3::identity()).root());
    }
    let (model, simulator) = world
        .build_with(|model, _| exclude_srdf_pairs(model, d, &robots))
        .map_err(|e| origin.error(&KeyPath::default(), e))?;

    let mut state = model.neutral(limit_support);
    let mut control = Control::passive(&model);
    for (i, (handle, robot)) in robots.iter().enumerate() {
        let offset = handle.dofs().start;
        let n = robot.model.dof();
        state.q.rows_mut(offset, n).copy_from(&robot.start.q);
        state.references[handle.link_range()].copy_from_slice(&robot.start.references);
        set_control(scene, i, robot, offset, &mut control)?;
    }
    let mut motion = Motion::at_rest(&model, state);
    for (i, (&link, object)) in objects.iter().zip(&d.objects).enumerate() {
        let key = KeyPath::entry("object", i);
        let v = finite_vector(scene, &key.key("velocity"), &object.velocity)?;
        let w = finite_vector(
            scene,
            &key.key("angular_velocity"),
            &object.angular_velocity,
        )?;
        motion = motion
            .with_body_velocity(&model, link, v, w, d.dt)
            .map_err(|e| origin.error(&key.key("velocity"), e))?;
    }
    let warnings = robots
        .iter()
        .flat_map(|(_, robot)| robot.warnings.iter().cloned())
        .collect();
    let (handles, mjcf) = robots
        .into_iter()
        .map(|(handle, robot)| (handle, robot.mjcf.map(|m| m.file)))
        .unzip();
    Ok(SceneSetup {
        model,
        simulator,
        motion,
        control,
        steps: d.steps,
        robots: handles,
        mjcf,
        object_links: objects,
        warnings,
    })
}

/// Gravity and the solver settings.
fn apply_settings(scene: &Scene, settings: &mut StepSettings) -> Result<()> {
    let d = &scene.description;
    settings.gravity = d.gravity;
    if let Some(t) = d.solver.tolerance {
        settings.tolerance = t;
    }
    if let Some(n) = d.solver.max_iterations {
        settings.max_iterations = n;
    }
    if let Some(f) = d.solver.eigenvalue_floor {
        settings.eigenvalue_floor = f;
    }
    if let Some(start) = d.solver.start {
        settings.start = start;
    }
    if let Some(damped) = d.solver.damped_round {
        settings.damped_round = damped;
    }
    settings.check().map_err(|e| {
        let key = match &e {
            DynamicsError::InvalidSetting {
                name: "gravity", ..
            } => KeyPath::root("gravity"),
            DynamicsError::InvalidSetting { name, .. } => KeyPath::root("solver").key(name),
            _ => KeyPath::root("solver"),
        };
        scene.origin.error(&key, e)
    })
}

/// The contact model and its settings.
fn apply_contact(scene: &Scene, mut world: World) -> Result<World> {
    let contact = &scene.description.contact;
    let model = contact.model.as_str();
    let key = KeyPath::root("contact");
    let error = |field: &str, message: String| scene.origin.error(&key.key(field), message);
    let required = |field: &str, value: Option<f64>| {
        value.ok_or_else(|| error(field, format!("contact model \"{model}\" needs `{field}`")))
    };
    let allowed: &[&str] = match contact.model {
        ContactModelName::Hulls | ContactModelName::Ipc => &["support", "stiffness", "friction"],
        ContactModelName::LongRange => &["epsilon", "stiffness", "friction"],
        ContactModelName::None => &[],
    };
    let given = [
        ("support", contact.support),
        ("epsilon", contact.epsilon),
        ("stiffness", contact.stiffness),
        ("friction", contact.friction),
    ];
    if contact.far_field.is_some() && contact.model != ContactModelName::LongRange {
        return Err(error(
            "far_field",
            format!("contact model \"{model}\" takes no `far_field` (only \"long_range\" does)"),
        ));
    }
    for (name, value) in given {
        if value.is_some() && !allowed.contains(&name) {
            return Err(error(
                name,
                format!(
                    "contact model \"{model}\" takes no `{name}` (allowed with it: model{})",
                    allowed.iter().map(|a| format!(", {a}")).collect::<String>()
                ),
            ));
        }
    }
    let kind = match contact.model {
        ContactModelName::None => {
            world.set_contact(None);
            return Ok(world);
        }
        // World's defaults, which adapt to the thinnest body.
        ContactModelName::Hulls if contact.support.is_none() && contact.stiffness.is_none() => None,
        ContactModelName::Hulls => {
            let s = contact.support.unwrap_or(ContactSettings::DEFAULT_SUPPORT);
            let barrier = PlaneBarrier::new(s).map_err(|e| error("support", e.to_string()))?;
            let stiffness = contact
                .stiffness
                .unwrap_or(ContactSettings::DEFAULT_FORCE_SCALE * s * s);
            Some((ContactKind::Hulls(barrier), stiffness))
        }
        ContactModelName::LongRange => {
            let epsilon = required("epsilon", contact.epsilon)?;
            let far_field = match contact.far_field.unwrap_or_default() {
                FarFieldName::Centred => FarField::Centred,
                FarFieldName::Counted => FarField::Counted,
            };
            let potential = LongRange::new(epsilon)
                .map_err(|e| error("epsilon", e.to_string()))?
                .with_far_field(far_field);
            Some((
                ContactKind::LongRange(potential),
                required("stiffness", contact.stiffness)?,
            ))
        }
        ContactModelName::Ipc => {
            let dhat = required("support", contact.support)?;
            let potential = Ipc::new(dhat).map_err(|e| error("support", e.to_string()))?;
            Some((
                ContactKind::Ipc(potential),
                required("stiffness", contact.stiffness)?,
            ))
        }
    };
    if let Some((kind, stiffness)) = kind {
        let settings =
            ContactSettings::new(kind, stiffness).map_err(|e| error("stiffness", e.to_string()))?;
        world.set_contact(Some(settings));
    }
    if let Some(mu) = contact.friction {
        world = world
            .with_friction(mu)
            .map_err(|e| error("friction", e.to_string()))?;
    }
    Ok(world)
}

/// A pose's isometry.
fn pose(scene: &Scene, key: &KeyPath, p: &PoseDescription) -> Result<Isometry3<f64>> {
    let xyz = finite_vector(scene, &key.key("xyz"), &p.xyz)?;
    let rotation = match (p.rpy, p.quaternion) {
        (Some(_), Some(_)) => {
            return Err(scene.origin.error(
                &key.key("quaternion"),
                "give the rotation as rpy or as quaternion, not both",
            ));
        }
        (Some(rpy), None) => {
            let r = finite_vector(scene, &key.key("rpy"), &rpy)?;
            UnitQuaternion::from_euler_angles(r.x, r.y, r.z)
        }
        (None, Some([w, x, y, z])) => {
            let q = Quaternion::new(w, x, y, z);
            let norm = q.norm();
            if !(norm.is_finite() && norm > 0.0) {
                return Err(scene.origin.error(
                    &key.key("quaternion"),
                    format!(
                        "[{w}, {x}, {y}, {z}] is not a rotation (finite, non-zero [w, x, y, z])"
                    ),
                ));
            }
            UnitQuaternion::from_quaternion(q)
        }
        (None, None) => UnitQuaternion::identity(),
    };
    Ok(Isometry3::from_parts(Translation3::from(xyz), rotation))
}

/// A vector of three finite numbers.
fn finite_vector(scene: &Scene, key: &KeyPath, v: &[f64; 3]) -> Result<Vector3<f64>> {
    if v.iter().all(|x| x.is_finite()) {
        Ok(Vector3::from(*v))
    } else {
        Err(scene
            .origin
            .error(key, format!("{v:?} is not allowed (three finite numbers)")))
    }
}

/// A finite number.
fn finite(scene: &Scene, key: &KeyPath, value: f64) -> Result<f64> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(scene
            .origin
            .error(key, format!("{value} is not allowed (a finite number)")))
    }
}

/// Robot `i` read from its files, in its start configuration.
fn load_robot(
    scene: &Scene,
    i: usize,
    robot: &RobotDescription,
    limit_support: f64,
) -> Result<LoadedRobot> {
    let key = KeyPath::entry("robot", i);
    let fail = |field: &str, e: DynamicsError| scene.origin.error(&key.key(field), e);
    let (model, srdf, mut start, mjcf) = match (&robot.urdf, &robot.mjcf) {
        (Some(urdf), None) => load_urdf_robot(scene, &key, robot, urdf, limit_support)?,
        (None, Some(mjcf)) => load_mjcf_robot(scene, &key, robot, mjcf, limit_support)?,
        (urdf, _) => {
            return Err(scene.origin.error(
                &key,
                if urdf.is_some() {
                    "give either `urdf` or `mjcf`, not both"
                } else {
                    "needs its file: `urdf = \"...\"` or `mjcf = \"...\"`"
                },
            ));
        }
    };

    let mut warnings = Vec::new();
    if let Some(name) = &robot.group_state {
        let Some(srdf) = &srdf else {
            return Err(scene.origin.error(
                &key.key("group_state"),
                "a group state needs the robot's `srdf`",
            ));
        };
        let configured = srdf
            .configuration(&model, name, &start)
            .map_err(|e| fail("group_state", e))?;
        start = configured.state;
        warnings.extend(
            configured
                .skipped
                .iter()
                .map(|w| format!("{}: {w}", key.key("group_state"))),
        );
    }
    for (joint, &value) in &robot.start {
        let joint_key = key.key("start").key(joint);
        let dof = single_dof(scene, &joint_key, &model, joint)?;
        start.q[dof] = finite(scene, &joint_key, value)?;
    }
    let start_key = if robot.start.is_empty() && robot.group_state.is_some() {
        key.key("group_state")
    } else {
        key.key("start")
    };
    model
        .check_limits(&start)
        .map_err(|e| scene.origin.error(&start_key, e))?;
    Ok(LoadedRobot {
        model,
        srdf,
        start,
        mjcf,
        warnings,
    })
}

/// A robot's model, SRDF, start and, for an MJCF robot, its file and the control it applies.
type RobotParts = (Model, Option<Srdf>, State, Option<MjcfRobot>);

/// A robot's model from its URDF `urdf` (with the robot's SRDF, if any) and its neutral
/// start.
fn load_urdf_robot(
    scene: &Scene,
    key: &KeyPath,
    robot: &RobotDescription,
    urdf: &Path,
    limit_support: f64,
) -> Result<RobotParts> {
    if robot.ctrl.is_some() {
        return Err(scene.origin.error(
            &key.key("ctrl"),
            "applies to an MJCF robot only (a URDF declares no actuators: use `control`)",
        ));
    }
    let fail = |field: &str, e: DynamicsError| scene.origin.error(&key.key(field), e);
    let srdf = match &robot.srdf {
        Some(path) => {
            let file = scene.resolve(&key.key("srdf"), path)?;
            Some(Srdf::from_file(file).map_err(|e| fail("srdf", e))?)
        }
        None => None,
    };
    let floating_base = robot
        .floating_base
        .or_else(|| srdf.as_ref().and_then(Srdf::floating_base))
        .unwrap_or(false);
    let options = UrdfOptions {
        package_paths: scene.package_folders(),
        floating_base,
        joint_friction: robot.joint_friction.unwrap_or(false),
        ..UrdfOptions::default()
    };
    let file = scene.resolve(&key.key("urdf"), urdf)?;
    let model = load_urdf(file, &options).map_err(|e| fail("urdf", e))?;
    let start = model.neutral(limit_support);
    Ok((model, srdf, start, None))
}

/// A robot's model from its MJCF file `mjcf` (worldbody planes left out: the scene has its
/// own ground), its start at `qpos0` and the control of its actuators under the robot's
/// `ctrl` with its joints' springs and dampers.
fn load_mjcf_robot(
    scene: &Scene,
    key: &KeyPath,
    robot: &RobotDescription,
    mjcf: &Path,
    limit_support: f64,
) -> Result<RobotParts> {
    for (field, given) in [
        ("srdf", robot.srdf.is_some()),
        ("floating_base", robot.floating_base.is_some()),
        ("joint_friction", robot.joint_friction.is_some()),
    ] {
        if given {
            return Err(scene.origin.error(
                &key.key(field),
                "applies to a URDF robot only (an MJCF file declares its own joints)",
            ));
        }
    }
    let options = MjcfOptions {
        floor: None,
        ..MjcfOptions::default()
    };
    let file = scene.resolve(&key.key("mjcf"), mjcf)?;
    let loaded = load_mjcf(file, &options).map_err(|e| scene.origin.error(&key.key("mjcf"), e))?;
    // MuJoCo's qpos0 may sit on a joint's limit (the hopper's thigh); the limit barrier needs
    // it just inside, as a URDF robot's neutral state is.
    let mut start = loaded.initial_state();
    loaded.model.clamp_inside_limits(&mut start, limit_support);
    // Its servos and its hinge and slide joints' springs and dampers as stable PD (MuJoCo's
    // gains are SI, as `Control`'s), its motors as joint forces, under `ctrl` (all 0 when absent).
    let control = loaded
        .step_control(robot.ctrl.as_deref())
        .map_err(|e| scene.origin.error(&key.key("ctrl"), e))?;
    let model = loaded.model.clone();
    let mjcf = MjcfRobot {
        file: loaded,
        control,
    };
    Ok((model, None, start, Some(mjcf)))
}

/// The DoF of the 1-DoF joint `joint` of `model`.
fn single_dof(scene: &Scene, key: &KeyPath, model: &Model, joint: &str) -> Result<usize> {
    let link = model
        .joint_link(joint)
        .map_err(|e| scene.origin.error(key, e))?;
    let dofs = model.links()[link].joint.dof();
    if dofs != 1 {
        return Err(scene.origin.error(
            key,
            format!("joint '{joint}' has {dofs} DoFs; only 1-DoF joints are set by name"),
        ));
    }
    Ok(model.dof_offset(link))
}

/// Leaves each robot's SRDF-disabled pairs out of contact (pairs naming links the robot does
/// not have are skipped, as [`Srdf::apply`] does).
fn exclude_srdf_pairs(
    model: &mut Model,
    d: &SceneDescription,
    robots: &[(RobotHandle, LoadedRobot)],
) -> sdrs_dynamics::Result<()> {
    for ((_, robot), description) in robots.iter().zip(&d.robots) {
        let Some(srdf) = &robot.srdf else { continue };
        let mut prefixed = srdf.clone();
        let prefix = description.prefix.as_deref().unwrap_or("");
        for pair in &mut prefixed.disabled {
            pair.link1 = format!("{prefix}{}", pair.link1);
            pair.link2 = format!("{prefix}{}", pair.link2);
        }
        prefixed.apply(model)?;
    }
    Ok(())
}

/// Robot `i`'s joint controls, written into `control` at the robot's DoFs (from `offset`).
fn set_control(
    scene: &Scene,
    i: usize,
    robot: &LoadedRobot,
    offset: usize,
    control: &mut Control,
) -> Result<()> {
    let description = &scene.description.robots[i];
    let key = KeyPath::entry("robot", i).key("control");
    if let Some(own) = &robot.mjcf {
        control
            .write_at(offset, &own.control)
            .map_err(|e| scene.origin.error(&key, e))?;
    }
    let mut entries: Vec<(KeyPath, usize, &JointControlDescription)> = Vec::new();
    for (joint, c) in &description.control {
        if joint != "*" {
            let dof = single_dof(scene, &key.key(joint), &robot.model, joint)?;
            entries.push((key.key(joint), dof, c));
        }
    }
    if let Some(every) = description.control.get("*") {
        let model = &robot.model;
        for (link, l) in model.links().iter().enumerate() {
            let dof = model.dof_offset(link);
            if l.joint.dof() == 1 && !entries.iter().any(|(_, d, _)| *d == dof) {
                entries.push((key.key("*"), dof, every));
            }
        }
    }
    for (joint_key, dof, c) in entries {
        let target = c.target.unwrap_or(robot.start.q[dof]);
        let j = offset + dof;
        for (gain, value) in [(Gain::Stiffness, c.kp), (Gain::Damping, c.kd)] {
            gain.check(j, value)
                .map_err(|e| scene.origin.error(&joint_key.key(gain.key()), e))?;
        }
        for (field, value) in [
            ("target", target),
            ("velocity", c.velocity),
            ("force", c.force),
        ] {
            finite(scene, &joint_key.key(field), value)?;
        }
        control.kp[j] = c.kp;
        control.kd[j] = c.kd;
        control.position[j] = target;
        control.velocity[j] = c.velocity;
        control.force[j] = c.force;
    }
    Ok(())
}

/// Object `i` as a free link at its pose.
fn object_link(scene: &Scene, i: usize, object: &ObjectDescription) -> Result<Link> {
    let key = KeyPath::entry("object", i);
    let shape_key = key.key("shape");
    // A refused dimension is reported at its own key.
    let geometry = |e: GeometryError| {
        let field = match &e {
            GeometryError::InvalidParameter { name, .. } => match *name {
                "radius" | "half_height" => Some(*name),
                "level" => Some("subdivisions"),
                name if name.starts_with("half_extent") => Some("half_extents"),
                _ => None,
            },
            _ => None,
        };
        let key = field.map_or_else(|| shape_key.clone(), |f| shape_key.key(f));
        scene.origin.error(&key, e)
    };
    let (mesh, hulls) = match &object.shape {
        ShapeDescription::Box { half_extents } => {
            let half = Vector3::from(*half_extents);
            let mesh = TriMesh::cuboid(half).map_err(geometry)?;
            (mesh, vec![ConvexHull::cuboid(half).map_err(geometry)?])
        }
        ShapeDescription::Sphere {
            radius,
            subdivisions,
        } => single_hull(TriMesh::icosphere(*radius, *subdivisions)).map_err(geometry)?,
        ShapeDescription::Capsule {
            radius,
            half_height,
        } => single_hull(TriMesh::capsule(
            *radius,
            *half_height,
            CAPSULE_SEGMENTS,
            CAPSULE_RINGS,
        ))
        .map_err(geometry)?,
        ShapeDescription::Mesh { path, scale } => {
            let file = scene.resolve(&shape_key.key("path"), path)?;
            let read = TriMesh::from_file(&file).map_err(geometry)?;
            let s = Vector3::from(*scale);
            let mesh = TriMesh::new(
                read.vertices()
                    .iter()
                    .map(|p| p.coords.component_mul(&s).into())
                    .collect(),
                read.triangles().to_vec(),
            )
            .map_err(|e| scene.origin.error(&shape_key.key("scale"), e))?;
            let hulls = mesh
                .convex_decomposition(&UrdfOptions::default().decomposition)
                .map_err(geometry)?;
            (mesh, hulls)
        }
    };
    let mass = match (object.mass, object.density) {
        (Some(_), Some(_)) => {
            return Err(scene.origin.error(
                &key.key("density"),
                "give the object's mass or its density, not both",
            ));
        }
        (None, None) => {
            return Err(scene
                .origin
                .error(&key, "an object needs `mass` (kg) or `density` (kg/m³)"));
        }
        (Some(mass), None) => MassModel::Lumped {
            mass: positive(scene, &key.key("mass"), mass, "kg")?,
        },
        (None, Some(density)) => MassModel::Solid {
            density: positive(scene, &key.key("density"), density, "kg/m³")?,
        },
    };
    let pose = pose(scene, &key.key("pose"), &object.pose)?;
    Ok(Link::new(&object.name, None, pose, JointKind::Free, hulls, mass).with_mesh(mesh))
}

/// A mesh and its convex hull.
fn single_hull(
    mesh: sdrs_geometry::Result<TriMesh>,
) -> sdrs_geometry::Result<(TriMesh, Vec<ConvexHull>)> {
    let mesh = mesh?;
    let hull = ConvexHull::new(mesh.vertices().to_vec())?;
    Ok((mesh, vec![hull]))
}

/// A positive, finite number.
fn positive(scene: &Scene, key: &KeyPath, value: f64, unit: &str) -> Result<f64> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(scene.origin.error(
            key,
            format!("{value} is not allowed (positive and finite, {unit})"),
        ))
    }
}
