//! URDF import: links, inertials, joints, limits and collision geometry.
//!
//! The file is read with `roxmltree`, so every error names the file, the line and the element
//! it comes from, and says what is allowed ([`DynamicsError::Urdf`] for a file that cannot be
//! read, is not XML, or whose links do not form one tree; [`DynamicsError::UrdfElement`] for
//! everything else). Only what simulation needs is read: `<link>` (`<inertial>`,
//! `<collision>`) and `<joint>` (`type`, `<origin>`, `<parent>`, `<child>`, `<axis>`,
//! `<limit lower upper>`, and `<dynamics friction>` with [`UrdfOptions::joint_friction`]);
//! `<visual>`, `<material>`, `<transmission>`, `<gazebo>` and other elements are ignored, as
//! are the limits' `effort` and `velocity` and `<dynamics damping>`. Numbers must be finite.
//!
//! Links are ordered parents first from the single root (the link that is no joint's child);
//! the root is fixed to the world, or free when [`UrdfOptions::floating_base`] is set. Joint
//! types map as revolute → [`JointKind::Revolute`] (with limits), continuous → revolute
//! without limits, prismatic → [`JointKind::Prismatic`], fixed → [`JointKind::Fixed`],
//! floating → [`JointKind::Free`], spherical → [`JointKind::Spherical`]; planar joints are
//! refused. Collision boxes, spheres, cylinders and capsules become convex hulls (round
//! shapes tessellated); meshes (STL, OBJ or COLLADA) are scaled and split into hulls by convex
//! decomposition (or kept whole when convex, [`UrdfOptions::keep_convex_meshes`]); all collision geometry of a link is also kept as one triangle mesh
//! ([`crate::Link::mesh`]) for mesh-based contact models. Inertials become the link's second
//! moment (`MassModel::SecondMoment`).
//!
//! Mesh file names are resolved as ROS tools do: a relative path against the URDF's folder,
//! `file://PATH` as a path, and `package://NAME/REST` as `DIR/NAME/REST` for each `DIR` of
//! [`UrdfOptions::package_paths`], failing that as `ANCESTOR/REST` for the nearest ancestor
//! folder of the URDF named `NAME`. A mesh that is not found gets an error listing every
//! place looked at.
//!
//! ```
//! use sdrs_dynamics::{UrdfOptions, urdf_from_str};
//! let text = r#"<robot name="pendulum">
//!   <link name="base"/>
//!   <link name="arm">
//!     <inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
//!     <collision><origin xyz="0 0 -0.25"/><geometry><box size="0.05 0.05 0.5"/></geometry></collision>
//!   </link>
//!   <joint name="hinge" type="revolute">
//!     <parent link="base"/><child link="arm"/><axis xyz="0 1 0"/>
//!     <limit lower="-1" upper="1" effort="10" velocity="1"/>
//!   </joint>
//! </robot>"#;
//! let model = urdf_from_str(text, std::path::Path::new("."), &UrdfOptions::default())?;
//! assert_eq!(model.dof(), 1);
//! assert_eq!(model.links()[1].limits, Some((-1.0, 1.0)));
//! // Errors name the line and the element.
//! let bad = text.replace(r#"size="0.05 0.05 0.5""#, r#"size="0.05 0.05""#);
//! let err = urdf_from_str(&bad, std::path::Path::new("."), &UrdfOptions::default()).unwrap_err();
//! assert!(err.to_string().starts_with("URDF <string>:5: link 'arm' collision 0 <box>"), "{err}");
//! # Ok::<(), sdrs_dynamics::DynamicsError>(())
//! ```

