//! GJK distance between two convex hulls under rigid transforms.
//!
//! Gilbert–Johnson–Keerthi iterates on a simplex (1 to 4 points) of the Minkowski difference
//! `A − B`, moving towards the point of `A − B` closest to the origin; its norm is the distance.
//! We run in the local frame of `A` (one relative transform, one rotated direction per
//! iteration), keep each simplex vertex's two source points for the witness pair, and find the
//! closest point of a simplex by Voronoi-region tests (Ericson, *Real-Time Collision Detection*,
//! sec. 5.1) with barycentric coordinates.
//!
//! Termination, in order: the duality gap `|v|² − v·w` falls below `relative_tolerance · |v|²`
//! (converged); the new support point is already in the simplex or `|v|` stops decreasing (no
//! more progress is possible in floating point: the current `v` is the answer); the simplex
//! encloses the origin or `|v|` drops below `intersection_tolerance` times the hulls' size
//! (intersecting — touching counts as intersecting, since the separating-plane barrier is
//! infinite there). A [`GjkCache`] warm-starts the support searches and the initial simplex
//! from the previous query of the same pair: the last answer's simplex, rebuilt at the new
//! poses. (Starting from the last support pair alone, the previous design, costs more
//! iterations than a cold start at the same poses: the single point is a poorer start than the
//! support points along the line of centres.)
//!
//! The verdict and the distance must not depend on the cache, i.e. on the path GJK takes.
//! Near-parallel faces (a plank resting on another) make many support points tie to round-off,
//! so some paths meet simplices that are flat to round-off; two rules keep them harmless: a
//! tetrahedron encloses the origin only if its volume is clearly above round-off (a flat one
//! is treated as the polygon it is), and a triangle's closest point is the origin's projection
//! on its plane, accurate in direction, so that the support search still tells the faces apart.

use crate::error::{Result, check_pose};
use crate::hull::ConvexHull;
use nalgebra::{Isometry3, Point3, Vector3};

/// Tuning knobs of [`gjk_distance`]. The defaults suit hulls from millimetres to metres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GjkSettings {
    /// Iteration cap; hitting it returns the best answer so far (never loops forever).
    pub max_iterations: usize,
    /// Stop when the duality gap `|v|² − v·w` is below this times `|v|²`.
    pub relative_tolerance: f64,
    /// Distances below this times the sum of the hulls' bounding radii count as intersecting.
    pub intersection_tolerance: f64,
}

impl Default for GjkSettings {
    fn default() -> Self {
        Self {
            max_iterations: 128,
            relative_tolerance: 1e-12,
            intersection_tolerance: 1e-13,
        }
    }
}

/// Warm-start data for repeated queries on the same pair of hulls: the support-vertex pairs of
/// the last answer's final simplex, and its last support pair. A warm query rebuilds that
/// simplex at the new poses and starts from its closest point, so a repeated query at the same
/// poses converges in one iteration, and a slightly moved one starts next to its answer; the
/// support searches climb from the last support pair. A fresh cache starts from the support
/// points along the line between the hulls' bounding-sphere centres.
#[derive(Debug, Clone, Copy, Default)]
pub struct GjkCache {
    hints: Option<(usize, usize)>,
    simplex: [(u32, u32); 3],
    simplex_len: u8,
}

impl GjkCache {
    /// The cached simplex's support pairs, if they all index the given hulls.
    fn simplex(&self, a: usize, b: usize) -> Option<&[(u32, u32)]> {
        let ids = &self.simplex[..self.simplex_len as usize];
        (!ids.is_empty()
            && ids
                .iter()
                .all(|&(i, j)| (i as usize) < a && (j as usize) < b))
        .then_some(ids)
    }
}

/// The closest points of two separated hulls.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Separation {
    /// Euclidean distance between the hulls (positive).
    pub distance: f64,
    /// Closest point on hull A, in world coordinates.
    pub point_a: Point3<f64>,
    /// Closest point on hull B, in world coordinates.
    pub point_b: Point3<f64>,
    /// Unit world direction from A to B: `(point_b − point_a) / distance`. The plane through
    /// `point_a` with this normal separates the hulls.
    pub normal: Vector3<f64>,
    /// GJK iterations taken.
    pub iterations: usize,
}

/// Outcome of a GJK distance query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Proximity {
    /// The hulls are apart; the distance and witness points are exact to the tolerance.
    Separated(Separation),
    /// The hulls touch or overlap (no distance is reported, because none is meaningful).
    Intersecting {
        /// GJK iterations taken.
        iterations: usize,
    },
}

