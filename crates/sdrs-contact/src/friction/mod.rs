//! SDRS frictional damping through the separating plane's in-plane velocity (SDRS eq. 8-13).
//!
//! Each vertex pressed against the step-t plane (normal force `|f⊥_m|`, position `y_m^t`) slides
//! relative to the plane. With the plane's in-plane basis `B`, unit normal `n̂` and time step
//! `Δt`, the vertex's tangential velocity at step t+1 is `ẋ_m = Bᵀ(y_m − y_m^t)/Δt` (eq. 9) and
//! the plane moves under it with `ṗ_m = ω Bᵀ(n̂ × y_m^t) + u` (eq. 10: in-plane translation `u`
//! and rotation `ω` about the normal through the world origin). The damping energy
//!
//! ```text
//! U_f* = Σ_m μ Δt A_ε(|f⊥_m|) √(|ẋ_m − ṗ_m|² + ε_v),    A_ε(f) = √(f² + ε_f) − √ε_f   (eq. 12)
//! ```
//!
//! is minimised over `(u, ω)` (maximal dissipation, eq. 13), a small convex problem solved by a
//! trust-region Newton method. `U_f = min U_f*` is differentiated with respect to the step-(t+1)
//! poses by the implicit function theorem, as for the plane barrier.
//!
//! Choices the paper leaves open:
//! - The plane rotates about the normal through the weighted centre of the pressed points,
//!   not through the world origin; by Lemma VIII.2 this changes neither `U_f` nor its
//!   derivatives, and it keeps the inner problem well conditioned. The unit normal is used
//!   instead of `n*`, which only rescales `ω`.
//! - When the pressed points cluster, the rotation is weakly determined (its curvature can be
//!   1e-15 of the rest, and the optimal ω huge) yet strongly coupled to the poses. All inverses
//!   of the inner Hessian are therefore taken in the scaled variables `(u, L ω)`, with `L` the
//!   weighted RMS spin arm, and the solve polishes until the Newton step is at round-off. When
//!   all points project to one point the energy is exactly flat in ω (Lemma VIII.1) and the
//!   pseudo-inverse drops that direction, as the paper's shifted formulation would.
//! - `ε` of eq. 11-12 is split into a velocity smoothing `ε_v` (m²/s²) and a force smoothing
//!   `ε_f` (N²), since the two have different units.

mod anchors;
pub(crate) mod frame;
mod kink;
mod lagged;
mod prepared;
mod solve;

pub use anchors::{FrictionAnchors, Update};
pub use frame::{FrictionFrame, FrictionPoint};
pub use lagged::LaggedContact;

use prepared::Prepared;
use solve::{scaled_inverse, trust_region_step};

use crate::error::{ContactError, Result, positive};
use crate::model::{Order, PairContact};
use nalgebra::{Isometry3, Matrix2, Matrix3, SMatrix, Vector2, Vector3};
use sdrs_geometry::twist::{Vector12, rotation_curvature};

/// The first smoothing of [`PlaneFriction::minimise_by_continuation`]: `√ε_v` this fraction of
/// the largest slip.
const CONTINUATION_START: f64 = 1e-2;

type Matrix2x3 = SMatrix<f64, 2, 3>;
type Matrix2x6 = SMatrix<f64, 2, 6>;
type Matrix12x3 = SMatrix<f64, 12, 3>;

/// Friction settings: coefficient, time step and the two smoothing constants.
///
/// ```
/// use sdrs_contact::{Order, PlaneBarrier, PlaneCache, friction::{FrictionCache, FrictionFrame, PlaneFriction}};
/// use sdrs_geometry::ConvexHull;
/// use nalgebra::{Isometry3, Vector3};
/// let ground = ConvexHull::cuboid(Vector3::new(5.0, 5.0, 0.5)).unwrap();
/// let block = ConvexHull::cuboid(Vector3::repeat(0.1)).unwrap();
/// let below = Isometry3::translation(0.0, 0.0, -0.5);
/// let at_t = Isometry3::translation(0.0, 0.0, 0.105);
/// let frame = FrictionFrame::new(&PlaneBarrier::new(0.01).unwrap(), 1.0, &ground, &below, &block, &at_t, &mut PlaneCache::default())
///     .unwrap().expect("in contact");
/// let friction = PlaneFriction::new(0.5, 0.01).unwrap();
/// // The block slides 1 cm along x during the step: friction pushes back along −x.
/// let next = Isometry3::translation(0.01, 0.0, 0.105);
/// let f = friction.evaluate(&frame, &below, &next, &mut FrictionCache::default(), Order::Gradient).unwrap();
/// assert!(f.gradient[6] > 0.0); // dU/dx of the block > 0: the force −dU/dx points along −x
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct PlaneFriction {
    mu: f64,
    dt: f64,
    velocity_epsilon: f64,
    force_epsilon: f64,
    tolerance: f64,
    max_iterations: usize,
}

