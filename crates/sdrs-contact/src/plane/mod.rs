//! The SDRS separating-plane barrier between two convex hulls (SDRS paper eq. 6-7, sec. VII).
//!
//! For hulls `A` and `B` with world vertices `a_m`, `b_m` and a plane `p = (n, o)`,
//!
//! ```text
//! U*(p) = P_s(1 − |n|) + Σ_m P_s(−(n·a_m + o)) + Σ_m P_s(n·b_m + o),     U_c = min_p U*(p)
//! ```
//!
//! so `A` lies on the negative side of the plane and `B` on the positive side, and `n` points
//! from `A` to `B`. Each term is convex in `p`; `U_c` is zero exactly when the hulls are at least
//! `2s/(1−s)` apart (Lemma VII.1 iii, [`PlaneBarrier::support_distance`]) and grows without
//! bound as they meet.
//!
//! **Evaluation** (module `solve`): GJK (warm-started) first rejects pairs beyond the support
//! distance and detects penetration; the plane is warm-started from the previous solution when
//! it is still feasible, else initialised as the scaled mid-plane of the GJK witness points
//! (eq. 18); a damped Newton method with a feasibility-preserving Armijo line search then
//! minimises `U*` over the four plane coordinates. All vertices of a hull move rigidly, so the
//! plane is moved into each hull's local frame for the feasibility tests and only vertices
//! inside the support contribute. Convergence is scale-aware: `|∇_p U*|` must fall below
//! `tolerance` times `Σ |P'|·|x̄|`, the size of the terms that cancel at the optimum.
//!
//! **Derivatives** (module `derivatives`) follow the implicit function theorem (eq. 33-35):
//! the gradient is `∂U*/∂ξ` at `p*` and the Hessian is
//! `∂²U*/∂ξ² − ∂²U*/∂ξ∂p [∂²U*/∂p²]⁻¹ ∂²U*/∂p∂ξ`, with twists `ξ` per [`sdrs_geometry::twist`]. Per
//! body, the active vertices are reduced to a handful of moments (`Σ P''`, `Σ P'' r`,
//! `Σ P'' r rᵀ`, `Σ P'`, `Σ P' r` with `r` the vertex offset from the body origin), so a pair
//! costs O(active vertices) plus a fixed 12x12 assembly. The same formula with a local vertex
//! in place of `ξ` gives the design derivatives.

mod anchors;
mod derivatives;
mod solve;

pub use anchors::{Anchors, Update};
pub use derivatives::{PlaneSensitivity, VertexSensitivity};

use crate::error::{ContactError, Result};
use crate::model::{ContactModel, Order, PairContact, PairOutcome};
use nalgebra::{Isometry3, Point3, Vector3, Vector4};
use sdrs_geometry::ConvexHull;
use sdrs_geometry::gjk::{GjkCache, GjkSettings, Proximity, gjk_distance};
use sdrs_geometry::twist::{Vector12, turn_chord};

/// The SDRS plane barrier and its inner-solve settings.
///
/// ```
/// use sdrs_contact::{ContactModel, Order, PlaneBarrier};
/// use sdrs_geometry::ConvexHull;
/// use nalgebra::{Isometry3, Vector3};
/// let cube = ConvexHull::cuboid(Vector3::repeat(0.5)).unwrap();
/// let barrier = PlaneBarrier::new(0.1).unwrap();
/// let mut cache = Default::default();
/// let far = Isometry3::translation(1.5, 0.0, 0.0); // 0.5 apart: beyond 2s/(1-s) = 0.222
/// let near = Isometry3::translation(1.05, 0.0, 0.0); // 5 cm apart
/// let id = Isometry3::identity();
/// assert_eq!(barrier.evaluate(&cube, &id, &cube, &far, &mut cache, Order::Value).unwrap().value(), 0.0);
/// let u = barrier.evaluate(&cube, &id, &cube, &near, &mut cache, Order::Hessian).unwrap();
/// let c = u.contact().unwrap();
/// assert!(c.value > 0.0);
/// assert!(c.gradient[0] > 0.0); // pushing A further towards B costs energy
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct PlaneBarrier {
    support: f64,
    tolerance: f64,
    max_iterations: usize,
    gjk: GjkSettings,
}

/// Per-pair warm-start data of [`PlaneBarrier`]: the last plane and GJK's support hints.
#[derive(Debug, Clone, Default)]
pub struct PlaneCache {
    plane: Option<Vector4<f64>>,
    /// The poses and fingerprints of the two hulls `plane` was solved for.
    solved_at: Option<([Isometry3<f64>; 2], [u64; 2])>,
    gjk: GjkCache,
    /// The separating direction (unit, from the first hull to the second) GJK found when it
    /// last put the pair beyond the support: while the gap along it stays beyond the support,
    /// the pair is, and the next gate needs no GJK ([`gap_along`]).
    apart_along: Option<Vector3<f64>>,
    /// Each hull's [`Nearby`] vertices from the last solve (boxed: caches move in and out of
    /// the stepper's pair map at every evaluation).
    nearby: [Option<Box<Nearby>>; 2],
    /// The force estimates of [`PlaneBarrier::evaluate_anchored`].
    anchors: Anchors,
}