use crate::error::{DynamicsError, Result};
use crate::model::{JointKind, Link, MassModel, Model};
use nalgebra::{Isometry3, Matrix3, Matrix4, Point3, Translation3, UnitQuaternion, Vector3};
use roxmltree::{Document, Node};
use sdrs_geometry::mesh::DecompositionSettings;
use sdrs_geometry::{ConvexHull, TriMesh};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// How to import a URDF.
#[derive(Debug, Clone)]
pub struct UrdfOptions {
    /// Directories searched for `package://NAME/...` URIs (as `DIR/NAME/...`), before the
    /// URDF's ancestor folders named `NAME`.
    pub package_paths: Vec<PathBuf>,
    /// Attach the root link with a free joint instead of fixing it to the world.
    pub floating_base: bool,
    /// Convex decomposition of collision meshes.
    pub decomposition: DecompositionSettings,
    /// Segments around tessellated cylinders, spheres and capsules.
    pub segments: usize,
    /// Keep a collision mesh that is already convex ([`TriMesh::is_convex`] to 1e-6 of its
    /// size) as one hull of its own vertices instead of decomposing it: exact, as files written
    /// by [`crate::export_urdf`] need for a faithful round trip. Off by default: convex CAD
    /// meshes often carry hundreds of vertices that the decomposition thins out.
    pub keep_convex_meshes: bool,
    /// Read each moving joint's `<dynamics friction>` as its dry friction
    /// ([`crate::Link::friction`]: N·m, or N on a prismatic joint), as MuJoCo's URDF compiler
    /// reads it into `frictionloss`. Off by default: Pinocchio reads it into its model without
    /// simulating it, and robot files carry values tuned for no simulator in particular
    /// (TALOS gives 1 N·m on 18 joints). `<dynamics damping>` is not read.
    pub joint_friction: bool,
}

impl Default for UrdfOptions {
    /// No package paths, fixed base, decomposition at resolution 32 and concavity 0.05 for
    /// every mesh, 16 segments.
    fn default() -> Self {
        Self {
            package_paths: Vec::new(),
            floating_base: false,
            decomposition: DecompositionSettings {
                resolution: 32,
                concavity: 0.05,
            },
            segments: 16,
            keep_convex_meshes: false,
            joint_friction: false,
        }
    }
}

/// Reads the URDF file at `path` into a [`Model`]; relative mesh paths are resolved against
/// its folder.
pub fn load_urdf(path: impl AsRef<Path>, options: &UrdfOptions) -> Result<Model> {
    let path = path.as_ref();
    let file = path.display().to_string();
    let text = read_text("URDF", path)?;
    let base = path.parent().unwrap_or(Path::new("."));
    parse(&text, &file, base, options)
}

/// Parses URDF text; relative mesh paths are resolved against `base` (and `package://`
/// URIs through [`UrdfOptions::package_paths`], then `base`'s ancestors). Errors name the
/// file `<string>`.
pub fn urdf_from_str(text: &str, base: &Path, options: &UrdfOptions) -> Result<Model> {
    parse(text, "<string>", base, options)
}

/// A file's text, or a [`DynamicsError::Urdf`] naming it.
pub(crate) fn read_text(format: &'static str, path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| DynamicsError::Urdf {
        format,
        file: path.display().to_string(),
        line: None,
        message: e.to_string(),
    })
}

/// Reading an XML robot description (URDF or SRDF): errors that name the file and line.
pub(crate) struct Xml<'f> {
    pub(crate) format: &'static str,
    pub(crate) file: &'f str,
}

