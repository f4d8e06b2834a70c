//! Triangle meshes: validated storage, file import, primitive generators and convex
//! decomposition into hulls.

mod decompose;
mod import;
mod primitives;

pub use decompose::DecompositionSettings;

use crate::aabb::Aabb;
use crate::error::{GeometryError, Result, check_finite};
use nalgebra::{Isometry3, Point3};

/// Relative area below which a triangle counts as degenerate (times the squared mesh size).
const DEGENERATE_AREA: f64 = 1e-14;

/// A triangle mesh: vertices and counter-clockwise (outward) index triples.
///
/// Construction validates: finite coordinates, indices in range, no degenerate triangles.
///
/// ```
/// use sdrs_geometry::TriMesh;
/// use nalgebra::{Isometry3, Point3};
/// let tet = TriMesh::new(
///     vec![Point3::origin(), Point3::new(1.0, 0.0, 0.0), Point3::new(0.0, 1.0, 0.0), Point3::new(0.0, 0.0, 1.0)],
///     vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
/// ).unwrap();
/// assert_eq!(tet.triangles().len(), 4);
/// assert!(TriMesh::new(tet.vertices().to_vec(), vec![[0, 1, 7]]).is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct TriMesh {
    vertices: Vec<Point3<f64>>,
    triangles: Vec<[u32; 3]>,
}

impl TriMesh {
    /// A validated mesh.
    pub fn new(vertices: Vec<Point3<f64>>, triangles: Vec<[u32; 3]>) -> Result<Self> {
        if triangles.is_empty() {
            return Err(GeometryError::EmptyMesh);
        }
        check_finite("vertex", &vertices)?;
        for (triangle, t) in triangles.iter().enumerate() {
            if let Some(&vertex) = t.iter().find(|&&i| i as usize >= vertices.len()) {
                return Err(GeometryError::IndexOutOfRange {
                    triangle,
                    vertex: vertex as usize,
                    vertex_count: vertices.len(),
                });
            }
        }
        let size = Aabb::from_points(&vertices).extents().norm();
        let mesh = Self {
            vertices,
            triangles,
        };
        for triangle in 0..mesh.triangles.len() {
            let area = mesh.triangle_area(triangle);
            if !(area > DEGENERATE_AREA * size * size) {
                return Err(GeometryError::DegenerateTriangle { triangle, area });
            }
        }
        Ok(mesh)
    }

    /// The vertices.
    pub fn vertices(&self) -> &[Point3<f64>] {
        &self.vertices
    }

    /// The triangles, as counter-clockwise vertex index triples.
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// The three corners of triangle `t`.
    ///
    /// # Panics
    /// If `t` is not a triangle index (like slice indexing).
    pub fn corners(&self, t: usize) -> [Point3<f64>; 3] {
        self.triangles[t].map(|i| self.vertices[i as usize])
    }

    /// Area of triangle `t`.
    pub fn triangle_area(&self, t: usize) -> f64 {
        let [a, b, c] = self.corners(t);
        0.5 * (b - a).cross(&(c - a)).norm()
    }

    /// Local bounding box.
    pub fn aabb(&self) -> Aabb {
        Aabb::from_points(&self.vertices)
    }

    /// Signed volume enclosed (positive for a closed, outward-oriented mesh).
    pub fn signed_volume(&self) -> f64 {
        (0..self.triangles.len())
            .map(|t| {
                let [a, b, c] = self.corners(t);
                a.coords.dot(&b.coords.cross(&c.coords)) / 6.0
            })
            .sum()
    }