impl PlaneCache {
    /// The last optimal plane `(n, o)` in world coordinates, if the pair was in range.
    pub fn plane(&self) -> Option<(Vector3<f64>, f64)> {
        self.plane.map(|p| (Vector3::new(p.x, p.y, p.z), p.w))
    }

    /// A cache whose warm start is the plane `(n, o)` (and no GJK hints): replays an
    /// evaluation from a recorded [`PlaneCache::plane`].
    pub fn with_plane(n: Vector3<f64>, o: f64) -> Self {
        Self {
            plane: Some(Vector4::new(n.x, n.y, n.z, o)),
            ..Self::default()
        }
    }
}

impl PlaneCache {
    /// The force estimates of the pair's vertices ([`PlaneBarrier::evaluate_anchored`]).
    pub fn anchors_mut(&mut self) -> &mut Anchors {
        &mut self.anchors
    }

    /// Keeps the [`Nearby`] lists of a solve's sides for the next solve of the pair.
    fn keep_nearby(&mut self, sides: [Side; 2]) {
        for (kept, side) in self.nearby.iter_mut().zip(sides) {
            *kept = side.nearby;
        }
    }
}

/// Newton iterations a nearly optimal warm start may take before the solve also tries the
/// mid-plane start (warm starts take 1-3 in a time step's iterations).
const WARM_BUDGET: usize = 10;

/// One hull of the pair as the solver sees it: shape, pose and side of the plane.
struct Side<'a> {
    hull: &'a ConvexHull,
    pose: &'a Isometry3<f64>,
    /// −1 for A (negative side), +1 for B.
    sign: f64,
    /// The vertices that can come within the support near the plane the solve is at.
    nearby: Option<Box<Nearby>>,
}

/// The vertices of a hull within `support + margin` of a reference plane `(n₀, o₀)` at a
/// reference pose `(R₀, t₀)`, in index order.
///
/// At another plane `(n, o)` and pose `(R, t)` the distance of local vertex `x` changes by
/// `σ[n·(c − c₀) + Δn·c₀ + Δo] + σ[n·(R − R₀)(x − x_c) + Δn·R₀(x − x_c)]`, with `x_c` the
/// centre of the hull's bounding sphere (radius `r`) and `c = R x_c + t`, `c₀ = R₀ x_c + t₀`. The
/// second bracket is at least `−(|n| ‖R − R₀‖ + |Δn|) r`, and `‖R − R₀‖ = 2 sin(θ/2)`, `θ` the
/// angle between the rotations. While the first bracket minus that bound stays above
/// `−margin`, every vertex left out is still beyond the support and the list is all a plane
/// evaluation needs. Iterates of a solve, and the solves of a time step, stay close to each
/// other, so a hull is scanned rarely instead of at every evaluation (a capsule has 130
/// vertices and touches the ground with a few).
#[derive(Debug, Clone, Default)]
struct Nearby {
    plane: Vector4<f64>,
    pose: Isometry3<f64>,
    fingerprint: u64,
    margin: f64,
    vertices: Vec<u32>,
    /// The parts of the bound that depend on the side's current pose only.
    moved: Motion,
}

/// How a hull moved since its [`Nearby`] list was made: `c − c₀`, `c₀` and `2 sin(θ/2) r`.
#[derive(Debug, Clone, Copy, Default)]
struct Motion {
    centre: Vector3<f64>,
    centre_before: Vector3<f64>,
    turn: f64,
}

impl Nearby {
    /// Updates [`Nearby::moved`] for `hull` at `pose`.
    fn moved_to(&mut self, hull: &ConvexHull, pose: &Isometry3<f64>) {
        let local_centre = hull.bounding_sphere_center();
        let before = self.pose * local_centre;
        self.moved = Motion {
            centre: (pose * local_centre) - before,
            centre_before: before.coords,
            turn: turn_chord(&self.pose.rotation, &pose.rotation) * hull.bounding_sphere_radius(),
        };
    }
}

/// How far past the support [`Nearby`] lists vertices, in supports.
const NEARBY_MARGIN: f64 = 3.0;

impl<'a> Side<'a> {
    fn new(hull: &'a ConvexHull, pose: &'a Isometry3<f64>, sign: f64) -> Self {
        Self {
            hull,
            pose,
            sign,
            nearby: None,
        }
    }

