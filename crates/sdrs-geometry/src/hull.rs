//! Convex hulls in V-representation: a set of local vertices and what is derived from them.
//!
//! The vertices are the only source of truth (the SDRS paper's design variables, sec. IV). The
//! boundary triangulation, vertex adjacency, and bounding sphere are derived once at
//! construction; change a shape by building a new hull from new vertices.
//!
//! The support function `argmax_i <d, v_i>` is the workhorse of GJK and of world-space bounding
//! boxes. For small hulls it is a linear scan over a structure-of-arrays copy of the vertices;
//! for larger ones it hill-climbs the vertex graph of the boundary triangulation, which is exact
//! for convex polytopes (a vertex with no better neighbour is a global maximiser) and, warm
//! started from the previous answer, touches a handful of vertices per query.

use crate::aabb::Aabb;
use crate::error::{GeometryError, Result, check_finite};
use crate::parry_adapter;
use nalgebra::{Isometry3, Point3, Vector3};

/// Above this many vertices the support function hill-climbs instead of scanning.
const HILL_CLIMB_THRESHOLD: usize = 16;

/// Directions per axis of the seed grid for hill climbing (`SEED_LEVELS³` seeds per hull).
const SEED_LEVELS: usize = 5;

/// Relative thickness below which a point set counts as coplanar.
const COPLANAR_TOLERANCE: f64 = 1e-9;

/// A convex polyhedron given by its vertices in the local frame of its body.
///
/// ```
/// use sdrs_geometry::ConvexHull;
/// use nalgebra::{Isometry3, Vector3};
/// let cube = ConvexHull::cuboid(Vector3::new(0.5, 0.5, 0.5)).unwrap();
/// assert_eq!(cube.vertices().len(), 8);
/// assert_eq!(cube.triangles().len(), 12);
/// let top = cube.support_point(&Isometry3::identity(), &Vector3::new(0.1, 0.2, 1.0));
/// assert_eq!(top.z, 0.5);
/// ```
#[derive(Debug, Clone)]
pub struct ConvexHull {
    vertices: Vec<Point3<f64>>,
    xs: Vec<f64>,
    ys: Vec<f64>,
    zs: Vec<f64>,
    triangles: Vec<[u32; 3]>,
    adjacency_offsets: Vec<u32>,
    adjacency: Vec<u32>,
    /// Support vertex of each direction of a `SEED_LEVELS³` grid on the cube `[-1, 1]³`,
    /// indexed by quantised direction components (see `seed_for`); climbs start there.
    /// Empty for small hulls, which scan instead.
    seeds: Vec<u32>,
    /// Unit outward normal of each boundary triangle (local frame).
    face_normals: Vec<Vector3<f64>>,
    /// Each boundary edge once, with its Gauss-map arc (see [`HullEdge`]).
    edges: Vec<HullEdge>,
    sphere_center: Point3<f64>,
    sphere_radius: f64,
    /// [`ConvexHull::fingerprint`].
    fingerprint: u64,
}

impl ConvexHull {
    /// A hull whose V-representation is exactly `vertices`.
    ///
    /// Interior points are allowed (they are valid V-rep vertices: they never win the support
    /// function, but they do carry lumped mass and barrier terms). Errors: fewer than 4
    /// points, a non-finite coordinate, two identical points, or a set with no volume.
    pub fn new(vertices: Vec<Point3<f64>>) -> Result<Self> {
        validate_points(&vertices)?;
        if let Some((first, second)) = find_duplicate(&vertices) {
            return Err(GeometryError::DuplicateVertex { first, second });
        }
        let triangles = parry_adapter::quickhull(&vertices)
            .ok_or(GeometryError::Degenerate(vertices.len(), 0.0))?;
        Ok(Self::from_parts(vertices, triangles))
    }

    /// The hull of a point cloud, keeping only its extreme points: duplicates and interior
    /// points are dropped. Errors as for [`ConvexHull::new`], except that duplicates are fine.
    pub fn from_point_cloud(points: &[Point3<f64>]) -> Result<Self> {
        validate_points(points)?;
        let triangles =
            parry_adapter::quickhull(points).ok_or(GeometryError::Degenerate(points.len(), 0.0))?;
        let mut remap = vec![u32::MAX; points.len()];
        let mut vertices = Vec::new();
        let triangles = triangles
            .iter()
            .map(|t| {
                t.map(|i| {
                    if remap[i as usize] == u32::MAX {
                        remap[i as usize] = vertices.len() as u32;
                        vertices.push(points[i as usize]);
                    }
                    remap[i as usize]
                })
            })
            .collect();
        Ok(Self::from_parts(vertices, triangles))
    }

