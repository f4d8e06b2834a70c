//! The contacts of a configuration as a user reads them ([`super::Simulator::contacts`]):
//! which links touch, where, along which normal, how far apart and with which forces.
//!
//! Every contact model reports its pair terms as twist gradients (see
//! [`sdrs_contact::twist`]): the force a pair's normal energy exerts on its second body is
//! `f = −∂U/∂v_b` and its torque about that body's origin `τ = −∂U/∂ω_b`. The reported normal
//! is the direction of `f` (from the first link to the second, since the barrier repels), the
//! normal force is `|f|`, and the point is where the line of action of `(f, τ)` crosses the
//! plane midway between the closest points: the centre of pressure.

use nalgebra::{Isometry3, Point3, Vector3};
use sdrs_contact::distance::{Closest, triangle_triangle};
use sdrs_contact::twist::Vector12;
use sdrs_geometry::{Aabb, TriMesh};

/// One contact between two links at a configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct ActiveContact {
    /// The two links (`links[0] < links[1]` in the model's order).
    pub links: [usize; 2],
    /// The centre of pressure of the normal force (world frame, m); the midpoint of the
    /// closest points for a contact that only carries friction.
    pub point: Point3<f64>,
    /// Unit normal from the first link to the second: the direction of the normal force on
    /// the second link (the closest points' direction for a contact that only carries
    /// friction).
    pub normal: Vector3<f64>,
    /// The distance between the two shapes the model uses (hulls or meshes, m).
    pub gap: f64,
    /// The magnitude of the normal force (N, contact stiffness included).
    pub normal_force: f64,
    /// The friction force on the second link (N; the first feels its opposite), when the
    /// contact model has friction.
    pub friction_force: Option<Vector3<f64>>,
}

impl ActiveContact {
    /// The record of a pair whose normal energy has (stiffness-scaled) twist gradient
    /// `normal`, whose shapes' closest points are `closest`, with the second link at `pose_b`
    /// and the friction energy's gradient `friction` when the model has friction.
    pub(super) fn new(
        links: [usize; 2],
        pose_b: &Isometry3<f64>,
        normal: &Vector12,
        closest: &Closest,
        friction: Option<&Vector12>,
    ) -> Self {
        let force = -normal.fixed_rows::<3>(6).into_owned();
        let torque = -normal.fixed_rows::<3>(9).into_owned();
        let middle = Point3::from((closest.a.coords + closest.b.coords) * 0.5);
        let magnitude = force.norm();
        let (point, direction) = if magnitude > 0.0 {
            let n = force / magnitude;
            // The line of action: the points p with (p − o_b) × f = τ, through
            // o_b + f × τ / |f|², along n; crossed with the mid-plane through `middle`.
            let on_line =
                pose_b.translation.vector + force.cross(&torque) / (magnitude * magnitude);
            let along = (middle.coords - on_line).dot(&n);
            (Point3::from(on_line + n * along), n)
        } else {
            (middle, (closest.b - closest.a) / closest.distance)
        };
        Self {
            links,
            point,
            normal: direction,
            gap: closest.distance,
            normal_force: magnitude,
            friction_force: friction.map(|g| -g.fixed_rows::<3>(6).into_owned()),
        }
    }
}

/// The closest points of two posed triangle meshes (`None` if either has no triangles):
/// triangle pairs are visited nearest box first and skipped once their boxes are farther
/// apart than the best distance found.
pub(super) fn mesh_closest(
    a: &TriMesh,
    pose_a: &Isometry3<f64>,
    b: &TriMesh,
    pose_b: &Isometry3<f64>,
) -> Option<Closest> {
    let world = |mesh: &TriMesh, pose: &Isometry3<f64>| -> Vec<([Point3<f64>; 3], Aabb)> {
        (0..mesh.triangles().len())
            .map(|t| {
                let corners = mesh.corners(t).map(|p| pose * p);
                (corners, Aabb::from_points(&corners))
            })
            .collect()
    };
    let by_gap = |triangles: &mut Vec<([Point3<f64>; 3], Aabb)>, other: &Aabb| {
        triangles.sort_by(|x, y| box_gap(&x.1, other).total_cmp(&box_gap(&y.1, other)));
    };
    let (mut ta, mut tb) = (world(a, pose_a), world(b, pose_b));
    let whole = |t: &[([Point3<f64>; 3], Aabb)]| {
        t.iter()
            .fold(Aabb::empty(), |acc, (_, aabb)| acc.merged(aabb))
    };
    let (box_a, box_b) = (whole(&ta), whole(&tb));
    by_gap(&mut ta, &box_b);
    by_gap(&mut tb, &box_a);
    let mut best: Option<Closest> = None;
    for (corners_a, aabb_a) in &ta {
        let beaten = |bound: f64, best: &Option<Closest>| best.is_some_and(|c| bound >= c.distance);
        if beaten(box_gap(aabb_a, &box_b), &best) {
            break;
        }
        for (corners_b, aabb_b) in &tb {
            if beaten(box_gap(aabb_a, aabb_b), &best) {
                continue;
            }
            let c = triangle_triangle(corners_a, corners_b);
            if best.is_none_or(|b| c.distance < b.distance) {
                best = Some(c);
            }
        }
    }
    best
}

/// The distance between two boxes (0 when they overlap).
fn box_gap(a: &Aabb, b: &Aabb) -> f64 {
    let axis = |k: usize| (a.mins[k] - b.maxs[k]).max(b.mins[k] - a.maxs[k]).max(0.0);
    Vector3::new(axis(0), axis(1), axis(2)).norm()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mesh_closest_matches_the_gap_between_two_cubes() {
        let cube = TriMesh::cuboid(Vector3::repeat(0.5)).unwrap();
        let moved = Isometry3::new(Vector3::new(0.2, 0.1, 1.3), Vector3::z() * 0.4);
        let c = mesh_closest(&cube, &Isometry3::identity(), &cube, &moved).unwrap();
        assert!((c.distance - 0.3).abs() < 1e-12, "{}", c.distance);
        assert!((c.a.z - 0.5).abs() < 1e-12 && (c.b.z - 0.8).abs() < 1e-12);
    }

    #[test]
    fn a_pure_force_is_reported_at_its_line_of_action() {
        // A 2 N push along +z on body b through the world point (0.3, −0.1, ·), b's origin at
        // (1, 1, 1): τ = (p − o_b) × f.
        let pose_b = Isometry3::translation(1.0, 1.0, 1.0);
        let (f, p) = (Vector3::new(0.0, 0.0, 2.0), Vector3::new(0.3, -0.1, 0.5));
        let torque = (p - pose_b.translation.vector).cross(&f);
        let mut g = Vector12::zeros();
        g.fixed_rows_mut::<3>(6).copy_from(&-f);
        g.fixed_rows_mut::<3>(9).copy_from(&-torque);
        let closest = Closest {
            a: Point3::new(0.0, 0.0, 0.4),
            b: Point3::new(0.0, 0.0, 0.6),
            distance: 0.2,
        };
        let c = ActiveContact::new([0, 1], &pose_b, &g, &closest, None);
        assert!((c.point - Point3::new(0.3, -0.1, 0.5)).norm() < 1e-12);
        assert!((c.normal - Vector3::z()).norm() < 1e-12);
        assert_eq!((c.normal_force, c.gap, c.friction_force), (2.0, 0.2, None));
    }
}