impl Xml<'_> {
    /// The parsed document, or an error with the line of the first syntax error.
    pub(crate) fn parse<'t>(&self, text: &'t str) -> Result<Document<'t>> {
        Document::parse(text).map_err(|e| DynamicsError::Urdf {
            format: self.format,
            file: self.file.to_string(),
            line: Some(e.pos().row),
            message: format!("not well-formed XML: {e}"),
        })
    }

    /// The document's `<robot>` root element (URDF and SRDF alike), or an error naming the
    /// element found instead.
    pub(crate) fn robot<'a, 't>(&self, doc: &'a Document<'t>) -> Result<Node<'a, 't>> {
        let robot = doc.root_element();
        if robot.has_tag_name("robot") {
            Ok(robot)
        } else {
            Err(self.error(
                robot,
                format!("<{}>", robot.tag_name().name()),
                "the root element must be <robot>",
            ))
        }
    }

    /// An error at `node`'s line, about `element`.
    pub(crate) fn error(
        &self,
        node: Node,
        element: impl Into<String>,
        message: impl Into<String>,
    ) -> DynamicsError {
        DynamicsError::UrdfElement {
            format: self.format,
            file: self.file.to_string(),
            line: node.document().text_pos_at(node.range().start).row,
            element: element.into(),
            message: message.into(),
        }
    }

    /// A required attribute.
    pub(crate) fn required<'a>(
        &self,
        node: Node<'a, '_>,
        element: &str,
        name: &str,
    ) -> Result<&'a str> {
        node.attribute(name).ok_or_else(|| {
            self.error(
                node,
                element,
                format!(
                    "attribute '{name}' is missing (<{}> needs it)",
                    node.tag_name().name()
                ),
            )
        })
    }

    /// An optional attribute of `count` finite numbers separated by white space.
    pub(crate) fn numbers(
        &self,
        node: Node,
        element: &str,
        name: &str,
        count: usize,
    ) -> Result<Option<Vec<f64>>> {
        let Some(text) = node.attribute(name) else {
            return Ok(None);
        };
        let bad = |what: String| {
            self.error(
                node,
                element,
                format!(
                    "attribute {name}=\"{text}\" {what} (expected {count} finite number{})",
                    if count == 1 { "" } else { "s" }
                ),
            )
        };
        let values = text
            .split_whitespace()
            .map(|w| {
                w.parse::<f64>()
                    .map_err(|_| bad(format!("holds '{w}', not a number")))
            })
            .collect::<Result<Vec<f64>>>()?;
        if values.len() != count {
            return Err(bad(format!("has {} values", values.len())));
        }
        if values.iter().any(|v| !v.is_finite()) {
            return Err(bad("is not finite".into()));
        }
        Ok(Some(values))
    }

    /// An optional attribute holding one finite number.
    pub(crate) fn number(&self, node: Node, element: &str, name: &str) -> Result<Option<f64>> {
        Ok(self.numbers(node, element, name, 1)?.map(|v| v[0]))
    }

    /// A required attribute holding one finite number.
    fn required_number(&self, node: Node, element: &str, name: &str) -> Result<f64> {
        self.required(node, element, name)?;
        Ok(self.number(node, element, name)?.unwrap_or_default())
    }

    /// An optional attribute holding three finite numbers.
    fn vector(&self, node: Node, element: &str, name: &str) -> Result<Option<Vector3<f64>>> {
        Ok(self
            .numbers(node, element, name, 3)?
            .map(|v| Vector3::new(v[0], v[1], v[2])))
    }
}

/// The element children of `node` named `name`.
pub(crate) fn children<'a, 'i>(
    node: Node<'a, 'i>,
    name: &'static str,
) -> impl Iterator<Item = Node<'a, 'i>> {
    node.children().filter(move |c| c.has_tag_name(name))
}

/// At most one child named `name`.
fn single<'a, 'i>(
    xml: &Xml,
    node: Node<'a, 'i>,
    element: &str,
    name: &'static str,
) -> Result<Option<Node<'a, 'i>>> {
    let mut found = children(node, name);
    let first = found.next();
    match found.next() {
        Some(second) => Err(xml.error(
            second,
            element,
            format!("a second <{name}> (at most one is allowed)"),
        )),
        None => Ok(first),
    }
}

/// Exactly one child named `name`.
fn one<'a, 'i>(
    xml: &Xml,
    node: Node<'a, 'i>,
    element: &str,
    name: &'static str,
) -> Result<Node<'a, 'i>> {
    single(xml, node, element, name)?.ok_or_else(|| {
        xml.error(
            node,
            element,
            format!("<{name}> is missing (exactly one is required)"),
        )
    })
}

/// A joint as read, before the tree is sorted.
struct JointSpec<'a, 'i> {
    node: Node<'a, 'i>,
    name: &'a str,
    parent: usize,
}

