//! Spatial (6D) algebra in world coordinates (Featherstone, *Rigid Body Dynamics Algorithms*,
//! ch. 2), ordered `(linear, angular)` as `sdrs_geometry::twist` and Pinocchio.
//!
//! A motion `m = (v, ω)` is a body's velocity as the velocity `v` of its point at the world
//! origin and its angular velocity `ω` (Plücker coordinates at the origin); a force
//! `f = (f, n)` is a force and its moment about the origin. With `[a]` the cross-product matrix:
//!
//! ```text
//! m × m' = (ω × v' + v × ω', ω × ω')          (motion cross product, eq. 2.31)
//! m ×* f = (ω × f, v × f + ω × n)              (force cross product, eq. 2.32; = −[m×]ᵀ f)
//! I = [[m 1, −[h]], [[h], tr(Y) 1 − Y]]        (inertia from Y = Σ m y yᵀ and h = Σ m y)
//! ```

use nalgebra::{Isometry3, Matrix3, Matrix4, Matrix6, Vector3, Vector6};

/// The linear and angular parts of a spatial vector.
pub(super) fn parts(m: &Vector6<f64>) -> (Vector3<f64>, Vector3<f64>) {
    (
        Vector3::new(m[0], m[1], m[2]),
        Vector3::new(m[3], m[4], m[5]),
    )
}

/// A spatial vector from its linear and angular parts.
pub(super) fn join(linear: &Vector3<f64>, angular: &Vector3<f64>) -> Vector6<f64> {
    Vector6::new(
        linear.x, linear.y, linear.z, angular.x, angular.y, angular.z,
    )
}

/// `m × n` of two motions.
pub(super) fn cross_motion(m: &Vector6<f64>, n: &Vector6<f64>) -> Vector6<f64> {
    let (v, w) = parts(m);
    let (vn, wn) = parts(n);
    join(&(w.cross(&vn) + v.cross(&wn)), &w.cross(&wn))
}

/// `m ×* f` of a motion and a force.
pub(super) fn cross_force(m: &Vector6<f64>, f: &Vector6<f64>) -> Vector6<f64> {
    let (v, w) = parts(m);
    let (lin, ang) = parts(f);
    join(&w.cross(&lin), &(v.cross(&lin) + w.cross(&ang)))
}

/// The matrix of `x ↦ m × x`.
pub(super) fn motion_cross_matrix(m: &Vector6<f64>) -> Matrix6<f64> {
    let (v, w) = parts(m);
    let mut out = Matrix6::zeros();
    let wx = w.cross_matrix();
    out.fixed_view_mut::<3, 3>(0, 0).copy_from(&wx);
    out.fixed_view_mut::<3, 3>(0, 3)
        .copy_from(&v.cross_matrix());
    out.fixed_view_mut::<3, 3>(3, 3).copy_from(&wx);
    out
}

/// The matrix of `x ↦ x ×* f` (the motion `x` varies, the force `f` is fixed).
pub(super) fn force_cross_bar_matrix(f: &Vector6<f64>) -> Matrix6<f64> {
    let (lin, ang) = parts(f);
    let fx = -lin.cross_matrix();
    let mut out = Matrix6::zeros();
    out.fixed_view_mut::<3, 3>(0, 3).copy_from(&fx);
    out.fixed_view_mut::<3, 3>(3, 0).copy_from(&fx);
    out.fixed_view_mut::<3, 3>(3, 3)
        .copy_from(&(-ang.cross_matrix()));
    out
}

/// The world spatial inertia of a body with second moment `moment` (`Σ m x̄ x̄ᵀ` in its own
/// frame) at world pose `pose`: `Y = H moment Hᵀ` with `H` the pose's homogeneous matrix.
pub(super) fn world_inertia(moment: &Matrix4<f64>, pose: &Isometry3<f64>) -> Matrix6<f64> {
    let h = pose.to_homogeneous();
    let y = h * moment * h.transpose();
    let mass = y[(3, 3)];
    let first = Vector3::new(y[(0, 3)], y[(1, 3)], y[(2, 3)]);
    let second: Matrix3<f64> = y.fixed_view::<3, 3>(0, 0).into_owned();
    let hx = first.cross_matrix();
    let mut out = Matrix6::zeros();
    out.fixed_view_mut::<3, 3>(0, 0)
        .copy_from(&(Matrix3::identity() * mass));
    out.fixed_view_mut::<3, 3>(0, 3).copy_from(&(-hx));
    out.fixed_view_mut::<3, 3>(3, 0).copy_from(&hx);
    out.fixed_view_mut::<3, 3>(3, 3)
        .copy_from(&(Matrix3::identity() * second.trace() - second));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vector(seed: f64) -> Vector6<f64> {
        Vector6::from_fn(|i, _| (seed * (i as f64 + 1.3)).sin())
    }

    #[test]
    fn matrices_match_products_and_duality_holds() {
        let (m, n, f) = (vector(0.7), vector(1.9), vector(-2.3));
        assert!((motion_cross_matrix(&m) * n - cross_motion(&m, &n)).norm() < 1e-14);
        assert!((force_cross_bar_matrix(&f) * m - cross_force(&m, &f)).norm() < 1e-14);
        // (m × n) · f = −n · (m ×* f)
        assert!((cross_motion(&m, &n).dot(&f) + n.dot(&cross_force(&m, &f))).abs() < 1e-14);
    }

    #[test]
    fn world_inertia_of_a_point_mass_gives_its_momentum() {
        // 2 kg at (0.3, −0.1, 0.5) in a frame translated by (1, 2, 3).
        let x = Vector3::new(0.3, -0.1, 0.5);
        let mut moment = Matrix4::zeros();
        let xb = nalgebra::Vector4::new(x.x, x.y, x.z, 1.0);
        moment += xb * xb.transpose() * 2.0;
        let pose = Isometry3::translation(1.0, 2.0, 3.0);
        let y = pose * nalgebra::Point3::from(x);
        let m = vector(0.4);
        let (v, w) = parts(&m);
        let point_velocity = v + w.cross(&y.coords);
        let momentum = world_inertia(&moment, &pose) * m;
        let expected = join(
            &(point_velocity * 2.0),
            &(y.coords.cross(&point_velocity) * 2.0),
        );
        assert!((momentum - expected).norm() < 1e-13);
    }
}