impl Proximity {
    /// The separation, if the hulls are apart.
    pub fn separation(&self) -> Option<&Separation> {
        match self {
            Proximity::Separated(s) => Some(s),
            Proximity::Intersecting { .. } => None,
        }
    }

    /// Whether the hulls touch or overlap.
    pub fn is_intersecting(&self) -> bool {
        matches!(self, Proximity::Intersecting { .. })
    }
}

/// Distance between hull `a` at `pose_a` and hull `b` at `pose_b`, with default settings.
///
/// ```
/// use sdrs_geometry::{ConvexHull, gjk::distance};
/// use nalgebra::{Isometry3, Vector3};
/// let cube = ConvexHull::cuboid(Vector3::new(0.5, 0.5, 0.5)).unwrap();
/// let apart = Isometry3::translation(1.75, 0.0, 0.0);
/// let s = *distance(&cube, &Isometry3::identity(), &cube, &apart).separation().unwrap();
/// assert!((s.distance - 0.75).abs() < 1e-12);
/// assert!((s.normal - Vector3::x()).norm() < 1e-12);
/// ```
pub fn distance(
    a: &ConvexHull,
    pose_a: &Isometry3<f64>,
    b: &ConvexHull,
    pose_b: &Isometry3<f64>,
) -> Proximity {
    gjk_distance(
        a,
        pose_a,
        b,
        pose_b,
        &GjkSettings::default(),
        &mut GjkCache::default(),
    )
}

/// A simplex vertex: the Minkowski point `w = a − b` and the source point `a` on hull A (`b`
/// follows), with the support indices that made it.
#[derive(Clone, Copy)]
struct Vertex {
    w: Vector3<f64>,
    a: Vector3<f64>,
    ids: (u32, u32),
}

/// Which simplex vertices carry the closest point, and their barycentric weights.
#[derive(Clone, Copy)]
struct Reduction {
    picks: [(u8, f64); 3],
    len: u8,
}

impl Reduction {
    fn one(i: usize) -> Self {
        Self {
            picks: [(i as u8, 1.0), (0, 0.0), (0, 0.0)],
            len: 1,
        }
    }

    fn two(i: usize, j: usize, t: f64) -> Self {
        Self {
            picks: [(i as u8, 1.0 - t), (j as u8, t), (0, 0.0)],
            len: 2,
        }
    }
}

/// A simplex with the barycentric weights of its closest point to the origin.
#[derive(Clone, Copy)]
struct Simplex {
    verts: [Vertex; 4],
    weights: [f64; 4],
    len: usize,
    /// Round-off in one coordinate of a vertex `w`: `ε` times the largest coordinate entering
    /// it.
    noise: f64,
}

impl Simplex {
    /// The simplex's point closest to the origin. For a triangle it is the origin's projection
    /// on the triangle's plane (the weights say it lies inside), computed from the normal:
    /// summing the weighted vertices would cancel terms of the vertices' size down to the
    /// distance and amplify the weights' round-off by the triangle's aspect ratio, leaving `v`
    /// too imprecise in direction to tell the support points of near-parallel faces apart.
    fn closest(&self) -> Vector3<f64> {
        if self.len == 3 {
            let [a, b, c] = [0, 1, 2].map(|k| self.verts[k].w);
            let n = (b - a).cross(&(c - a));
            let nn = n.norm_squared();
            if nn > 0.0 {
                return n * (n.dot(&a) / nn);
            }
        }
        (0..self.len)
            .map(|k| self.verts[k].w * self.weights[k])
            .sum()
    }

    fn point_of(&self, r: &Reduction) -> Vector3<f64> {
        r.picks[..r.len as usize]
            .iter()
            .map(|&(i, weight)| self.verts[i as usize].w * weight)
            .sum()
    }

    fn contains(&self, ids: (u32, u32)) -> bool {
        self.verts[..self.len].iter().any(|v| v.ids == ids)
    }

    fn apply(&mut self, r: &Reduction) {
        let old = self.verts;
        for (k, &(i, weight)) in r.picks[..r.len as usize].iter().enumerate() {
            self.verts[k] = old[i as usize];
            self.weights[k] = weight;
        }
        self.len = r.len as usize;
    }

    /// Reduces the simplex to the face carrying its closest point to the origin.
    /// Returns `false` if the origin lies inside a full tetrahedron.
    fn reduce(&mut self) -> bool {
        let r = match self.len {
            1 => Reduction::one(0),
            2 => self.segment(0, 1),
            3 => self.triangle(0, 1, 2),
            _ => match self.tetrahedron() {
                Some(r) => r,
                None => return false,
            },
        };
        self.apply(&r);
        true
    }

