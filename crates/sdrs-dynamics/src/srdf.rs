//! SRDF import: the collision pairs a robot's authors disabled and its named configurations.
//!
//! An SRDF (Semantic Robot Description Format, from MoveIt) sits beside a URDF. What matters
//! for simulation is read:
//!
//! - `<disable_collisions link1 link2 reason>`: pairs of links left out of contact (adjacent
//!   links, links that touch by design, links that can never meet). [`Srdf::apply`] calls
//!   [`Model::exclude_pair`] for each. SRDFs are often written for a fuller URDF than the one
//!   loaded (a robot without its gripper, a reduced humanoid), so pairs that name a link the
//!   model does not have are **not an error**: they are listed in [`SrdfReport::unknown`].
//! - `<group_state name group>` with `<joint name value>` children: named configurations
//!   ("standing", "half_sitting", …). [`Srdf::state`] builds a [`State`] from one: a revolute
//!   or prismatic joint takes one value, a universal joint two, a spherical joint a quaternion
//!   `qx qy qz qw`, a free joint (the `root_joint` of a floating base, or the SRDF's
//!   `<virtual_joint>`) `x y z qx qy qz qw`: translation coordinates and the orientation as
//!   the joint's reference rotation ([`State::references`]). Joints the configuration does not
//!   list keep their value from a base state ([`Srdf::state_from`]) or zero. Values are not
//!   checked against joint limits here (the stepper refuses states outside them).
//! - `<virtual_joint name type parent_frame child_link>`: how the robot is attached to the
//!   world ([`Srdf::floating_base`] tells whether to load the URDF with
//!   [`crate::UrdfOptions::floating_base`]); its name is accepted in group states for the
//!   model's root joint.
//! - `<passive_joint name>`: joints without an actuator ([`Srdf::passive_joints`]), and
//!   `<rotor_params><joint name mass gear_ratio/>` (motor rotor inertia and gear ratio, whose
//!   reflected inertia `mass · gear_ratio²` a controller or model may add as armature;
//!   [`Srdf::rotors`]): read and exposed, not applied (the model has no armature term).
//!
//! Groups, chains, end effectors, grippers and vendor sections (`<specificities>`, …) are
//! ignored. Every error names the file, the line and the element.
//!
//! ```
//! use sdrs_dynamics::scenes::chain;
//! use sdrs_dynamics::srdf::Srdf;
//! let mut model = chain(3, 0.01)?.model;
//! let names: Vec<String> = model.links().iter().map(|l| l.name.clone()).collect();
//! let joint = model.links()[1].joint_label();
//! let text = format!(r#"<robot name="chain">
//!   <disable_collisions link1="{}" link2="{}" reason="Never"/>
//!   <disable_collisions link1="{}" link2="gripper" reason="Adjacent"/>
//!   <group_state name="bent" group="all"><joint name="{joint}" value="0.5"/></group_state>
//! </robot>"#, names[0], names[2], names[1]);
//! let srdf = Srdf::from_str(&text)?;
//! let report = srdf.apply(&mut model)?;
//! assert_eq!(report.applied, 1);
//! assert_eq!(report.unknown.len(), 1, "the model has no link 'gripper'");
//! assert!(!model.may_touch(0, 2, true));
//! let bent = srdf.state(&model, "bent")?;
//! assert_eq!(bent.q[model.dof_offset(1)], 0.5);
//! let err = srdf.state(&model, "standing").unwrap_err();
//! assert!(err.to_string().contains("bent"), "lists the states there are: {err}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::{DynamicsError, Result};
use crate::kinematics::State;
use crate::model::{JointKind, Model};
use crate::urdf::{Xml, children, read_text};
use nalgebra::{Quaternion, UnitQuaternion};
use std::path::Path;

/// A `<disable_collisions>` pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisabledPair {
    /// First link's name.
    pub link1: String,
    /// Second link's name.
    pub link2: String,
    /// Why the pair is disabled (`Adjacent`, `Never`, `Default`, …; empty when not given).
    pub reason: String,
    /// Line in the SRDF.
    pub line: u32,
}

/// A `<group_state>`: a named configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupState {
    /// Its name.
    pub name: String,
    /// The group it is for (informative).
    pub group: String,
    /// `(joint, values, line)` in file order.
    pub joints: Vec<(String, Vec<f64>, u32)>,
    /// Line in the SRDF.
    pub line: u32,
}