    /// A box centred at the origin with the given half extents (all must be positive).
    pub fn cuboid(half_extents: Vector3<f64>) -> Result<Self> {
        for (i, &h) in half_extents.iter().enumerate() {
            if !(h > 0.0 && h.is_finite()) {
                return Err(GeometryError::InvalidParameter {
                    name: ["half_extent.x", "half_extent.y", "half_extent.z"][i],
                    value: h,
                    allowed: "finite and positive",
                });
            }
        }
        let h = half_extents;
        let corners = (0..8)
            .map(|k| {
                let s = |bit: u32| if k & (1 << bit) != 0 { 1.0 } else { -1.0 };
                Point3::new(s(0) * h.x, s(1) * h.y, s(2) * h.z)
            })
            .collect();
        Self::new(corners)
    }

    fn from_parts(vertices: Vec<Point3<f64>>, mut triangles: Vec<[u32; 3]>) -> Self {
        let n = vertices.len();
        // quickhull's orientation is unreliable on thin hulls: orient every triangle away from
        // an interior point (the mean of the boundary vertices).
        let interior = boundary_mean(&vertices, &triangles);
        for t in &mut triangles {
            let [a, b, c] = t.map(|i| vertices[i as usize].coords);
            if (b - a).cross(&(c - a)).dot(&(a - interior)) < 0.0 {
                t.swap(1, 2);
            }
        }
        let mut neighbours: Vec<Vec<u32>> = vec![Vec::new(); n];
        for t in &triangles {
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                neighbours[a as usize].push(b);
                neighbours[b as usize].push(a);
            }
        }
        let mut adjacency_offsets = Vec::with_capacity(n + 1);
        let mut adjacency = Vec::new();
        adjacency_offsets.push(0);
        for list in &mut neighbours {
            list.sort_unstable();
            list.dedup();
            adjacency.extend_from_slice(list);
            adjacency_offsets.push(adjacency.len() as u32);
        }
        let face_normals: Vec<Vector3<f64>> = triangles
            .iter()
            .map(|t| {
                let [p, q, r] = t.map(|i| vertices[i as usize]);
                (q - p)
                    .cross(&(r - p))
                    .try_normalize(0.0)
                    .unwrap_or_default()
            })
            .collect();
        let edges = boundary_edges(&vertices, &triangles, &face_normals);
        let box_ = Aabb::from_points(&vertices);
        let sphere_center = box_.center();
        let sphere_radius = vertices
            .iter()
            .map(|v| (v - sphere_center).norm())
            .fold(0.0, f64::max);
        let fingerprint = {
            use std::hash::{Hash, Hasher};
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            for v in &vertices {
                v.coords.map(f64::to_bits).as_slice().hash(&mut hasher);
            }
            hasher.finish()
        };
        let mut hull = Self {
            fingerprint,
            xs: vertices.iter().map(|v| v.x).collect(),
            ys: vertices.iter().map(|v| v.y).collect(),
            zs: vertices.iter().map(|v| v.z).collect(),
            seeds: Vec::new(),
            face_normals,
            edges,
            vertices,
            triangles,
            adjacency_offsets,
            adjacency,
            sphere_center,
            sphere_radius,
        };
        if n > HILL_CLIMB_THRESHOLD {
            let level = |q: usize| 2.0 * q as f64 / (SEED_LEVELS - 1) as f64 - 1.0;
            hull.seeds = (0..SEED_LEVELS.pow(3))
                .map(|k| {
                    let d = Vector3::new(
                        level(k % SEED_LEVELS),
                        level(k / SEED_LEVELS % SEED_LEVELS),
                        level(k / (SEED_LEVELS * SEED_LEVELS)),
                    );
                    hull.support_scan(&d) as u32
                })
                .collect();
        }
        hull
    }

    /// A 64-bit hash of the vertices (their bits, in order): hulls with the same vertices have
    /// the same fingerprint, and caches key per-pair results on it (a changed hull is a new
    /// hull, as hulls are immutable).
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// The local vertices (the V-representation).
    pub fn vertices(&self) -> &[Point3<f64>] {
        &self.vertices
    }

    /// Outward-oriented boundary triangles (quickhull), indexing into [`Self::vertices`].
    /// Interior vertices appear in none of them.
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// Boundary neighbours of vertex `i` (empty for interior vertices).
    ///
    /// # Panics
    /// If `i` is not a vertex index (like slice indexing).
    pub fn neighbours(&self, i: usize) -> &[u32] {
        let (a, b) = (self.adjacency_offsets[i], self.adjacency_offsets[i + 1]);
        &self.adjacency[a as usize..b as usize]
    }

    /// Unit outward normal of each boundary triangle, in the order of
    /// [`Self::triangles`] (local frame; zero for a triangle of no area).
    pub fn face_normals(&self) -> &[Vector3<f64>] {
        &self.face_normals
    }

    /// Each edge of the boundary triangulation once, with the normals of the two triangles it
    /// joins (local frame).
    pub fn edges(&self) -> &[HullEdge] {
        &self.edges
    }

    /// Centre of a bounding sphere in the local frame (the centre of the local AABB; the
    /// sphere encloses every vertex but is not the minimal one).
    pub fn bounding_sphere_center(&self) -> Point3<f64> {
        self.sphere_center
    }

    /// Radius of the bounding sphere around [`Self::bounding_sphere_center`].
    pub fn bounding_sphere_radius(&self) -> f64 {
        self.sphere_radius
    }

    /// Index of a vertex maximising `<dir, v>` (`dir` in the local frame).
    pub fn support_index(&self, dir: &Vector3<f64>) -> usize {
        self.support_index_from(dir, usize::MAX)
    }

    /// As [`Self::support_index`], warm-started at vertex `hint` (e.g. the previous answer;
    /// `usize::MAX` for none). The result is exact whatever the hint; a good hint only makes it
    /// faster. Large hulls climb from the better of the hint and the precomputed support
    /// vertex of the nearest grid direction, so a stale hint never costs a long walk.
    #[inline]
    pub fn support_index_from(&self, dir: &Vector3<f64>, hint: usize) -> usize {
        if self.vertices.len() <= HILL_CLIMB_THRESHOLD {
            return self.support_scan(dir);
        }
        // Climbing reads scattered vertices: the array-of-structs copy touches one cache line
        // per vertex where the scan's structure-of-arrays copy would touch three.
        let dot = |i: usize| dir.dot(&self.vertices[i].coords);
        let seed = self.seed_for(dir);
        let mut start = (seed, dot(seed));
        // Interior vertices have no neighbours: never start a climb there.
        if hint < self.vertices.len() && !self.neighbours(hint).is_empty() {
            let value = dot(hint);
            if value > start.1 {
                start = (hint, value);
            }
        }
        self.support_climb(dir, start.0, start.1)
    }

    /// The seed of the grid direction nearest to `d`: each component of `d / |d|_∞` rounded to
    /// one of `SEED_LEVELS` levels in `[-1, 1]`.
    fn seed_for(&self, d: &Vector3<f64>) -> usize {
        let top = (SEED_LEVELS - 1) as f64;
        let scale = 0.5 * top / d.amax();
        // Truncation of a value shifted by 0.5 rounds; `as` saturates (NaN gives 0).
        let q = |c: f64| ((c * scale + 0.5 * top + 0.5) as usize).min(SEED_LEVELS - 1);
        self.seeds[q(d.x) + SEED_LEVELS * (q(d.y) + SEED_LEVELS * q(d.z))] as usize
    }

    /// Linear scan in four independent lanes with branch-free selects, so the compiler can
    /// vectorise it; the lanes are merged at the end.
    fn support_scan(&self, d: &Vector3<f64>) -> usize {
        const LANES: usize = 4;
        let n = self.xs.len();
        let mut best_value = [f64::NEG_INFINITY; LANES];
        let mut best_index = [0usize; LANES];
        let chunks = n / LANES;
        for c in 0..chunks {
            for l in 0..LANES {
                let i = c * LANES + l;
                let value = d.x * self.xs[i] + d.y * self.ys[i] + d.z * self.zs[i];
                let better = value > best_value[l];
                best_value[l] = if better { value } else { best_value[l] };
                best_index[l] = if better { i } else { best_index[l] };
            }
        }
        let mut best = (best_index[0], best_value[0]);
        for l in 1..LANES {
            if best_value[l] > best.1 {
                best = (best_index[l], best_value[l]);
            }
        }
        for i in chunks * LANES..n {
            let value = d.x * self.xs[i] + d.y * self.ys[i] + d.z * self.zs[i];
            if value > best.1 {
                best = (i, value);
            }
        }
        best.0
    }

    /// Greedy ascent over boundary neighbours from `current` (whose value is `value`).
    fn support_climb(&self, d: &Vector3<f64>, mut current: usize, mut value: f64) -> usize {
        let dot = |i: usize| d.dot(&self.vertices[i].coords);
        loop {
            let mut improved = false;
            for &n in self.neighbours(current) {
                let candidate = dot(n as usize);
                if candidate > value {
                    value = candidate;
                    current = n as usize;
                    improved = true;
                }
            }
            if !improved {
                return current;
            }
        }
    }

    /// The world-space support point of the hull placed at `pose`, in world direction `dir`.
    pub fn support_point(&self, pose: &Isometry3<f64>, dir: &Vector3<f64>) -> Point3<f64> {
        let local = pose.rotation.inverse_transform_vector(dir);
        pose * self.vertices[self.support_index(&local)]
    }

    /// The tight world-space AABB of the hull placed at `pose`: a branch-free sweep over the
    /// rotated vertices for small hulls, six hill-climbing support queries for large ones.
    pub fn aabb(&self, pose: &Isometry3<f64>) -> Aabb {
        self.aabb_from(pose, &mut [usize::MAX; 6])
    }

    /// [`Self::aabb`] with the six support queries of a large hull warm-started at `hints`
    /// (the support vertices along `−x, +x, −y, +y, −z, +z`, updated here; `usize::MAX` for
    /// none): for a hull that moved a little since the last call, each query touches a few
    /// vertices. The box is the same whatever the hints.
    ///
    /// ```
    /// use sdrs_geometry::ConvexHull;
    /// use nalgebra::{Isometry3, Point3, Vector3};
    /// let points: Vec<Point3<f64>> = (0..200)
    ///     .map(|i| {
    ///         let t = i as f64 * 2.399963;
    ///         let z = 1.0 - 2.0 * (i as f64 + 0.5) / 200.0;
    ///         let r = (1.0 - z * z).sqrt();
    ///         Point3::new(r * t.cos(), r * t.sin(), z)
    ///     })
    ///     .collect();
    /// let ball = ConvexHull::new(points)?;
    /// let mut hints = [usize::MAX; 6];
    /// for k in 0..10 {
    ///     let pose = Isometry3::new(Vector3::new(0.01 * k as f64, 0.0, 0.0), Vector3::new(0.0, 0.0, 0.1 * k as f64));
    ///     assert_eq!(ball.aabb_from(&pose, &mut hints), ball.aabb(&pose));
    /// }
    /// # Ok::<(), sdrs_geometry::GeometryError>(())
    /// ```
    pub fn aabb_from(&self, pose: &Isometry3<f64>, hints: &mut [usize; 6]) -> Aabb {
        let r = *pose.rotation.to_rotation_matrix().matrix();
        let t = pose.translation.vector;
        let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        if self.vertices.len() <= HILL_CLIMB_THRESHOLD {
            for i in 0..self.xs.len() {
                let (x, y, z) = (self.xs[i], self.ys[i], self.zs[i]);
                for k in 0..3 {
                    let w = r[(k, 0)] * x + r[(k, 1)] * y + r[(k, 2)] * z;
                    lo[k] = lo[k].min(w);
                    hi[k] = hi[k].max(w);
                }
            }
        } else {
            for k in 0..3 {
                // Row k of R is the local direction whose dot product gives world coordinate k.
                let row = Vector3::new(r[(k, 0)], r[(k, 1)], r[(k, 2)]);
                hints[2 * k + 1] = self.support_index_from(&row, hints[2 * k + 1]);
                hints[2 * k] = self.support_index_from(&-row, hints[2 * k]);
                hi[k] = row.dot(&self.vertices[hints[2 * k + 1]].coords);
                lo[k] = row.dot(&self.vertices[hints[2 * k]].coords);
            }
        }
        Aabb::new(
            Point3::new(lo[0] + t.x, lo[1] + t.y, lo[2] + t.z),
            Point3::new(hi[0] + t.x, hi[1] + t.y, hi[2] + t.z),
        )
    }
}