    /// Whether this mesh is the closed, outward-oriented boundary of a convex body, to a
    /// relative `tolerance` (of the bounding box's diagonal; `1e-6` suits meshes read from
    /// files, which hold single-precision coordinates): every vertex lies on or behind the
    /// plane of every triangle, and the enclosed volume is that of the vertices' convex hull
    /// (so the mesh is closed and encloses it all).
    ///
    /// ```
    /// use sdrs_geometry::TriMesh;
    /// use nalgebra::Vector3;
    /// assert!(TriMesh::cuboid(Vector3::new(1.0, 2.0, 3.0))?.is_convex(1e-9));
    /// // A box with one face pushed in is not.
    /// let boxy = TriMesh::cuboid(Vector3::repeat(1.0))?;
    /// let mut vertices = boxy.vertices().to_vec();
    /// vertices.push(nalgebra::Point3::new(0.0, 0.0, 0.5));
    /// let top = vertices.len() as u32 - 1;
    /// let mut triangles = Vec::new();
    /// for t in boxy.triangles() {
    ///     let high = t.iter().all(|&i| vertices[i as usize].z > 0.0);
    ///     if high {
    ///         // Fan the top face's triangles around the dent.
    ///         triangles.extend([[t[0], t[1], top], [t[1], t[2], top], [t[2], t[0], top]]);
    ///     } else {
    ///         triangles.push(*t);
    ///     }
    /// }
    /// assert!(!TriMesh::new(vertices, triangles)?.is_convex(1e-9));
    /// # Ok::<(), sdrs_geometry::GeometryError>(())
    /// ```
    pub fn is_convex(&self, tolerance: f64) -> bool {
        let aabb = self.aabb();
        let size = (aabb.maxs - aabb.mins).norm();
        let slack = tolerance * size;
        let behind_every_plane = (0..self.triangles.len()).all(|t| {
            let [a, b, c] = self.corners(t);
            let normal = (b - a).cross(&(c - a));
            let length = normal.norm();
            length == 0.0
                || self
                    .vertices
                    .iter()
                    .all(|p| normal.dot(&(p - a)) <= slack * length)
        });
        behind_every_plane
            && crate::ConvexHull::from_point_cloud(&self.vertices).is_ok_and(|hull| {
                let enclosed: f64 = hull
                    .triangles()
                    .iter()
                    .map(|t| {
                        let [a, b, c] = t.map(|i| hull.vertices()[i as usize].coords);
                        a.dot(&b.cross(&c)) / 6.0
                    })
                    .sum();
                (self.signed_volume() - enclosed).abs() <= 3.0 * slack * size * size
            })
    }

    /// This mesh with every vertex moved by `pose`, which must be finite with a unit rotation
    /// (else the vertices are not finite: use [`TriMesh::try_transformed`] for input that may
    /// be bad).
    pub fn transformed(&self, pose: &Isometry3<f64>) -> Self {
        Self {
            vertices: self.vertices.iter().map(|v| pose * v).collect(),
            triangles: self.triangles.clone(),
        }
    }

    /// [`TriMesh::transformed`], or [`GeometryError::InvalidPose`] (body 0) for a non-finite
    /// pose or a non-unit rotation.
    pub fn try_transformed(&self, pose: &Isometry3<f64>) -> Result<Self> {
        crate::error::check_pose(0, pose)?;
        Ok(self.transformed(pose))
    }

    /// All `meshes` as one (vertex lists concatenated, indices shifted). Errors only if the
    /// list is empty.
    ///
    /// ```
    /// use sdrs_geometry::TriMesh;
    /// use nalgebra::{Isometry3, Vector3};
    /// let cube = TriMesh::cuboid(Vector3::repeat(0.5)).unwrap();
    /// let two = TriMesh::merged(&[cube.clone(), cube.transformed(&Isometry3::translation(2.0, 0.0, 0.0))]).unwrap();
    /// assert_eq!(two.triangles().len(), 24);
    /// ```
    pub fn merged(meshes: &[TriMesh]) -> Result<Self> {
        if meshes.is_empty() {
            return Err(GeometryError::EmptyMesh);
        }
        let mut vertices = Vec::new();
        let mut triangles = Vec::new();
        for m in meshes {
            let offset = vertices.len() as u32;
            vertices.extend_from_slice(&m.vertices);
            triangles.extend(m.triangles.iter().map(|t| t.map(|i| i + offset)));
        }
        Ok(Self {
            vertices,
            triangles,
        })
    }

    /// Total surface area.
    pub fn surface_area(&self) -> f64 {
        (0..self.triangles.len())
            .map(|t| self.triangle_area(t))
            .sum()
    }
}