/// A `<virtual_joint>`: how the robot is attached to the world.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VirtualJoint {
    /// The joint's name (used in group states).
    pub name: String,
    /// `fixed`, `floating` or `planar`.
    pub kind: String,
    /// The world frame's name.
    pub parent_frame: String,
    /// The robot's root link.
    pub child_link: String,
}

/// A `<rotor_params><joint>` entry: the joint's motor rotor.
#[derive(Debug, Clone, PartialEq)]
pub struct Rotor {
    /// The joint.
    pub joint: String,
    /// Rotor inertia (`mass`, kg·m², as Pinocchio reads it).
    pub inertia: f64,
    /// Gear ratio.
    pub gear_ratio: f64,
}

/// What [`Srdf::apply`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SrdfReport {
    /// Disabled pairs applied with [`Model::exclude_pair`].
    pub applied: usize,
    /// Disabled pairs naming a link the model does not have (skipped).
    pub unknown: Vec<DisabledPair>,
}

/// A group-state entry [`Srdf::configuration`] skipped: it names a joint the model does not
/// have, or gives values for a joint the model fixes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SrdfWarning {
    /// The SRDF file (`<string>` for text).
    pub file: String,
    /// Line of the entry.
    pub line: u32,
    /// The group state.
    pub state: String,
    /// The joint the entry names.
    pub joint: String,
    /// Why it was skipped.
    pub reason: String,
}

impl std::fmt::Display for SrdfWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "SRDF {}:{}: group_state '{}' joint '{}': {}; entry skipped",
            self.file, self.line, self.state, self.joint, self.reason
        )
    }
}

/// A named configuration with the entries it skipped ([`Srdf::configuration`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Configuration {
    /// The state.
    pub state: State,
    /// Entries skipped, in file order.
    pub skipped: Vec<SrdfWarning>,
}

/// A parsed SRDF.
#[derive(Debug, Clone, PartialEq)]
pub struct Srdf {
    /// The file it came from (`<string>` for text), for messages.
    pub file: String,
    /// The `<robot name>`.
    pub robot: String,
    /// The `<disable_collisions>` pairs, in file order.
    pub disabled: Vec<DisabledPair>,
    /// The `<group_state>`s, in file order.
    pub states: Vec<GroupState>,
    /// The `<virtual_joint>`s.
    pub virtual_joints: Vec<VirtualJoint>,
    /// The `<passive_joint>` names.
    pub passive_joints: Vec<String>,
    /// The `<rotor_params>` entries.
    pub rotors: Vec<Rotor>,
}

impl Srdf {
    /// Reads the SRDF file at `path`.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = read_text("SRDF", path)?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parses SRDF text (errors name the file `<string>`).
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(text: &str) -> Result<Self> {
        Self::parse(text, "<string>")
    }

