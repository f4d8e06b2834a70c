//! The identity chart of spherical and free joints: their rotations as the angles
//! `R = Rx(q₀) Ry(q₁) Rz(q₂)` of [`State::new`], the coordinates a user sees and sets.
//!
//! The stepper works in re-centred charts (a reference rotation per joint and zero rotation
//! coordinates), where a coordinate change is, to first order, a rotation vector `δ` in the
//! link's own axes (`R ← R Exp(δ)`). The angles move it by `δ = E(q) q̇`, with
//! `E = [(Ry Rz)ᵀ x̂, Rzᵀ ŷ, ẑ]` (the body angular velocity of XYZ angle rates). `E` is
//! singular where `q₁ = ±π/2` (gimbal lock), so states there are refused.

use crate::error::{DiffError, Result};
use nalgebra::{DMatrix, DVector, Matrix3, UnitQuaternion, Vector3};
use sdrs_dynamics::{Model, State};
use std::f64::consts::{PI, TAU};

/// How close to gimbal lock (`|cos q₁|`) the angles may come before a state is refused: there
/// `E⁻¹` amplifies a rotation by more than 10⁶.
const GIMBAL_MARGIN: f64 = 1e-6;

/// Whether the XYZ angles `q` (three) are within [`GIMBAL_MARGIN`] of gimbal lock.
fn gimbal_locked(q: &[f64]) -> bool {
    q[1].cos().abs() < GIMBAL_MARGIN
}

/// `E(q)⁻¹` for the angles of the rotation block at `start` of `q`, or the error that names
/// the coordinate at gimbal lock (`what`: the vector the angles belong to).
fn inverse_rate_map(q: &DVector<f64>, start: usize, what: &'static str) -> Result<Matrix3<f64>> {
    let angles = &q.as_slice()[start..start + 3];
    let locked = || DiffError::InvalidInput {
        what,
        reason: format!(
            "coordinate {} = {} is within 1e-6 of ±π/2, where the XYZ angles of a spherical or \
             free joint are singular (gimbal lock); keep it within (−π/2, π/2)",
            start + 1,
            q[start + 1]
        ),
    };
    if gimbal_locked(angles) {
        return Err(locked());
    }
    rate_map(angles).try_inverse().ok_or_else(locked)
}

/// `E(q)` for the three angles `q` (see the module docs).
pub(crate) fn rate_map(q: &[f64]) -> Matrix3<f64> {
    let (sb, cb) = q[1].sin_cos();
    let (sc, cc) = q[2].sin_cos();
    // (Ry Rz)ᵀ x̂ = Rzᵀ (cos b, 0, sin b); Rzᵀ ŷ = (sin c, cos c, 0). Row by row:
    Matrix3::new(cb * cc, sc, 0.0, -cb * sc, cc, 0.0, sb, 0.0, 1.0)
}

/// The state `q` (identity chart) re-centred, as the stepper takes it, after checking that its
/// angles are clear of gimbal lock.
pub(crate) fn state(model: &Model, q: &DVector<f64>, what: &'static str) -> Result<State> {
    let state = State::new(model, q.clone()).map_err(|source| DiffError::Setup { what, source })?;
    for start in model.rotation_blocks() {
        inverse_rate_map(q, start, what)?;
    }
    Ok(state.recentred(model))
}

