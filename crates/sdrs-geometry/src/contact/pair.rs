//! Contacts between two convex hulls: the normal from GJK (apart) or from the minimum over
//! separating axes (overlapping), the patch from clipping the two supporting features.
//!
//! For polytopes the penetration depth `min_{‖d‖=1} (h_A(d) + h_B(−d))` (`h` the support
//! function) is attained at a face normal of the Minkowski difference `A − B`, and every such
//! normal is a face normal of A, of B, or the cross product of an edge of A and an edge of B;
//! evaluating the overlap on these axes is therefore exact, the support-function equivalent of
//! EPA for polytopes. Only the edge pairs whose Gauss-map arcs cross give faces of the
//! difference, so its cost is `O(F_A + F_B)` support queries plus `O(E_A·E_B)` arc tests of
//! four dot products each, and one pair of support queries per crossing.

use super::{ContactPoint, check_margin, contact_frame, patch::select_patch};
use crate::error::Result;
use crate::gjk::{GjkCache, GjkSettings, Proximity, try_gjk_distance};
use crate::hull::ConvexHull;
use nalgebra::{Isometry3, Point3, Unit, Vector2, Vector3};

/// Vertices within this fraction of the pair's size of the support plane belong to the
/// supporting feature (so faces parallel to round-off are clipped as faces).
const FEATURE_TOLERANCE: f64 = 1e-6;

/// An edge-edge axis must beat the best face axis by this fraction of the pair's size to be
/// chosen: where both give the same depth (parallel edges of touching faces) the face wins,
/// so that the normal does not flip between equivalent axes.
const EDGE_AXIS_BIAS: f64 = 1e-9;

/// The contact patch between hull `a` at `pose_a` (body A) and hull `b` at `pose_b` (body B),
/// up to [`super::MAX_PATCH_POINTS`] points, all with the same normal from A to B.
///
/// Empty when the hulls are more than `margin` apart. Otherwise the normal is GJK's separating
/// direction (apart) or the minimum-overlap axis (overlapping; its overlap is the penetration
/// depth); the supporting features of A along the normal and of B against it (vertex, edge or
/// face) are projected on the contact plane and clipped against each other; each corner of
/// the intersection gives a point midway between the two features, with their distance along
/// the normal as separation; the points within `margin` are reduced to the patch as in
/// [`super::hull_halfspace_contacts`]. `cache` warm-starts GJK for repeated queries of the
/// pair.
///
/// Errors: an invalid pose or a negative or non-finite margin.
///
/// ```
/// use sdrs_geometry::{ConvexHull, contact::hull_pair_contacts, gjk::GjkCache};
/// use nalgebra::{Isometry3, Vector3};
/// let cube = ConvexHull::cuboid(Vector3::new(0.5, 0.5, 0.5))?;
/// // B overlaps the top of A by 1 cm, shifted by 0.7 along x: the patch is the overlap's four
/// // corners.
/// let pose_b = Isometry3::translation(0.7, 0.0, 0.99);
/// let contacts = hull_pair_contacts(
///     &cube, &Isometry3::identity(), &cube, &pose_b, 0.0, &mut GjkCache::default())?;
/// assert_eq!(contacts.len(), 4);
/// for c in &contacts {
///     assert!((c.separation + 0.01).abs() < 1e-12);
///     assert!((c.normal.z - 1.0).abs() < 1e-12);
/// }
/// # Ok::<(), sdrs_geometry::GeometryError>(())
/// ```
pub fn hull_pair_contacts(
    a: &ConvexHull,
    pose_a: &Isometry3<f64>,
    b: &ConvexHull,
    pose_b: &Isometry3<f64>,
    margin: f64,
    cache: &mut GjkCache,
) -> Result<Vec<ContactPoint>> {
    check_margin(margin)?;
    let proximity = try_gjk_distance(a, pose_a, b, pose_b, &GjkSettings::default(), cache)?;
    let normal = match proximity {
        Proximity::Separated(s) if s.distance > margin => return Ok(Vec::new()),
        Proximity::Separated(s) => Unit::new_normalize(s.normal),
        Proximity::Intersecting { .. } => min_overlap_axis(a, pose_a, b, pose_b).0,
    };
    let size = a.bounding_sphere_radius() + b.bounding_sphere_radius();
    let frame = contact_frame(&normal);
    let n = normal.into_inner();
    let (t1, t2) = (frame * Vector3::x(), frame * Vector3::y());
    let to_plane = |p: &Point3<f64>| Vector2::new(t1.dot(&p.coords), t2.dot(&p.coords));
    let feature_a = Feature::new(&supporting_points(a, pose_a, &n, size), &n, &to_plane, size);
    let feature_b = Feature::new(
        &supporting_points(b, pose_b, &-n, size),
        &n,
        &to_plane,
        size,
    );
    let candidates: Vec<ContactPoint> = clip(&feature_a, &feature_b, size)
        .into_iter()
        .filter_map(|q| {
            let (ha, hb) = (feature_a.height(&q), feature_b.height(&q));
            let separation = hb - ha;
            (separation <= margin).then(|| ContactPoint {
                position: Point3::from(t1 * q.x + t2 * q.y + n * (0.5 * (ha + hb))),
                normal,
                separation,
                frame,
            })
        })
        .collect();
    Ok(select_patch(&candidates, size))
}