    fn parse(text: &str, file: &str) -> Result<Self> {
        let xml = Xml {
            format: "SRDF",
            file,
        };
        let doc = xml.parse(text)?;
        let robot = xml.robot(&doc)?;
        let line = |node: roxmltree::Node| doc.text_pos_at(node.range().start).row;
        let mut out = Srdf {
            file: file.to_string(),
            robot: robot.attribute("name").unwrap_or_default().to_string(),
            disabled: Vec::new(),
            states: Vec::new(),
            virtual_joints: Vec::new(),
            passive_joints: Vec::new(),
            rotors: Vec::new(),
        };
        for node in children(robot, "disable_collisions") {
            let element = "<disable_collisions>";
            out.disabled.push(DisabledPair {
                link1: xml.required(node, element, "link1")?.to_string(),
                link2: xml.required(node, element, "link2")?.to_string(),
                reason: node.attribute("reason").unwrap_or_default().to_string(),
                line: line(node),
            });
        }
        for node in children(robot, "group_state") {
            let name = xml.required(node, "<group_state>", "name")?;
            let element = format!("group_state '{name}'");
            if out.states.iter().any(|s| s.name == name) {
                return Err(xml.error(
                    node,
                    &element,
                    "a second group_state of this name (names must be unique)",
                ));
            }
            let mut joints = Vec::new();
            for joint in children(node, "joint") {
                let joint_name = xml.required(joint, &element, "name")?;
                let element = format!("{element} joint '{joint_name}'");
                let text = xml.required(joint, &element, "value")?;
                let values = text
                    .split_whitespace()
                    .map(|w| w.parse::<f64>().ok().filter(|v| v.is_finite()))
                    .collect::<Option<Vec<f64>>>()
                    .filter(|v| !v.is_empty())
                    .ok_or_else(|| {
                        xml.error(
                            joint,
                            &element,
                            format!("value=\"{text}\" must be one or more finite numbers"),
                        )
                    })?;
                joints.push((joint_name.to_string(), values, line(joint)));
            }
            out.states.push(GroupState {
                name: name.to_string(),
                group: node.attribute("group").unwrap_or_default().to_string(),
                joints,
                line: line(node),
            });
        }
        for node in children(robot, "virtual_joint") {
            let element = "<virtual_joint>";
            out.virtual_joints.push(VirtualJoint {
                name: xml.required(node, element, "name")?.to_string(),
                kind: xml.required(node, element, "type")?.to_string(),
                parent_frame: node
                    .attribute("parent_frame")
                    .unwrap_or_default()
                    .to_string(),
                child_link: xml.required(node, element, "child_link")?.to_string(),
            });
        }
        for node in children(robot, "passive_joint") {
            let name = xml.required(node, "<passive_joint>", "name")?;
            out.passive_joints.push(name.to_string());
        }
        for params in children(robot, "rotor_params") {
            for node in children(params, "joint") {
                let joint = xml.required(node, "<rotor_params> <joint>", "name")?;
                let element = format!("rotor_params joint '{joint}'");
                let get = |name: &str| -> Result<f64> {
                    xml.required(node, &element, name)?;
                    Ok(xml.number(node, &element, name)?.unwrap_or_default())
                };
                out.rotors.push(Rotor {
                    joint: joint.to_string(),
                    inertia: get("mass")?,
                    gear_ratio: get("gear_ratio")?,
                });
            }
        }
        Ok(out)
    }

    /// Whether the SRDF's `<virtual_joint>` makes the base float (`floating`), or fixes it
    /// (`fixed`, `planar`); `None` when it has none.
    pub fn floating_base(&self) -> Option<bool> {
        self.virtual_joints.first().map(|v| v.kind == "floating")
    }

    /// Leaves every disabled pair out of contact ([`Model::exclude_pair`]); pairs naming a
    /// link the model does not have are skipped and reported.
    pub fn apply(&self, model: &mut Model) -> Result<SrdfReport> {
        let mut report = SrdfReport {
            applied: 0,
            unknown: Vec::new(),
        };
        for pair in &self.disabled {
            match (model.link_index(&pair.link1), model.link_index(&pair.link2)) {
                (Ok(a), Ok(b)) => {
                    model.exclude_pair_indices(a, b)?;
                    report.applied += 1;
                }
                _ => report.unknown.push(pair.clone()),
            }
        }
        Ok(report)
    }

    /// The names of the group states.
    pub fn state_names(&self) -> Vec<&str> {
        self.states.iter().map(|s| s.name.as_str()).collect()
    }

    /// The named configuration `name`, joints it does not list at zero (entries the model
    /// cannot take skipped: see [`Srdf::configuration`] for the warnings).
    pub fn state(&self, model: &Model, name: &str) -> Result<State> {
        self.state_from(model, name, &State::zero(model))
    }

    /// The named configuration `name`, joints it does not list as in `base` (entries the
    /// model cannot take skipped: see [`Srdf::configuration`] for the warnings).
    pub fn state_from(&self, model: &Model, name: &str, base: &State) -> Result<State> {
        Ok(self.configuration(model, name, base)?.state)
    }

