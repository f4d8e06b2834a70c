//! From the parsed document to links, joints, geoms, inertia and actuators.

use super::couplings::{self, Inertia};
use super::include;
use super::reader::{Elem, FromGeom, Reader, z_to};
use super::{
    Actuator, ActuatorKind, MjcfGeom, MjcfJoint, MjcfJointKind, MjcfModel, MjcfOptions,
    Transmission,
};
use crate::error::{DynamicsError, Result};
use crate::model::{JointKind, Link, MassModel, Model};
use nalgebra::{
    DVector, Isometry3, Matrix3, Matrix4, Point3, Translation3, UnitQuaternion, Vector3,
};
use roxmltree::{Document, Node};
use sdrs_geometry::{ConvexHull, TriMesh};
use std::collections::HashMap;
use std::f64::consts::PI;
use std::path::{Path, PathBuf};

/// Parses and imports MJCF `text` (named `file` in messages).
pub(super) fn import(
    text: &str,
    (file, main): (&str, Option<&Path>),
    base: &Path,
    options: &MjcfOptions,
) -> Result<MjcfModel> {
    let assembled = include::assemble(text, file, base, main)?;
    let doc = Document::parse(&assembled.text).map_err(|e| {
        let (file, line) = assembled.locate_row(e.pos().row);
        DynamicsError::Mjcf {
            file: file.to_string(),
            line: Some(line),
            element: "document".into(),
            message: format!("not well-formed XML: {e}"),
        }
    })?;
    let root = doc.root_element();
    let mut reader = Reader::new(file, &doc, &assembled.origins);
    if root.tag_name().name() != "mujoco" {
        return Err(reader.error(root, "the root element must be <mujoco>"));
    }
    let children: Vec<Node> = root.children().filter(Node::is_element).collect();
    for &child in &children {
        match child.tag_name().name() {
            "compiler" => reader.read_compiler(child)?,
            "option" | "size" | "visual" | "statistic" | "custom" | "asset" | "default"
            | "worldbody" | "actuator" | "tendon" | "sensor" | "contact" | "keyframe"
            | "equality" => {}
            other => {
                return Err(reader.error(
                    child,
                    format!(
                        "<{other}> is not supported (supported top-level elements: compiler, \
                         option, default, asset, worldbody, actuator, contact, and tendon, \
                         equality without effect; size, visual, statistic, custom, sensor and \
                         keyframe are ignored)"
                    ),
                ));
            }
        }
    }
    for &child in children.iter().filter(|c| c.has_tag_name("default")) {
        reader.read_defaults(child, None)?;
    }
    reader.classes.entry("main".into()).or_default();
    let mut builder = Builder {
        r: &reader,
        options,
        base: base.to_path_buf(),
        meshes: HashMap::new(),
        links: Vec::new(),
        references: Vec::new(),
        joints: Vec::new(),
        geoms: Vec::new(),
        bodies: Vec::new(),
        parent_child: Vec::new(),
        filter_parent: true,
        contact: true,
        qpos0: Vec::new(),
        free_origins: Vec::new(),
    };
    let (mut gravity, mut timestep) = (Vector3::new(0.0, 0.0, -9.81), 0.002);
    for &child in &children {
        match child.tag_name().name() {
            "option" => (gravity, timestep) = builder.option(child, gravity, timestep)?,
            "asset" => builder.assets(child)?,
            _ => {}
        }
    }
    let worlds: Vec<Node> = children
        .iter()
        .copied()
        .filter(|c| c.has_tag_name("worldbody"))
        .collect();
    builder.world(&worlds)?;
    for &world in &worlds {
        for body in world.children().filter(|c| c.has_tag_name("body")) {
            builder.body(body, None, Isometry3::identity(), true, "main")?;
        }
    }
    builder.finish(root, &children, gravity, timestep)
}

/// A link's hulls, merged mesh and union of contact bits (`contype`, `conaffinity`).
type Placed = (Vec<ConvexHull>, Option<TriMesh>, Option<(u32, u32)>);

/// A geom's surface in its frame (and whether it may hold interior points), volume, inertia
/// about its centre per unit mass (principal, geom frame), and for meshes the unit-density
/// second moment.
type Primitive = (
    Option<(TriMesh, bool)>,
    f64,
    Vector3<f64>,
    Option<Matrix4<f64>>,
);

/// A geom read off the document.
struct Geom {
    name: Option<String>,
    /// The geom frame in the body frame.
    pose: Isometry3<f64>,
    /// Its second moment in the body frame.
    moment: Matrix4<f64>,
    /// Its surface in the geom frame, and whether it may hold interior points (meshes).
    shape: Option<(TriMesh, bool)>,
    contype: u32,
    conaffinity: u32,
}

/// One joint of a body.
struct JointSpec {
    name: Option<String>,
    kind: MjcfJointKind,
    anchor: Vector3<f64>,
    axis: Vector3<f64>,
    range: Option<(f64, f64)>,
    limited: bool,
    reference: f64,
    springref: f64,
    stiffness: f64,
    damping: f64,
    armature: f64,
    frictionloss: f64,
    springdamper: Option<(f64, f64)>,
}