/// Per-pair warm start of [`PlaneFriction`]: the last plane velocity `(u, ω)` (with `u` the
/// in-plane velocity at the weighted centre of the pressed points).
#[derive(Debug, Clone, Default)]
pub struct FrictionCache {
    velocity: Option<Vector3<f64>>,
    /// The problem of the current frame (boxed: caches move in and out of the stepper's pair
    /// map at every evaluation).
    prepared: Option<Box<Prepared>>,
    /// The last evaluation at the frame's own poses (no motion since step t).
    at_rest: Option<Box<AtRest>>,
    /// The force ratios of [`PlaneFriction::evaluate_anchored`].
    anchors: FrictionAnchors,
}

impl FrictionCache {
    /// The last optimal plane velocity `(u₁, u₂, ω)`, if any.
    pub fn velocity(&self) -> Option<Vector3<f64>> {
        self.velocity
    }

    /// The force ratios of the pair's points ([`PlaneFriction::evaluate_anchored`]).
    pub fn anchors_mut(&mut self) -> &mut FrictionAnchors {
        &mut self.anchors
    }
}

/// An evaluation at a frame's own poses and what it was a function of: the friction, the frame
/// and the order.
#[derive(Debug, Clone)]
struct AtRest {
    friction: PlaneFriction,
    frame: FrictionFrame,
    order: Order,
    contact: PairContact,
}

/// The inner problem of one pair, solved.
struct Solved<'c> {
    prepared: &'c Prepared,
    slip: Vec<Vector2<f64>>,
    /// The optimal plane velocity `(u, ω)`.
    z: Vector3<f64>,
    value: f64,
    /// `∂²U*/∂z²` at `z`.
    h: Matrix3<f64>,
    iterations: usize,
}

/// A minimiser of the inner problem, as [`PlaneFriction::minimise`] found it.
struct Minimum {
    z: Vector3<f64>,
    at: Inner,
    iterations: usize,
    /// Stopped by the gradient test, so that full Newton steps can still take `z` to round-off
    /// ([`PlaneFriction::polish`]).
    unpolished: bool,
}

/// `U_f*` and its `(u, ω)` derivatives at one plane velocity.
struct Inner {
    value: f64,
    g: Vector3<f64>,
    h: Matrix3<f64>,
    noise: f64,
}

/// Per-point quantities that do not depend on the step-(t+1) poses.
#[derive(Debug, Clone)]
struct Lagged {
    body: usize,
    /// `μ Δt A_ε(|f⊥|)`
    weight: f64,
    /// `Bᵀ(n̂ × (y^t − c))`, `c` the weighted contact centre: the plane's in-plane velocity
    /// at the point under unit ω.
    spin: Vector2<f64>,
    /// `y^t − c`
    lever: Vector3<f64>,
}

impl Lagged {
    /// `∂w/∂(u, ω) = [−I | −spin]` for the relative slip `w = d − u − ω spin`.
    fn dw_dz(&self) -> Matrix2x3 {
        Matrix2x3::new(-1.0, 0.0, -self.spin.x, 0.0, -1.0, -self.spin.y)
    }
}

/// One point's damping term `a √(|w|² + ε_v)` at a plane velocity.
#[derive(Debug, Clone, Copy)]
struct Term {
    rho: f64,
    /// `∂/∂w = a w / ρ`
    gradient: Vector2<f64>,
    /// `∂²/∂w² = a (I/ρ − w wᵀ/ρ³)`
    curvature: Matrix2<f64>,
}

/// The largest relative slip `max_m |d_m|`.
fn max_slip(slip: &[Vector2<f64>]) -> f64 {
    slip.iter().map(|s| s.norm()).fold(0.0, f64::max)
}

