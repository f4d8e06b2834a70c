//! The contact frame built from a normal (the function `c(point, normal)` of the NCP paper,
//! sec. III-D): z along the normal, x the projection of a fixed reference axis onto the
//! tangent plane.

use nalgebra::{Matrix3, Rotation3, Unit, Vector3};

/// The reference axis whose tangential part becomes the frame's x axis: world x, or world y
/// when the normal is within about 45° of ±x (so the projection never shrinks below
/// `sin 45°`). The switch makes the frame discontinuous there; the choice is deterministic.
pub(crate) fn reference_axis(normal: &Vector3<f64>) -> Vector3<f64> {
    if normal.x.abs() < std::f64::consts::FRAC_1_SQRT_2 {
        Vector3::x()
    } else {
        Vector3::y()
    }
}

/// The contact frame of a unit normal `n`: columns `(t₁, t₂, n)` with
/// `t₁ = (a − (a·n) n)/‖a − (a·n) n‖` for the reference axis `a` (`reference_axis`) and `t₂ = n × t₁`.
/// A ground normal `+z` gives the identity.
///
/// ```
/// use sdrs_geometry::contact::contact_frame;
/// use nalgebra::{Unit, Vector3};
/// let f = contact_frame(&Unit::new_normalize(Vector3::new(0.0, 0.6, 0.8)));
/// assert!((f * Vector3::z() - Vector3::new(0.0, 0.6, 0.8)).norm() < 1e-15);
/// assert!((f * Vector3::x() - Vector3::x()).norm() < 1e-15);
/// ```
pub fn contact_frame(normal: &Unit<Vector3<f64>>) -> Rotation3<f64> {
    let n = normal.into_inner();
    let a = reference_axis(&n);
    let t1 = (a - n * a.dot(&n)).normalize();
    let t2 = n.cross(&t1);
    Rotation3::from_matrix_unchecked(Matrix3::from_columns(&[t1, t2, n]))
}