/// An edge of a hull's boundary triangulation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HullEdge {
    /// The edge as a vector from its first to its second vertex (local frame).
    pub vector: Vector3<f64>,
    /// The unit outward normals of the two triangles that share it: the end points of the
    /// edge's arc on the Gauss map (the directions in which the edge is a supporting feature).
    /// `None` when the triangulation does not close around the edge (never for a hull built
    /// here); callers must then treat every direction as possible.
    pub faces: Option<[Vector3<f64>; 2]>,
}

impl HullEdge {
    /// Whether the edge is a crease of the polytope: its two triangles are not coplanar (an
    /// edge inside a flat face supports nothing that the face does not).
    pub fn is_crease(&self) -> bool {
        self.faces
            .is_none_or(|[n, m]| n.cross(&m).norm() > COPLANAR_TOLERANCE)
    }
}

/// Every edge of the closed triangulation `triangles` once, with the normals of its two
/// triangles.
fn boundary_edges(
    vertices: &[Point3<f64>],
    triangles: &[[u32; 3]],
    face_normals: &[Vector3<f64>],
) -> Vec<HullEdge> {
    let mut sides: Vec<((u32, u32), usize)> = triangles
        .iter()
        .enumerate()
        .flat_map(|(f, t)| {
            (0..3).map(move |k| {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                ((a.min(b), a.max(b)), f)
            })
        })
        .collect();
    sides.sort_unstable();
    let mut edges = Vec::with_capacity(sides.len() / 2);
    let mut i = 0;
    while i < sides.len() {
        let key = sides[i].0;
        let count = sides[i..].iter().take_while(|s| s.0 == key).count();
        let faces = (count == 2).then(|| [face_normals[sides[i].1], face_normals[sides[i + 1].1]]);
        edges.push(HullEdge {
            vector: vertices[key.1 as usize] - vertices[key.0 as usize],
            faces,
        });
        i += count;
    }
    edges
}

