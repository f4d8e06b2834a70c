//! Link poses as functions of the coordinates and the attachment design: their derivatives
//! in both directions (twists ↔ coordinates and attachments), and a point on a link.
//!
//! Twists follow `sdrs_geometry::twist`: `(v, ω)` moves a pose by `R ← Exp(ω) R`, `t ← t + v`.

use nalgebra::{DMatrix, DVector, Matrix3, Point3, Vector3};
use sdrs_dynamics::{Kinematics, Model, State};

/// `R_parent(i)`: attachment `i` is expressed in its parent's frame.
fn parent_rotation(model: &Model, kin: &Kinematics, i: usize) -> Matrix3<f64> {
    model.links()[i]
        .parent
        .map(|p| kin.poses()[p].rotation.into())
        .unwrap_or_else(Matrix3::identity)
}

/// Link `l` and its ancestors, whose attachments move `l`.
fn ancestry(model: &Model, l: usize) -> impl Iterator<Item = usize> + '_ {
    std::iter::successors(Some(l), move |&i| model.links()[i].parent)
}

/// Maps a gradient with respect to the twists of a state's link poses (6 per link) to the
/// state's coordinates and to the design's attachment translations (3 per link): link `l`'s
/// twist moves with `J_l(θ)`, and attachment `i` translates its subtree by `R_parent δ`.
pub fn pose_adjoint(
    model: &Model,
    state: &State,
    twist_gradient: &DVector<f64>,
) -> (DVector<f64>, DVector<f64>) {
    adjoint_at(model, &Kinematics::new(model, state), twist_gradient)
}

/// [`pose_adjoint`] at kinematics already computed.
pub(crate) fn adjoint_at(
    model: &Model,
    kin: &Kinematics,
    twist_gradient: &DVector<f64>,
) -> (DVector<f64>, DVector<f64>) {
    let links = model.links().len();
    let mut coordinates = DVector::zeros(model.dof());
    let mut attachments = DVector::zeros(3 * links);
    for l in 0..links {
        let g = twist_gradient.fixed_rows::<6>(6 * l);
        for (k, col) in kin.jacobian(l) {
            coordinates[k] += col.dot(&g);
        }
        let force = Vector3::new(g[0], g[1], g[2]);
        for i in ancestry(model, l) {
            let mut rows = attachments.fixed_rows_mut::<3>(3 * i);
            rows += parent_rotation(model, kin, i).transpose() * force;
        }
    }
    (coordinates, attachments)
}

/// The forward counterpart of [`pose_adjoint`]: the link twists (6·links x k) caused by
/// coordinate changes `coordinates` (n x k) and attachment changes `attachments`
/// (3·links x k).
pub fn pose_tangent(
    model: &Model,
    state: &State,
    coordinates: &DMatrix<f64>,
    attachments: &DMatrix<f64>,
) -> DMatrix<f64> {
    let kin = Kinematics::new(model, state);
    let links = model.links().len();
    let mut twists = DMatrix::zeros(6 * links, coordinates.ncols());
    for l in 0..links {
        let mut rows = twists.rows_mut(6 * l, 6);
        for (k, col) in kin.jacobian(l) {
            rows += col * coordinates.row(k);
        }
        let mut moved = rows.rows_mut(0, 3);
        for i in ancestry(model, l) {
            moved += parent_rotation(model, &kin, i) * attachments.rows(3 * i, 3);
        }
    }
    twists
}

/// The world position of `point` (in link `link`'s frame) at `state`, with the gradient of a
/// loss whose gradient with respect to that position is `position_gradient`: returns
/// `(position, dL/dθ, dL/d(attachments))` (the design's attachment part, 3 per link).
///
/// ```
/// use sdrs_diff::link_point;
/// use sdrs_dynamics::scenes::chain;
/// use sdrs_dynamics::State;
/// use nalgebra::{Point3, Vector3};
/// let scene = chain(2, 0.01)?;
/// let state = State::zero(&scene.model);
/// // The tip of the second link, 10 cm below the first joint, pulled along +x:
/// let (p, dq, _) = link_point(&scene.model, &state, 1, &Point3::new(0.0, 0.0, -0.1), &Vector3::x());
/// assert!((p.z + 0.2).abs() < 1e-12);
/// // Turning the first joint (about y) by +δ moves the tip by −0.2 δ along x.
/// assert!((dq[0] + 0.2).abs() < 1e-12);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn link_point(
    model: &Model,
    state: &State,
    link: usize,
    point: &Point3<f64>,
    position_gradient: &Vector3<f64>,
) -> (Point3<f64>, DVector<f64>, DVector<f64>) {
    let kin = Kinematics::new(model, state);
    let pose = kin.poses()[link];
    let world = pose * point;
    // δp = v + ω × (p − t): the twist gradient is (g, (p − t) × g).
    let arm = world - Point3::from(pose.translation.vector);
    let mut twist = DVector::zeros(6 * model.links().len());
    twist
        .fixed_rows_mut::<3>(6 * link)
        .copy_from(position_gradient);
    twist
        .fixed_rows_mut::<3>(6 * link + 3)
        .copy_from(&arm.cross(position_gradient));
    let (coordinates, attachments) = adjoint_at(model, &kin, &twist);
    (world, coordinates, attachments)
}