    /// The named configuration `name`, joints it does not list as in `base`, and the entries
    /// skipped because they name a joint the model does not have or give values for a joint
    /// it fixes (an SRDF written for a fuller URDF: `romeo.srdf` lists toe joints
    /// `romeo_small.urdf` lacks, `icub.srdf` a neck joint its URDF fixes).
    ///
    /// ```
    /// use sdrs_dynamics::scenes::chain;
    /// use sdrs_dynamics::srdf::Srdf;
    /// let model = chain(2, 0.01)?.model;
    /// let joint = model.links()[1].joint_label();
    /// let srdf = Srdf::from_str(&format!(r#"<robot name="chain">
    ///   <group_state name="up" group="all">
    ///     <joint name="{joint}" value="0.3"/>
    ///     <joint name="wrist" value="1.0"/>
    ///   </group_state>
    /// </robot>"#))?;
    /// let up = srdf.configuration(&model, "up", &sdrs_dynamics::State::zero(&model))?;
    /// assert_eq!(up.state.q[model.dof_offset(1)], 0.3);
    /// assert_eq!(up.skipped.len(), 1);
    /// assert!(up.skipped[0].to_string().contains("no joint named 'wrist'"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn configuration(&self, model: &Model, name: &str, base: &State) -> Result<Configuration> {
        base.check(model)?;
        let state = self.states.iter().find(|s| s.name == name).ok_or_else(|| {
            DynamicsError::UnknownName {
                kind: "SRDF group_state",
                name: name.to_string(),
                known: if self.states.is_empty() {
                    format!("none in {}", self.file)
                } else {
                    self.state_names().join(", ")
                },
            }
        })?;
        let mut out = base.clone();
        let mut skipped = Vec::new();
        for (joint, values, line) in &state.joints {
            let mut skip = |reason: String| {
                skipped.push(SrdfWarning {
                    file: self.file.clone(),
                    line: *line,
                    state: name.to_string(),
                    joint: joint.clone(),
                    reason,
                })
            };
            let fail = |message: String| DynamicsError::UrdfElement {
                format: "SRDF",
                file: self.file.clone(),
                line: *line,
                element: format!("group_state '{name}' joint '{joint}'"),
                message,
            };
            // A joint of the model by that name first; else the SRDF's virtual joint, which
            // attaches the robot's root: the first root link with a free joint (a world may
            // hold a fixed ground before the robot). A fixed base ignores the root's pose.
            let link = match model.joint_link(joint) {
                Ok(link) => link,
                Err(_) if self.virtual_joints.iter().any(|v| &v.name == joint) => {
                    match model
                        .links()
                        .iter()
                        .position(|l| l.parent.is_none() && l.joint == JointKind::Free)
                    {
                        Some(link) => link,
                        None => continue,
                    }
                }
                Err(_) => {
                    skip(format!("the model has no joint named '{joint}'"));
                    continue;
                }
            };
            let kind = &model.links()[link].joint;
            if *kind == JointKind::Fixed {
                // A fixed base given its pose (the root's 7 values) is no surprise.
                if !(model.links()[link].parent.is_none() && values.len() == 7) {
                    skip(format!(
                        "{} values given for a joint the model fixes",
                        values.len()
                    ));
                }
                continue;
            }
            let dof = model.dof_offset(link);
            let expected = match kind {
                JointKind::Fixed => 0,
                JointKind::Revolute { .. } | JointKind::Prismatic { .. } => 1,
                JointKind::Universal { .. } => 2,
                JointKind::Spherical => 4,
                JointKind::Free => 7,
            };
            if values.len() != expected {
                return Err(fail(format!(
                    "{} values given; a {} joint takes {expected}{}",
                    values.len(),
                    kind.kind_name(),
                    match kind {
                        JointKind::Spherical => " (qx qy qz qw)",
                        JointKind::Free => " (x y z qx qy qz qw)",
                        _ => "",
                    }
                )));
            }
            let rotation = |q: &[f64]| -> Result<UnitQuaternion<f64>> {
                let quaternion = Quaternion::new(q[3], q[0], q[1], q[2]);
                let norm = quaternion.norm();
                if !(norm > 1e-6 && norm.is_finite()) {
                    return Err(fail(format!(
                        "quaternion {q:?} (qx qy qz qw) must be non-zero"
                    )));
                }
                Ok(UnitQuaternion::from_quaternion(quaternion))
            };
            match kind {
                JointKind::Spherical => {
                    out.references[link] = rotation(values)?;
                    for k in 0..3 {
                        out.q[dof + k] = 0.0;
                    }
                }
                JointKind::Free => {
                    out.references[link] = rotation(&values[3..])?;
                    for k in 0..3 {
                        out.q[dof + k] = values[k];
                        out.q[dof + 3 + k] = 0.0;
                    }
                }
                _ => {
                    for (k, v) in values.iter().enumerate() {
                        out.q[dof + k] = *v;
                    }
                }
            }
        }
        Ok(Configuration {
            state: out,
            skipped,
        })
    }
}
