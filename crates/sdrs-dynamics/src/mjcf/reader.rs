//! Reading MJCF elements: positions for messages, default classes, attribute parsing and
//! frames (`pos` with `quat`, `axisangle`, `euler`, `xyaxes` or `zaxis`).

use super::include::Origins;
use crate::error::{DynamicsError, Result};
use nalgebra::{Isometry3, Matrix3, Rotation3, Translation3, Unit, UnitQuaternion, Vector3};
use roxmltree::{Document, Node};
use std::collections::HashMap;

/// Attribute values by name.
pub(super) type Attrs = HashMap<String, String>;

/// Attributes each element may have (read or knowingly ignored); anything else is refused.
pub(super) fn known_attributes(tag: &str) -> Option<&'static [&'static str]> {
    Some(match tag {
        "joint" => &[
            "name",
            "class",
            "type",
            "pos",
            "axis",
            "range",
            "limited",
            "ref",
            "springref",
            "springdamper",
            "stiffness",
            "damping",
            "armature",
            "frictionloss",
            "group",
            "margin",
            "solreflimit",
            "solimplimit",
            "solreffriction",
            "solimpfriction",
            "user",
            "actuatorfrclimited",
            "actuatorfrcrange",
        ],
        "freejoint" => &["name", "group"],
        // Tendons (`<fixed>`, `<spatial>`) and their defaults (`<default><tendon>`).
        "tendon" | "fixed" | "spatial" => TENDON_ATTRIBUTES,
        "equality" => EQUALITY_ATTRIBUTES,
        "geom" => &[
            "name",
            "class",
            "type",
            "size",
            "pos",
            "quat",
            "axisangle",
            "euler",
            "xyaxes",
            "zaxis",
            "fromto",
            "density",
            "mass",
            "mesh",
            "contype",
            "conaffinity",
            "shellinertia",
            "group",
            "condim",
            "priority",
            "friction",
            "solmix",
            "solref",
            "solimp",
            "margin",
            "gap",
            "material",
            "rgba",
            "user",
            "fluidshape",
            "fluidcoef",
        ],
        "body" => &[
            "name",
            "childclass",
            "pos",
            "quat",
            "axisangle",
            "euler",
            "xyaxes",
            "zaxis",
            "mocap",
            "gravcomp",
            "user",
        ],
        "inertial" => &[
            "pos",
            "quat",
            "axisangle",
            "euler",
            "xyaxes",
            "zaxis",
            "mass",
            "diaginertia",
            "fullinertia",
        ],
        "motor" | "position" | "velocity" => &[
            "name",
            "class",
            "joint",
            "gear",
            "ctrlrange",
            "ctrllimited",
            "forcerange",
            "forcelimited",
            "group",
            "user",
            "kp",
            "kv",
            "tendon",
            "site",
            "body",
            "jointinparent",
            "refsite",
            "cranksite",
            "slidersite",
        ],
        "compiler" => &[
            "angle",
            "eulerseq",
            "coordinate",
            "inertiafromgeom",
            "settotalmass",
            "meshdir",
            "assetdir",
            "autolimits",
            "boundmass",
            "boundinertia",
            "balanceinertia",
            "texturedir",
            "strippath",
            "discardvisual",
            "fusestatic",
            "convexhull",
            "usethread",
            "exactmeshinertia",
            "inertiagrouprange",
            "alignfree",
            "saveinertial",
            "maxhullvert",
        ],
        "mesh" => &["name", "class", "file", "scale", "content_type"],
        _ => return None,
    })
}

/// What a tendon may have (read or knowingly ignored).
pub(super) const TENDON_ATTRIBUTES: &[&str] = &[
    "name",
    "class",
    "group",
    "limited",
    "range",
    "springlength",
    "stiffness",
    "damping",
    "frictionloss",
    "armature",
    "actuatorfrclimited",
    "actuatorfrcrange",
    "solreflimit",
    "solimplimit",
    "solreffriction",
    "solimpfriction",
    "margin",
    "width",
    "material",
    "rgba",
    "user",
];

