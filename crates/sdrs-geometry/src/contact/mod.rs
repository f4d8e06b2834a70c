//! Contact points for hard (unrelaxed) contact: the collision-detection phase of the NCP paper
//! (efficient-differentiable-simulation-ncp-implicit, sec. III-A and III-D, appendix C).
//!
//! A contact between body A and body B is a [`ContactPoint`]: a world position midway between
//! the two surfaces, the unit normal from A to B, the signed separation along that normal
//! (negative when the bodies penetrate) and the contact frame `c` of the paper (origin at the
//! point, z axis along the normal). As in the paper's experiments, a touching pair yields a
//! patch of up to [`MAX_PATCH_POINTS`] points, chosen from the candidate points (the hull
//! vertices near a plane, or the corners of the clipped supporting faces of two hulls) as the
//! deepest one plus those spanning the largest area, so that a box resting on a face is held
//! at its four corners.
//!
//! - [`hull_halfspace_contacts`]: a hull (body B) against a plane (body A, e.g. the ground).
//! - [`hull_pair_contacts`]: two hulls; the normal comes from GJK when they are apart and from
//!   the separating-axis minimum (the support-function equivalent of EPA for polytopes) when
//!   they overlap; the patch from clipping the two supporting features.
//! - [`derivatives`]: the [`derivatives::ContactJacobian`] of a contact with respect to the
//!   world twists of A and B ([`crate::twist`] convention), appendix C.

pub mod derivatives;
mod frame;
mod halfspace;
mod pair;
mod patch;

pub use frame::contact_frame;
pub use halfspace::hull_halfspace_contacts;
pub use pair::hull_pair_contacts;

use nalgebra::{Point3, Rotation3, Unit, Vector3};

/// Most points a contact patch holds (the paper's patches have 4).
pub const MAX_PATCH_POINTS: usize = 4;

/// One contact point between body A and body B.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactPoint {
    /// World position, midway between the surfaces of A and B along the normal.
    pub position: Point3<f64>,
    /// Unit world normal pointing from body A to body B.
    pub normal: Unit<Vector3<f64>>,
    /// Signed distance from A's surface to B's surface along the normal: positive when apart,
    /// negative when penetrating.
    pub separation: f64,
    /// The contact frame's orientation: z is the normal, x and y the tangent basis of
    /// [`contact_frame`]. Relative velocities expressed in this frame are `frameᵀ (v_B − v_A)`.
    pub frame: Rotation3<f64>,
}

impl ContactPoint {
    /// The point on A's surface: `position − ½ separation · normal`.
    pub fn point_a(&self) -> Point3<f64> {
        self.position - self.normal.as_ref() * (0.5 * self.separation)
    }

    /// The point on B's surface: `position + ½ separation · normal`.
    pub fn point_b(&self) -> Point3<f64> {
        self.position + self.normal.as_ref() * (0.5 * self.separation)
    }
}

/// Checks a contact margin: finite and non-negative.
fn check_margin(margin: f64) -> crate::Result<()> {
    if margin.is_finite() && margin >= 0.0 {
        Ok(())
    } else {
        Err(crate::GeometryError::InvalidParameter {
            name: "margin",
            value: margin,
            allowed: "finite and non-negative (the distance below which points are reported)",
        })
    }
}
