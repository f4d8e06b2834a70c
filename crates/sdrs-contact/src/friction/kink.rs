//! Where a move of two bodies crosses the kink of their friction: the point at which a pair
//! that slips comes to stick.
//!
//! Plane friction is nearly a kink at zero relative slip (its smoothing `√ε_v` is 1 mm/s by
//! default). From an iterate where a foot slips, Newton's model sees almost no friction
//! curvature along the slip, so its step carries the foot through sticking and out the other
//! side, often by orders of magnitude: the energy along the step is then V-shaped, and a
//! halving line search needs one trial per factor of two to come back to the kink (5-9 trials
//! per iteration on trotting quadrupeds). [`PlaneFriction::kink_along`] predicts the kink
//! from the two ends of the move, so that a Newton line search can start there.

use super::{FrictionFrame, PlaneFriction};
use nalgebra::{Isometry3, Vector2};

/// A pair's slip counts as passing through sticking when it comes within this fraction of
/// where it started. Each bounded step so shrinks the slip at least tenfold (in the linear
/// prediction), and a pair that sticks no longer bounds steps: a line search cannot stall on
/// it.
const PASSES_THROUGH: f64 = 0.1;

impl PlaneFriction {
    /// The fraction `s ∈ (0, 1)` of a move of the frame's two bodies from poses `from` at
    /// which their relative slip passes through zero, if it does, the move given by the poses
    /// `ahead` its first `fraction` reaches: the relative slip is the normal-force-weighted
    /// mean in-plane velocity of the second body's pressed points (since step t) minus the
    /// first body's, extrapolated linearly from those two poses, and it must start beyond the
    /// smoothing `√ε_v` and come within a tenth of where it started. `None` when the pair
    /// sticks at `from`, or the move does not bring it to stick.
    ///
    /// Take `ahead` close to `from` (a small `fraction`): the prediction is then the tangent of
    /// the move, exact where kinks cost most, close to `from`. A chord to the end of a move
    /// that turns the bodies is not: it put a falling humanoid's arm at a kink 1e-3 along
    /// every Newton step, which the arm never reached, and Newton crawled.
    ///
    /// ```
    /// use sdrs_contact::{PlaneBarrier, PlaneCache, friction::{FrictionFrame, PlaneFriction}};
    /// use sdrs_geometry::ConvexHull;
    /// use nalgebra::{Isometry3, Vector3};
    /// let ground = ConvexHull::cuboid(Vector3::new(5.0, 5.0, 0.5)).unwrap();
    /// let block = ConvexHull::cuboid(Vector3::repeat(0.1)).unwrap();
    /// let below = Isometry3::translation(0.0, 0.0, -0.5);
    /// let at_t = Isometry3::translation(0.0, 0.0, 0.105);
    /// let frame = FrictionFrame::new(&PlaneBarrier::new(0.01).unwrap(), 1.0, &ground, &below, &block, &at_t, &mut PlaneCache::default())
    ///     .unwrap().expect("in contact");
    /// let friction = PlaneFriction::new(0.5, 0.01).unwrap();
    /// // Slipping 1 cm along x, then moved 4 cm back (of which the first 1% is 0.4 mm): it
    /// // sticks a quarter of the way.
    /// let from = Isometry3::translation(0.01, 0.0, 0.105);
    /// let ahead = Isometry3::translation(0.0096, 0.0, 0.105);
    /// let s = friction.kink_along(&frame, [&below, &from], ([&below, &ahead], 0.01)).unwrap();
    /// assert!((s - 0.25).abs() < 1e-12);
    /// ```
    pub fn kink_along(
        &self,
        frame: &FrictionFrame,
        from: [&Isometry3<f64>; 2],
        (ahead, fraction): ([&Isometry3<f64>; 2], f64),
    ) -> Option<f64> {
        let start = self.relative_slip(frame, from)?;
        let change = (self.relative_slip(frame, ahead)? - start) / fraction;
        let smoothing = self.velocity_epsilon.sqrt();
        if start.norm() <= smoothing || !(change.norm_squared() > 0.0) {
            return None;
        }
        let kink = -start.dot(&change) / change.norm_squared();
        let closest = (start + change * kink).norm();
        (kink > 0.0 && kink < 1.0 && closest <= PASSES_THROUGH * start.norm()).then_some(kink)
    }

    /// The normal-force-weighted mean in-plane velocity `Bᵀ(y − y^t)/Δt` of the second body's
    /// pressed points at `poses` minus the first body's (`None` if a body presses no point).
    fn relative_slip(
        &self,
        frame: &FrictionFrame,
        poses: [&Isometry3<f64>; 2],
    ) -> Option<Vector2<f64>> {
        let mut sums = [(Vector2::zeros(), 0.0); 2];
        for p in frame.points() {
            let slip = frame.basis().transpose() * ((poses[p.body] * p.local).coords - p.position)
                / self.dt;
            let (sum, weight) = &mut sums[p.body];
            *sum += slip * p.normal_force;
            *weight += p.normal_force;
        }
        let [(first, w0), (second, w1)] = sums;
        (w0 > 0.0 && w1 > 0.0).then(|| second / w1 - first / w0)
    }
}