/// What an equality constraint may have (read or knowingly ignored), besides what its kind
/// names (`joint1`, `tendon1`, ...).
pub(super) const EQUALITY_ATTRIBUTES: &[&str] =
    &["name", "class", "active", "solref", "solimp", "polycoef"];

/// How body inertia is obtained (`<compiler inertiafromgeom>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FromGeom {
    Always,
    Never,
    Auto,
}

/// `<compiler>` settings.
#[derive(Debug, Clone)]
pub(super) struct Compiler {
    /// Radians per angle unit (π/180 for degrees, MuJoCo's default).
    pub angle: f64,
    /// Euler sequence (lower case: moving axes, upper case: fixed axes).
    pub eulerseq: [char; 3],
    pub inertia_from_geom: FromGeom,
    pub settotalmass: Option<f64>,
    pub meshdir: Option<String>,
    pub autolimits: bool,
}

impl Default for Compiler {
    fn default() -> Self {
        Self {
            angle: std::f64::consts::PI / 180.0,
            eulerseq: ['x', 'y', 'z'],
            inertia_from_geom: FromGeom::Auto,
            settotalmass: None,
            meshdir: None,
            autolimits: true,
        }
    }
}

/// The document with its settings and default classes.
pub(super) struct Reader<'a, 'i> {
    /// The main model file (`"<string>"` for text).
    pub file: String,
    pub doc: &'a Document<'i>,
    /// Where each part of the document's text came from (it may include other files).
    origins: &'a Origins,
    pub compiler: Compiler,
    /// Class name → element tag → attributes (parents' attributes already folded in).
    pub classes: HashMap<String, HashMap<String, Attrs>>,
}

/// `<tag name='…'>` for messages.
pub(super) fn describe(node: Node) -> String {
    match node.attribute("name") {
        Some(name) => format!("<{} name='{name}'>", node.tag_name().name()),
        None => format!("<{}>", node.tag_name().name()),
    }
}

impl<'a, 'i> Reader<'a, 'i> {
    pub fn new(file: &str, doc: &'a Document<'i>, origins: &'a Origins) -> Self {
        Self {
            file: file.to_string(),
            doc,
            origins,
            compiler: Compiler::default(),
            classes: HashMap::new(),
        }
    }

    /// An error about `node`, with its file and line.
    pub fn error(&self, node: Node, message: impl Into<String>) -> DynamicsError {
        let (file, line) = self
            .origins
            .locate(self.doc.input_text(), node.range().start);
        DynamicsError::Mjcf {
            file: file.to_string(),
            line: Some(line),
            element: describe(node),
            message: message.into(),
        }
    }

    /// Refuses attributes of `node` that its element does not support.
    pub fn check_attributes(&self, node: Node) -> Result<()> {
        match known_attributes(node.tag_name().name()) {
            Some(known) => self.check_attributes_in(node, known),
            None => Ok(()),
        }
    }