/// Spin arms below this fraction of the points' spread from their centre are round-off: the
/// points project to one point of the plane (a vertex-vertex contact does this exactly).
const COPROJECTED: f64 = 1e-10;

/// `D = diag(1, 1, 1/L)` with `L` the weighted RMS spin arm of the points: in the variables
/// `y = D⁻¹ z = (u, L ω)` translation and rotation have the same units and comparable
/// curvature. Clustered contacts make the ω-curvature tiny in `z` (down to 1e-15 of the rest)
/// yet strongly coupled to the poses, so every inverse of the inner Hessian is taken in `y`.
///
/// When the points project to one point of the plane (`L` at round-off, see [`COPROJECTED`]),
/// rotation has no effect (Lemma VIII.1) and `D` freezes it: `D₃₃ = 0`. Near such a
/// configuration the model itself is singular: the optimal `ω` grows like `1/L`, and `U_f`
/// as a function of the step-t state has no limit as `L → 0` (it depends on the direction in
/// which the projections part), so its step-t derivatives blow up there.
fn rotation_scaling(lagged: &[Lagged]) -> Matrix3<f64> {
    let total: f64 = lagged.iter().map(|l| l.weight).sum();
    let rms = |f: &dyn Fn(&Lagged) -> f64| {
        (lagged.iter().map(|l| l.weight * f(l)).sum::<f64>() / total).sqrt()
    };
    let arm = rms(&|l| l.spin.norm_squared());
    let spread = rms(&|l| l.lever.norm_squared());
    Matrix3::from_diagonal(&Vector3::new(
        1.0,
        1.0,
        if arm > COPROJECTED * spread {
            1.0 / arm
        } else {
            0.0
        },
    ))
}

impl PlaneFriction {
    /// Friction with coefficient `mu` and time step `dt`, smoothing `ε_v = 1e-6` (m²/s²) and
    /// `ε_f = 1e-6` (N²), relative gradient tolerance `1e-8`, at most 1000 inner iterations
    /// (fast relative slips near the smoothing scale on nearly collinear contacts can need a few
    /// hundred trust-region steps; a rotating-chains trajectory hit that).
    pub fn new(mu: f64, dt: f64) -> Result<Self> {
        Ok(Self {
            mu: positive("mu", mu)?,
            dt: positive("dt", dt)?,
            velocity_epsilon: 1e-6,
            force_epsilon: 1e-6,
            tolerance: 1e-8,
            max_iterations: 1000,
        })
    }

    /// Sets the velocity smoothing `ε_v` of `√(|ẋ − ṗ|² + ε_v)` (m²/s², positive).
    pub fn with_velocity_epsilon(mut self, epsilon: f64) -> Result<Self> {
        self.velocity_epsilon = positive("velocity_epsilon", epsilon)?;
        Ok(self)
    }

    /// Sets the relative gradient tolerance of the inner `(u, ω)` solve (in `(0, 1e-3]`).
    pub fn with_tolerance(mut self, tolerance: f64) -> Result<Self> {
        self.tolerance = crate::error::tolerance(tolerance)?;
        Ok(self)
    }

    /// Sets the force smoothing `ε_f` of `A_ε` (N², positive).
    pub fn with_force_epsilon(mut self, epsilon: f64) -> Result<Self> {
        self.force_epsilon = positive("force_epsilon", epsilon)?;
        Ok(self)
    }

    /// Weights and spin arms of the pressed points. The plane's rotation is taken about the
    /// weighted centre of the points instead of the world origin: by Lemma VIII.2 this shift
    /// leaves `U_f` and all its derivatives unchanged (it only re-parametrises `u`), and it
    /// keeps the inner Hessian well conditioned far from the origin.
    fn lagged(&self, frame: &FrictionFrame) -> Vec<Lagged> {
        let ef = self.force_epsilon;
        let weights: Vec<f64> = frame
            .points()
            .iter()
            .map(|p| self.mu * self.dt * ((p.normal_force.powi(2) + ef).sqrt() - ef.sqrt()))
            .collect();
        let total: f64 = weights.iter().sum();
        let centre = if total > 0.0 {
            frame
                .points()
                .iter()
                .zip(&weights)
                .map(|(p, w)| p.position * *w)
                .sum::<Vector3<f64>>()
                / total
        } else {
            Vector3::zeros()
        };
        frame
            .points()
            .iter()
            .zip(weights)
            .map(|(p, weight)| {
                let lever = p.position - centre;
                Lagged {
                    body: p.body,
                    weight,
                    spin: frame.basis().transpose() * frame.normal().cross(&lever),
                    lever,
                }
            })
            .collect()
    }

