//! URDF import: links, inertials, joints, limits and collision geometry.
//!
//! Links are ordered parents first from the single root (the link that is no joint's child);
//! the root is fixed to the world, or free when [`UrdfOptions::floating_base`] is set. Joint
//! types map as revolute → [`JointKind::Revolute`] (with limits), continuous → revolute
//! without limits, prismatic → [`JointKind::Prismatic`], fixed → [`JointKind::Fixed`],
//! floating → [`JointKind::Free`], spherical → [`JointKind::Spherical`]; planar joints are
//! refused. Collision boxes, spheres, cylinders and capsules become convex hulls (round
//! shapes tessellated); meshes (OBJ or STL) are read relative to the URDF file, or through
//! the package search path for `package://` URIs, scaled, and split into hulls by convex
//! decomposition; all collision geometry of a link is also kept as one triangle mesh
//! ([`crate::Link::mesh`]) for mesh-based contact models. Inertials become the link's second moment (`MassModel::SecondMoment`).
//! Every error names the element it comes from.

use crate::error::{DynamicsError, Result};
use crate::model::{JointKind, Link, MassModel, Model};
use nalgebra::{Isometry3, Matrix3, Matrix4, Point3, Translation3, UnitQuaternion, Vector3};
use sdrs_geometry::mesh::DecompositionSettings;
use sdrs_geometry::{ConvexHull, TriMesh};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// How to import a URDF.
#[derive(Debug, Clone)]
pub struct UrdfOptions {
    /// Directories searched for `package://NAME/...` URIs (as `DIR/NAME/...`).
    pub package_paths: Vec<PathBuf>,
    /// Attach the root link with a free joint instead of fixing it to the world.
    pub floating_base: bool,
    /// Convex decomposition of collision meshes.
    pub decomposition: DecompositionSettings,
    /// Segments around tessellated cylinders, spheres and capsules.
    pub segments: usize,
}

impl Default for UrdfOptions {
    /// No package paths, fixed base, decomposition at resolution 32 and concavity 0.05,
    /// 16 segments.
    fn default() -> Self {
        Self {
            package_paths: Vec::new(),
            floating_base: false,
            decomposition: DecompositionSettings {
                resolution: 32,
                concavity: 0.05,
            },
            segments: 16,
        }
    }
}

/// Reads the URDF file at `path` into a [`Model`].
pub fn load_urdf(path: impl AsRef<Path>, options: &UrdfOptions) -> Result<Model> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|e| DynamicsError::Urdf {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    let base = path.parent().unwrap_or(Path::new("."));
    urdf_from_str(&text, base, options).map_err(|e| match e {
        DynamicsError::Urdf { message, .. } => DynamicsError::Urdf {
            path: path.display().to_string(),
            message,
        },
        other => other,
    })
}

