//! URDF export: a model's robot (one root link and its descendants) as a URDF file with one
//! OBJ mesh per convex hull, so that an optimised design (SDRS sec. V: moved vertices and
//! attachments) can be checked in another simulator or read back with [`crate::load_urdf`].
//!
//! What is written, per link: `<inertial>` from the link's second moment `Σ m x̄ x̄ᵀ` (centre
//! of mass and the inertia tensor about it, axes of the link frame), and for every hull one
//! `<collision>` and one `<visual>` with the mesh `meshes/NNN_LINK_K.obj` (the hull's vertices
//! and outward triangles). Per joint: the attachment as `<origin xyz rpy>` (URDF's fixed-axis
//! roll-pitch-yaw, `R = R_z(y) R_y(p) R_x(r)`), the axis, and the limits.
//!
//! Joint kinds map as revolute → `revolute` (with `<limit>`) or `continuous` (without),
//! prismatic → `prismatic` (a `<limit>` only when limited), fixed → `fixed`, free (not the
//! root) → `floating`, spherical → `spherical` (not in the URDF standard; sdrs reads it back),
//! universal → two `revolute`/`continuous` joints with a massless link `LINK_universal` between
//! them. sdrs has no effort or velocity limits: `<limit>` carries `effort` and `velocity` of
//! 1e9, meaning none.
//!
//! The root's joint to the world: a free root hangs from a massless link `world` by a
//! `floating` joint whose origin is the root's attachment (its pose at `q = 0`), which MuJoCo
//! reads as a free joint and sdrs as [`JointKind::Free`]; a fixed root with a non-identity
//! attachment hangs from `world` by a `fixed` joint; a fixed root at the identity is the
//! URDF's root.
//!
//! Reading the file back (fixed base, [`crate::UrdfOptions::keep_convex_meshes`]) gives the
//! same links (and the massless `world`), joints, limits, masses and hulls, to the single
//! precision of the mesh files' coordinates (the loaders read `f32`) for the hulls and to
//! round-off for everything else.

use crate::error::{DynamicsError, Result};
use crate::model::{JointKind, Link, Model};
use nalgebra::{Isometry3, Matrix3, Vector3};
use sdrs_geometry::ConvexHull;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What [`export_urdf`] wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct UrdfExport {
    /// The URDF file.
    pub urdf: PathBuf,
    /// The mesh files, one per hull, in link and hull order.
    pub meshes: Vec<PathBuf>,
}