/// The penetration axis of two overlapping hulls: the unit direction `d` (from A to B)
/// minimising the overlap `h_A(d) + h_B(−d)` over the candidate axes of the module docs, with
/// that overlap (the penetration depth, ≥ 0 for overlapping hulls).
///
/// Edge-edge axes are only taken where the two edges form a face of the Minkowski difference
/// `A − B`: where the Gauss-map arc of A's edge crosses the arc of B's edge negated (the
/// test of D. Gregorius, "The separating axis test between convex polyhedra", GDC 2013). The
/// other edge pairs' axes are not face normals of `A − B`, so the minimum is the same, and
/// most pairs are dropped at the cost of four dot products instead of two support queries.
pub(crate) fn min_overlap_axis(
    a: &ConvexHull,
    pose_a: &Isometry3<f64>,
    b: &ConvexHull,
    pose_b: &Isometry3<f64>,
) -> (Unit<Vector3<f64>>, f64) {
    let mut best: Option<(Vector3<f64>, f64)> = None;
    let mut consider = |d: Vector3<f64>, o: f64, bias: f64| {
        if best.is_none_or(|(_, b)| o < b - bias) {
            best = Some((d, o));
        }
    };
    // A's faces give the directions d = n (outward), where h_A(d) is the face's own offset;
    // B's faces, negated, give d = −m, where h_B(−d) is B's face offset. Either way the
    // overlap is the face's offset minus the other hull's support against the face normal.
    for (hull, pose, other, other_pose, sign) in
        [(a, pose_a, b, pose_b, 1.0), (b, pose_b, a, pose_a, -1.0)]
    {
        for (t, n) in hull.triangles().iter().zip(hull.face_normals()) {
            if *n != Vector3::zeros() {
                let m = pose.rotation * n;
                let offset = m.dot(&(pose * hull.vertices()[t[0] as usize]).coords);
                let overlap = offset - m.dot(&other.support_point(other_pose, &-m).coords);
                consider(m * sign, overlap, 0.0);
            }
        }
    }
    let overlap = |d: &Vector3<f64>| {
        d.dot(&a.support_point(pose_a, d).coords) - d.dot(&b.support_point(pose_b, &-d).coords)
    };
    let bias = EDGE_AXIS_BIAS * (a.bounding_sphere_radius() + b.bounding_sphere_radius());
    let world_edges = |hull: &ConvexHull, pose: &Isometry3<f64>, sign: f64| {
        hull.edges()
            .iter()
            .filter(|e| e.is_crease())
            .map(|e| WorldEdge {
                vector: pose.rotation * e.vector,
                arc: e.faces.map(|[n, m]| {
                    let (n, m) = (pose.rotation * n * sign, pose.rotation * m * sign);
                    (n, m, m.cross(&n))
                }),
            })
            .collect::<Vec<_>>()
    };
    // The Minkowski difference's faces pair A's normals with B's negated ones.
    let edges_b = world_edges(b, pose_b, -1.0);
    for ea in world_edges(a, pose_a, 1.0) {
        for eb in &edges_b {
            let outward = match (&ea.arc, &eb.arc) {
                (Some(arc_a), Some(arc_b)) if !arcs_cross(arc_a, arc_b) => continue,
                // The face's outward normal lies on A's arc, between its end points.
                (Some((n, m, _)), Some(_)) => Some(n + m),
                _ => None,
            };
            let c = ea.vector.cross(&eb.vector);
            let norm = c.norm();
            // Parallel edges give no axis beyond the face normals.
            if norm > 1e-9 * ea.vector.norm() * eb.vector.norm() {
                let u = c / norm;
                match outward {
                    Some(w) => {
                        let d = if u.dot(&w) >= 0.0 { u } else { -u };
                        consider(d, overlap(&d), bias);
                    }
                    None => {
                        for d in [u, -u] {
                            consider(d, overlap(&d), bias);
                        }
                    }
                }
            }
        }
    }
    let (d, o) = best.expect("a hull has faces");
    (Unit::new_unchecked(d), o)
}

