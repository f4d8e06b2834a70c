//! The one place where `parry3d-f64` is called.
//!
//! parry works in concrete `f64` with glam vectors, so it is never on the differentiable path. We
//! use it offline, for what is laborious to write and needs no derivatives: the quickhull
//! triangulation of a hull's boundary and the VHACD convex decomposition. Tests also use it as an
//! independent oracle for GJK distances, and the broad-phase benchmark uses its BVH as a
//! baseline.

use crate::ConvexHull;
use nalgebra::{Isometry3, Point3};
use parry3d_f64::math::Vector as GlamVec;

/// Converts a nalgebra point to parry's glam vector.
pub fn to_glam(p: &Point3<f64>) -> GlamVec {
    GlamVec::new(p.x, p.y, p.z)
}

/// Converts parry's glam vector to a nalgebra point.
pub fn from_glam(v: GlamVec) -> Point3<f64> {
    Point3::new(v.x, v.y, v.z)
}

/// Quickhull of `points`: the outward-oriented boundary triangles, indexing into `points`.
///
/// Returns `None` when parry cannot build a hull (degenerate input); callers validate first so
/// that this is rare, and turn it into a typed error.
pub fn quickhull(points: &[Point3<f64>]) -> Option<Vec<[u32; 3]>> {
    let glam: Vec<GlamVec> = points.iter().map(to_glam).collect();
    let (hull_vertices, hull_triangles) =
        parry3d_f64::transformation::try_convex_hull(&glam).ok()?;
    // parry returns its own copy of the extreme points; map them back to input indices by
    // their exact bit patterns (parry copies, it does not recompute, the coordinates).
    let key = |v: &GlamVec| [v.x.to_bits(), v.y.to_bits(), v.z.to_bits()];
    let mut lookup = std::collections::HashMap::with_capacity(points.len());
    for (i, v) in glam.iter().enumerate() {
        lookup.entry(key(v)).or_insert(i as u32);
    }
    let map: Option<Vec<u32>> = hull_vertices
        .iter()
        .map(|v| lookup.get(&key(v)).copied())
        .collect();
    let map = map?;
    Some(
        hull_triangles
            .iter()
            .map(|t| [map[t[0] as usize], map[t[1] as usize], map[t[2] as usize]])
            .collect(),
    )
}

/// VHACD approximate convex decomposition of a triangle mesh; returns each part's points.
pub fn vhacd(
    vertices: &[Point3<f64>],
    triangles: &[[u32; 3]],
    resolution: u32,
    concavity: f64,
) -> Vec<Vec<Point3<f64>>> {
    use parry3d_f64::transformation::vhacd::{VHACD, VHACDParameters};
    let points: Vec<GlamVec> = vertices.iter().map(to_glam).collect();
    let params = VHACDParameters {
        resolution,
        concavity,
        ..VHACDParameters::default()
    };
    let decomposition = VHACD::decompose(&params, &points, triangles, true);
    decomposition
        .compute_exact_convex_hulls(&points, triangles)
        .into_iter()
        .map(|(pts, _)| pts.into_iter().map(from_glam).collect())
        .collect()
}

/// parry's distance between two posed hulls (0 when they touch or overlap): an oracle for
/// [`crate::gjk`] in tests, written with none of its code. `None` if parry cannot rebuild a
/// hull from the vertices.
pub fn distance(
    a: &ConvexHull,
    pose_a: &Isometry3<f64>,
    b: &ConvexHull,
    pose_b: &Isometry3<f64>,
) -> Option<f64> {
    use parry3d_f64::math::{Pose, Rotation};
    use parry3d_f64::shape::ConvexPolyhedron;
    let shape = |h: &ConvexHull| {
        let points: Vec<GlamVec> = h.vertices().iter().map(to_glam).collect();
        ConvexPolyhedron::from_convex_hull(&points)
    };
    let pose = |p: &Isometry3<f64>| {
        let q = p.rotation.quaternion();
        Pose::from_parts(
            to_glam(&p.translation.vector.into()),
            Rotation::from_xyzw(q.i, q.j, q.k, q.w),
        )
    };
    parry3d_f64::query::distance(&pose(pose_a), &shape(a)?, &pose(pose_b), &shape(b)?)
        .ok()
        .map(|d| d.distance)
}