    /// The relative tangential velocities `d_m = Bᵀ(y_m − y_m^t)/Δt` at the step-(t+1) poses.
    fn slip(&self, frame: &FrictionFrame, poses: [&Isometry3<f64>; 2]) -> Vec<Vector2<f64>> {
        frame
            .points()
            .iter()
            .map(|p| {
                frame.basis().transpose() * ((poses[p.body] * p.local).coords - p.position)
                    / self.dt
            })
            .collect()
    }

    /// `U_f*`, its gradient and Hessian in `z = (u, ω)`, and the gradient's own round-off
    /// (from forming `w` as a difference of velocities much larger than itself).
    fn inner(&self, lagged: &[Lagged], slip: &[Vector2<f64>], z: &Vector3<f64>) -> Inner {
        let (mut value, mut g, mut h, mut noise) = (0.0, Vector3::zeros(), Matrix3::zeros(), 0.0);
        for (l, d) in lagged.iter().zip(slip) {
            let t = self.term(l, d, z);
            let dw_dz = l.dw_dz();
            value += l.weight * t.rho;
            g += dw_dz.transpose() * t.gradient;
            h += dw_dz.transpose() * t.curvature * dw_dz;
            let size = d.norm() + l.spin.norm() * z.z.abs() + z.xy().norm();
            noise += l.weight * f64::EPSILON * size / t.rho;
        }
        Inner { value, g, h, noise }
    }

    /// `U_f*` alone at a plane velocity (what choosing a start needs).
    fn inner_value(&self, lagged: &[Lagged], slip: &[Vector2<f64>], z: &Vector3<f64>) -> f64 {
        lagged
            .iter()
            .zip(slip)
            .map(|(l, d)| {
                let w = d - l.spin * z.z - z.xy();
                l.weight * (w.norm_squared() + self.velocity_epsilon).sqrt()
            })
            .sum()
    }

    /// The damping term of point `l` with slip `d` at plane velocity `z = (u, ω)`.
    fn term(&self, l: &Lagged, d: &Vector2<f64>, z: &Vector3<f64>) -> Term {
        let w = d - l.spin * z.z - z.xy();
        let rho = (w.norm_squared() + self.velocity_epsilon).sqrt();
        Term {
            rho,
            gradient: w * (l.weight / rho),
            curvature: (Matrix2::identity() / rho - w * w.transpose() / rho.powi(3)) * l.weight,
        }
    }

    /// Where [`PlaneFriction::minimise`] starts: the lowest of the least-squares velocity of
    /// all points, the velocities that move the plane with either body's points, `start` (the
    /// last solution) and, when the last solve was in this frame with slips `previous`, `start`
    /// moved by the change of each of those three velocities.
    ///
    /// The per-body starts matter because the two sides of a contact press with the same total
    /// force (the plane barrier's forces on the two hulls balance), so their weights nearly
    /// balance too: along the segment between "the plane moves with A" and "the plane moves
    /// with B" the energy is nearly flat (exactly, were `A_ε` linear), and the optimum sits at
    /// the end of the heavier side. From the middle, the trust region crawls along that valley
    /// (12-30 steps per solve on a trotting ant's foot, one point against four ground
    /// corners); from the right end it takes a few.
    ///
    /// The moved starts matter because that end is not where the heavier side's points stick:
    /// they slip against the plane by `√ε_v r/√(1 − r²)`, `r` the ratio of the two sides'
    /// weights, many smoothing widths when `r` is near 1. Newton from the sticking point, where
    /// the curvature is largest, creeps out to that slip (10-13 steps per solve on the ant's
    /// feet); the last solution moved with the heavier side keeps its slip.
    fn starting_velocity(
        &self,
        prepared: &Prepared,
        slip: &[Vector2<f64>],
        start: Option<Vector3<f64>>,
        previous: Option<&[Vector2<f64>]>,
    ) -> (Vector3<f64>, Inner) {
        let lagged = &prepared.lagged[..];
        let mut best: Option<(Vector3<f64>, f64)> = None;
        let mut consider = |z: Vector3<f64>| {
            let value = self.inner_value(lagged, slip, &z);
            if best.is_none_or(|(_, lowest)| value < lowest) {
                best = Some((z, value));
            }
        };
        for set in 0..Prepared::SETS {
            let Some(now) = prepared.least_squares_velocity(set, slip) else {
                continue;
            };
            consider(now);
            if let (Some(z), Some(previous)) = (start, previous)
                && let Some(before) = prepared.least_squares_velocity(set, previous)
            {
                consider(z + now - before);
            }
        }
        if let Some(z) = start {
            consider(z);
        }
        let z = best.map_or_else(Vector3::zeros, |(z, _)| z);
        (z, self.inner(lagged, slip, &z))
    }