    /// Refuses attributes of `node` not in `known`.
    pub fn check_attributes_in(&self, node: Node, known: &[&str]) -> Result<()> {
        for a in node.attributes() {
            if !known.contains(&a.name()) {
                return Err(self.error(
                    node,
                    format!(
                        "attribute '{}' is not supported (supported: {})",
                        a.name(),
                        known.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }

    /// `node` with the defaults of its class (`class=`, else the inherited `childclass`,
    /// else `main`) for its tag; its attributes are checked.
    pub fn elem<'r>(&'r self, node: Node<'a, 'i>, class: &str) -> Result<Elem<'r, 'a, 'i>> {
        self.check_attributes(node)?;
        self.elem_as(node, class, node.tag_name().name())
    }

    /// [`Reader::elem`] with the defaults of element `tag` (a `<fixed>` tendon takes those of
    /// `<default><tendon>`), its attributes checked by the caller.
    pub fn elem_as<'r>(
        &'r self,
        node: Node<'a, 'i>,
        class: &str,
        tag: &str,
    ) -> Result<Elem<'r, 'a, 'i>> {
        let class = node.attribute("class").unwrap_or(class);
        let classes = self.classes.get(class).ok_or_else(|| {
            self.error(
                node,
                format!(
                    "default class '{class}' is not defined (defined: {})",
                    self.class_names()
                ),
            )
        })?;
        Ok(Elem {
            reader: self,
            node,
            defaults: classes.get(tag),
        })
    }

    /// Checks that a `childclass` exists.
    pub fn check_class(&self, node: Node, class: &str) -> Result<()> {
        if self.classes.contains_key(class) {
            Ok(())
        } else {
            Err(self.error(
                node,
                format!(
                    "childclass '{class}' is not defined (defined: {})",
                    self.class_names()
                ),
            ))
        }
    }

    fn class_names(&self) -> String {
        let mut names: Vec<&str> = self.classes.keys().map(String::as_str).collect();
        names.sort_unstable();
        names.join(", ")
    }

    /// Reads one `<default>` element (and its nested classes) on top of `parent`.
    pub fn read_defaults(
        &mut self,
        node: Node<'a, 'i>,
        parent: Option<&HashMap<String, Attrs>>,
    ) -> Result<()> {
        let name = match (node.attribute("class"), parent) {
            (Some(name), _) => name.to_string(),
            (None, None) => "main".to_string(),
            (None, Some(_)) => {
                return Err(self.error(node, "a nested <default> needs a class attribute"));
            }
        };
        for a in node.attributes() {
            if a.name() != "class" {
                return Err(self.error(
                    node,
                    format!(
                        "attribute '{}' is not supported (supported: class)",
                        a.name()
                    ),
                ));
            }
        }
        let mut map = parent.cloned().unwrap_or_default();
        for child in node.children().filter(Node::is_element) {
            let tag = child.tag_name().name();
            if tag == "default" {
                continue;
            }
            self.check_attributes(child)?;
            if child.attribute("class").is_some() || child.attribute("name").is_some() {
                return Err(self.error(child, "defaults take no 'class' or 'name' attribute"));
            }
            let entry = map.entry(tag.to_string()).or_default();
            for a in child.attributes() {
                entry.insert(a.name().to_string(), a.value().to_string());
            }
        }
        if self.classes.insert(name.clone(), map.clone()).is_some() {
            return Err(self.error(node, format!("default class '{name}' is defined twice")));
        }
        for child in node.children().filter(|c| c.has_tag_name("default")) {
            self.read_defaults(child, Some(&map))?;
        }
        Ok(())
    }

    /// Reads a `<compiler>` element.
    pub fn read_compiler(&mut self, node: Node<'a, 'i>) -> Result<()> {
        self.check_attributes(node)?;
        let e = Elem {
            reader: self,
            node,
            defaults: None,
        };
        let mut c = self.compiler.clone();
        if let Some(angle) = e.get("angle") {
            c.angle = match angle {
                "degree" => std::f64::consts::PI / 180.0,
                "radian" => 1.0,
                other => return Err(e.bad("angle", other, "degree or radian")),
            };
        }
        if let Some(seq) = e.get("eulerseq") {
            let chars: Vec<char> = seq.chars().collect();
            match chars[..] {
                [a, b, c3] if chars.iter().all(|ch| "xyzXYZ".contains(*ch)) => {
                    c.eulerseq = [a, b, c3]
                }
                _ => {
                    return Err(e.bad(
                        "eulerseq",
                        seq,
                        "three of x, y, z (moving axes) or X, Y, Z (fixed axes)",
                    ));
                }
            }
        }
        if let Some(coordinate) = e.get("coordinate")
            && coordinate != "local"
        {
            return Err(e.bad(
                "coordinate",
                coordinate,
                "local (global coordinates were removed from MuJoCo and are not supported)",
            ));
        }
        if let Some(v) = e.get("inertiafromgeom") {
            c.inertia_from_geom = match v {
                "true" => FromGeom::Always,
                "false" => FromGeom::Never,
                "auto" => FromGeom::Auto,
                other => return Err(e.bad("inertiafromgeom", other, "true, false or auto")),
            };
        }
        if let Some(m) = e.number("settotalmass")? {
            c.settotalmass = (m > 0.0).then_some(m);
        }
        if let Some(dir) = e.get("meshdir").or_else(|| e.get("assetdir")) {
            c.meshdir = Some(dir.to_string());
        }
        if let Some(flag) = e.flag("autolimits")? {
            c.autolimits = flag;
        }
        for name in ["boundmass", "boundinertia"] {
            if e.number(name)?.is_some_and(|v| v > 0.0) {
                return Err(e.error(format!("{name} > 0 is not supported (allowed: 0)")));
            }
        }
        if e.flag("balanceinertia")? == Some(true) {
            return Err(e.error("balanceinertia=\"true\" is not supported"));
        }
        self.compiler = c;
        Ok(())
    }
}

/// An element with the defaults of its class.
pub(super) struct Elem<'r, 'a, 'i> {
    pub reader: &'r Reader<'a, 'i>,
    pub node: Node<'a, 'i>,
    pub defaults: Option<&'r Attrs>,
}