    /// `(index, local vertex, q)` for every vertex, with `q = σ (n·y + o)` its signed distance
    /// to the plane `(n, o)` (positive on the hull's own side). All vertices move rigidly, so
    /// the plane is moved into the hull's frame once: `n·(R x + t) + o = (Rᵀn)·x + (n·t + o)`.
    fn all_distances(
        &self,
        n: &Vector3<f64>,
        o: f64,
    ) -> impl Iterator<Item = (usize, &Point3<f64>, f64)> + '_ {
        self.distances_of(Indices::All(0..self.hull.vertices().len()), n, o)
    }

    /// [`Side::all_distances`] of the vertices that can be within `support` of the plane
    /// `(n, o)`: the [`Nearby`] list where it covers the plane, every vertex otherwise (in index
    /// order both ways, so sums over them are the same to the last bit).
    fn distances(
        &self,
        n: &Vector3<f64>,
        o: f64,
    ) -> impl Iterator<Item = (usize, &Point3<f64>, f64)> + '_ {
        let indices = match &self.nearby {
            Some(nearby) if self.covers(nearby, n, o) => Indices::Listed(nearby.vertices.iter()),
            _ => Indices::All(0..self.hull.vertices().len()),
        };
        self.distances_of(indices, n, o)
    }

    fn distances_of<'s>(
        &'s self,
        indices: Indices<'s>,
        n: &Vector3<f64>,
        o: f64,
    ) -> impl Iterator<Item = (usize, &'s Point3<f64>, f64)> + 's {
        let n_local = self.pose.rotation.inverse_transform_vector(n);
        let o_local = n.dot(&self.pose.translation.vector) + o;
        let sign = self.sign;
        let vertices = self.hull.vertices();
        indices.map(move |i| {
            let x = &vertices[i];
            (i, x, sign * (n_local.dot(&x.coords) + o_local))
        })
    }

    /// Whether every vertex left out of `nearby` is still beyond the support at the plane
    /// `(n, o)` and this side's pose (the bound of [`Nearby`]).
    fn covers(&self, nearby: &Nearby, n: &Vector3<f64>, o: f64) -> bool {
        let dn = n - nearby.plane.xyz();
        let moved = &nearby.moved;
        let shift =
            self.sign * (n.dot(&moved.centre) + dn.dot(&moved.centre_before) + o - nearby.plane.w);
        let spread = n.norm() * moved.turn + dn.norm() * self.hull.bounding_sphere_radius();
        shift - spread >= -nearby.margin
    }

    /// Lists the vertices within `(1 + NEARBY_MARGIN) s` of the plane `p`, unless the list
    /// already covers it.
    fn keep_nearby(&mut self, p: &Vector4<f64>, s: f64) {
        let n = p.xyz();
        if self
            .nearby
            .as_ref()
            .is_some_and(|nearby| self.covers(nearby, &n, p.w))
        {
            return;
        }
        let margin = NEARBY_MARGIN * s;
        let mut nearby = self.nearby.take().unwrap_or_default();
        nearby.vertices.clear();
        nearby.vertices.extend(
            self.all_distances(&n, p.w)
                .filter(|&(_, _, q)| q < s + margin)
                .map(|(i, _, _)| i as u32),
        );
        (nearby.plane, nearby.pose, nearby.margin) = (*p, *self.pose, margin);
        nearby.fingerprint = self.hull.fingerprint();
        nearby.moved_to(self.hull, self.pose);
        self.nearby = Some(nearby);
    }
}

/// Which vertices [`Side::distances_of`] visits.
enum Indices<'a> {
    All(std::ops::Range<usize>),
    Listed(std::slice::Iter<'a, u32>),
}

impl Iterator for Indices<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        match self {
            Self::All(range) => range.next(),
            Self::Listed(listed) => listed.next().map(|&i| i as usize),
        }
    }
}

impl PlaneBarrier {
    /// A barrier with support `s` (the paper's `s`, in metres of plane distance; `0 < s < 1`),
    /// gradient tolerance `1e-8` (relative; the final polishing Newton step then takes the plane
    /// to round-off) and at most 100 inner iterations.
    pub fn new(support: f64) -> Result<Self> {
        if !(support > 0.0 && support < 1.0) {
            return Err(ContactError::InvalidSetting {
                name: "support",
                value: support,
                allowed: "strictly between 0 and 1 (the paper's s)",
            });
        }
        Ok(Self {
            support,
            tolerance: 1e-8,
            max_iterations: 100,
            gjk: GjkSettings::default(),
        })
    }

    /// Sets the relative gradient tolerance of the inner solve (in `(0, 1e-3]`).
    pub fn with_tolerance(mut self, tolerance: f64) -> Result<Self> {
        self.tolerance = crate::error::tolerance(tolerance)?;
        Ok(self)
    }

    /// Sets the inner iteration cap (at least 1).
    pub fn with_max_iterations(mut self, max_iterations: usize) -> Result<Self> {
        if max_iterations == 0 {
            return Err(ContactError::InvalidSetting {
                name: "max_iterations",
                value: 0.0,
                allowed: "at least 1",
            });
        }
        self.max_iterations = max_iterations;
        Ok(self)
    }

    /// The barrier support `s`.
    pub fn support(&self) -> f64 {
        self.support
    }