/// Parses URDF text; relative mesh paths are resolved against `base`.
pub fn urdf_from_str(text: &str, base: &Path, options: &UrdfOptions) -> Result<Model> {
    let robot = urdf_rs::read_from_string(text).map_err(|e| DynamicsError::Urdf {
        path: "<string>".into(),
        message: e.to_string(),
    })?;
    let index: HashMap<&str, usize> = robot
        .links
        .iter()
        .enumerate()
        .map(|(i, l)| (l.name.as_str(), i))
        .collect();
    let mut parent_joint: Vec<Option<usize>> = vec![None; robot.links.len()];
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); robot.links.len()];
    for (j, joint) in robot.joints.iter().enumerate() {
        let element = || format!("joint '{}'", joint.name);
        let find = |name: &str, role: &str| {
            index
                .get(name)
                .copied()
                .ok_or_else(|| DynamicsError::UrdfElement {
                    element: element(),
                    message: format!("its {role} link '{name}' is not defined"),
                })
        };
        let (p, c) = (
            find(&joint.parent.link, "parent")?,
            find(&joint.child.link, "child")?,
        );
        if parent_joint[c].replace(j).is_some() {
            return Err(DynamicsError::UrdfElement {
                element: element(),
                message: format!("link '{}' is the child of two joints", joint.child.link),
            });
        }
        children[p].push(c);
    }
    let roots: Vec<usize> = (0..robot.links.len())
        .filter(|&i| parent_joint[i].is_none())
        .collect();
    let [root] = roots[..] else {
        return Err(DynamicsError::Urdf {
            path: "<string>".into(),
            message: format!(
                "a robot needs exactly one root link (one that is no joint's child), found {}",
                roots.len()
            ),
        });
    };
    // Parents first (breadth first from the root).
    let mut order = vec![root];
    let mut k = 0;
    while k < order.len() {
        order.extend(children[order[k]].iter().copied());
        k += 1;
    }
    if order.len() != robot.links.len() {
        return Err(DynamicsError::Urdf {
            path: "<string>".into(),
            message: "the joints do not connect every link to the root (is there a cycle?)".into(),
        });
    }
    let position: HashMap<usize, usize> = order.iter().enumerate().map(|(p, &i)| (i, p)).collect();
    let mut links = Vec::with_capacity(order.len());
    for &i in &order {
        let link = &robot.links[i];
        let (hulls, mesh) = collision_shapes(link, base, options)?;
        let mass = MassModel::SecondMoment(inertial_moment(link)?);
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
                "root_joint".to_string(),
            ),
            Some(j) => {
                let joint = &robot.joints[j];
                let parent = position[&index[joint.parent.link.as_str()]];
                let (kind, limits) = joint_kind(joint)?;
                (
                    Some(parent),
                    pose(&joint.origin),
                    kind,
                    limits,
                    joint.name.clone(),
                )
            }
        };
        let mut out = Link::new(link.name.clone(), parent, attachment, joint, hulls, mass)
            .with_joint_name(joint_name);
        if let Some((lower, upper)) = limits {
            out = out.with_limits(lower, upper);
        }
        if let Some(mesh) = mesh {
            out = out.with_mesh(mesh);
        }
        links.push(out);
    }
    Model::new(links)
}

fn pose(p: &urdf_rs::Pose) -> Isometry3<f64> {
    let [x, y, z] = p.xyz.0;
    let [roll, pitch, yaw] = p.rpy.0;
    Isometry3::from_parts(
        Translation3::new(x, y, z),
        UnitQuaternion::from_euler_angles(roll, pitch, yaw),
    )
}

fn joint_kind(joint: &urdf_rs::Joint) -> Result<(JointKind, Option<(f64, f64)>)> {
    use urdf_rs::JointType;
    let axis = Vector3::from(joint.axis.xyz.0);
    let limits = (joint.limit.lower.is_finite()
        && joint.limit.upper.is_finite()
        && joint.limit.lower < joint.limit.upper)
        .then_some((joint.limit.lower, joint.limit.upper));
    Ok(match joint.joint_type {
        JointType::Revolute => (JointKind::Revolute { axis }, limits),
        JointType::Continuous => (JointKind::Revolute { axis }, None),
        JointType::Prismatic => (JointKind::Prismatic { axis }, limits),
        JointType::Fixed => (JointKind::Fixed, None),
        JointType::Floating => (JointKind::Free, None),
        JointType::Spherical => (JointKind::Spherical, None),
        JointType::Planar => {
            return Err(DynamicsError::UrdfElement {
                element: format!("joint '{}'", joint.name),
                message: "planar joints are not supported (allowed: revolute, continuous, \
                          prismatic, fixed, floating, spherical)"
                    .into(),
            });
        }
    })
}

/// `Σ m x̄ x̄ᵀ` of a URDF inertial: about the centre of mass `M_c = ½ tr(I) 1 − I`, rotated
/// into the link frame and moved to the link origin.
fn inertial_moment(link: &urdf_rs::Link) -> Result<Matrix4<f64>> {
    let inertial = &link.inertial;
    let m = inertial.mass.value;
    let i = &inertial.inertia;
    let tensor = Matrix3::new(
        i.ixx, i.ixy, i.ixz, i.ixy, i.iyy, i.iyz, i.ixz, i.iyz, i.izz,
    );
    if !(m >= 0.0 && m.is_finite()) || tensor.iter().any(|v| !v.is_finite()) {
        return Err(DynamicsError::UrdfElement {
            element: format!("link '{}' inertial", link.name),
            message: format!("mass {m} and inertia must be finite, mass non-negative"),
        });
    }
    let frame = pose(&inertial.origin);
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
    Ok(out)
}

