//! Closest points between the primitives of triangle meshes: point–triangle, segment–segment
//! and triangle–triangle, with every Voronoi region handled (vertices, edges, face; parallel
//! and degenerate segments).
//!
//! These are exact geometric queries (no smoothing); the long-range potential uses them for
//! a feasible starting plane, and IPC's distance types are classified from the same regions.

use nalgebra::{Point3, Vector3};

/// The closest points of two primitives and their distance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Closest {
    /// On the first primitive.
    pub a: Point3<f64>,
    /// On the second primitive.
    pub b: Point3<f64>,
    /// `|a − b|`.
    pub distance: f64,
}

impl Closest {
    fn new(a: Point3<f64>, b: Point3<f64>) -> Self {
        Self {
            a,
            b,
            distance: (a - b).norm(),
        }
    }
}

/// The Voronoi region of a triangle `(t0, t1, t2)` a point is closest to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TriangleRegion {
    /// Vertex `t_k`.
    Vertex(usize),
    /// Edge `k`: `t0t1`, `t1t2` or `t2t0`.
    Edge(usize),
    /// The face interior.
    Face,
}

/// The region of triangle `t` closest to `p` and the closest point in it.
pub fn triangle_region(p: &Point3<f64>, t: &[Point3<f64>; 3]) -> (TriangleRegion, Point3<f64>) {
    let [a, b, c] = *t;
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(&ap), ac.dot(&ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return (TriangleRegion::Vertex(0), a);
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(&bp), ac.dot(&bp));
    if d3 >= 0.0 && d4 <= d3 {
        return (TriangleRegion::Vertex(1), b);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return (TriangleRegion::Edge(0), a + ab * (d1 / (d1 - d3)));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(&cp), ac.dot(&cp));
    if d6 >= 0.0 && d5 <= d6 {
        return (TriangleRegion::Vertex(2), c);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return (TriangleRegion::Edge(2), a + ac * (d2 / (d2 - d6)));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (TriangleRegion::Edge(1), b + (c - b) * w);
    }
    let denom = 1.0 / (va + vb + vc);
    (
        TriangleRegion::Face,
        a + ab * (vb * denom) + ac * (vc * denom),
    )
}

/// The point of triangle `t` closest to `p` (Voronoi regions of vertices, edges and face).
///
/// ```
/// use sdrs_contact::distance::point_triangle;
/// use nalgebra::Point3;
/// let t = [Point3::origin(), Point3::new(1.0, 0.0, 0.0), Point3::new(0.0, 1.0, 0.0)];
/// // Above the face: the foot of the perpendicular.
/// let c = point_triangle(&Point3::new(0.2, 0.2, 1.0), &t);
/// assert!((c.b - Point3::new(0.2, 0.2, 0.0)).norm() < 1e-15 && (c.distance - 1.0).abs() < 1e-15);
/// // Beyond a vertex: that vertex.
/// assert_eq!(point_triangle(&Point3::new(2.0, -1.0, 0.0), &t).b, t[1]);
/// ```
pub fn point_triangle(p: &Point3<f64>, t: &[Point3<f64>; 3]) -> Closest {
    Closest::new(*p, triangle_region(p, t).1)
}