    /// Minimises `U_f*` over `(u, ω)` with a trust-region Newton method in the scaled
    /// variables `(u, L ω)`, `L` the weighted RMS spin arm, so that both kinds of variable have
    /// the same units. The energy is nearly a sum of norms (pure Newton steps overshoot along
    /// directions of tiny curvature), and when the pressed points cluster, rotation is weakly
    /// determined; the trust region bounds every step, and the exact subproblem solution
    /// (eigen-decomposition of the 3x3 Hessian plus a 1-D secular equation) copes with both.
    /// `dm` is [`rotation_scaling`]: `z = D y`, so gradients and Hessians map as `Dg`, `DHD`.
    /// Starts at [`PlaneFriction::starting_velocity`]. Stops when the gradient in the scaled
    /// variables is below `tolerance · Σ a_m` (each term contributes at most `a_m` to it) plus
    /// eight times its round-off.
    fn minimise(
        &self,
        prepared: &Prepared,
        slip: &[Vector2<f64>],
        start: Option<Vector3<f64>>,
        previous: Option<&[Vector2<f64>]>,
    ) -> Result<Minimum> {
        let (lagged, dm, scale) = (&prepared.lagged[..], &prepared.dm, prepared.scale);
        let (mut z, mut at) = self.starting_velocity(prepared, slip, start, previous);
        let mut radius = max_slip(slip) + self.velocity_epsilon.sqrt();
        for iterations in 0..self.max_iterations {
            // Huge coordinates can overflow the slips' products; an eigen-decomposition of a
            // non-finite Hessian would not end.
            if !(at.value.is_finite() && at.g.iter().chain(at.h.iter()).all(|x| x.is_finite())) {
                return Err(ContactError::Overflow {
                    what: "the friction energy or its derivatives",
                });
            }
            if (dm * at.g).norm() <= self.tolerance * scale + 8.0 * at.noise {
                return Ok(Minimum {
                    z,
                    at,
                    iterations: iterations + 1,
                    unpolished: true,
                });
            }
            let (gy, hy) = (dm * at.g, dm * at.h * dm);
            let step_y = trust_region_step(&gy, &hy, radius);
            let predicted = -(gy.dot(&step_y) + 0.5 * step_y.dot(&(hy * step_y)));
            let trial_z = z + dm * step_y;
            let trial = self.inner(lagged, slip, &trial_z);
            let ratio = (at.value - trial.value) / predicted;
            if ratio < 0.25 {
                radius = 0.25 * step_y.norm();
            } else if ratio > 0.75 && step_y.norm() > 0.99 * radius {
                radius *= 2.0;
            }
            if ratio > 0.1 && trial.value < at.value {
                (z, at) = (trial_z, trial);
            } else if !(predicted > 16.0 * f64::EPSILON * at.value) {
                // The model promises less than the energy can resolve, so the energy can no
                // longer judge steps; the gradient still can: take full Newton steps while they
                // shrink it (the quadratic model is exact here).
                let newton = z - scaled_inverse(&at.h, dm) * at.g;
                let next = self.inner(lagged, slip, &newton);
                if (dm * next.g).norm() < (dm * at.g).norm() {
                    (z, at) = (newton, next);
                    continue;
                }
                // Otherwise this is the round-off floor if the gradient is small, a failure if
                // not.
                if (dm * at.g).norm() <= self.tolerance.sqrt() * scale {
                    return Ok(Minimum {
                        z,
                        at,
                        iterations: iterations + 1,
                        unpolished: false,
                    });
                }
                return Err(ContactError::FrictionNotConverged {
                    iterations: iterations + 1,
                    gradient_norm: at.g.norm(),
                });
            }
        }
        Err(ContactError::FrictionNotConverged {
            iterations: self.max_iterations,
            gradient_norm: at.g.norm(),
        })
    }