    /// The unit normal (from `a` towards `b`) of the pair's last separating plane in `cache`,
    /// or, for a pair that has none (out of range when last evaluated), of GJK's closest points
    /// at the given poses, warm-started from the cache; `None` if the hulls intersect there.
    ///
    /// ```
    /// use sdrs_contact::{PlaneBarrier, PlaneCache};
    /// use sdrs_geometry::ConvexHull;
    /// use nalgebra::{Isometry3, Vector3};
    /// let cube = ConvexHull::cuboid(Vector3::repeat(0.5)).unwrap();
    /// let (at, above) = (Isometry3::identity(), Isometry3::translation(0.0, 0.0, 3.0));
    /// let n = PlaneBarrier::default()
    ///     .separating_normal(&cube, &at, &cube, &above, &mut PlaneCache::default())
    ///     .unwrap();
    /// assert!((n - Vector3::z()).norm() < 1e-12);
    /// ```
    pub fn separating_normal(
        &self,
        a: &ConvexHull,
        pose_a: &Isometry3<f64>,
        b: &ConvexHull,
        pose_b: &Isometry3<f64>,
        cache: &mut PlaneCache,
    ) -> Option<Vector3<f64>> {
        if let Some(p) = cache.plane {
            return Some(p.xyz().normalize());
        }
        match gjk_distance(a, pose_a, b, pose_b, &self.gjk, &mut cache.gjk) {
            Proximity::Separated(s) => Some(s.normal),
            Proximity::Intersecting { .. } => None,
        }
    }
}

/// The gap between hulls `a` and `b` at their poses along the unit direction `n` (from `a`
/// towards `b`): `min_{y∈b} n·y − max_{x∈a} n·x`, a lower bound on their distance when
/// positive (the two hulls lie on either side of a slab that thick).
pub fn gap_along(
    a: &ConvexHull,
    pose_a: &Isometry3<f64>,
    b: &ConvexHull,
    pose_b: &Isometry3<f64>,
    n: &Vector3<f64>,
) -> f64 {
    n.dot(&b.support_point(pose_b, &-n).coords) - n.dot(&a.support_point(pose_a, n).coords)
}

impl Default for PlaneBarrier {
    /// `s = 0.01` (1 cm), the value the authors' code uses.
    fn default() -> Self {
        Self::new(0.01).expect("0.01 is a valid support")
    }
}

impl ContactModel for PlaneBarrier {
    type Shape = ConvexHull;
    type Cache = PlaneCache;

    /// `2s / (1 − s)` (Lemma VII.1 iii).
    fn support_distance(&self) -> f64 {
        2.0 * self.support / (1.0 - self.support)
    }

    fn evaluate(
        &self,
        a: &ConvexHull,
        pose_a: &Isometry3<f64>,
        b: &ConvexHull,
        pose_b: &Isometry3<f64>,
        cache: &mut PlaneCache,
        order: Order,
    ) -> Result<PairOutcome> {
        Ok(match self.solve(a, pose_a, b, pose_b, cache)? {
            Solved::Penetrating => PairOutcome::Penetrating,
            Solved::Apart => PairOutcome::Separated(PairContact::zero()),
            Solved::Plane(sides, solution) => {
                let contact = derivatives::assemble(&sides, &solution, self.support, order);
                cache.keep_nearby(sides);
                PairOutcome::Separated(contact)
            }
        })
    }
}

/// A pair's energy, exact gradient and force-anchored Newton model
/// ([`PlaneBarrier::evaluate_anchored`]).
#[derive(Debug, Clone, PartialEq)]
pub struct AnchoredContact {
    /// The energy and exact gradient; its `hessian` is the model's Hessian.
    pub contact: PairContact,
    /// The model's gradient (the exact gradient where the estimates match the forces).
    pub model_gradient: Vector12,
}