struct Builder<'r, 'a, 'i> {
    r: &'r Reader<'a, 'i>,
    options: &'r MjcfOptions,
    base: PathBuf,
    meshes: HashMap<String, TriMesh>,
    links: Vec<Link>,
    references: Vec<UnitQuaternion<f64>>,
    joints: Vec<MjcfJoint>,
    geoms: Vec<MjcfGeom>,
    bodies: Vec<(String, Option<usize>, Isometry3<f64>)>,
    /// `(parent body's last link, child body's last link)` per body below another body.
    parent_child: Vec<(usize, usize)>,
    /// MuJoCo's `filterparent` flag: parent and child bodies never touch (on by default).
    filter_parent: bool,
    /// `<option><flag contact>`: off leaves every link out of contact.
    contact: bool,
    qpos0: Vec<f64>,
    free_origins: Vec<Vector3<f64>>,
}

/// `T S Tᵀ`: a second moment given in a frame at `pose`, in the outer frame.
fn placed(pose: &Isometry3<f64>, s: &Matrix4<f64>) -> Matrix4<f64> {
    let t = pose.to_homogeneous();
    t * s * t.transpose()
}

/// Second moment of mass `m` with inertia tensor `inertia` about its centre (at the origin).
fn centred(m: f64, inertia: &Matrix3<f64>) -> Matrix4<f64> {
    let c = Matrix3::identity() * (0.5 * inertia.trace()) - inertia;
    let mut s = Matrix4::zeros();
    s.fixed_view_mut::<3, 3>(0, 0).copy_from(&c);
    s[(3, 3)] = m;
    s
}