    fn segment(&self, i: usize, j: usize) -> Reduction {
        let (a, b) = (self.verts[i].w, self.verts[j].w);
        let ab = b - a;
        let t = -a.dot(&ab);
        let denom = ab.norm_squared();
        if t <= 0.0 {
            Reduction::one(i)
        } else if t >= denom {
            Reduction::one(j)
        } else {
            Reduction::two(i, j, t / denom)
        }
    }

    /// Ericson's closest point on a triangle to a point (here the origin).
    fn triangle(&self, i: usize, j: usize, k: usize) -> Reduction {
        let (a, b, c) = (self.verts[i].w, self.verts[j].w, self.verts[k].w);
        let ab = b - a;
        let ac = c - a;
        let d1 = -ab.dot(&a);
        let d2 = -ac.dot(&a);
        if d1 <= 0.0 && d2 <= 0.0 {
            return Reduction::one(i);
        }
        let d3 = -ab.dot(&b);
        let d4 = -ac.dot(&b);
        if d3 >= 0.0 && d4 <= d3 {
            return Reduction::one(j);
        }
        let vc = d1 * d4 - d3 * d2;
        if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
            return Reduction::two(i, j, d1 / (d1 - d3));
        }
        let d5 = -ab.dot(&c);
        let d6 = -ac.dot(&c);
        if d6 >= 0.0 && d5 <= d6 {
            return Reduction::one(k);
        }
        let vb = d5 * d2 - d1 * d6;
        if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
            return Reduction::two(i, k, d2 / (d2 - d6));
        }
        let va = d3 * d6 - d5 * d4;
        if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
            return Reduction::two(j, k, (d4 - d3) / ((d4 - d3) + (d5 - d6)));
        }
        let denom = va + vb + vc;
        if !(denom > 0.0) {
            // Degenerate (collinear) triangle: the closest point lies on an edge.
            return [self.segment(j, k), self.segment(i, k)].into_iter().fold(
                self.segment(i, j),
                |best, r| {
                    if self.point_of(&r).norm_squared() < self.point_of(&best).norm_squared() {
                        r
                    } else {
                        best
                    }
                },
            );
        }
        let v = vb / denom;
        let w = vc / denom;
        Reduction {
            picks: [(i as u8, 1.0 - v - w), (j as u8, v), (k as u8, w)],
            len: 3,
        }
    }

    /// Closest point over the faces the origin may lie beyond; `None` if it is inside.
    fn tetrahedron(&self) -> Option<Reduction> {
        let faces = [(0, 1, 2, 3), (0, 1, 3, 2), (0, 2, 3, 1), (1, 2, 3, 0)];
        let mut best: Option<(f64, Reduction)> = None;
        for (i, j, k, opposite) in faces {
            let a = self.verts[i].w;
            let (e1, e2) = (self.verts[j].w - a, self.verts[k].w - a);
            let n = e1.cross(&e2);
            let to_opposite = self.verts[opposite].w - a;
            let origin_side = -a.dot(&n);
            let opposite_side = to_opposite.dot(&n);
            // The origin is a candidate for this face unless it lies strictly on the same side
            // as the opposite vertex. The opposite vertex's side is only known beyond the
            // round-off of `opposite_side` (the vertices' round-off times the face's size):
            // a tetrahedron flatter than that (e.g. four points of one face of A − B, which
            // near-parallel faces of A and B make) is a polygon, every face of which is a
            // candidate; taking round-off signs for an enclosed origin would call a separated
            // pair intersecting.
            let size_sq = e1.norm_squared() + e2.norm_squared() + to_opposite.norm_squared();
            let flat = opposite_side.abs() <= FLATNESS * self.noise * size_sq;
            if !flat && origin_side * opposite_side > 0.0 {
                continue;
            }
            let r = self.triangle(i, j, k);
            let d = self.point_of(&r).norm_squared();
            if best.as_ref().is_none_or(|(bd, _)| d < *bd) {
                best = Some((d, r));
            }
        }
        best.map(|(_, r)| r)
    }
}

/// A tetrahedron whose signed volume (times 6) is within this many vertex round-offs times the
/// sum of its three edges' squared lengths from one vertex is flat: the side of its fourth
/// vertex is round-off.
const FLATNESS: f64 = 16.0;

/// [`gjk_distance`] after checking both poses: a non-finite pose or a non-unit rotation is an
/// [`crate::GeometryError::InvalidPose`] instead of a meaningless (NaN) answer.
pub fn try_gjk_distance(
    a: &ConvexHull,
    pose_a: &Isometry3<f64>,
    b: &ConvexHull,
    pose_b: &Isometry3<f64>,
    settings: &GjkSettings,
    cache: &mut GjkCache,
) -> Result<Proximity> {
    check_pose(0, pose_a)?;
    check_pose(1, pose_b)?;
    Ok(gjk_distance(a, pose_a, b, pose_b, settings, cache))
}