impl PlaneBarrier {
    /// The pair's energy and exact gradient, with the Hessian and gradient of the
    /// force-anchored Newton model in place of the exact Hessian (see the `anchors` module
    /// docs: each active vertex's barrier term expanded to second order at the gap its force
    /// estimate implies). The estimates are read from and proposed into `cache`'s
    /// [`Anchors`]: `update` says whether this configuration is a solver's step from the
    /// committed iterate or the start of a new solve, and [`Anchors::commit`] makes the
    /// proposal the committed estimates once the configuration is accepted. A pair beyond the
    /// support has no energy, but at a solve's start its model keeps its vertices' estimates,
    /// at the plane they were proposed at. `None` when the hulls touch.
    ///
    /// ```
    /// use sdrs_contact::{ContactModel, Order, PlaneBarrier, PlaneCache};
    /// use sdrs_contact::plane::Update;
    /// use sdrs_geometry::ConvexHull;
    /// use nalgebra::{Isometry3, Vector3};
    /// let cube = ConvexHull::cuboid(Vector3::repeat(0.5)).unwrap();
    /// let barrier = PlaneBarrier::new(0.1).unwrap();
    /// let (id, near) = (Isometry3::identity(), Isometry3::translation(1.05, 0.0, 0.0));
    /// let mut cache = PlaneCache::default();
    /// // Without estimates the model is the barrier.
    /// let a = barrier.evaluate_anchored(&cube, &id, &cube, &near, &mut cache, Update::Carry)
    ///     .unwrap().expect("apart");
    /// let exact = barrier.evaluate(&cube, &id, &cube, &near, &mut cache, Order::Hessian).unwrap();
    /// let e = exact.contact().unwrap();
    /// assert!((a.model_gradient - e.gradient).norm() <= 1e-9 * e.gradient.norm());
    /// assert!((a.contact.hessian - e.hessian).norm() <= 1e-9 * e.hessian.norm());
    /// # Ok::<(), sdrs_contact::ContactError>(())
    /// ```
    pub fn evaluate_anchored(
        &self,
        a: &ConvexHull,
        pose_a: &Isometry3<f64>,
        b: &ConvexHull,
        pose_b: &Isometry3<f64>,
        cache: &mut PlaneCache,
        update: Update,
    ) -> Result<Option<AnchoredContact>> {
        Ok(match self.solve(a, pose_a, b, pose_b, cache)? {
            Solved::Penetrating => None,
            Solved::Apart => {
                let mut contact = PairContact::zero();
                let mut model_gradient = Vector12::zeros();
                match cache.anchors.committed_plane() {
                    Some(plane) => {
                        let sides = [Side::new(a, pose_a, -1.0), Side::new(b, pose_b, 1.0)];
                        let proposal = cache.anchors.propose(self.support, update, plane);
                        if let Some((hessian, gradient)) = derivatives::anchored_beyond_support(
                            &sides,
                            &plane,
                            self.support,
                            proposal,
                        ) {
                            (contact.hessian, model_gradient) = (hessian, gradient);
                        }
                    }
                    None => cache.anchors.propose_none(),
                }
                Some(AnchoredContact {
                    contact,
                    model_gradient,
                })
            }
            Solved::Plane(sides, solution) => {
                let proposal = cache.anchors.propose(self.support, update, solution.plane);
                let (contact, model_gradient) =
                    derivatives::assemble_anchored(&sides, &solution, self.support, proposal);
                cache.keep_nearby(sides);
                Some(AnchoredContact {
                    contact,
                    model_gradient,
                })
            }
        })
    }
}

/// What the GJK gate of [`PlaneBarrier::solve`] decides when there is no plane to solve.
enum Gated {
    Penetrating,
    Apart,
}

impl Gated {
    fn solved<'a>(self) -> Solved<'a> {
        match self {
            Self::Penetrating => Solved::Penetrating,
            Self::Apart => Solved::Apart,
        }
    }
}