const ORIENTATIONS: [&str; 5] = ["quat", "axisangle", "euler", "xyaxes", "zaxis"];

impl Elem<'_, '_, '_> {
    pub fn error(&self, message: impl Into<String>) -> DynamicsError {
        self.reader.error(self.node, message)
    }

    fn bad(&self, name: &str, value: &str, allowed: &str) -> DynamicsError {
        self.error(format!(
            "attribute {name}=\"{value}\" is invalid (allowed: {allowed})"
        ))
    }

    /// The attribute, from the element or its class.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.node
            .attribute(name)
            .or_else(|| self.defaults.and_then(|d| d.get(name)).map(String::as_str))
    }

    /// Whitespace-separated finite numbers.
    pub fn numbers(&self, name: &str) -> Result<Option<Vec<f64>>> {
        self.get(name).map(|v| self.parse(name, v)).transpose()
    }

    fn parse(&self, name: &str, value: &str) -> Result<Vec<f64>> {
        value
            .split_whitespace()
            .map(|t| {
                t.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite())
                    .ok_or_else(|| self.bad(name, value, "finite numbers separated by spaces"))
            })
            .collect()
    }

    /// Exactly `N` numbers.
    pub fn array<const N: usize>(&self, name: &str) -> Result<Option<[f64; N]>> {
        match self.numbers(name)? {
            None => Ok(None),
            Some(v) => v.try_into().map(Some).map_err(|v: Vec<f64>| {
                self.error(format!(
                    "attribute '{name}' needs {N} numbers, got {}",
                    v.len()
                ))
            }),
        }
    }

    /// One number.
    pub fn number(&self, name: &str) -> Result<Option<f64>> {
        Ok(self.array::<1>(name)?.map(|[x]| x))
    }

    /// A vector of three numbers.
    pub fn vector(&self, name: &str) -> Result<Option<Vector3<f64>>> {
        Ok(self.array::<3>(name)?.map(Vector3::from))
    }

    /// `true`/`false` (`auto` gives `None`).
    pub fn flag(&self, name: &str) -> Result<Option<bool>> {
        match self.get(name) {
            None | Some("auto") => Ok(None),
            Some("true") => Ok(Some(true)),
            Some("false") => Ok(Some(false)),
            Some(other) => Err(self.bad(name, other, "true, false or auto")),
        }
    }

    /// A non-negative integer bit mask.
    pub fn bits(&self, name: &str, default: u32) -> Result<u32> {
        match self.get(name) {
            None => Ok(default),
            Some(v) => v
                .trim()
                .parse::<u32>()
                .map_err(|_| self.bad(name, v, "a non-negative integer")),
        }
    }

    /// `pos` and the orientation.
    pub fn pose(&self) -> Result<Isometry3<f64>> {
        let pos = self.vector("pos")?.unwrap_or_else(Vector3::zeros);
        Ok(Isometry3::from_parts(
            Translation3::from(pos),
            self.orientation()?,
        ))
    }

    /// The orientation from `quat`, `axisangle`, `euler`, `xyaxes` or `zaxis` (at most one;
    /// the element's own specification wins over its class's).
    pub fn orientation(&self) -> Result<UnitQuaternion<f64>> {
        let own = ORIENTATIONS
            .iter()
            .any(|n| self.node.attribute(*n).is_some());
        let raw = |name: &str| -> Option<&str> {
            if own {
                self.node.attribute(name)
            } else {
                self.defaults.and_then(|d| d.get(name)).map(String::as_str)
            }
        };
        let given: Vec<&str> = ORIENTATIONS
            .iter()
            .copied()
            .filter(|n| raw(n).is_some())
            .collect();
        if given.len() > 1 {
            return Err(self.error(format!(
                "give at most one orientation, got {} (allowed: one of {})",
                given.join(" and "),
                ORIENTATIONS.join(", ")
            )));
        }
        let Some(&kind) = given.first() else {
            return Ok(UnitQuaternion::identity());
        };
        let value = raw(kind).unwrap_or_default();
        let v = self.parse(kind, value)?;
        let count = |n: usize| -> Result<()> {
            if v.len() == n {
                Ok(())
            } else {
                Err(self.error(format!(
                    "attribute '{kind}' needs {n} numbers, got {}",
                    v.len()
                )))
            }
        };
        let unit = |a: Vector3<f64>, what: &str| -> Result<Unit<Vector3<f64>>> {
            Unit::try_new(a, 1e-12)
                .ok_or_else(|| self.error(format!("{kind}: the {what} must be non-zero")))
        };
        let angle = self.reader.compiler.angle;
        Ok(match kind {
            "quat" => {
                count(4)?;
                let q = nalgebra::Quaternion::new(v[0], v[1], v[2], v[3]);
                if !(q.norm() > 1e-12) {
                    return Err(self.error("quat must be non-zero"));
                }
                UnitQuaternion::from_quaternion(q)
            }
            "axisangle" => {
                count(4)?;
                let axis = unit(Vector3::new(v[0], v[1], v[2]), "axis")?;
                UnitQuaternion::from_axis_angle(&axis, v[3] * angle)
            }
            "euler" => {
                count(3)?;
                let mut q = UnitQuaternion::identity();
                for (k, &ch) in self.reader.compiler.eulerseq.iter().enumerate() {
                    let axis = match ch.to_ascii_lowercase() {
                        'x' => Vector3::x_axis(),
                        'y' => Vector3::y_axis(),
                        _ => Vector3::z_axis(),
                    };
                    let r = UnitQuaternion::from_axis_angle(&axis, v[k] * angle);
                    q = if ch.is_ascii_lowercase() {
                        q * r
                    } else {
                        r * q
                    };
                }
                q
            }
            "xyaxes" => {
                count(6)?;
                let x = unit(Vector3::new(v[0], v[1], v[2]), "x axis")?.into_inner();
                let y = Vector3::new(v[3], v[4], v[5]);
                let y = unit(y - x * x.dot(&y), "y axis (orthogonalised)")?.into_inner();
                let m = Matrix3::from_columns(&[x, y, x.cross(&y)]);
                UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(m))
            }
            _ => {
                count(3)?;
                z_to(&unit(Vector3::new(v[0], v[1], v[2]), "z axis")?.into_inner())
            }
        })
    }
}

/// The minimal rotation taking z to `v` (MuJoCo's `mju_quatZ2Vec`; a half turn about x for −z).
pub(super) fn z_to(v: &Vector3<f64>) -> UnitQuaternion<f64> {
    let z = Vector3::z();
    let n = v.normalize();
    let axis = z.cross(&n);
    let s = axis.norm();
    if s < 1e-15 {
        return if n.z < 0.0 {
            UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI)
        } else {
            UnitQuaternion::identity()
        };
    }
    UnitQuaternion::from_axis_angle(&Unit::new_unchecked(axis / s), s.atan2(n.z))
}