/// Writes the robot whose root link is named `root` (that link and all its descendants) to
/// `dir/NAME.urdf` and `dir/meshes/`, creating the folders; see the module documentation for
/// what is written.
///
/// ```
/// use sdrs_dynamics::{JointKind, Link, MassModel, Model, UrdfOptions, export_urdf, load_urdf};
/// use sdrs_geometry::ConvexHull;
/// use nalgebra::{Isometry3, Vector3};
/// let bar = ConvexHull::cuboid(Vector3::new(0.05, 0.05, 0.2))?;
/// let model = Model::new(vec![
///     Link::new("base", None, Isometry3::identity(), JointKind::Fixed, vec![bar.clone()],
///         MassModel::Lumped { mass: 2.0 }),
///     Link::new("arm", Some(0), Isometry3::translation(0.0, 0.0, 0.2),
///         JointKind::Revolute { axis: Vector3::y() }, vec![bar], MassModel::Lumped { mass: 1.0 })
///         .with_limits(-1.0, 1.0),
/// ])?;
/// let dir = std::env::temp_dir().join(format!("sdrs-export-doc-{}", std::process::id()));
/// let export = export_urdf(&model, "base", &dir, "pendulum")?;
/// assert_eq!(export.meshes.len(), 2);
/// // Read it back as a fixed base (a free root would come back hanging from `world`).
/// let options = UrdfOptions { keep_convex_meshes: true, ..UrdfOptions::default() };
/// let back = load_urdf(&export.urdf, &options)?;
/// assert_eq!(back.links()[1].limits, Some((-1.0, 1.0)));
/// assert!((back.mass(1) - 1.0).abs() < 1e-12);
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn export_urdf(
    model: &Model,
    root: &str,
    dir: impl AsRef<Path>,
    name: &str,
) -> Result<UrdfExport> {
    let dir = dir.as_ref();
    let root = model.link_index(root)?;
    let links = model.links();
    // The root and its descendants (parents come before children in a model).
    let mut inside = vec![false; links.len()];
    inside[root] = true;
    let robot: Vec<usize> = (0..links.len())
        .filter(|&i| {
            let keep = i == root || links[i].parent.is_some_and(|p| inside[p]);
            inside[i] = keep;
            keep
        })
        .collect();
    let meshes_dir = dir.join("meshes");
    std::fs::create_dir_all(&meshes_dir).map_err(|e| io_error(&meshes_dir, e))?;
    let base = &links[root];
    let mut xml = String::new();
    let _ = writeln!(xml, r#"<?xml version="1.0"?>"#);
    let _ = writeln!(
        xml,
        "<!-- Written by sdrs {} from link '{}' and its descendants. -->",
        env!("CARGO_PKG_VERSION"),
        escape(&base.name)
    );
    let _ = writeln!(xml, r#"<robot name="{}">"#, escape(name));
    if !matches!(base.joint, JointKind::Fixed) || base.attachment != Isometry3::identity() {
        let _ = writeln!(xml, r#"  <link name="world"/>"#);
        link_joint(&mut xml, base, "world");
    }
    let mut meshes = Vec::new();
    for &i in &robot {
        let link = &links[i];
        let _ = writeln!(xml, r#"  <link name="{}">"#, escape(&link.name));
        inertial_element(&mut xml, model, i);
        for (k, hull) in link.hulls.iter().enumerate() {
            let file = format!("{i:03}_{}_{k}.obj", file_safe(&link.name));
            let path = meshes_dir.join(&file);
            std::fs::write(&path, obj_text(hull)).map_err(|e| io_error(&path, e))?;
            meshes.push(path);
            for tag in ["collision", "visual"] {
                let _ = writeln!(
                    xml,
                    r#"    <{tag}><geometry><mesh filename="meshes/{}"/></geometry></{tag}>"#,
                    escape(&file)
                );
            }
        }
        let _ = writeln!(xml, "  </link>");
        if let Some(parent) = link.parent.filter(|_| i != root) {
            link_joint(&mut xml, link, &links[parent].name);
        }
    }
    let _ = writeln!(xml, "</robot>");
    let urdf = dir.join(format!("{}.urdf", file_safe(name)));
    std::fs::write(&urdf, xml).map_err(|e| io_error(&urdf, e))?;
    Ok(UrdfExport { urdf, meshes })
}

/// The joint of `link` to the link named `parent` (a universal joint as two hinges with a
/// massless link between them).
fn link_joint(xml: &mut String, link: &Link, parent: &str) {
    let name = link.joint_label();
    let child = &link.name;
    let at = &link.attachment;
    let limits = link.limits;
    let limited = |yes: &'static str, no: &'static str| if limits.is_some() { yes } else { no };
    match &link.joint {
        JointKind::Fixed => joint_element(xml, &name, "fixed", parent, child, at, None, None),
        JointKind::Free => joint_element(xml, &name, "floating", parent, child, at, None, None),
        JointKind::Spherical => {
            joint_element(xml, &name, "spherical", parent, child, at, None, None)
        }
        JointKind::Revolute { axis } => joint_element(
            xml,
            &name,
            limited("revolute", "continuous"),
            parent,
            child,
            at,
            Some(axis),
            limits,
        ),
        JointKind::Prismatic { axis } => joint_element(
            xml,
            &name,
            "prismatic",
            parent,
            child,
            at,
            Some(axis),
            limits,
        ),
        JointKind::Universal { first, second } => {
            let middle = format!("{child}_universal");
            let _ = writeln!(xml, r#"  <link name="{}"/>"#, escape(&middle));
            let first_name = format!("{name} 1");
            joint_element(
                xml,
                &first_name,
                "continuous",
                parent,
                &middle,
                at,
                Some(first),
                None,
            );
            let second_name = format!("{name} 2");
            let identity = Isometry3::identity();
            joint_element(
                xml,
                &second_name,
                "continuous",
                &middle,
                child,
                &identity,
                Some(second),
                None,
            );
        }
    }
}

/// `<inertial>`: the centre of mass and the inertia tensor about it, from `Σ m x̄ x̄ᵀ`.
fn inertial_element(xml: &mut String, model: &Model, link: usize) {
    let m = model.mass(link);
    if m <= 0.0 {
        return;
    }
    let s = model.second_moment(link);
    let c: Vector3<f64> = s.fixed_view::<3, 1>(0, 3) / m;
    // Σ m (x − c)(x − c)ᵀ, and the inertia tensor tr(C) I − C.
    let centred: Matrix3<f64> = s.fixed_view::<3, 3>(0, 0) - c * c.transpose() * m;
    let inertia = Matrix3::identity() * centred.trace() - centred;
    let _ = writeln!(
        xml,
        r#"    <inertial><origin xyz="{:?} {:?} {:?}"/><mass value="{m:?}"/><inertia ixx="{:?}" ixy="{:?}" ixz="{:?}" iyy="{:?}" iyz="{:?}" izz="{:?}"/></inertial>"#,
        c.x,
        c.y,
        c.z,
        inertia[(0, 0)],
        inertia[(0, 1)],
        inertia[(0, 2)],
        inertia[(1, 1)],
        inertia[(1, 2)],
        inertia[(2, 2)]
    );
}

/// One `<joint>` element.
#[allow(clippy::too_many_arguments)]
fn joint_element(
    xml: &mut String,
    name: &str,
    kind: &str,
    parent: &str,
    child: &str,
    attachment: &Isometry3<f64>,
    axis: Option<&Vector3<f64>>,
    limits: Option<(f64, f64)>,
) {
    let _ = writeln!(xml, r#"  <joint name="{}" type="{kind}">"#, escape(name));
    let _ = writeln!(
        xml,
        r#"    <parent link="{}"/><child link="{}"/>"#,
        escape(parent),
        escape(child)
    );
    let _ = writeln!(xml, "    <origin {}/>", origin(attachment));
    if let Some(a) = axis {
        let _ = writeln!(xml, r#"    <axis xyz="{:?} {:?} {:?}"/>"#, a.x, a.y, a.z);
    }
    if let Some((lower, upper)) = limits {
        let _ = writeln!(
            xml,
            r#"    <limit lower="{lower:?}" upper="{upper:?}" effort="1e9" velocity="1e9"/>"#
        );
    }
    let _ = writeln!(xml, "  </joint>");
}

/// `xyz="…" rpy="…"` of a pose (fixed-axis roll, pitch, yaw as URDF defines them).
fn origin(pose: &Isometry3<f64>) -> String {
    let t = pose.translation.vector;
    let (r, p, y) = pose.rotation.euler_angles();
    format!(
        r#"xyz="{:?} {:?} {:?}" rpy="{r:?} {p:?} {y:?}""#,
        t.x, t.y, t.z
    )
}

/// A hull as OBJ text: its vertices (shortest round-trip decimals) and outward triangles.
fn obj_text(hull: &ConvexHull) -> String {
    let mut text = String::new();
    for v in hull.vertices() {
        let _ = writeln!(text, "v {:?} {:?} {:?}", v.x, v.y, v.z);
    }
    for t in hull.triangles() {
        let _ = writeln!(text, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    text
}

/// `name` with every character but ASCII letters, digits, `-` and `_` replaced by `_`.
fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `text` escaped for an XML attribute.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn io_error(path: &Path, e: std::io::Error) -> DynamicsError {
    DynamicsError::Urdf {
        format: "URDF export",
        file: path.display().to_string(),
        line: None,
        message: e.to_string(),
    }
}