    /// [`PlaneFriction::minimise`] along a path of smoothings: `ε_v` first
    /// `(CONTINUATION_START · max_m |d_m|)²`, divided by 100 after each solve, each solve
    /// starting from the previous optimum, the last one at `ε_v` itself. When the slips are many
    /// orders above `√ε_v` (a line-search trial of the time step that moves a body a metre in
    /// one step), the energy is a sum of norms with kinks far sharper than the distance to the
    /// optimum: the trust region then crosses one kink back and forth, its model three times too
    /// optimistic, and creeps along it (1000 iterations were not enough for one triangle pair
    /// of a tipped cube and the ground grid). Each smoothing's optimum lies within its kinks' width
    /// of the next one's, where Newton converges in a few steps.
    fn minimise_by_continuation(
        &self,
        prepared: &Prepared,
        slip: &[Vector2<f64>],
        start: Option<Vector3<f64>>,
    ) -> Result<Minimum> {
        let largest = max_slip(slip);
        let mut epsilon = (CONTINUATION_START * largest).powi(2);
        let (mut z, mut iterations) = (start, 0);
        while epsilon > self.velocity_epsilon {
            let smoother = Self {
                velocity_epsilon: epsilon,
                ..self.clone()
            };
            let optimum = smoother.minimise(prepared, slip, z, None)?;
            (z, iterations) = (Some(optimum.z), iterations + optimum.iterations);
            epsilon *= 1e-2;
        }
        let last = self.minimise(prepared, slip, z, None)?;
        Ok(Minimum {
            iterations: iterations + last.iterations,
            ..last
        })
    }

    /// Full Newton steps from a point that passes the gradient test until the step itself is
    /// at round-off: with the rotation weakly determined, a small gradient alone can leave ω
    /// far from the optimum, and the IFT derivatives need the optimum.
    fn polish(
        &self,
        prepared: &Prepared,
        slip: &[Vector2<f64>],
        mut z: Vector3<f64>,
        mut at: Inner,
    ) -> (Vector3<f64>, Inner) {
        let (lagged, dm) = (&prepared.lagged[..], &prepared.dm);
        let typical = max_slip(slip) + self.velocity_epsilon.sqrt();
        // y = D⁻¹ z: the rotation coordinate is L·ω (zero when rotation is flat).
        let to_y = |v: &Vector3<f64>| {
            let w = if dm[(2, 2)] > 0.0 {
                v.z / dm[(2, 2)]
            } else {
                0.0
            };
            Vector3::new(v.x, v.y, w)
        };
        for _ in 0..8 {
            let step = -scaled_inverse(&at.h, dm) * at.g;
            let newton = z + step;
            let next = self.inner(lagged, slip, &newton);
            if !(next.value <= at.value + 16.0 * f64::EPSILON * at.value.abs()) {
                break;
            }
            let at_round_off = to_y(&step).norm() <= 1e-12 * (to_y(&z).norm() + typical);
            (z, at) = (newton, next);
            if at_round_off {
                break;
            }
        }
        (z, at)
    }