/// The identity-chart coordinates of `state` (any chart, e.g. a re-centred state of a
/// [`sdrs_dynamics::Motion`]): what [`crate::step_coordinates`] takes. Spherical and free
/// joints' rotations come out as XYZ angles on the branch nearest `near`'s (they have two per
/// rotation, each up to whole turns), so that a trajectory's angles stay continuous; other
/// coordinates are copied. A rotation within 1e-6 of gimbal lock is refused.
///
/// ```
/// use sdrs_diff::identity_chart;
/// use sdrs_dynamics::scenes::box_on_incline;
/// use sdrs_dynamics::State;
/// use nalgebra::DVector;
/// let model = box_on_incline(0.0, 0.5, 0.01)?.model;
/// let q = DVector::from_vec(vec![0.1, 0.0, 0.0, 0.3, -0.2, 1.0]);
/// let recentred = State::new(&model, q.clone())?.recentred(&model); // angles folded away
/// assert!(recentred.q.rows(3, 3).amax() == 0.0);
/// assert!((identity_chart(&model, &recentred, &q)? - &q).amax() < 1e-12);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn identity_chart(model: &Model, state: &State, near: &DVector<f64>) -> Result<DVector<f64>> {
    let mut q = state.q.clone();
    for (i, link) in model.links().iter().enumerate() {
        if !link.joint.has_reference() {
            continue;
        }
        let start = model.dof_offset(i) + link.joint.dof() - 3;
        let chart = angles_rotation(&state.q.as_slice()[start..start + 3]);
        let angles = nearest_angles(
            &(state.references[i] * chart),
            &near.as_slice()[start..start + 3],
        );
        if gimbal_locked(angles.as_slice()) {
            return Err(DiffError::InvalidInput {
                what: "identity-chart coordinates",
                reason: format!(
                    "joint '{}' turned to within 1e-6 of gimbal lock (coordinate {} at ±π/2), \
                     where its XYZ angles are singular",
                    link.name,
                    start + 1
                ),
            });
        }
        q.rows_mut(start, 3).copy_from(&angles);
    }
    Ok(q)
}

/// `Rx(q₀) Ry(q₁) Rz(q₂)`.
fn angles_rotation(q: &[f64]) -> UnitQuaternion<f64> {
    (0..3).fold(UnitQuaternion::identity(), |r, k| {
        r * UnitQuaternion::from_scaled_axis(Vector3::ith(k, q[k]))
    })
}

/// The XYZ angles of `rotation` nearest `near` (Euclidean distance over both branches).
fn nearest_angles(rotation: &UnitQuaternion<f64>, near: &[f64]) -> Vector3<f64> {
    let r = rotation.to_rotation_matrix();
    let r = r.matrix();
    // R = Rx(a) Ry(b) Rz(c): R₀₂ = sin b, R₁₂ = −sin a cos b, R₂₂ = cos a cos b,
    // R₀₁ = −cos b sin c, R₀₀ = cos b cos c. The branch with cos b ≥ 0:
    let a = (-r[(1, 2)]).atan2(r[(2, 2)]);
    let b = r[(0, 2)].clamp(-1.0, 1.0).atan2(r[(0, 0)].hypot(r[(0, 1)]));
    let c = (-r[(0, 1)]).atan2(r[(0, 0)]);
    let unwrap = |x: f64, n: f64| x + TAU * ((n - x) / TAU).round();
    let branch = |a: f64, b: f64, c: f64| {
        Vector3::new(unwrap(a, near[0]), unwrap(b, near[1]), unwrap(c, near[2]))
    };
    let first = branch(a, b, c);
    let second = branch(a + PI, PI - b, c + PI);
    let distance = |v: &Vector3<f64>| (v - Vector3::from_column_slice(near)).norm_squared();
    if distance(&second) < distance(&first) {
        second
    } else {
        first
    }
}

/// `∂q/∂δ` at identity-chart coordinates `q` (n x n): how the angles move with the stepper's
/// coordinates at the re-centred state, `E(q)⁻¹` on each spherical or free joint's rotation
/// block and the identity elsewhere. A gradient in the angles `g` is `Mᵀ g` in the stepper's
/// coordinates; a tangent `s` of the stepper's is `M s` in the angles.
///
/// ```
/// use sdrs_diff::identity_chart_tangent;
/// use sdrs_dynamics::scenes::box_on_incline;
/// use nalgebra::DVector;
/// let model = box_on_incline(0.0, 0.5, 0.01)?.model;
/// // Unrotated, a body rotation vector is the angles' change itself.
/// let m = identity_chart_tangent(&model, &DVector::zeros(6))?;
/// assert_eq!(m, nalgebra::DMatrix::identity(6, 6));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn identity_chart_tangent(model: &Model, q: &DVector<f64>) -> Result<DMatrix<f64>> {
    let n = model.dof();
    if q.len() != n {
        return Err(DiffError::LengthMismatch {
            what: "identity-chart coordinates",
            actual: q.len(),
            expected: n,
        });
    }
    let mut m = DMatrix::identity(n, n);
    for start in model.rotation_blocks() {
        let inverse = inverse_rate_map(q, start, "identity-chart coordinates")?;
        m.view_mut((start, start), (3, 3)).copy_from(&inverse);
    }
    Ok(m)
}

