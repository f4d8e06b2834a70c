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

#[cfg(test)]
mod tests {
    use crate::friction::{FrictionFrame, PlaneFriction};
    use crate::{PlaneBarrier, PlaneCache};
    use nalgebra::{Isometry3, Vector3};
    use sdrs_geometry::ConvexHull;

    /// A 20 cm block resting on a ground slab, its friction frame and friction (Δt = 10 ms).
    fn block_on_ground() -> (FrictionFrame, PlaneFriction, Isometry3<f64>) {
        let ground = ConvexHull::cuboid(Vector3::new(5.0, 5.0, 0.5)).unwrap();
        let block = ConvexHull::cuboid(Vector3::repeat(0.1)).unwrap();
        let below = Isometry3::translation(0.0, 0.0, -0.5);
        let at_t = Isometry3::translation(0.0, 0.0, 0.105);
        let barrier = PlaneBarrier::new(0.01).unwrap();
        let frame = FrictionFrame::new(
            &barrier,
            1.0,
            &ground,
            &below,
            &block,
            &at_t,
            &mut PlaneCache::default(),
        )
        .unwrap()
        .expect("in contact");
        (frame, PlaneFriction::new(0.5, 0.01).unwrap(), below)
    }

    fn at(x: f64, y: f64) -> Isometry3<f64> {
        Isometry3::translation(x, y, 0.105)
    }

    #[test]
    fn a_reversed_slip_sticks_where_it_passes_zero() {
        let (frame, friction, ground) = block_on_ground();
        for (from, to, kink) in [
            (at(0.01, 0.0), at(-0.01, 0.0), 0.5),
            (at(0.0, -0.02), at(0.0, 0.06), 0.25),
            (at(0.003, 0.004), at(-0.027, -0.036), 0.1),
        ] {
            let found = friction
                .kink_along(&frame, [&ground, &from], ([&ground, &to], 1.0))
                .expect("the slip passes through zero");
            assert!((found - kink).abs() < 1e-12, "{found} vs {kink}");
        }
    }

    #[test]
    fn the_first_body_slips_the_other_way() {
        // The same relative motion with the ground moving instead of the block.
        let (frame, friction, ground) = block_on_ground();
        let block = at(0.0, 0.0);
        let shifted = |x: f64| Isometry3::translation(x, 0.0, 0.0) * ground;
        let found = friction
            .kink_along(
                &frame,
                [&shifted(-0.01), &block],
                ([&shifted(-0.009), &block], 0.025),
            )
            .expect("the slip passes through zero");
        assert!((found - 0.25).abs() < 1e-12, "{found}");
    }

    #[test]
    fn no_kink_where_the_slip_does_not_pass_zero() {
        let (frame, friction, ground) = block_on_ground();
        let kink = |from: Isometry3<f64>, to: Isometry3<f64>| {
            friction.kink_along(&frame, [&ground, &from], ([&ground, &to], 1.0))
        };
        // Faster the same way, or turned by a right angle (it passes 7 mm from zero).
        assert_eq!(kink(at(0.01, 0.0), at(0.03, 0.0)), None);
        assert_eq!(kink(at(0.01, 0.0), at(0.0, 0.01)), None);
        // Within a tenth of where it started is a pass; beyond it is not.
        assert!(kink(at(0.01, 0.0), at(-0.01, 0.0019)).is_some());
        assert_eq!(kink(at(0.01, 0.0), at(-0.01, 0.0021)), None);
        // It sticks at the start (1 µm in 10 ms is 0.1 mm/s, below √ε_v = 1 mm/s): no kink
        // to find, so a step from a sticking pair is never bounded by it.
        assert_eq!(kink(at(1e-6, 0.0), at(-1e-6, 0.0)), None);
        // It reaches zero only at the end or beyond.
        assert_eq!(kink(at(0.01, 0.0), at(0.0, 0.0)), None);
        assert_eq!(kink(at(0.01, 0.0), at(0.005, 0.0)), None);
    }
}