    /// Solves the inner problem for the pair at step-(t+1) `poses`; when the trust-region
    /// solve does not converge, solves it again along a path of smoothings
    /// ([`PlaneFriction::minimise_by_continuation`]). Derivatives (any `order` above
    /// [`Order::Value`]) need the optimum to round-off and get it polished; the value's error
    /// is already second order in the gradient's.
    fn solve<'c>(
        &self,
        frame: &FrictionFrame,
        poses: [&Isometry3<f64>; 2],
        cache: &'c mut FrictionCache,
        order: Order,
    ) -> Result<Solved<'c>> {
        let prepared = Prepared::for_frame(&mut cache.prepared, self, frame);
        let slip = self.slip(frame, poses);
        let start = cache.velocity;
        let minimum = match self.minimise(prepared, &slip, start, prepared.previous_slips()) {
            Err(ContactError::FrictionNotConverged { .. }) => {
                self.minimise_by_continuation(prepared, &slip, start)?
            }
            solved => solved?,
        };
        let (z, at) = if minimum.unpolished && order > Order::Value {
            self.polish(prepared, &slip, minimum.z, minimum.at)
        } else {
            (minimum.z, minimum.at)
        };
        cache.velocity = Some(z);
        prepared.keep_slips(&slip);
        Ok(Solved {
            prepared,
            slip,
            z,
            value: at.value,
            h: at.h,
            iterations: minimum.iterations,
        })
    }

    /// The friction energy between the pair at step-(t+1) poses `pose_a`, `pose_b`, with the
    /// lagged `frame` of step t, and its derivatives with respect to the step-(t+1) twists.
    /// [`Order::Design`] adds the derivatives with respect to every pressed local vertex, which
    /// moves both the step-(t+1) point and the whole lagged frame (see
    /// [`PlaneFriction::evaluate_lagged`], which also gives the step-t derivatives).
    pub fn evaluate(
        &self,
        frame: &FrictionFrame,
        pose_a: &Isometry3<f64>,
        pose_b: &Isometry3<f64>,
        cache: &mut FrictionCache,
        order: Order,
    ) -> Result<PairContact> {
        crate::model::check_poses(pose_a, pose_b)?;
        if order == Order::Design {
            return Ok(self.evaluate_lagged(frame, pose_a, pose_b, cache)?.contact);
        }
        // A scene at rest evaluates every step at its frames' own poses, where the inner solve
        // and its derivatives are the same every time (the frames are kept while nothing
        // moves): the last such evaluation is kept and given again.
        let at_rest = [*pose_a, *pose_b] == *frame.poses();
        if at_rest
            && let Some(kept) = &cache.at_rest
            && kept.order == order
            && kept.frame == *frame
            && kept.friction == *self
        {
            return Ok(kept.contact.clone());
        }
        let poses = [pose_a, pose_b];
        let solved = self.solve(frame, poses, cache, order)?;
        let contact = self.pose_derivatives(frame, poses, &solved, order).0;
        if at_rest {
            cache.at_rest = Some(Box::new(AtRest {
                friction: self.clone(),
                frame: frame.clone(),
                order,
                contact: contact.clone(),
            }));
        }
        Ok(contact)
    }

    /// Value, step-(t+1) gradient and Hessian (up to `order`), and `∂²U*/∂ξ∂z` (12x3).
    fn pose_derivatives(
        &self,
        frame: &FrictionFrame,
        poses: [&Isometry3<f64>; 2],
        solved: &Solved,
        order: Order,
    ) -> (PairContact, Matrix12x3) {
        let (mut out, mixed) = self.point_sums(frame, poses, solved, order, |_, l, d| {
            self.term(l, d, &solved.z)
        });
        if order >= Order::Hessian {
            out.hessian -=
                mixed * scaled_inverse(&solved.h, &solved.prepared.dm) * mixed.transpose();
            out.hessian = (out.hessian + out.hessian.transpose()) * 0.5;
        }
        (out, mixed)
    }

    /// The sums over the pressed points of `term` (point index, lagged data, slip): value,
    /// step-(t+1) gradient and, with `order` [`Order::Hessian`] and above, the Hessian before
    /// the inner solve's reduction and `∂²U*/∂ξ∂z` (12x3).
    fn point_sums(
        &self,
        frame: &FrictionFrame,
        poses: [&Isometry3<f64>; 2],
        solved: &Solved,
        order: Order,
        mut term: impl FnMut(usize, &Lagged, &Vector2<f64>) -> Term,
    ) -> (PairContact, Matrix12x3) {
        let mut out = PairContact::zero();
        out.value = solved.value;
        out.iterations = solved.iterations;
        let mut mixed = Matrix12x3::zeros();
        if order == Order::Value {
            return (out, mixed);
        }
        let basis = frame.basis();
        for (m, ((l, d), p)) in solved
            .prepared
            .lagged
            .iter()
            .zip(&solved.slip)
            .zip(frame.points())
            .enumerate()
        {
            let t = term(m, l, d);
            let r = poses[l.body].rotation * p.local.coords;
            // ∂d/∂ξ_b = Bᵀ [I, −[r]×] / Δt.
            let mut dd = Matrix2x6::zeros();
            dd.fixed_view_mut::<2, 3>(0, 0)
                .copy_from(&(basis.transpose() / self.dt));
            dd.fixed_view_mut::<2, 3>(0, 3)
                .copy_from(&(-basis.transpose() * r.cross_matrix() / self.dt));
            let row = 6 * l.body;
            let mut gb = out.gradient.fixed_rows_mut::<6>(row);
            gb += dd.transpose() * t.gradient;
            if order == Order::Gradient {
                continue;
            }
            let mut hb = out.hessian.fixed_view_mut::<6, 6>(row, row);
            hb += dd.transpose() * t.curvature * dd;
            // Second-order rotation term, contracted with B ∇_w / Δt.
            let mut ww = out.hessian.fixed_view_mut::<3, 3>(row + 3, row + 3);
            ww += rotation_curvature(&r, &(basis * t.gradient / self.dt));
            let mut mb = mixed.fixed_view_mut::<6, 3>(row, 0);
            mb += dd.transpose() * t.curvature * l.dw_dz();
        }
        (out, mixed)
    }

    /// The friction energy and its exact step-(t+1) gradient, with the Hessian and gradient of
    /// the force-anchored Newton model in place of the exact Hessian: the returned contact's
    /// `hessian` is the model's, and the second value its gradient. At the start of a solve
    /// ([`Update::Carry`]) each point's damping term is expanded at the slip its committed
    /// force ratio implies (see the `anchors` module); later ([`Update::Step`]) the model is
    /// the friction itself. Each point's ratio is proposed into `cache`, and
    /// [`FrictionAnchors::commit`] makes the proposal the committed ratios, as
    /// [`crate::PlaneBarrier::evaluate_anchored`] does with the barrier's forces.
    ///
    /// The model's inner optimum is not the friction's: its gradient is taken after one Newton
    /// step of the model's own `(u, ω)` solve, `∂Ũ*/∂ξ − K̃ ∇_z Ũ*`.
    pub fn evaluate_anchored(
        &self,
        frame: &FrictionFrame,
        pose_a: &Isometry3<f64>,
        pose_b: &Isometry3<f64>,
        cache: &mut FrictionCache,
        update: Update,
    ) -> Result<(PairContact, Vector12)> {
        crate::model::check_poses(pose_a, pose_b)?;
        let poses = [pose_a, pose_b];
        let mut anchors = std::mem::take(&mut cache.anchors);
        let solved = self.solve(frame, poses, cache, Order::Hessian)?;
        // Each point's key, lagged data and relative slip at the optimum.
        let slips = || {
            let lagged = &solved.prepared.lagged;
            lagged
                .iter()
                .zip(&solved.slip)
                .zip(frame.points())
                .map(|((l, d), p)| {
                    let w = d - l.spin * solved.z.z - solved.z.xy();
                    (anchors::key(p.body, p.vertex), l, w)
                })
        };
        let mut proposal = anchors.propose(*frame.basis(), self.velocity_epsilon, update);
        if update == Update::Step {
            // The model is the friction itself: only the ratios are recorded.
            slips().for_each(|(key, _, w)| proposal.record_own(key, &w));
            let exact = self
                .pose_derivatives(frame, poses, &solved, Order::Hessian)
                .0;
            cache.anchors = anchors;
            let gradient = exact.gradient;
            return Ok((exact, gradient));
        }
        let exact = self
            .pose_derivatives(frame, poses, &solved, Order::Gradient)
            .0;
        let (mut inner_gradient, mut inner_hessian) = (Vector3::zeros(), Matrix3::zeros());
        let terms: Vec<Term> = slips()
            .map(|(key, l, w)| {
                let t = proposal.term(key, l.weight, &w);
                let dw_dz = l.dw_dz();
                inner_gradient += dw_dz.transpose() * t.gradient;
                inner_hessian += dw_dz.transpose() * t.curvature * dw_dz;
                t
            })
            .collect();
        let (model, mixed) =
            self.point_sums(frame, poses, &solved, Order::Hessian, |m, _, _| terms[m]);
        let k = mixed * scaled_inverse(&inner_hessian, &solved.prepared.dm);
        let hessian = model.hessian - k * mixed.transpose();
        let gradient = model.gradient - k * inner_gradient;
        cache.anchors = anchors;
        Ok((
            PairContact {
                hessian: (hessian + hessian.transpose()) * 0.5,
                ..exact
            },
            gradient,
        ))
    }
}