/// A hull edge in the world: its vector and, when known, its Gauss-map arc `(n, m, m × n)`
/// between the unit normals of its two triangles.
struct WorldEdge {
    vector: Vector3<f64>,
    arc: Option<(Vector3<f64>, Vector3<f64>, Vector3<f64>)>,
}

/// Whether the great arcs `AB` and `CD` (each shorter than a half circle) cross: `C` and `D`
/// lie on opposite sides of the plane of `A`, `B`, `A` and `B` on opposite sides of the plane
/// of `C`, `D`, and the arcs lie in one hemisphere (not antipodal).
fn arcs_cross(
    (a, b, b_x_a): &(Vector3<f64>, Vector3<f64>, Vector3<f64>),
    (c, d, d_x_c): &(Vector3<f64>, Vector3<f64>, Vector3<f64>),
) -> bool {
    let cba = c.dot(b_x_a);
    let dba = d.dot(b_x_a);
    let adc = a.dot(d_x_c);
    let bdc = b.dot(d_x_c);
    cba * dba < 0.0 && adc * bdc < 0.0 && cba * bdc > 0.0
}

/// The world vertices of the hull's supporting feature in direction `d`: those within
/// [`FEATURE_TOLERANCE`] times `size` of the support plane.
fn supporting_points(
    hull: &ConvexHull,
    pose: &Isometry3<f64>,
    d: &Vector3<f64>,
    size: f64,
) -> Vec<Point3<f64>> {
    let world: Vec<Point3<f64>> = hull.vertices().iter().map(|v| pose * v).collect();
    let top = world
        .iter()
        .map(|p| d.dot(&p.coords))
        .fold(f64::NEG_INFINITY, f64::max);
    world
        .into_iter()
        .filter(|p| d.dot(&p.coords) >= top - FEATURE_TOLERANCE * size)
        .collect()
}

/// A supporting feature projected on the contact plane: its convex outline (counter-clockwise,
/// 1 point for a vertex, 2 for an edge, 3 or more for a face) and the surface height along
/// the normal over the plane.
struct Feature {
    outline: Vec<Vector2<f64>>,
    heights: Vec<f64>,
    /// For faces: the height's gradient over the plane (the face is `h = h₀ + g·(q − q₀)`).
    slope: Option<Vector2<f64>>,
}

impl Feature {
    fn new(
        points: &[Point3<f64>],
        n: &Vector3<f64>,
        to_plane: &dyn Fn(&Point3<f64>) -> Vector2<f64>,
        size: f64,
    ) -> Self {
        let projected: Vec<(Vector2<f64>, f64)> = points
            .iter()
            .map(|p| (to_plane(p), n.dot(&p.coords)))
            .collect();
        let hull = convex_outline(&projected, 1e-9 * size);
        let slope = (hull.len() >= 3).then(|| {
            // Least-squares plane through the outline: h = h₀ + g·(q − q₀).
            let q0 = hull.iter().map(|(q, _)| q).sum::<Vector2<f64>>() / hull.len() as f64;
            let h0 = hull.iter().map(|(_, h)| h).sum::<f64>() / hull.len() as f64;
            let (mut m, mut r) = (nalgebra::Matrix2::zeros(), Vector2::zeros());
            for (q, h) in &hull {
                let dq = q - q0;
                m += dq * dq.transpose();
                r += dq * (h - h0);
            }
            m.try_inverse().map_or(Vector2::zeros(), |mi| mi * r)
        });
        Self {
            outline: hull.iter().map(|(q, _)| *q).collect(),
            heights: hull.iter().map(|(_, h)| *h).collect(),
            slope,
        }
    }

    /// The feature's height along the normal over plane point `q` (on its line for an edge,
    /// clamped to the edge).
    fn height(&self, q: &Vector2<f64>) -> f64 {
        match (self.outline.len(), self.slope) {
            (1, _) => self.heights[0],
            (2, _) => {
                let (a, b) = (self.outline[0], self.outline[1]);
                let t = ((q - a).dot(&(b - a)) / (b - a).norm_squared()).clamp(0.0, 1.0);
                self.heights[0] + t * (self.heights[1] - self.heights[0])
            }
            (_, Some(g)) => {
                let q0 = self.outline.iter().sum::<Vector2<f64>>() / self.outline.len() as f64;
                let h0 = self.heights.iter().sum::<f64>() / self.heights.len() as f64;
                h0 + g.dot(&(q - q0))
            }
            _ => self.heights[0],
        }
    }
}