fn parse(text: &str, file: &str, base: &Path, options: &UrdfOptions) -> Result<Model> {
    let xml = Xml {
        format: "URDF",
        file,
    };
    let doc = xml.parse(text)?;
    let robot = xml.robot(&doc)?;
    let links: Vec<Node> = children(robot, "link").collect();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (i, &link) in links.iter().enumerate() {
        let name = xml.required(link, "<link>", "name")?;
        if index.insert(name, i).is_some() {
            return Err(xml.error(
                link,
                format!("link '{name}'"),
                "a second link of this name (link names must be unique)",
            ));
        }
    }
    let mut joints: Vec<JointSpec> = Vec::new();
    let mut joint_names: HashMap<&str, ()> = HashMap::new();
    let mut parent_joint: Vec<Option<usize>> = vec![None; links.len()];
    let mut children_of: Vec<Vec<usize>> = vec![Vec::new(); links.len()];
    for joint in children(robot, "joint") {
        let name = xml.required(joint, "<joint>", "name")?;
        let element = format!("joint '{name}'");
        if joint_names.insert(name, ()).is_some() {
            return Err(xml.error(
                joint,
                &element,
                "a second joint of this name (joint names must be unique)",
            ));
        }
        let find = |role: &'static str| -> Result<usize> {
            let node = one(&xml, joint, &element, role)?;
            let link = xml.required(node, &element, "link")?;
            index.get(link).copied().ok_or_else(|| {
                xml.error(
                    node,
                    &element,
                    format!("its {role} link '{link}' is not defined"),
                )
            })
        };
        let (parent, child) = (find("parent")?, find("child")?);
        if parent_joint[child].replace(joints.len()).is_some() {
            return Err(xml.error(
                joint,
                &element,
                format!(
                    "link '{}' is the child of two joints",
                    links[child].attribute("name").unwrap_or_default()
                ),
            ));
        }
        children_of[parent].push(child);
        joints.push(JointSpec {
            node: joint,
            name,
            parent,
        });
    }
    let roots: Vec<usize> = (0..links.len())
        .filter(|&i| parent_joint[i].is_none())
        .collect();
    let tree_error = |message: String| DynamicsError::Urdf {
        format: "URDF",
        file: file.to_string(),
        line: Some(doc.text_pos_at(robot.range().start).row),
        message,
    };
    let [root] = roots[..] else {
        return Err(tree_error(format!(
            "a robot needs exactly one root link (one that is no joint's child), found {}{}",
            roots.len(),
            if roots.is_empty() {
                String::new()
            } else {
                format!(
                    ": {}",
                    roots
                        .iter()
                        .map(|&i| format!("'{}'", links[i].attribute("name").unwrap_or_default()))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        )));
    };
    // Parents first (breadth first from the root).
    let mut order = vec![root];
    let mut k = 0;
    while k < order.len() {
        order.extend(children_of[order[k]].iter().copied());
        k += 1;
    }
    if order.len() != links.len() {
        return Err(tree_error(
            "the joints do not connect every link to the root (is there a cycle?)".into(),
        ));
    }
    let position: HashMap<usize, usize> = order.iter().enumerate().map(|(p, &i)| (i, p)).collect();
    let mut out = Vec::with_capacity(order.len());
    for &i in &order {
        let node = links[i];
        let name = node.attribute("name").unwrap_or_default();
        let (hulls, mesh) = collision_shapes(&xml, node, name, base, options)?;
        let mass = MassModel::SecondMoment(inertial_moment(&xml, node, name)?);
        let mut friction = 0.0;
        let (parent, attachment, joint, limits, joint_name) = match parent_joint[i] {
            None => (
                None,
                Isometry3::identity(),
                if options.floating_base {
                    JointKind::Free
                } else {
                    JointKind::Fixed
                },
                None,
                "root_joint",
            ),
            Some(j) => {
                let spec = &joints[j];
                let element = format!("joint '{}'", spec.name);
                let (kind, limits) = joint_kind(&xml, spec.node, &element)?;
                if options.joint_friction && kind.dof() == 1 {
                    friction = joint_friction(&xml, spec.node, &element)?;
                }
                (
                    Some(position[&spec.parent]),
                    origin(&xml, spec.node, &element)?,
                    kind,
                    limits,
                    spec.name,
                )
            }
        };
        let mut link = Link::new(name, parent, attachment, joint, hulls, mass)
            .with_joint_name(joint_name)
            .with_friction(friction);
        if let Some((lower, upper)) = limits {
            link = link.with_limits(lower, upper);
        }
        if let Some(mesh) = mesh {
            link = link.with_mesh(mesh);
        }
        out.push(link);
    }
    Model::new(out)
}

/// The pose of `node`'s `<origin xyz rpy>` child (identity when absent).
fn origin(xml: &Xml, node: Node, element: &str) -> Result<Isometry3<f64>> {
    let Some(origin) = single(xml, node, element, "origin")? else {
        return Ok(Isometry3::identity());
    };
    let element = format!("{element} <origin>");
    let xyz = xml
        .vector(origin, &element, "xyz")?
        .unwrap_or_else(Vector3::zeros);
    let rpy = xml
        .vector(origin, &element, "rpy")?
        .unwrap_or_else(Vector3::zeros);
    Ok(Isometry3::from_parts(
        Translation3::from(xyz),
        UnitQuaternion::from_euler_angles(rpy.x, rpy.y, rpy.z),
    ))
}

/// A joint's `<dynamics friction>` (0 without one), which must be finite and non-negative.
fn joint_friction(xml: &Xml, joint: Node, element: &str) -> Result<f64> {
    let Some(dynamics) = single(xml, joint, element, "dynamics")? else {
        return Ok(0.0);
    };
    let element = format!("{element} <dynamics>");
    match xml.number(dynamics, &element, "friction")?.unwrap_or(0.0) {
        f if f >= 0.0 => Ok(f),
        f => Err(xml.error(
            dynamics,
            &element,
            format!("friction=\"{f}\" must be >= 0 (a dry friction in N·m or N)"),
        )),
    }
}

fn joint_kind(xml: &Xml, joint: Node, element: &str) -> Result<(JointKind, Option<(f64, f64)>)> {
    let kind = xml.required(joint, element, "type")?;
    let moves = matches!(kind, "revolute" | "continuous" | "prismatic");
    let axis = match single(xml, joint, element, "axis")? {
        Some(node) => {
            let element = format!("{element} <axis>");
            let axis = xml
                .vector(node, &element, "xyz")?
                .unwrap_or_else(Vector3::x);
            if moves && !(axis.norm() > 0.0 && axis.norm().is_finite()) {
                return Err(xml.error(
                    node,
                    &element,
                    format!(
                        "xyz=\"{} {} {}\" must be a non-zero vector for a {kind} joint",
                        axis.x, axis.y, axis.z
                    ),
                ));
            }
            axis
        }
        None => Vector3::x(),
    };
    let limits = match single(xml, joint, element, "limit")? {
        Some(limit) => {
            let element = format!("{element} <limit>");
            let lower = xml.number(limit, &element, "lower")?.unwrap_or(0.0);
            let upper = xml.number(limit, &element, "upper")?.unwrap_or(0.0);
            (lower < upper).then_some((lower, upper))
        }
        None => None,
    };
    Ok(match kind {
        "revolute" => (JointKind::Revolute { axis }, limits),
        "continuous" => (JointKind::Revolute { axis }, None),
        "prismatic" => (JointKind::Prismatic { axis }, limits),
        "fixed" => (JointKind::Fixed, None),
        "floating" => (JointKind::Free, None),
        "spherical" => (JointKind::Spherical, None),
        other => {
            return Err(xml.error(
                joint,
                element,
                format!(
                    "joint type '{other}' is not supported (allowed: revolute, continuous, \
                     prismatic, fixed, floating, spherical)"
                ),
            ));
        }
    })
}

/// `Σ m x̄ x̄ᵀ` of a URDF inertial: about the centre of mass `M_c = ½ tr(I) 1 − I`, rotated
/// into the link frame and moved to the link origin. A link without inertial is massless.
fn inertial_moment(xml: &Xml, link: Node, name: &str) -> Result<Matrix4<f64>> {
    let element = format!("link '{name}' inertial");
    let Some(inertial) = single(xml, link, &element, "inertial")? else {
        return Ok(Matrix4::zeros());
    };
    let mass = one(xml, inertial, &element, "mass")?;
    let m = xml.required_number(mass, &format!("{element} <mass>"), "value")?;
    let inertia = one(xml, inertial, &element, "inertia")?;
    let ie = format!("{element} <inertia>");
    let get = |k: &str| xml.required_number(inertia, &ie, k);
    let (ixx, ixy, ixz, iyy, iyz, izz) = (
        get("ixx")?,
        get("ixy")?,
        get("ixz")?,
        get("iyy")?,
        get("iyz")?,
        get("izz")?,
    );
    if !(m >= 0.0) {
        return Err(xml.error(mass, &element, format!("mass {m} must be non-negative")));
    }
    let tensor = Matrix3::new(ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz);
    let frame = origin(xml, inertial, &element)?;
    let rotation = frame.rotation.to_rotation_matrix();
    let centred = Matrix3::identity() * (0.5 * tensor.trace()) - tensor;
    let c = frame.translation.vector;
    let second =
        rotation.matrix() * centred * rotation.matrix().transpose() + c * c.transpose() * m;
    let mut out = Matrix4::zeros();
    out.fixed_view_mut::<3, 3>(0, 0).copy_from(&second);
    out.fixed_view_mut::<3, 1>(0, 3).copy_from(&(c * m));
    out.fixed_view_mut::<1, 3>(3, 0)
        .copy_from(&(c * m).transpose());
    out[(3, 3)] = m;
    if out.iter().any(|v| !v.is_finite()) {
        return Err(xml.error(inertial, &element, "mass, inertia and origin overflow to a non-finite second moment (are they in SI units?)"));
    }
    Ok(out)
}

/// The link's collision hulls, and all its collision geometry as one triangle mesh.
fn collision_shapes(
    xml: &Xml,
    link: Node,
    name: &str,
    base: &Path,
    options: &UrdfOptions,
) -> Result<(Vec<ConvexHull>, Option<TriMesh>)> {
    let mut hulls = Vec::new();
    let mut meshes = Vec::new();
    for (k, collision) in children(link, "collision").enumerate() {
        let element = format!("link '{name}' collision {k}");
        let frame = origin(xml, collision, &element)?;
        let geometry = one(xml, collision, &element, "geometry")?;
        let mut shapes = geometry.children().filter(|c| c.is_element());
        let (Some(shape), None) = (shapes.next(), shapes.next()) else {
            return Err(xml.error(
                geometry,
                &element,
                "<geometry> needs exactly one of <box>, <cylinder>, <capsule>, <sphere>, <mesh>",
            ));
        };
        let element = format!("{element} <{}>", shape.tag_name().name());
        let fail = |message: String| xml.error(shape, &element, message);
        let mesh_of = |mesh: sdrs_geometry::Result<TriMesh>| mesh.map_err(|e| fail(e.to_string()));
        let positive = |attribute: &str| -> Result<f64> {
            let v = xml.required_number(shape, &element, attribute)?;
            if v > 0.0 {
                Ok(v)
            } else {
                Err(fail(format!("{attribute} = {v} must be positive")))
            }
        };
        let segments = options.segments;
        // The geometry as a triangle mesh in the collision frame, and the point sets of its
        // hulls (one for a primitive, the convex decomposition's parts for a mesh).
        let (mesh, pieces): (TriMesh, Option<Vec<Vec<Point3<f64>>>>) = match shape.tag_name().name()
        {
            "box" => {
                xml.required(shape, &element, "size")?;
                let size = xml.vector(shape, &element, "size")?.unwrap_or_default();
                if size.iter().any(|&s| !(s > 0.0)) {
                    return Err(fail(format!("size {size:?} must be positive")));
                }
                (mesh_of(TriMesh::cuboid(size * 0.5))?, None)
            }
            "sphere" => (mesh_of(TriMesh::icosphere(positive("radius")?, 2))?, None),
            "cylinder" => (
                mesh_of(TriMesh::cylinder(
                    positive("radius")?,
                    0.5 * positive("length")?,
                    segments,
                ))?,
                None,
            ),
            "capsule" => (
                mesh_of(TriMesh::capsule(
                    positive("radius")?,
                    0.5 * positive("length")?,
                    segments,
                    4,
                ))?,
                None,
            ),
            "mesh" => {
                let filename = xml.required(shape, &element, "filename")?;
                let path = resolve(filename, base, &options.package_paths).map_err(|looked| {
                    fail(format!(
                        "mesh '{filename}' not found; looked at {}",
                        looked.join(", ")
                    ))
                })?;
                let mesh = TriMesh::from_file(&path).map_err(|e| fail(e.to_string()))?;
                let s = xml
                    .vector(shape, &element, "scale")?
                    .unwrap_or(Vector3::repeat(1.0));
                let scaled = TriMesh::new(
                    mesh.vertices()
                        .iter()
                        .map(|p| Point3::from(p.coords.component_mul(&s)))
                        .collect(),
                    mesh.triangles().to_vec(),
                )
                .map_err(|e| fail(format!("scale {s:?}: {e}")))?;
                let parts = if options.keep_convex_meshes && scaled.is_convex(1e-6) {
                    vec![scaled.vertices().to_vec()]
                } else {
                    scaled
                        .convex_decomposition(&options.decomposition)
                        .map_err(|e| fail(e.to_string()))?
                        .iter()
                        .map(|h| h.vertices().to_vec())
                        .collect()
                };
                (scaled, Some(parts))
            }
            other => {
                return Err(fail(format!(
                    "<{other}> is not a geometry (allowed: box, cylinder, capsule, sphere, mesh)"
                )));
            }
        };
        let pieces = pieces.unwrap_or_else(|| vec![mesh.vertices().to_vec()]);
        meshes.push(mesh.transformed(&frame));
        for points in pieces {
            let placed: Vec<Point3<f64>> = points.iter().map(|p| frame * p).collect();
            hulls.push(ConvexHull::new(placed).map_err(|e| fail(e.to_string()))?);
        }
    }
    let mesh = if meshes.is_empty() {
        None
    } else {
        Some(
            TriMesh::merged(&meshes)
                .map_err(|e| xml.error(link, format!("link '{name}' collision"), e.to_string()))?,
        )
    };
    Ok((hulls, mesh))
}

/// A mesh path: `package://NAME/REST` through the package search path, then the nearest
/// ancestor of `base` named `NAME`; `file://PATH` or a plain path relative to `base`. On
/// failure, every place looked at.
fn resolve(
    filename: &str,
    base: &Path,
    packages: &[PathBuf],
) -> std::result::Result<PathBuf, Vec<String>> {
    let mut looked = Vec::new();
    let mut candidates = Vec::new();
    if let Some(rest) = filename.strip_prefix("package://") {
        candidates.extend(packages.iter().map(|dir| dir.join(rest)));
        let (name, tail) = rest.split_once('/').unwrap_or((rest, ""));
        let absolute = std::fs::canonicalize(base).unwrap_or_else(|_| base.to_path_buf());
        match absolute
            .ancestors()
            .find(|a| a.file_name().is_some_and(|f| f == name))
        {
            Some(folder) => candidates.push(folder.join(tail)),
            None => looked.push(format!(
                "no ancestor folder of {} named '{name}'",
                absolute.display()
            )),
        }
        if packages.is_empty() {
            looked.push("no package paths (UrdfOptions::package_paths)".into());
        }
    } else {
        let plain = filename.strip_prefix("file://").unwrap_or(filename);
        candidates.push(base.join(plain));
    }
    if let Some(found) = candidates.iter().find(|p| p.is_file()) {
        return Ok(found.clone());
    }
    let mut all: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
    all.extend(looked);
    Err(all)
}