/// The closest points of segments `[p0, p1]` and `[q0, q1]`, including parallel and
/// degenerate (point-like) segments.
///
/// ```
/// use sdrs_contact::distance::segment_segment;
/// use nalgebra::Point3;
/// let c = segment_segment(
///     &[Point3::new(-1.0, 0.0, 0.0), Point3::new(1.0, 0.0, 0.0)],
///     &[Point3::new(0.5, -1.0, 2.0), Point3::new(0.5, 1.0, 2.0)],
/// );
/// assert!((c.distance - 2.0).abs() < 1e-15 && (c.a.x - 0.5).abs() < 1e-15);
/// ```
pub fn segment_segment(p: &[Point3<f64>; 2], q: &[Point3<f64>; 2]) -> Closest {
    let (d1, d2, r) = (p[1] - p[0], q[1] - q[0], p[0] - q[0]);
    let (a, e, f) = (d1.norm_squared(), d2.norm_squared(), d2.dot(&r));
    let tiny = f64::EPSILON * (a + e).max(f64::MIN_POSITIVE);
    let (s, t) = if a <= tiny && e <= tiny {
        (0.0, 0.0)
    } else if a <= tiny {
        (0.0, (f / e).clamp(0.0, 1.0))
    } else {
        let c = d1.dot(&r);
        if e <= tiny {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else {
            let b = d1.dot(&d2);
            let denom = a * e - b * b;
            // Parallel segments (denom ≈ 0): any s works; take 0 and let t follow.
            let mut s = if denom > tiny * (a * e).sqrt() {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let mut t = (b * s + f) / e;
            if t < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            }
            (s, t)
        }
    };
    Closest::new(p[0] + d1 * s, q[0] + d2 * t)
}

/// Whether segment `[p0, p1]` crosses the interior or boundary of triangle `t`.
fn segment_hits_triangle(p: &[Point3<f64>; 2], t: &[Point3<f64>; 3]) -> bool {
    let n = (t[1] - t[0]).cross(&(t[2] - t[0]));
    let (s0, s1) = (n.dot(&(p[0] - t[0])), n.dot(&(p[1] - t[0])));
    if s0 * s1 > 0.0 || s0 == s1 {
        return false;
    }
    let x = p[0] + (p[1] - p[0]) * (s0 / (s0 - s1));
    let inside = |a: &Point3<f64>, b: &Point3<f64>| n.dot(&(b - a).cross(&(x - a))) >= 0.0;
    inside(&t[0], &t[1]) && inside(&t[1], &t[2]) && inside(&t[2], &t[0])
}

/// The closest points of two triangles; distance 0 when they intersect. Disjoint triangles'
/// closest points are among the 6 vertex–triangle and 9 edge–edge pairs.
///
/// ```
/// use sdrs_contact::distance::triangle_triangle;
/// use nalgebra::Point3;
/// let a = [Point3::origin(), Point3::new(1.0, 0.0, 0.0), Point3::new(0.0, 1.0, 0.0)];
/// let b = a.map(|p| p + nalgebra::Vector3::new(0.0, 0.0, 0.5));
/// assert!((triangle_triangle(&a, &b).distance - 0.5).abs() < 1e-15);
/// ```
pub fn triangle_triangle(a: &[Point3<f64>; 3], b: &[Point3<f64>; 3]) -> Closest {
    let edges = |t: &[Point3<f64>; 3]| [[t[0], t[1]], [t[1], t[2]], [t[2], t[0]]];
    for (e, t) in edges(a)
        .iter()
        .map(|e| (e, b))
        .chain(edges(b).iter().map(|e| (e, a)))
    {
        if segment_hits_triangle(e, t) {
            let x = segment_plane_point(e, t);
            return Closest::new(x, x);
        }
    }
    let mut best = Closest::new(a[0], b[0]);
    for p in a {
        let c = point_triangle(p, b);
        if c.distance < best.distance {
            best = c;
        }
    }
    for p in b {
        let c = point_triangle(p, a);
        if c.distance < best.distance {
            best = Closest::new(c.b, c.a);
        }
    }
    for ea in edges(a) {
        for eb in edges(b) {
            let c = segment_segment(&ea, &eb);
            if c.distance < best.distance {
                best = c;
            }
        }
    }
    best
}

/// Where segment `p` crosses the plane of `t` (the segment is known to cross it).
fn segment_plane_point(p: &[Point3<f64>; 2], t: &[Point3<f64>; 3]) -> Point3<f64> {
    let n: Vector3<f64> = (t[1] - t[0]).cross(&(t[2] - t[0]));
    let (s0, s1) = (n.dot(&(p[0] - t[0])), n.dot(&(p[1] - t[0])));
    p[0] + (p[1] - p[0]) * (s0 / (s0 - s1))
}