/// The link's collision hulls, and all its collision geometry as one triangle mesh.
fn collision_shapes(
    link: &urdf_rs::Link,
    base: &Path,
    options: &UrdfOptions,
) -> Result<(Vec<ConvexHull>, Option<TriMesh>)> {
    let mut hulls = Vec::new();
    let mut meshes = Vec::new();
    for (k, collision) in link.collision.iter().enumerate() {
        let element = || format!("link '{}' collision {k}", link.name);
        let fail = |message: String| DynamicsError::UrdfElement {
            element: element(),
            message,
        };
        let frame = pose(&collision.origin);
        let segments = options.segments;
        let mesh_of = |mesh: sdrs_geometry::Result<TriMesh>| mesh.map_err(|e| fail(e.to_string()));
        // The geometry as a triangle mesh in the collision frame, and the point sets of its
        // hulls (one for a primitive, the convex decomposition's parts for a mesh).
        let (mesh, pieces): (TriMesh, Vec<Vec<Point3<f64>>>) = match &collision.geometry {
            urdf_rs::Geometry::Box { size } => {
                let mesh = mesh_of(TriMesh::cuboid(Vector3::from(size.0) * 0.5))?;
                let points = mesh.vertices().to_vec();
                (mesh, vec![points])
            }
            urdf_rs::Geometry::Sphere { radius } => {
                let mesh = mesh_of(TriMesh::icosphere(*radius, 2))?;
                let points = mesh.vertices().to_vec();
                (mesh, vec![points])
            }
            urdf_rs::Geometry::Cylinder { radius, length } => {
                let mesh = mesh_of(TriMesh::cylinder(*radius, 0.5 * length, segments))?;
                let points = mesh.vertices().to_vec();
                (mesh, vec![points])
            }
            urdf_rs::Geometry::Capsule { radius, length } => {
                let mesh = mesh_of(TriMesh::capsule(*radius, 0.5 * length, segments, 4))?;
                let points = mesh.vertices().to_vec();
                (mesh, vec![points])
            }
            urdf_rs::Geometry::Mesh { filename, scale } => {
                let path = resolve(filename, base, &options.package_paths).ok_or_else(|| {
                    fail(format!(
                        "mesh '{filename}' not found (relative paths are resolved against the \
                         URDF's directory, package:// URIs against the package search path {:?})",
                        options.package_paths
                    ))
                })?;
                let mesh = TriMesh::from_file(&path).map_err(|e| fail(e.to_string()))?;
                let s = scale
                    .as_ref()
                    .map(|v| Vector3::from(v.0))
                    .unwrap_or(Vector3::repeat(1.0));
                let scaled = TriMesh::new(
                    mesh.vertices()
                        .iter()
                        .map(|p| Point3::from(p.coords.component_mul(&s)))
                        .collect(),
                    mesh.triangles().to_vec(),
                )
                .map_err(|e| fail(e.to_string()))?;
                let parts = scaled
                    .convex_decomposition(&options.decomposition)
                    .map_err(|e| fail(e.to_string()))?
                    .iter()
                    .map(|h| h.vertices().to_vec())
                    .collect();
                (scaled, parts)
            }
        };
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
            TriMesh::merged(&meshes).map_err(|e| DynamicsError::UrdfElement {
                element: format!("link '{}' collision", link.name),
                message: e.to_string(),
            })?,
        )
    };
    Ok((hulls, mesh))
}

/// A mesh path: `package://NAME/REST` through the search path, else relative to `base`.
fn resolve(filename: &str, base: &Path, packages: &[PathBuf]) -> Option<PathBuf> {
    if let Some(rest) = filename.strip_prefix("package://") {
        return packages
            .iter()
            .map(|dir| dir.join(rest))
            .find(|p| p.is_file());
    }
    let plain = filename.strip_prefix("file://").unwrap_or(filename);
    let path = base.join(plain);
    path.is_file().then_some(path)
}