/// The mean of the boundary triangles' corners (each counted once per triangle): a point
/// strictly inside any hull with volume.
pub(crate) fn boundary_mean(vertices: &[Point3<f64>], triangles: &[[u32; 3]]) -> Vector3<f64> {
    triangles
        .iter()
        .flat_map(|t| t.iter())
        .map(|&i| vertices[i as usize].coords)
        .sum::<Vector3<f64>>()
        / (3 * triangles.len()) as f64
}

/// Checks count, finiteness and volume of a point set.
fn validate_points(points: &[Point3<f64>]) -> Result<()> {
    if points.len() < 4 {
        return Err(GeometryError::TooFewPoints(points.len()));
    }
    check_finite("point", points)?;
    let thickness = relative_thickness(points);
    if !(thickness > COPLANAR_TOLERANCE) {
        return Err(GeometryError::Degenerate(points.len(), thickness));
    }
    Ok(())
}

/// How far the set is from lying in a plane, relative to its diameter: pick the two points
/// farthest apart along a coordinate axis, the point farthest from their line, then the largest
/// distance to the plane through the three.
fn relative_thickness(points: &[Point3<f64>]) -> f64 {
    let farthest = |f: &dyn Fn(&Point3<f64>) -> f64| {
        points
            .iter()
            .enumerate()
            .map(|(i, p)| (i, f(p)))
            .fold((0, f64::NEG_INFINITY), |a, b| if b.1 > a.1 { b } else { a })
    };
    let box_ = Aabb::from_points(points);
    let axis = box_.extents().imax();
    let a = points[farthest(&|p| -p[axis]).0];
    let b = points[farthest(&|p| p[axis]).0];
    let diameter = (b - a).norm();
    if diameter == 0.0 {
        return 0.0;
    }
    let ab = (b - a) / diameter;
    let c = points[farthest(&|p| (p - a).cross(&ab).norm()).0];
    let normal = (b - a).cross(&(c - a));
    let normal_norm = normal.norm();
    if normal_norm <= f64::EPSILON * diameter * diameter {
        return 0.0;
    }
    let n = normal / normal_norm;
    farthest(&|p| (p - a).dot(&n).abs()).1 / diameter
}

/// The first pair of exactly equal points, if any.
fn find_duplicate(points: &[Point3<f64>]) -> Option<(usize, usize)> {
    let mut order: Vec<usize> = (0..points.len()).collect();
    let key = |i: usize| [points[i].x, points[i].y, points[i].z];
    // Callers validate first (`validate_points`), so every key is finite and comparable; a
    // total order would not do: it separates −0.0 from 0.0, which are the same point.
    order.sort_unstable_by(|&i, &j| key(i).partial_cmp(&key(j)).expect("finite"));
    order
        .windows(2)
        .find(|w| points[w[0]] == points[w[1]])
        .map(|w| (w[0].min(w[1]), w[0].max(w[1])))
}
