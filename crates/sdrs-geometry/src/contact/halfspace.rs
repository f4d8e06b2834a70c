//! Contacts of a convex hull (body B) with a half-space (body A, e.g. the ground).

use super::{ContactPoint, check_margin, contact_frame, patch::select_patch};
use crate::error::{GeometryError, Result, check_pose};
use crate::hull::ConvexHull;
use nalgebra::{Isometry3, Unit, Vector3};

/// The contact patch of `hull` at `pose` (body B) on the half-space below a plane (body A).
///
/// The plane is `n̂·x = plane_offset` with `n̂ = plane_normal / ‖plane_normal‖`, so the offset
/// is the plane's signed distance from the world origin along the unit normal. The normal of
/// every contact is `n̂` (from the ground, A, to the hull, B). Candidates are the hull
/// vertices within `margin` of the plane (`n̂·v − plane_offset ≤ margin`), each giving a point
/// midway between the vertex and its projection on the plane; the patch is the deepest one
/// and up to three more that span the largest area. Empty when no vertex is within `margin`.
///
/// Errors: a zero or non-finite normal, a non-finite offset, a negative or non-finite margin,
/// or an invalid pose ([`GeometryError::InvalidPose`]).
///
/// ```
/// use sdrs_geometry::{ConvexHull, contact::hull_halfspace_contacts};
/// use nalgebra::{Isometry3, Vector3};
/// let cube = ConvexHull::cuboid(Vector3::new(0.5, 0.5, 0.5))?;
/// // Resting 1 mm deep on the ground z = 0.
/// let pose = Isometry3::translation(0.0, 0.0, 0.499);
/// let contacts = hull_halfspace_contacts(&cube, &pose, &Vector3::z(), 0.0, 1e-3)?;
/// assert_eq!(contacts.len(), 4);
/// for c in &contacts {
///     assert!((c.separation + 1e-3).abs() < 1e-12);
///     assert!((c.position.z + 0.5e-3).abs() < 1e-12);
/// }
/// # Ok::<(), sdrs_geometry::GeometryError>(())
/// ```
pub fn hull_halfspace_contacts(
    hull: &ConvexHull,
    pose: &Isometry3<f64>,
    plane_normal: &Vector3<f64>,
    plane_offset: f64,
    margin: f64,
) -> Result<Vec<ContactPoint>> {
    check_margin(margin)?;
    check_pose(1, pose)?;
    let length = plane_normal.norm();
    if !(length.is_finite() && length > 0.0) {
        return Err(GeometryError::InvalidParameter {
            name: "plane_normal (norm)",
            value: length,
            allowed: "finite and positive",
        });
    }
    if !plane_offset.is_finite() {
        return Err(GeometryError::InvalidParameter {
            name: "plane_offset",
            value: plane_offset,
            allowed: "finite",
        });
    }
    let normal = Unit::new_unchecked(plane_normal / length);
    let frame = contact_frame(&normal);
    let candidates: Vec<ContactPoint> = hull
        .vertices()
        .iter()
        .map(|v| pose * v)
        .filter_map(|p| {
            let separation = normal.dot(&p.coords) - plane_offset;
            (separation <= margin).then(|| ContactPoint {
                position: p - normal.as_ref() * (0.5 * separation),
                normal,
                separation,
                frame,
            })
        })
        .collect();
    Ok(select_patch(&candidates, hull.bounding_sphere_radius()))
}