/// What the plane solve found for a pair.
// Built once per evaluation and consumed at once; boxing would allocate on the hot path.
#[allow(clippy::large_enum_variant)]
enum Solved<'a> {
    Penetrating,
    /// Beyond the support distance: zero energy, no plane.
    Apart,
    Plane([Side<'a>; 2], solve::Solution),
}

impl PlaneBarrier {
    /// The optimal plane of a pair and how it moves with the poses and the local vertices:
    /// `∂p*/∂ξ = −H_pp⁻¹ ∂²U*/∂p∂ξ` by the implicit function theorem (eq. 33), and the same
    /// with a local vertex in place of `ξ`. `None` when the pair is beyond the support distance;
    /// [`ContactError::PenetratingFrame`] when the hulls touch. Friction differentiates through
    /// its lagged plane with this.
    ///
    /// ```
    /// use sdrs_contact::{PlaneBarrier, PlaneCache};
    /// use sdrs_geometry::ConvexHull;
    /// use nalgebra::{Isometry3, Vector3};
    /// let cube = ConvexHull::cuboid(Vector3::repeat(0.5)).unwrap();
    /// let near = Isometry3::translation(1.05, 0.0, 0.0);
    /// let barrier = PlaneBarrier::new(0.1).unwrap();
    /// let p = barrier.plane_sensitivity(&cube, &Isometry3::identity(), &cube, &near, &mut PlaneCache::default())
    ///     .unwrap().expect("within the support distance");
    /// // Translating both bodies by v maps the plane (n, o) to (n, o − n·v):
    /// // along x, ∂o/∂v_A + ∂o/∂v_B = −n_x and ∂n/∂v_A + ∂n/∂v_B = 0.
    /// assert!((p.pose[(3, 0)] + p.pose[(3, 6)] + p.plane.x).abs() < 1e-9);
    /// assert!((p.pose[(0, 0)] + p.pose[(0, 6)]).abs() < 1e-9);
    /// ```
    pub fn plane_sensitivity(
        &self,
        a: &ConvexHull,
        pose_a: &Isometry3<f64>,
        b: &ConvexHull,
        pose_b: &Isometry3<f64>,
        cache: &mut PlaneCache,
    ) -> Result<Option<PlaneSensitivity>> {
        match self.solve(a, pose_a, b, pose_b, cache)? {
            Solved::Penetrating => Err(ContactError::PenetratingFrame),
            Solved::Apart => Ok(None),
            Solved::Plane(_, solution) if solution.eval.value == 0.0 => Ok(None),
            Solved::Plane(sides, solution) => {
                let sensitivity = derivatives::sensitivity(&sides, &solution, self.support);
                cache.keep_nearby(sides);
                Ok(Some(sensitivity))
            }
        }
    }

    /// GJK gate, start plane and inner Newton solve.
    fn solve<'a>(
        &self,
        a: &'a ConvexHull,
        pose_a: &'a Isometry3<f64>,
        b: &'a ConvexHull,
        pose_b: &'a Isometry3<f64>,
        cache: &mut PlaneCache,
    ) -> Result<Solved<'a>> {
        crate::model::check_poses(pose_a, pose_b)?;
        let mut sides = [Side::new(a, pose_a, -1.0), Side::new(b, pose_b, 1.0)];
        for (side, kept) in sides.iter_mut().zip(&mut cache.nearby) {
            side.nearby = kept
                .take()
                .filter(|k| k.fingerprint == side.hull.fingerprint());
            if let Some(nearby) = &mut side.nearby {
                nearby.moved_to(side.hull, side.pose);
            }
        }
        let s = self.support;
        let poses = ([*pose_a, *pose_b], [a.fingerprint(), b.fingerprint()]);
        // GJK only decides whether the pair penetrates or is beyond the support: for the same
        // hulls at the very poses the cached plane was solved for, it decided "in range" then
        // and would now. The solve itself runs as always (the warm start's polishing step
        // included), so the result does not depend on whether the gate ran. Out of range, the
        // cached plane is dropped.
        // A pair GJK last found beyond the support is still beyond it while the gap along the
        // direction GJK separated it by is (the distance is at least any such gap).
        let gate = |cache: &mut PlaneCache| {
            let beyond = self.support_distance();
            let still_apart = cache
                .apart_along
                .is_some_and(|n| gap_along(a, pose_a, b, pose_b, &n) >= beyond);
            let gated = if still_apart {
                Err(Gated::Apart)
            } else {
                cache.apart_along = None;
                match gjk_distance(a, pose_a, b, pose_b, &self.gjk, &mut cache.gjk) {
                    Proximity::Intersecting { .. } => Err(Gated::Penetrating),
                    Proximity::Separated(s) if s.distance >= beyond => {
                        cache.apart_along = Some(s.normal);
                        Err(Gated::Apart)
                    }
                    Proximity::Separated(s) => Ok(s),
                }
            };
            if gated.is_err() {
                cache.plane = None;
            }
            gated
        };
        let mut separation = None;
        if !(cache.plane.is_some() && cache.solved_at == Some(poses)) {
            match gate(cache) {
                Ok(s) => separation = Some(s),
                Err(gated) => return Ok(gated.solved()),
            }
        }
        cache.solved_at = None;
        // Start from the previous plane when it is feasible and nearly optimal (the usual case
        // within a time step), with a small iteration budget: a warm start converges in a few
        // Newton steps. When it does not (over a ground's edge at the support distance a plane
        // 0.4 rad off had a small gradient but 1e6 times the mid-plane's energy: it turns about
        // the edge at almost no cost, and the barrier's Newton steps cut the energy by only a
        // quarter each, more than 100 iterations), or the previous plane is far from optimal,
        // also try eq. 18: the mid-plane of the witness points, with |n| chosen by a 1-D solve
        // rather than fixed at 1 − s (which would leave the 4-D Newton many damped steps
        // growing |n|), and start from whichever has less energy.
        let warm = cache.plane.and_then(|p| {
            sides.iter_mut().for_each(|side| side.keep_nearby(&p, s));
            solve::evaluate_plane(&sides, &p, s).map(|e| (p, e))
        });
        if let Some((p, e)) = warm
            && e.gradient.norm() <= 0.5 * e.scale
            && let Ok(solution) = solve::minimise(
                &mut sides,
                p,
                e,
                s,
                self.tolerance,
                WARM_BUDGET.min(self.max_iterations),
            )
        {
            (cache.plane, cache.solved_at) = (Some(solution.plane), Some(poses));
            return Ok(Solved::Plane(sides, solution));
        }
        let separation = match separation.map_or_else(|| gate(cache), Ok) {
            Ok(s) => s,
            Err(gated) => return Ok(gated.solved()),
        };
        let n = separation.normal;
        let mid = nalgebra::center(&separation.point_a, &separation.point_b);
        let unit = Vector4::new(n.x, n.y, n.z, -n.dot(&mid.coords));
        let lambda = solve::scale_unit_plane(&sides, &unit, s).unwrap_or(1.0 - s);
        let mid_plane = unit * lambda;
        sides
            .iter_mut()
            .for_each(|side| side.keep_nearby(&mid_plane, s));
        let mid = solve::evaluate_plane(&sides, &mid_plane, s).map(|e| (mid_plane, e));
        let start = match (warm, mid) {
            (Some(w), Some(m)) => Some(if w.1.value < m.1.value { w } else { m }),
            (w, m) => w.or(m),
        };
        let Some((start, eval)) = start else {
            // Even the mid-plane is infeasible: the gap is below round-off.
            cache.plane = None;
            return Ok(Solved::Penetrating);
        };
        let solution = solve::minimise(
            &mut sides,
            start,
            eval,
            s,
            self.tolerance,
            self.max_iterations,
        )?;
        (cache.plane, cache.solved_at) = (Some(solution.plane), Some(poses));
        Ok(Solved::Plane(sides, solution))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::UnitQuaternion;
    use proptest::prelude::*;
    use sdrs_geometry::testing::{hull, pose, unit_vector};

    /// A plane with normal `n` (scaled to `|n| = 1 − s/2`) whose nearest vertex of `hull` at
    /// `pose` is `gap` away on the positive side.
    fn plane_at_gap(
        hull: &ConvexHull,
        pose: &Isometry3<f64>,
        n: &Vector3<f64>,
        gap: f64,
    ) -> Vector4<f64> {
        let nearest = hull
            .vertices()
            .iter()
            .map(|x| n.dot(&(pose * x).coords))
            .fold(f64::INFINITY, f64::min);
        Vector4::new(n.x, n.y, n.z, gap - nearest)
    }

    fn small(extent: f64) -> impl Strategy<Value = Vector3<f64>> {
        (-extent..=extent, -extent..=extent, -extent..=extent)
            .prop_map(|(x, y, z)| Vector3::new(x, y, z))
    }

    proptest! {
        /// The bound of [`Nearby`]: wherever a list covers a plane and pose, it holds every
        /// vertex within the support there, so a plane evaluation from the list is the full
        /// scan's to the last bit.
        #[test]
        fn a_nearby_list_that_covers_a_plane_holds_every_vertex_within_the_support(
            hull in hull(8, 40),
            pose0 in pose(2.0),
            n0 in unit_vector(),
            (gap, s) in (0.0..1.0f64, 0.01..0.2f64),
            (translation, rotation, dn, doffset) in (small(0.03), small(0.05), small(0.03), -0.03..0.03f64),
        ) {
            let p0 = plane_at_gap(&hull, &pose0, &(n0 * (1.0 - 0.5 * s)), gap * 2.0 * s);
            let mut listed = Side::new(&hull, &pose0, 1.0);
            listed.keep_nearby(&p0, s);
            let pose1 = Isometry3::from_parts(
                (pose0.translation.vector + translation).into(),
                UnitQuaternion::from_scaled_axis(rotation) * pose0.rotation,
            );
            let p1 = p0 + Vector4::new(dn.x, dn.y, dn.z, doffset);
            prop_assume!(p1.xyz().norm() < 1.0);
            let mut moved = Side::new(&hull, &pose1, 1.0);
            moved.nearby = listed.nearby.take();
            let nearby = moved.nearby.as_mut().expect("listed");
            nearby.moved_to(&hull, &pose1);
            let full = Side::new(&hull, &pose1, 1.0);
            if moved.covers(moved.nearby.as_ref().expect("listed"), &p1.xyz(), p1.w) {
                let kept = &moved.nearby.as_ref().expect("listed").vertices;
                for (i, _, q) in full.all_distances(&p1.xyz(), p1.w) {
                    prop_assert!(q >= s || kept.contains(&(i as u32)), "vertex {i} at {q} < {s} left out");
                }
            }
            // Covered or not (then every vertex is scanned), the evaluation of a pair is the
            // full scan's, with the other hull feasible and beyond the support.
            let cube = ConvexHull::cuboid(Vector3::repeat(0.01)).expect("valid");
            let n1 = p1.xyz();
            let away = Isometry3::from_parts(
                (-n1 * (p1.w + 1.0) / n1.norm_squared()).into(),
                UnitQuaternion::identity(),
            );
            let value = |sides: &[Side; 2]| {
                solve::evaluate_plane(sides, &p1, s).map(|e| (e.value, e.gradient, e.hessian))
            };
            let listed = value(&[Side::new(&cube, &away, -1.0), moved]);
            let scanned = value(&[Side::new(&cube, &away, -1.0), full]);
            prop_assert_eq!(listed, scanned);
        }
    }

    proptest! {
        /// [`gap_along`] bounds the distance from below along any direction and is the
        /// distance along GJK's; and the gate that trusts it decides as GJK does: a pair
        /// evaluated apart and then moved keeps the energy a fresh cache gives it.
        #[test]
        fn the_gap_along_a_direction_bounds_the_distance_and_the_gate_agrees_with_gjk(
            a in hull(4, 30),
            b in hull(4, 30),
            (pose_a, pose_b) in (pose(1.0), pose(1.0)),
            n in unit_vector(),
            approach in 0.0..1.0f64,
        ) {
            let Proximity::Separated(s) = sdrs_geometry::gjk::distance(&a, &pose_a, &b, &pose_b)
            else {
                return Ok(());
            };
            let tolerance = 1e-9 * (1.0 + s.distance);
            prop_assert!(gap_along(&a, &pose_a, &b, &pose_b, &n) <= s.distance + tolerance);
            let along_gjk = gap_along(&a, &pose_a, &b, &pose_b, &s.normal);
            prop_assert!((along_gjk - s.distance).abs() <= tolerance, "{along_gjk} vs {}", s.distance);
            // Moved towards each other from apart, by up to the whole distance less half the
            // support: the warm cache's gate must not keep a pair in range apart.
            let barrier = PlaneBarrier::new(0.01).expect("valid");
            let reach = barrier.support_distance();
            prop_assume!(s.distance > reach);
            let closer = Isometry3::from_parts(
                (pose_b.translation.vector - s.normal * approach * (s.distance - 0.5 * reach))
                    .into(),
                pose_b.rotation,
            );
            let mut warm = PlaneCache::default();
            let far = barrier.evaluate(&a, &pose_a, &b, &pose_b, &mut warm, Order::Value);
            prop_assert!(matches!(far, Ok(PairOutcome::Separated(ref c)) if c.value == 0.0));
            let value = |cache: &mut PlaneCache| {
                match barrier.evaluate(&a, &pose_a, &b, &closer, cache, Order::Value) {
                    Ok(PairOutcome::Separated(c)) => Some(c.value),
                    _ => None,
                }
            };
            // The same pair state, up to where each solve's start leaves it within tolerance.
            let (warm, fresh) = (value(&mut warm), value(&mut PlaneCache::default()));
            prop_assert!(
                match (warm, fresh) {
                    (Some(w), Some(f)) => (w - f).abs() <= 1e-9 * f.abs().max(1e-12),
                    (w, f) => w == f,
                },
                "warm {warm:?}, fresh {fresh:?}"
            );
        }
    }

    /// A cube resting within the support, then lifted beyond it: the pair has no energy, but
    /// at a solve's start its Newton model keeps the vertices' forces, and one Newton step of
    /// the model under the load the barrier carried at rest takes the cube back to its resting
    /// height (the lift was 9 supports). After a step the model is gone.
    #[test]
    fn a_lifted_cube_is_modelled_at_its_last_forces_at_a_solves_start() {
        let s = 0.01;
        let barrier = PlaneBarrier::new(s).expect("valid");
        let ground = ConvexHull::cuboid(Vector3::new(1.0, 1.0, 0.5)).expect("valid");
        let cube = ConvexHull::cuboid(Vector3::repeat(0.1)).expect("valid");
        let below = Isometry3::translation(0.0, 0.0, -0.5);
        let rest = 0.1 + 0.3 * s;
        let at = |z: f64| Isometry3::translation(0.02, -0.01, z);
        let mut cache = PlaneCache::default();
        let mut anchored = |z: f64, update| {
            let a = barrier
                .evaluate_anchored(&ground, &below, &cube, &at(z), &mut cache, update)
                .expect("valid")
                .expect("the hulls do not touch");
            cache.anchors_mut().commit();
            a
        };
        let resting = anchored(rest, Update::Step);
        let load = -resting.contact.gradient[8];
        assert!(load > 0.0, "the barrier pushes the cube up");
        let lifted = 0.1 + 3.0 * s;
        let start = anchored(lifted, Update::Carry);
        assert_eq!(start.contact.value, 0.0);
        assert_eq!(start.contact.gradient, Vector12::zeros());
        let step = -(start.model_gradient[8] + load) / start.contact.hessian[(8, 8)];
        // Within 1% of the lift: the model's Hessian is Gauss-Newton's, and the plane's
        // normal couples to the lift.
        assert!(
            (lifted + step - rest).abs() <= 0.01 * (lifted - rest),
            "lands at {} for {rest}",
            lifted + step
        );
        let after = anchored(lifted, Update::Step);
        assert_eq!(after.model_gradient, Vector12::zeros());
        assert_eq!(after.contact.hessian, PairContact::zero().hessian);
    }

    /// A cube's bottom face 2 mm over a plane (support 1 cm) lists its four bottom corners; a
    /// millimetre's slide keeps them covering, a turn of 0.5 rad does not.
    #[test]
    fn a_nearby_list_covers_small_motions_only() {
        let cube = ConvexHull::cuboid(Vector3::repeat(0.1)).expect("valid");
        let s = 0.01;
        let at = Isometry3::translation(0.0, 0.0, 0.102);
        let plane = Vector4::new(0.0, 0.0, 1.0 - 0.5 * s, 0.0);
        let mut side = Side::new(&cube, &at, 1.0);
        side.keep_nearby(&plane, s);
        let kept = side.nearby.take().expect("listed");
        assert_eq!(kept.vertices.len(), 4);
        let covers = |pose: &Isometry3<f64>| {
            let mut moved = kept.clone();
            moved.moved_to(&cube, pose);
            Side::new(&cube, pose, 1.0).covers(&moved, &plane.xyz(), plane.w)
        };
        assert!(covers(&Isometry3::translation(0.001, 0.0, 0.102)));
        assert!(!covers(&Isometry3::new(
            Vector3::new(0.0, 0.0, 0.102),
            Vector3::new(0.5, 0.0, 0.0)
        )));
    }
}