impl<'a, 'i> Builder<'_, 'a, 'i> {
    fn elem(&self, node: Node<'a, 'i>, class: &str) -> Result<Elem<'_, 'a, 'i>> {
        self.r.elem(node, class)
    }

    fn option(
        &mut self,
        node: Node<'a, 'i>,
        gravity: Vector3<f64>,
        timestep: f64,
    ) -> Result<(Vector3<f64>, f64)> {
        let e = Elem {
            reader: self.r,
            node,
            defaults: None,
        };
        let gravity = e.vector("gravity")?.unwrap_or(gravity);
        let timestep = e.number("timestep")?.unwrap_or(timestep);
        if !(timestep > 0.0) {
            return Err(e.error(format!("timestep {timestep} must be positive")));
        }
        for name in ["density", "viscosity"] {
            if e.number(name)?.is_some_and(|v| v != 0.0) {
                return Err(e.error(format!(
                    "{name} != 0 (fluid forces) is not supported (allowed: 0)"
                )));
            }
        }
        if e.vector("wind")?.is_some_and(|v| v != Vector3::zeros()) {
            return Err(e.error("wind (fluid forces) is not supported (allowed: 0 0 0)"));
        }
        let mut gravity_on = true;
        for flag in node.children().filter(|c| c.has_tag_name("flag")) {
            let enabled = |name: &str| match flag.attribute(name) {
                Some("enable") | None => Ok(true),
                Some("disable") => Ok(false),
                Some(other) => Err(self.r.error(
                    flag,
                    format!("{name}=\"{other}\" (allowed: enable, disable)"),
                )),
            };
            self.filter_parent &= enabled("filterparent")?;
            self.contact &= enabled("contact")?;
            gravity_on &= enabled("gravity")?;
        }
        Ok((
            if gravity_on {
                gravity
            } else {
                Vector3::zeros()
            },
            timestep,
        ))
    }

    fn assets(&mut self, node: Node<'a, 'i>) -> Result<()> {
        for child in node.children().filter(Node::is_element) {
            match child.tag_name().name() {
                "mesh" => {
                    let e = self.elem(child, "main")?;
                    let file = e.get("file").ok_or_else(|| {
                        e.error("a mesh needs a 'file' (inline vertices are not supported)")
                    })?;
                    let name = match e.get("name") {
                        Some(n) => n.to_string(),
                        None => Path::new(file)
                            .file_stem()
                            .map(|s| s.to_string_lossy().into_owned())
                            .unwrap_or_else(|| file.to_string()),
                    };
                    let dir = match &self.r.compiler.meshdir {
                        Some(d) => self.base.join(d),
                        None => self.base.clone(),
                    };
                    let path = dir.join(file);
                    let mesh = TriMesh::from_file(&path).map_err(|err| {
                        e.error(format!(
                            "mesh file {} could not be read: {err}",
                            path.display()
                        ))
                    })?;
                    let scale = e.vector("scale")?.unwrap_or(Vector3::repeat(1.0));
                    let mesh = TriMesh::new(
                        mesh.vertices()
                            .iter()
                            .map(|p| Point3::from(p.coords.component_mul(&scale)))
                            .collect(),
                        mesh.triangles().to_vec(),
                    )
                    .map_err(|err| e.error(err.to_string()))?;
                    self.meshes.insert(name, mesh);
                }
                // Visual only: skins are skinned meshes MuJoCo renders and never simulates.
                "texture" | "material" | "skin" => {}
                other => {
                    return Err(self.r.error(
                        child,
                        format!(
                            "<{other}> assets are not supported (allowed: mesh, texture, \
                             material, skin)"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Worldbody geoms as the static link `world`.
    fn world(&mut self, worlds: &[Node<'a, 'i>]) -> Result<()> {
        let mut geoms = Vec::new();
        for &world in worlds {
            for child in world.children().filter(Node::is_element) {
                match child.tag_name().name() {
                    "body" | "site" | "camera" | "light" => {}
                    "geom" => geoms.push(self.geom(child, "main", true)?),
                    other => {
                        return Err(self.r.error(
                            child,
                            format!(
                                "<{other}> in <worldbody> is not supported (allowed: body, geom; \
                                 site, camera and light are ignored)"
                            ),
                        ));
                    }
                }
            }
        }
        let has_shape = geoms.iter().any(|g| g.shape.is_some());
        let link = has_shape.then_some(self.links.len());
        self.bodies
            .push(("world".into(), link, Isometry3::identity()));
        if let Some(link) = link {
            let (hulls, mesh, bits) =
                self.place_geoms(link, &geoms, &Isometry3::identity(), "world")?;
            let mut out = Link::new(
                "world",
                None,
                Isometry3::identity(),
                JointKind::Fixed,
                hulls,
                MassModel::SecondMoment(Matrix4::zeros()),
            )
            .with_joint_name("world_weld");
            if let Some(mesh) = mesh {
                out = out.with_mesh(mesh);
            }
            if let Some((group, mask)) = bits {
                out.contact.group = group;
                out.contact.mask = mask;
            }
            self.links.push(out);
            self.references.push(UnitQuaternion::identity());
        } else {
            for g in &geoms {
                self.geoms.push(MjcfGeom {
                    name: g.name.clone(),
                    link: None,
                    hull: None,
                    contype: g.contype,
                    conaffinity: g.conaffinity,
                });
            }
        }
        Ok(())
    }

    /// Hulls and merged mesh of `geoms` on link `link`, the body frame at `offset` in the link
    /// frame; records the geoms.
    fn place_geoms(
        &mut self,
        link: usize,
        geoms: &[Geom],
        offset: &Isometry3<f64>,
        body: &str,
    ) -> Result<Placed> {
        let mut hulls = Vec::new();
        let mut meshes = Vec::new();
        let mut bits: Option<(u32, u32)> = None;
        for (k, g) in geoms.iter().enumerate() {
            let mut hull = None;
            if let Some((mesh, cloud)) = &g.shape
                && (g.contype != 0 || g.conaffinity != 0)
            {
                let frame = offset * g.pose;
                let placed = mesh.transformed(&frame);
                let points = placed.vertices().to_vec();
                let fail = |e: sdrs_geometry::GeometryError| DynamicsError::Mjcf {
                    file: self.r.file.clone(),
                    line: None,
                    element: format!("body '{body}' geom {k}"),
                    message: e.to_string(),
                };
                let h = if *cloud {
                    ConvexHull::from_point_cloud(&points)
                } else {
                    ConvexHull::new(points)
                }
                .map_err(fail)?;
                hull = Some(hulls.len());
                hulls.push(h);
                let (t, a) = bits.unwrap_or((0, 0));
                bits = Some((t | g.contype, a | g.conaffinity));
                meshes.push(placed);
            }
            self.geoms.push(MjcfGeom {
                name: g.name.clone(),
                link: Some(link),
                hull,
                contype: g.contype,
                conaffinity: g.conaffinity,
            });
        }
        let mesh = if meshes.is_empty() {
            None
        } else {
            Some(TriMesh::merged(&meshes).map_err(|e| DynamicsError::Mjcf {
                file: self.r.file.clone(),
                line: None,
                element: format!("body '{body}'"),
                message: e.to_string(),
            })?)
        };
        Ok((hulls, mesh, bits))
    }

    /// Reads a geom: its frame, shape and (outside the world) mass.
    fn geom(&self, node: Node<'a, 'i>, class: &str, world: bool) -> Result<Geom> {
        let e = self.elem(node, class)?;
        let kind = e.get("type").unwrap_or("sphere");
        let size = e.numbers("size")?.unwrap_or_default();
        let need = |n: usize| -> Result<&[f64]> {
            if size.len() >= n && size[..n].iter().all(|&s| s > 0.0) {
                Ok(&size[..n])
            } else {
                Err(e.error(format!(
                    "a {kind} needs {n} positive size entries, got {size:?}"
                )))
            }
        };
        let mut pose = e.pose()?;
        let mut half_length = None;
        if let Some(ft) = e.array::<6>("fromto")? {
            if !matches!(kind, "capsule" | "cylinder") {
                return Err(e.error(format!(
                    "fromto on a {kind} is not supported (allowed on capsule and cylinder)"
                )));
            }
            let (from, to) = (
                Vector3::new(ft[0], ft[1], ft[2]),
                Vector3::new(ft[3], ft[4], ft[5]),
            );
            let d = to - from;
            if !(d.norm() > 0.0) {
                return Err(e.error("fromto needs two different points"));
            }
            pose = Isometry3::from_parts(Translation3::from((from + to) * 0.5), z_to(&d));
            half_length = Some(0.5 * d.norm());
        }
        let options = self.options;
        let mesh_err = |err: sdrs_geometry::GeometryError| e.error(err.to_string());
        // Surface (geom frame), volume and inertia about the centre per unit mass.
        let (shape, volume, unit_inertia, mesh_moment): Primitive = match kind {
            "plane" => {
                if !world {
                    return Err(
                        e.error("planes are supported in <worldbody> only (a plane cannot move)")
                    );
                }
                let shape = match options.floor {
                    None => None,
                    Some(slab) => {
                        let half = |i: usize| match size.get(i) {
                            Some(&s) if s > 0.0 => s,
                            _ => slab.half_extent,
                        };
                        let t = slab.thickness;
                        let mesh = TriMesh::cuboid(Vector3::new(half(0), half(1), 0.5 * t))
                            .map_err(mesh_err)?
                            .transformed(&Isometry3::translation(0.0, 0.0, -0.5 * t));
                        Some((mesh, false))
                    }
                };
                (shape, 0.0, Vector3::zeros(), None)
            }
            "sphere" => {
                let r = need(1)?[0];
                let mesh = TriMesh::icosphere(r, options.sphere_level).map_err(mesh_err)?;
                (
                    Some((mesh, false)),
                    4.0 / 3.0 * PI * r.powi(3),
                    Vector3::repeat(0.4 * r * r),
                    None,
                )
            }
            "capsule" | "cylinder" => {
                let r = need(1)?[0];
                let h = match half_length {
                    Some(h) => h,
                    None => need(2)?[1],
                };
                let height = 2.0 * h;
                if kind == "cylinder" {
                    let mesh = TriMesh::cylinder(r, h, options.segments).map_err(mesh_err)?;
                    let perp = (3.0 * r * r + height * height) / 12.0;
                    (
                        Some((mesh, false)),
                        PI * r * r * height,
                        Vector3::new(perp, perp, 0.5 * r * r),
                        None,
                    )
                } else {
                    let mesh = TriMesh::capsule(r, h, options.segments, 4).map_err(mesh_err)?;
                    // MuJoCo's capsule: a cylinder and two hemispheres, masses by volume.
                    let sphere = 4.0 * r / (4.0 * r + 3.0 * height);
                    let cylinder = 1.0 - sphere;
                    let perp = cylinder * (3.0 * r * r + height * height) / 12.0
                        + 0.4 * sphere * r * r
                        + sphere * height * (3.0 * r + 2.0 * height) / 8.0;
                    let axial = cylinder * r * r / 2.0 + 0.4 * sphere * r * r;
                    (
                        Some((mesh, false)),
                        PI * r * r * height + 4.0 / 3.0 * PI * r.powi(3),
                        Vector3::new(perp, perp, axial),
                        None,
                    )
                }
            }
            "ellipsoid" => {
                let s = need(3)?;
                let sphere = TriMesh::icosphere(1.0, options.sphere_level).map_err(mesh_err)?;
                let mesh = TriMesh::new(
                    sphere
                        .vertices()
                        .iter()
                        .map(|p| Point3::new(p.x * s[0], p.y * s[1], p.z * s[2]))
                        .collect(),
                    sphere.triangles().to_vec(),
                )
                .map_err(mesh_err)?;
                let (a2, b2, c2) = (s[0] * s[0], s[1] * s[1], s[2] * s[2]);
                (
                    Some((mesh, false)),
                    4.0 / 3.0 * PI * s[0] * s[1] * s[2],
                    Vector3::new(b2 + c2, a2 + c2, a2 + b2) / 5.0,
                    None,
                )
            }
            "box" => {
                let s = need(3)?;
                let mesh = TriMesh::cuboid(Vector3::new(s[0], s[1], s[2])).map_err(mesh_err)?;
                let (a2, b2, c2) = (s[0] * s[0], s[1] * s[1], s[2] * s[2]);
                (
                    Some((mesh, false)),
                    8.0 * s[0] * s[1] * s[2],
                    Vector3::new(b2 + c2, a2 + c2, a2 + b2) / 3.0,
                    None,
                )
            }
            "mesh" => {
                let name = e
                    .get("mesh")
                    .ok_or_else(|| e.error("a mesh geom needs a 'mesh' attribute"))?;
                let mesh = self.meshes.get(name).ok_or_else(|| {
                    let mut known: Vec<&str> = self.meshes.keys().map(String::as_str).collect();
                    known.sort_unstable();
                    e.error(format!(
                        "mesh '{name}' is not defined in <asset> (defined: {})",
                        known.join(", ")
                    ))
                })?;
                let hull = ConvexHull::from_point_cloud(mesh.vertices()).map_err(mesh_err)?;
                let unit = hull
                    .solid_mass_properties(1.0)
                    .map_err(mesh_err)?
                    .second_moment;
                (
                    Some((mesh.clone(), true)),
                    unit[(3, 3)],
                    Vector3::zeros(),
                    Some(unit),
                )
            }
            other => {
                return Err(e.error(format!(
                    "geom type '{other}' is not supported (allowed: plane (worldbody only), \
                     sphere, capsule, cylinder, ellipsoid, box, mesh)"
                )));
            }
        };
        if e.flag("shellinertia")? == Some(true) {
            return Err(e.error("shellinertia=\"true\" is not supported"));
        }
        let moment = if world {
            Matrix4::zeros()
        } else {
            let mass = match e.number("mass")? {
                Some(m) => m,
                None => e.number("density")?.unwrap_or(1000.0) * volume,
            };
            if !(mass >= 0.0) {
                return Err(e.error(format!("mass {mass} must be non-negative")));
            }
            let local = match mesh_moment {
                Some(unit) => unit * (mass / volume),
                None => centred(mass, &Matrix3::from_diagonal(&(unit_inertia * mass))),
            };
            placed(&pose, &local)
        };
        Ok(Geom {
            name: e.get("name").map(String::from),
            pose,
            moment,
            shape,
            contype: e.bits("contype", 1)?,
            conaffinity: e.bits("conaffinity", 1)?,
        })
    }

    /// Second moment of an `<inertial>` in the body frame.
    fn inertial(&self, node: Node<'a, 'i>) -> Result<Matrix4<f64>> {
        let e = self.elem(node, "main")?;
        let mass = e
            .number("mass")?
            .ok_or_else(|| e.error("an <inertial> needs a mass"))?;
        if !(mass >= 0.0) {
            return Err(e.error(format!("mass {mass} must be non-negative")));
        }
        let tensor = match (e.array::<3>("diaginertia")?, e.array::<6>("fullinertia")?) {
            (Some(d), None) => Matrix3::from_diagonal(&Vector3::from(d)),
            (None, Some(f)) => {
                if ["quat", "axisangle", "euler", "xyaxes", "zaxis"]
                    .iter()
                    .any(|n| node.attribute(*n).is_some())
                {
                    return Err(e.error(
                        "fullinertia gives the orientation itself: no quat, axisangle, euler, \
                         xyaxes or zaxis with it",
                    ));
                }
                Matrix3::new(f[0], f[3], f[4], f[3], f[1], f[5], f[4], f[5], f[2])
            }
            _ => {
                return Err(
                    e.error("an <inertial> needs exactly one of diaginertia and fullinertia")
                );
            }
        };
        Ok(placed(&e.pose()?, &centred(mass, &tensor)))
    }

    fn joint(&self, node: Node<'a, 'i>, class: &str) -> Result<JointSpec> {
        if node.has_tag_name("freejoint") {
            self.r.check_attributes(node)?;
            return Ok(JointSpec {
                name: node.attribute("name").map(String::from),
                kind: MjcfJointKind::Free,
                anchor: Vector3::zeros(),
                axis: Vector3::z(),
                range: None,
                limited: false,
                reference: 0.0,
                springref: 0.0,
                stiffness: 0.0,
                damping: 0.0,
                armature: 0.0,
                frictionloss: 0.0,
                springdamper: None,
            });
        }
        let e = self.elem(node, class)?;
        let kind = match e.get("type").unwrap_or("hinge") {
            "hinge" => MjcfJointKind::Hinge,
            "slide" => MjcfJointKind::Slide,
            "ball" => MjcfJointKind::Ball,
            "free" => MjcfJointKind::Free,
            other => {
                return Err(e.error(format!(
                    "joint type '{other}' is not supported (allowed: hinge, slide, ball, free)"
                )));
            }
        };
        // Angles in the compiler's unit for hinge and ball joints.
        let unit = match kind {
            MjcfJointKind::Hinge | MjcfJointKind::Ball => self.r.compiler.angle,
            _ => 1.0,
        };
        let number = |name: &str| -> Result<f64> { Ok(e.number(name)?.unwrap_or(0.0)) };
        let range = e.array::<2>("range")?.map(|[a, b]| (a * unit, b * unit));
        let limited = match e.flag("limited")? {
            Some(l) => l,
            None => self.r.compiler.autolimits && range.is_some(),
        };
        if limited {
            match range {
                Some((a, b)) if a < b || (kind == MjcfJointKind::Ball && b > 0.0) => {}
                _ => {
                    return Err(e.error(format!(
                        "a limited joint needs a range with lower < upper, got {range:?}"
                    )));
                }
            }
            if kind == MjcfJointKind::Free {
                return Err(e.error("a free joint cannot be limited"));
            }
        }
        let axis = e.vector("axis")?.unwrap_or(Vector3::z());
        if matches!(kind, MjcfJointKind::Hinge | MjcfJointKind::Slide) && !(axis.norm() > 0.0) {
            return Err(e.error("the joint axis must be non-zero"));
        }
        let nonneg = |name: &str| -> Result<f64> {
            let v = number(name)?;
            if v >= 0.0 {
                Ok(v)
            } else {
                Err(e.error(format!("{name} = {v} must be non-negative")))
            }
        };
        // MuJoCo uses springdamper only when both numbers are positive.
        let springdamper = e
            .array::<2>("springdamper")?
            .filter(|&[t, z]| t > 0.0 && z > 0.0)
            .map(|[t, z]| (t, z));
        if springdamper.is_some() && !matches!(kind, MjcfJointKind::Hinge | MjcfJointKind::Slide) {
            return Err(e.error(
                "springdamper on a ball or free joint is not supported (allowed: hinge, slide)",
            ));
        }
        Ok(JointSpec {
            springdamper,
            name: e.get("name").map(String::from),
            kind,
            anchor: e.vector("pos")?.unwrap_or_else(Vector3::zeros),
            axis,
            range: if limited { range } else { None },
            limited,
            reference: number("ref")? * unit,
            springref: number("springref")? * unit,
            stiffness: nonneg("stiffness")?,
            damping: nonneg("damping")?,
            armature: nonneg("armature")?,
            frictionloss: nonneg("frictionloss")?,
        })
    }

    /// Reads a body and its subtree: `offset` is the parent body's frame in the parent link's
    /// frame.
    fn body(
        &mut self,
        node: Node<'a, 'i>,
        parent: Option<usize>,
        offset: Isometry3<f64>,
        top: bool,
        class: &str,
    ) -> Result<()> {
        self.r.check_attributes(node)?;
        let id = self.bodies.len();
        let name = node
            .attribute("name")
            .map_or_else(|| format!("body{id}"), String::from);
        let class = node.attribute("childclass").unwrap_or(class).to_string();
        self.r.check_class(node, &class)?;
        let e = Elem {
            reader: self.r,
            node,
            defaults: None,
        };
        if e.flag("mocap")? == Some(true) {
            return Err(e.error("mocap bodies are not supported"));
        }
        if e.number("gravcomp")?.is_some_and(|g| g != 0.0) {
            return Err(e.error("gravcomp is not supported (allowed: 0)"));
        }
        let placement = offset * e.pose()?;
        let mut specs = Vec::new();
        let mut geoms = Vec::new();
        let mut inertial = None;
        for child in node.children().filter(Node::is_element) {
            match child.tag_name().name() {
                "joint" | "freejoint" => {
                    if let Some(last) = specs.last()
                        && matches!(
                            last,
                            JointSpec {
                                kind: MjcfJointKind::Ball | MjcfJointKind::Free,
                                ..
                            }
                        )
                    {
                        return Err(self.r.error(
                            child,
                            "a ball or free joint must be the last joint of its body",
                        ));
                    }
                    let spec = self.joint(child, &class)?;
                    if spec.kind == MjcfJointKind::Free {
                        if !top {
                            return Err(self.r.error(
                                child,
                                "free joints are supported only in bodies directly in <worldbody>",
                            ));
                        }
                        if !specs.is_empty() {
                            return Err(self
                                .r
                                .error(child, "a free joint must be the only joint of its body"));
                        }
                        if spec.anchor != Vector3::zeros() {
                            return Err(self.r.error(
                                child,
                                "a free joint's pos must be 0 0 0 (the body origin)",
                            ));
                        }
                    }
                    specs.push(spec);
                }
                "geom" => geoms.push(self.geom(child, &class, false)?),
                "inertial" => {
                    if inertial.is_some() {
                        return Err(self.r.error(child, "a body has at most one <inertial>"));
                    }
                    inertial = Some(self.inertial(child)?);
                }
                "body" | "site" | "camera" | "light" => {}
                other => {
                    return Err(self.r.error(
                        child,
                        format!(
                            "<{other}> in a body is not supported (allowed: body, joint, \
                             freejoint, geom, inertial; site, camera and light are ignored)"
                        ),
                    ));
                }
            }
        }
        let from_geoms = || geoms.iter().map(|g| g.moment).sum::<Matrix4<f64>>();
        let moment = match (self.r.compiler.inertia_from_geom, inertial) {
            (FromGeom::Always, _) | (FromGeom::Auto, None) => from_geoms(),
            (_, Some(m)) => m,
            (FromGeom::Never, None) => Matrix4::zeros(),
        };
        // The chain of links: one per joint (a fixed link without joints). `anchor` is the
        // current link frame's origin in the body frame.
        let mut anchor = Vector3::zeros();
        let mut link_parent = parent;
        let count = specs.len();
        for (k, spec) in specs.iter().enumerate() {
            // A slide's anchor does not affect motion: keep the previous one.
            let next = if spec.kind == MjcfJointKind::Slide {
                anchor
            } else {
                spec.anchor
            };
            let step = Translation3::from(next - anchor);
            let chained = if k == 0 {
                placement * step
            } else {
                Isometry3::from_parts(step, UnitQuaternion::identity())
            };
            anchor = next;
            let (joint, attachment, reference) = match spec.kind {
                MjcfJointKind::Hinge => (
                    JointKind::Revolute { axis: spec.axis },
                    chained,
                    UnitQuaternion::identity(),
                ),
                MjcfJointKind::Slide => (
                    JointKind::Prismatic { axis: spec.axis },
                    chained,
                    UnitQuaternion::identity(),
                ),
                MjcfJointKind::Ball => (JointKind::Spherical, chained, UnitQuaternion::identity()),
                MjcfJointKind::Free => (
                    JointKind::Free,
                    Isometry3::from_parts(placement.translation, UnitQuaternion::identity()),
                    placement.rotation,
                ),
            };
            let link = self.links.len();
            let is_last = k + 1 == count;
            let link_name = if is_last {
                name.clone()
            } else {
                format!(
                    "{name}/{}",
                    spec.name.clone().unwrap_or_else(|| format!("joint{k}"))
                )
            };
            let mut out = Link::new(
                link_name,
                link_parent,
                attachment,
                joint,
                Vec::new(),
                MassModel::SecondMoment(Matrix4::zeros()),
            );
            match (&spec.name, spec.kind) {
                (Some(n), _) => out = out.with_joint_name(n.clone()),
                (None, MjcfJointKind::Free) => out = out.with_joint_name("root_joint"),
                _ => {}
            }
            out = out.with_friction(spec.frictionloss);
            if matches!(spec.kind, MjcfJointKind::Hinge | MjcfJointKind::Slide) {
                out = out.with_armature(spec.armature);
            }
            if let (Some((lo, hi)), MjcfJointKind::Hinge | MjcfJointKind::Slide) =
                (spec.range, spec.kind)
            {
                out = out.with_limits(lo - spec.reference, hi - spec.reference);
            }
            let qpos_address = self.qpos0.len();
            match spec.kind {
                MjcfJointKind::Hinge | MjcfJointKind::Slide => self.qpos0.push(spec.reference),
                MjcfJointKind::Ball => self.qpos0.extend([1.0, 0.0, 0.0, 0.0]),
                MjcfJointKind::Free => {
                    let t = placement.translation.vector;
                    let r = placement.rotation;
                    self.qpos0.extend([t.x, t.y, t.z, r.w, r.i, r.j, r.k]);
                    self.free_origins.push(t);
                }
            }
            self.joints.push(MjcfJoint {
                name: spec.name.clone(),
                kind: spec.kind,
                link,
                dof: 0,
                qpos_address,
                reference: spec.reference,
                range: spec.range.filter(|_| spec.limited),
                armature: spec.armature,
                frictionloss: spec.frictionloss,
                damping: spec.damping,
                stiffness: spec.stiffness,
                springref: spec.springref,
                springdamper: spec.springdamper,
            });
            self.links.push(out);
            self.references.push(reference);
            link_parent = Some(link);
        }
        if count == 0 {
            self.links.push(Link::new(
                name.clone(),
                parent,
                placement,
                JointKind::Fixed,
                Vec::new(),
                MassModel::SecondMoment(Matrix4::zeros()),
            ));
            self.references.push(UnitQuaternion::identity());
        }
        let link = self.links.len() - 1;
        // The body frame in the last link's frame.
        let body_offset = Isometry3::translation(-anchor.x, -anchor.y, -anchor.z);
        let (hulls, mesh, bits) = self.place_geoms(link, &geoms, &body_offset, &name)?;
        let l = &mut self.links[link];
        l.hulls = hulls;
        l.mesh = mesh;
        if let Some((group, mask)) = bits {
            l.contact.group = group;
            l.contact.mask = mask;
        }
        l.mass = MassModel::SecondMoment(placed(&body_offset, &moment));
        self.bodies.push((name, Some(link), body_offset));
        if let Some(p) = parent {
            self.parent_child.push((p, link));
        }
        for child in node.children().filter(|c| c.has_tag_name("body")) {
            self.body(child, Some(link), body_offset, false, &class)?;
        }
        Ok(())
    }

    fn finish(
        mut self,
        root: Node<'a, 'i>,
        children: &[Node<'a, 'i>],
        gravity: Vector3<f64>,
        timestep: f64,
    ) -> Result<MjcfModel> {
        if let Some(total) = self.r.compiler.settotalmass {
            let sum: f64 = self
                .links
                .iter()
                .map(|l| match &l.mass {
                    MassModel::SecondMoment(m) => m[(3, 3)],
                    _ => 0.0,
                })
                .sum();
            if !(sum > 0.0) {
                return Err(self.r.error(root, "settotalmass needs bodies with mass"));
            }
            for l in &mut self.links {
                if let MassModel::SecondMoment(m) = &mut l.mass {
                    *m *= total / sum;
                }
            }
        }
        if self.links.is_empty() {
            return Err(self
                .r
                .error(root, "the model has no bodies and no world geoms"));
        }
        if !self.contact {
            for link in &mut self.links {
                (link.contact.group, link.contact.mask) = (0, 0);
            }
        }
        let mut model = Model::new(self.links)?;
        if self.filter_parent {
            for &(a, b) in &self.parent_child {
                model.exclude_pair_indices(a, b)?;
            }
        }
        for j in &mut self.joints {
            j.dof = model.dof_offset(j.link);
        }
        let sections = |tag: &'static str| {
            children
                .iter()
                .copied()
                .filter(move |c| c.has_tag_name(tag))
        };
        let mut tendons = Vec::new();
        for section in sections("tendon") {
            couplings::tendons(self.r, section, &self.joints, &mut tendons)?;
        }
        let mut inertia = Inertia::new(&model, &self.references, &self.joints);
        let springs = couplings::springdampers(&mut inertia)?;
        let mut constraints = couplings::Equalities::default();
        for section in sections("equality") {
            couplings::equalities(
                self.r,
                section,
                (&self.joints, &tendons, &self.bodies),
                (&mut inertia, timestep),
                &mut constraints,
            )?;
        }
        for (index, stiffness, damping) in springs {
            (self.joints[index].stiffness, self.joints[index].damping) = (stiffness, damping);
        }
        tendons.extend(constraints.tendons);
        let mut model = model.with_tendons(tendons)?.with_welds(constraints.welds)?;
        let mut actuators = Vec::new();
        let mut excluded = Vec::new();
        for &child in children {
            match child.tag_name().name() {
                "actuator" => {
                    for a in child.children().filter(Node::is_element) {
                        actuators.push(actuator(self.r, a, &self.joints, &model)?);
                    }
                }
                "contact" => {
                    for c in child.children().filter(Node::is_element) {
                        if !c.has_tag_name("exclude") {
                            return Err(self
                                .r
                                .error(c, "only <exclude> is supported in <contact>"));
                        }
                        let link = |attr: &str| -> Result<usize> {
                            let name = c.attribute(attr).ok_or_else(|| {
                                self.r.error(c, format!("<exclude> needs '{attr}'"))
                            })?;
                            self.bodies
                                .iter()
                                .find(|b| b.0 == name)
                                .and_then(|b| b.1)
                                .ok_or_else(|| {
                                    self.r.error(c, format!("body '{name}' is not defined"))
                                })
                        };
                        let (a, b) = (link("body1")?, link("body2")?);
                        model.exclude_pair_indices(a, b)?;
                        excluded.push((a, b));
                    }
                }
                _ => {}
            }
        }
        Ok(MjcfModel {
            name: root.attribute("model").unwrap_or("").to_string(),
            model,
            joints: self.joints,
            actuators,
            geoms: self.geoms,
            body_offsets: self.bodies,
            excluded,
            gravity,
            timestep,
            qpos0: DVector::from_vec(self.qpos0),
            initial_references: self.references,
            free_origins: self.free_origins,
        })
    }
}

fn actuator(r: &Reader, node: Node, joints: &[MjcfJoint], model: &Model) -> Result<Actuator> {
    let tag = node.tag_name().name();
    if !matches!(tag, "motor" | "position" | "velocity") {
        return Err(r.error(
            node,
            format!("<{tag}> actuators are not supported (allowed: motor, position, velocity)"),
        ));
    }
    let e = r.elem(node, "main")?;
    for t in [
        "site",
        "body",
        "jointinparent",
        "refsite",
        "cranksite",
        "slidersite",
    ] {
        if e.get(t).is_some() {
            return Err(e.error(format!(
                "{t} transmissions are not supported (allowed: joint, tendon)"
            )));
        }
    }
    let (target, transmission) = match (e.get("joint"), e.get("tendon")) {
        (Some(joint), None) => {
            let j = joints
                .iter()
                .find(|j| j.name.as_deref() == Some(joint))
                .ok_or_else(|| e.error(format!("joint '{joint}' is not defined")))?;
            if !matches!(j.kind, MjcfJointKind::Hinge | MjcfJointKind::Slide) {
                return Err(e.error(format!(
                    "actuators on {:?} joints are not supported (allowed: hinge, slide)",
                    j.kind
                )));
            }
            (joint, Transmission::Joint { dof: j.dof })
        }
        (None, Some(tendon)) => {
            let index = model
                .tendons()
                .iter()
                .position(|t| t.name == tendon)
                .ok_or_else(|| e.error(format!("tendon '{tendon}' is not defined")))?;
            if tag != "motor" {
                return Err(e.error(format!(
                    "<{tag}> actuators on tendons are not supported (allowed on a tendon: motor)"
                )));
            }
            (tendon, Transmission::Tendon { index })
        }
        (Some(_), Some(_)) => {
            return Err(e.error("an actuator takes a 'joint' or a 'tendon', not both"));
        }
        (None, None) => return Err(e.error("an actuator needs a 'joint' or a 'tendon'")),
    };
    let gear = e
        .numbers("gear")?
        .and_then(|g| g.first().copied())
        .unwrap_or(1.0);
    let range = |limited: &str, name: &str| -> Result<Option<(f64, f64)>> {
        let r = e.array::<2>(name)?.map(|[a, b]| (a, b));
        let on = match e.flag(limited)? {
            Some(l) => l,
            None => e.reader.compiler.autolimits && r.is_some(),
        };
        match (on, r) {
            (false, _) => Ok(None),
            (true, Some((a, b))) if a < b => Ok(Some((a, b))),
            (true, r) => Err(e.error(format!(
                "{limited} needs a {name} with lower < upper, got {r:?}"
            ))),
        }
    };
    let number = |name: &str, default: f64| -> Result<f64> {
        let v = e.number(name)?.unwrap_or(default);
        if v >= 0.0 {
            Ok(v)
        } else {
            Err(e.error(format!("{name} = {v} must be non-negative")))
        }
    };
    let kind = match tag {
        "motor" => ActuatorKind::Motor,
        "position" => ActuatorKind::Position {
            kp: number("kp", 1.0)?,
            kv: number("kv", 0.0)?,
        },
        _ => ActuatorKind::Velocity {
            kv: number("kv", 1.0)?,
        },
    };
    if tag == "motor" && (e.get("kp").is_some() || e.get("kv").is_some()) {
        return Err(e.error("a motor takes no kp or kv (use <position> or <velocity>)"));
    }
    Ok(Actuator {
        name: e.get("name").map(String::from),
        target: target.to_string(),
        transmission,
        kind,
        gear,
        ctrlrange: range("ctrllimited", "ctrlrange")?,
        forcerange: range("forcelimited", "forcerange")?,
    })
}