/// `g ← E(q)ᵀ g` on every rotation block: a gradient in rotation vectors to one in angles.
pub(crate) fn pull_back(model: &Model, q: &DVector<f64>, g: &mut DVector<f64>) {
    for start in model.rotation_blocks() {
        let e = rate_map(&q.as_slice()[start..start + 3]);
        let block = e.transpose() * g.fixed_rows::<3>(start);
        g.fixed_rows_mut::<3>(start).copy_from(&block);
    }
}

/// `g ← E(q)⁻ᵀ g` on every rotation block: a gradient in angles to one in rotation vectors
/// (`Mᵀ g` with the `M` of [`identity_chart_tangent`], block by block).
pub(crate) fn push_back(model: &Model, q: &DVector<f64>, g: &mut DVector<f64>) -> Result<()> {
    for start in model.rotation_blocks() {
        let inverse = inverse_rate_map(q, start, "the step's result")?;
        let block = inverse.transpose() * g.fixed_rows::<3>(start);
        g.fixed_rows_mut::<3>(start).copy_from(&block);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::f64::consts::FRAC_PI_2;

    proptest! {
        /// `E` is the derivative of the angles' rotation in the body frame:
        /// `R(q)ᵀ R(q + h q̇) ≈ Exp(h E q̇)`.
        #[test]
        fn the_rate_map_is_the_body_derivative_of_the_angles(
            q in prop::array::uniform3(-1.4f64..1.4),
            dq in prop::array::uniform3(-1.0f64..1.0),
        ) {
            let h = 1e-6;
            let plus: Vec<f64> = (0..3).map(|k| q[k] + h * dq[k]).collect();
            let minus: Vec<f64> = (0..3).map(|k| q[k] - h * dq[k]).collect();
            let turn = angles_rotation(&minus).inverse() * angles_rotation(&plus);
            let numeric = turn.scaled_axis() / (2.0 * h);
            let analytic = rate_map(&q) * Vector3::from(dq);
            prop_assert!((numeric - analytic).norm() < 1e-8, "{numeric} vs {analytic}");
        }

        /// The angles read back from a rotation give that rotation, on the branch nearest the
        /// hint when the hint is the rotation's own angles moved by whole turns.
        #[test]
        fn angles_read_back_give_the_rotation_nearest_the_hint(
            q in prop::array::uniform3(-3.1f64..3.1),
            turns in prop::array::uniform3(-2i32..3),
        ) {
            prop_assume!(q[1].abs() < 1.5);
            let rotation = angles_rotation(&q);
            let near: Vec<f64> = (0..3).map(|k| q[k] + TAU * f64::from(turns[k])).collect();
            let back = nearest_angles(&rotation, &near);
            prop_assert!(rotation.angle_to(&angles_rotation(back.as_slice())) < 1e-12);
            prop_assert!((back - Vector3::from_column_slice(&near)).norm() < 1e-9);
        }
    }

    /// The angles' tangent map inverts `E` on a free body's rotation block and leaves its
    /// translation alone; at gimbal lock it refuses.
    #[test]
    fn the_chart_tangent_inverts_the_rate_map() {
        let model = sdrs_dynamics::scenes::box_on_incline(0.0, 0.5, 0.01)
            .unwrap()
            .model;
        let q = DVector::from_vec(vec![0.3, -0.2, 0.1, 0.4, -0.7, 1.2]);
        let m = identity_chart_tangent(&model, &q).unwrap();
        let product = m.view((3, 3), (3, 3)) * rate_map(&[0.4, -0.7, 1.2]);
        assert!((product - Matrix3::identity()).amax() < 1e-12);
        assert_eq!(m.view((0, 0), (3, 3)), DMatrix::identity(3, 3));
        assert_eq!(m.view((0, 3), (3, 3)).amax(), 0.0);
        let locked = DVector::from_vec(vec![0.0, 0.0, 0.0, 0.0, FRAC_PI_2, 0.0]);
        assert!(identity_chart_tangent(&model, &locked).is_err());
    }

    #[test]
    fn the_other_branch_is_taken_when_it_is_nearer() {
        let q = [0.3, 0.2, -0.4];
        let other = [q[0] + PI, PI - q[1], q[2] + PI];
        let back = nearest_angles(&angles_rotation(&q), &other);
        assert!((back - Vector3::from(other)).norm() < 1e-12);
    }
}