/// The convex outline (counter-clockwise, Andrew's monotone chain) of planar points with
/// heights, dropping points within `tolerance` of the outline's edges or of each other.
fn convex_outline(points: &[(Vector2<f64>, f64)], tolerance: f64) -> Vec<(Vector2<f64>, f64)> {
    let mut sorted = points.to_vec();
    sorted.sort_by(|a, b| a.0.x.total_cmp(&b.0.x).then(a.0.y.total_cmp(&b.0.y)));
    sorted.dedup_by(|a, b| (a.0 - b.0).norm() <= tolerance);
    if sorted.len() <= 2 {
        return sorted;
    }
    let turn = |o: &Vector2<f64>, a: &Vector2<f64>, b: &Vector2<f64>| {
        let (u, v) = (a - o, b - o);
        (u.x * v.y - u.y * v.x) / u.norm().max(v.norm())
    };
    let mut hull: Vec<(Vector2<f64>, f64)> = Vec::new();
    for pass in [sorted.clone(), sorted.iter().rev().copied().collect()] {
        let start = hull.len();
        for p in pass {
            while hull.len() >= start + 2
                && turn(&hull[hull.len() - 2].0, &hull[hull.len() - 1].0, &p.0) <= tolerance
            {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    hull
}

/// The corners of the intersection of two features' outlines on the contact plane. Falls back
/// to the midpoint of the outlines' centroids when round-off leaves the intersection empty
/// (features that only just touch).
fn clip(a: &Feature, b: &Feature, size: f64) -> Vec<Vector2<f64>> {
    let tolerance = 1e-9 * size;
    let corners = match (a.outline.len() >= 3, b.outline.len() >= 3) {
        (_, true) => clip_against(&a.outline, &b.outline, tolerance),
        (true, false) => clip_against(&b.outline, &a.outline, tolerance),
        (false, false) => lower_dimensional(&a.outline, &b.outline, tolerance),
    };
    if corners.is_empty() {
        let centroid = |o: &[Vector2<f64>]| o.iter().sum::<Vector2<f64>>() / o.len() as f64;
        vec![0.5 * (centroid(&a.outline) + centroid(&b.outline))]
    } else {
        corners
    }
}

/// Sutherland–Hodgman: the part of `subject` (a point, segment or polygon) inside the convex
/// counter-clockwise polygon `clipper`.
fn clip_against(
    subject: &[Vector2<f64>],
    clipper: &[Vector2<f64>],
    tolerance: f64,
) -> Vec<Vector2<f64>> {
    let mut out = subject.to_vec();
    for k in 0..clipper.len() {
        let (c0, c1) = (clipper[k], clipper[(k + 1) % clipper.len()]);
        let e = (c1 - c0).normalize();
        // Signed distance to the left of the edge (inside is ≥ −tolerance).
        let side = |p: &Vector2<f64>| e.x * (p.y - c0.y) - e.y * (p.x - c0.x);
        let input = std::mem::take(&mut out);
        let m = input.len();
        for i in 0..m {
            let (p, q) = (input[i], input[(i + 1) % m]);
            let (sp, sq) = (side(&p), side(&q));
            if sp >= -tolerance {
                out.push(p);
            }
            // A crossing strictly between p and q (skipped for the closing edge of a point).
            if m > 1 && ((sp < -tolerance && sq > tolerance) || (sp > tolerance && sq < -tolerance))
            {
                out.push(p + (q - p) * (sp / (sp - sq)));
            }
        }
        if out.is_empty() {
            break;
        }
    }
    out.dedup_by(|x, y| (*x - *y).norm() <= tolerance);
    if out.len() > 1 && (out[0] - out[out.len() - 1]).norm() <= tolerance {
        out.pop();
    }
    out
}

/// The intersection of two outlines that are points or segments: the overlap of collinear
/// segments, the crossing (closest approach) of others, or the point.
fn lower_dimensional(a: &[Vector2<f64>], b: &[Vector2<f64>], tolerance: f64) -> Vec<Vector2<f64>> {
    match (a, b) {
        ([p], _) | (_, [p]) => vec![*p],
        ([a0, a1], [b0, b1]) => {
            let (da, db) = (a1 - a0, b1 - b0);
            let cross = da.x * db.y - da.y * db.x;
            if cross.abs() <= tolerance * da.norm().max(db.norm()) {
                // Collinear: the overlap of the parameter intervals along a.
                let len2 = da.norm_squared();
                let t = |p: &Vector2<f64>| (p - a0).dot(&da) / len2;
                let (lo, hi) = {
                    let (s0, s1) = (t(b0), t(b1));
                    (s0.min(s1).max(0.0), s0.max(s1).min(1.0))
                };
                if lo > hi {
                    Vec::new()
                } else {
                    vec![a0 + da * lo, a0 + da * hi]
                }
            } else {
                let w = b0 - a0;
                let s = ((w.x * db.y - w.y * db.x) / cross).clamp(0.0, 1.0);
                vec![a0 + da * s]
            }
        }
        _ => Vec::new(),
    }
}