/// Distance between hull `a` at `pose_a` and hull `b` at `pose_b`, warm-started from `cache`
/// (which is updated for the next query of the same pair). The poses must be finite (callers
/// that cannot promise it use [`try_gjk_distance`]); any input ends within
/// `settings.max_iterations` iterations.
pub fn gjk_distance(
    a: &ConvexHull,
    pose_a: &Isometry3<f64>,
    b: &ConvexHull,
    pose_b: &Isometry3<f64>,
    settings: &GjkSettings,
    cache: &mut GjkCache,
) -> Proximity {
    // Everything happens in A's local frame.
    let rel = pose_a.inv_mul(pose_b);
    let rot_inv = rel.rotation.inverse();
    let va = a.vertices();
    let vb = b.vertices();
    let point_b = |j: usize| rel * vb[j];
    let (mut hint_a, mut hint_b) = match cache.hints {
        Some((i, j)) if i < va.len() && j < vb.len() => (i, j),
        _ => {
            let axis = rel * b.bounding_sphere_center() - a.bounding_sphere_center();
            (a.support_index(&axis), b.support_index(&(rot_inv * -axis)))
        }
    };
    let make = |i: usize, j: usize| {
        let pa = va[i].coords;
        Vertex {
            w: pa - point_b(j).coords,
            a: pa,
            ids: (i as u32, j as u32),
        }
    };
    let scale = a.bounding_sphere_radius() + b.bounding_sphere_radius();
    let touch_sq = (settings.intersection_tolerance * scale).powi(2);
    // A bound on the coordinates entering a vertex `w = a − rel·b` bounds its round-off.
    let reach = a.bounding_sphere_center().coords.norm()
        + a.bounding_sphere_radius()
        + rel.translation.vector.norm()
        + b.bounding_sphere_center().coords.norm()
        + b.bounding_sphere_radius();
    let noise = f64::EPSILON * reach;

    let mut simplex = Simplex {
        verts: [make(hint_a, hint_b); 4],
        weights: [1.0, 0.0, 0.0, 0.0],
        len: 1,
        noise,
    };
    // Warm start from the last answer's simplex rather than one support pair: its closest
    // point is the last answer moved with the poses (at most a triangle, so `reduce` only
    // picks the sub-simplex carrying the new closest point).
    if let Some(ids) = cache.simplex(va.len(), vb.len()) {
        for (k, &(i, j)) in ids.iter().enumerate() {
            simplex.verts[k] = make(i as usize, j as usize);
        }
        simplex.len = ids.len();
        simplex.reduce();
    }
    let mut v = simplex.closest();
    let mut vv = v.norm_squared();
    let mut iterations = 0;
    let intersecting = loop {
        if vv <= touch_sq {
            break true;
        }
        if iterations == settings.max_iterations {
            break false;
        }
        iterations += 1;
        // Support of A − B in direction −v.
        hint_a = a.support_index_from(&-v, hint_a);
        hint_b = b.support_index_from(&(rot_inv * v), hint_b);
        let w = make(hint_a, hint_b);
        let gap = vv - v.dot(&w.w);
        if gap <= settings.relative_tolerance * vv || simplex.contains(w.ids) {
            break false;
        }
        let previous = simplex;
        simplex.verts[simplex.len] = w;
        simplex.len += 1;
        if !simplex.reduce() {
            break true;
        }
        let next = simplex.closest();
        let next_vv = next.norm_squared();
        if next_vv >= vv {
            // Round-off stalls progress: the previous simplex is the best we can do.
            simplex = previous;
            break false;
        }
        v = next;
        vv = next_vv;
    };
    cache.hints = Some((hint_a, hint_b));
    cache.simplex_len = 0;
    if intersecting {
        return Proximity::Intersecting { iterations };
    }
    for (k, vertex) in simplex.verts[..simplex.len].iter().enumerate() {
        cache.simplex[k] = vertex.ids;
    }
    cache.simplex_len = simplex.len as u8;
    let pa: Vector3<f64> = (0..simplex.len)
        .map(|k| simplex.verts[k].a * simplex.weights[k])
        .sum();
    // b = a − w for every simplex vertex, so the same weights give B's witness.
    let pb = pa - v;
    let distance = vv.sqrt();
    Proximity::Separated(Separation {
        distance,
        point_a: pose_a * Point3::from(pa),
        point_b: pose_a * Point3::from(pb),
        normal: pose_a.rotation * (-v / distance),
        iterations,
    })
}
