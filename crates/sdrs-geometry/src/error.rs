//! The one error type of `sdrs-geometry`.

use thiserror::Error;

/// Everything that can go wrong when geometry is built from user input.
///
/// Every variant says what was wrong and what is allowed, so that a message can be shown to a
/// user as it is.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum GeometryError {
    /// A convex hull needs at least four points that span a volume.
    #[error("a convex hull needs at least 4 points, got {0}")]
    TooFewPoints(usize),
    /// A coordinate was NaN or infinite.
    #[error(
        "{what} {index} has a non-finite coordinate ({value:?}); only finite values are allowed"
    )]
    NonFinite {
        /// What kind of item held the value (e.g. "point", "vertex").
        what: &'static str,
        /// Index of the offending item.
        index: usize,
        /// The offending coordinates.
        value: [f64; 3],
    },
    /// All points lie in one plane (or on one line, or coincide): the hull has no volume.
    #[error(
        "the {0} points are coplanar (relative thickness {1:.3e}); a convex hull must span a volume"
    )]
    Degenerate(usize, f64),
    /// Two hull vertices coincide exactly.
    #[error(
        "vertices {first} and {second} coincide; V-representation vertices must be distinct \
         (use ConvexHull::from_point_cloud to drop duplicates and interior points)"
    )]
    DuplicateVertex {
        /// The first index of the duplicated point.
        first: usize,
        /// The second index of the duplicated point.
        second: usize,
    },
    /// A triangle refers to a vertex that does not exist.
    #[error(
        "triangle {triangle} refers to vertex {vertex}, but the mesh has only {vertex_count} vertices"
    )]
    IndexOutOfRange {
        /// Index of the triangle.
        triangle: usize,
        /// The out-of-range vertex index.
        vertex: usize,
        /// Number of vertices in the mesh.
        vertex_count: usize,
    },
    /// A triangle has (near) zero area.
    #[error(
        "triangle {triangle} is degenerate (area {area:.3e}); triangles must have positive area"
    )]
    DegenerateTriangle {
        /// Index of the triangle.
        triangle: usize,
        /// Its area.
        area: f64,
    },
    /// A mesh has no triangles.
    #[error("the mesh has no triangles; at least one is required")]
    EmptyMesh,
    /// A parameter is outside its allowed range.
    #[error("invalid parameter {name} = {value}: {allowed}")]
    InvalidParameter {
        /// Parameter name.
        name: &'static str,
        /// The value that was given.
        value: f64,
        /// What values are allowed.
        allowed: &'static str,
    },
    /// A mesh file could not be read or parsed.
    #[error("cannot import mesh {path}: {reason}")]
    Import {
        /// The path of the file.
        path: String,
        /// What went wrong.
        reason: String,
    },
    /// A vertex array does not match the mesh a structure was built for.
    #[error("expected positions for {expected} vertices, got {got}")]
    VertexCountMismatch {
        /// Vertices the structure needs.
        expected: usize,
        /// Vertices given.
        got: usize,
    },
    /// A pose has a non-finite entry or a rotation that is not a unit quaternion.
    #[error(
        "pose of body {body} is invalid ({reason}); poses must be finite with unit rotation \
         quaternions"
    )]
    InvalidPose {
        /// 0 for the first body of a pair, 1 for the second.
        body: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A broad-phase box has a non-finite corner.
    #[error(
        "box of proxy {index} has a non-finite corner ({mins:?} to {maxs:?}); boxes must be finite"
    )]
    NonFiniteBox {
        /// Index of the proxy.
        index: usize,
        /// Lower corner.
        mins: [f64; 3],
        /// Upper corner.
        maxs: [f64; 3],
    },
    /// A contact whose geometry the contact derivatives do not cover.
    #[error(
        "cannot differentiate this contact: {0}; contact derivatives cover a vertex of one body \
         against a face of the other and crossing edges, with the normal a face normal of \
         either body"
    )]
    UnsupportedContactFeature(&'static str),
    /// Mass properties need a positive density.
    #[error("density must be finite and positive, got {0}")]
    InvalidDensity(f64),
}

/// Shorthand for results of this crate.
pub type Result<T, E = GeometryError> = std::result::Result<T, E>;

/// Checks that every point is finite; `what` names the items in the error ("point", "vertex").
pub(crate) fn check_finite(what: &'static str, points: &[nalgebra::Point3<f64>]) -> Result<()> {
    match points
        .iter()
        .position(|p| !p.coords.iter().all(|c| c.is_finite()))
    {
        Some(index) => {
            let p = points[index];
            Err(GeometryError::NonFinite {
                what,
                index,
                value: [p.x, p.y, p.z],
            })
        }
        None => Ok(()),
    }
}

/// Checks that a pose is finite with a unit rotation (norm within 1e-6 of 1: composed unit
/// quaternions drift by round-off only).
pub(crate) fn check_pose(body: usize, pose: &nalgebra::Isometry3<f64>) -> Result<()> {
    let finite = pose.translation.vector.iter().all(|c| c.is_finite())
        && pose.rotation.coords.iter().all(|c| c.is_finite());
    let reason = if !finite {
        "non-finite entry"
    } else if !((pose.rotation.coords.norm() - 1.0).abs() <= 1e-6) {
        "rotation quaternion is not of unit norm"
    } else {
        return Ok(());
    };
    Err(GeometryError::InvalidPose { body, reason })
}
