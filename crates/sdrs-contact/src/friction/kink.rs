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
use nalgebra::{Isometry3, Vector2, Vector3};
use sdrs_geometry::twist::Twist;

/// A pair's slip counts as passing through sticking when it comes within this fraction of
/// where it started. Each bounded step so shrinks the slip at least tenfold (in the linear
/// prediction), and a pair that sticks no longer bounds steps: a line search cannot stall on
/// it.
const PASSES_THROUGH: f64 = 0.1;

impl PlaneFriction {
    /// The fraction `s ∈ (0, 1)` of a move of the frame's two bodies at which their relative
    /// slip passes through zero, if it does. The bodies start at poses `from` and move with
    /// the twists `rates` (per unit of the move, in the convention of
    /// [`sdrs_geometry::twist`]); the relative slip is the normal-force-weighted mean in-plane
    /// velocity (since step t) of the second body's pressed points minus the first body's,
    /// extrapolated along the tangent of the move. It must start beyond the smoothing `√ε_v`
    /// and come within a tenth of where it started. `None` when the pair sticks at `from`, or
    /// the move does not bring it to stick.
    ///
    /// The tangent is exact where kinks cost most, close to `from`. A chord to the end of a
    /// move that turns the bodies is not: it put a falling humanoid's arm at a kink 1e-3 along
    /// every Newton step, which the arm never reached, and Newton crawled.
    ///
    /// ```
    /// use sdrs_contact::{PlaneBarrier, PlaneCache, friction::{FrictionFrame, PlaneFriction}};
    /// use sdrs_geometry::{ConvexHull, twist::Twist};
    /// use nalgebra::{Isometry3, Vector3};
    /// let ground = ConvexHull::cuboid(Vector3::new(5.0, 5.0, 0.5)).unwrap();
    /// let block = ConvexHull::cuboid(Vector3::repeat(0.1)).unwrap();
    /// let below = Isometry3::translation(0.0, 0.0, -0.5);
    /// let at_t = Isometry3::translation(0.0, 0.0, 0.105);
    /// let frame = FrictionFrame::new(&PlaneBarrier::new(0.01).unwrap(), 1.0, &ground, &below, &block, &at_t, &mut PlaneCache::default())
    ///     .unwrap().expect("in contact");
    /// let friction = PlaneFriction::new(0.5, 0.01).unwrap();
    /// // Slipping 1 cm along x, then moved 4 cm back: it sticks a quarter of the way.
    /// let from = Isometry3::translation(0.01, 0.0, 0.105);
    /// let back = Twist::from_column_slice(&[-0.04, 0.0, 0.0, 0.0, 0.0, 0.0]);
    /// let s = friction.kink_along(&frame, [&below, &from], [&Twist::zeros(), &back]).unwrap();
    /// assert!((s - 0.25).abs() < 1e-12);
    /// ```
    pub fn kink_along(
        &self,
        frame: &FrictionFrame,
        from: [&Isometry3<f64>; 2],
        rates: [&Twist; 2],
    ) -> Option<f64> {
        let [start, change] = self.relative_slip(frame, from, rates)?;
        let smoothing = self.velocity_epsilon.sqrt();
        if start.norm() <= smoothing || !(change.norm_squared() > 0.0) {
            return None;
        }
        let kink = -start.dot(&change) / change.norm_squared();
        let closest = (start + change * kink).norm();
        (kink > 0.0 && kink < 1.0 && closest <= PASSES_THROUGH * start.norm()).then_some(kink)
    }

    /// The normal-force-weighted mean in-plane velocity `Bᵀ(y − y^t)/Δt` of the second body's
    /// pressed points at `poses` minus the first body's, and its rate of change as the bodies
    /// move with `rates` (`None` if a body presses no point).
    fn relative_slip(
        &self,
        frame: &FrictionFrame,
        poses: [&Isometry3<f64>; 2],
        rates: [&Twist; 2],
    ) -> Option<[Vector2<f64>; 2]> {
        let mut sums = [(Vector2::zeros(), Vector2::zeros(), 0.0); 2];
        for p in frame.points() {
            let (pose, rate) = (poses[p.body], rates[p.body]);
            let y = (pose * p.local).coords;
            let (v, w) = (rate.fixed_rows::<3>(0), rate.fixed_rows::<3>(3));
            let velocity = v + w.cross(&(y - pose.translation.vector));
            let in_plane = |x: Vector3<f64>| frame.basis().transpose() * x / self.dt;
            let (slip, change, weight) = &mut sums[p.body];
            *slip += in_plane(y - p.position) * p.normal_force;
            *change += in_plane(velocity) * p.normal_force;
            *weight += p.normal_force;
        }
        let [(s0, c0, w0), (s1, c1, w1)] = sums;
        (w0 > 0.0 && w1 > 0.0).then(|| [s1 / w1 - s0 / w0, c1 / w1 - c0 / w0])
    }
}

#[cfg(test)]
mod tests {
    use crate::friction::{FrictionFrame, PlaneFriction};
    use crate::{PlaneBarrier, PlaneCache};
    use nalgebra::{Isometry3, Vector3};
    use sdrs_geometry::ConvexHull;
    use sdrs_geometry::twist::Twist;

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

    /// A translation by `(x, y)` over the move.
    fn moving(x: f64, y: f64) -> Twist {
        Twist::from_column_slice(&[x, y, 0.0, 0.0, 0.0, 0.0])
    }

    #[test]
    fn a_reversed_slip_sticks_where_it_passes_zero() {
        let (frame, friction, ground) = block_on_ground();
        let still = Twist::zeros();
        for (from, rate, kink) in [
            (at(0.01, 0.0), moving(-0.02, 0.0), 0.5),
            (at(0.0, -0.02), moving(0.0, 0.08), 0.25),
            (at(0.003, 0.004), moving(-0.03, -0.04), 0.1),
        ] {
            let found = friction
                .kink_along(&frame, [&ground, &from], [&still, &rate])
                .expect("the slip passes through zero");
            assert!((found - kink).abs() < 1e-12, "{found} vs {kink}");
        }
    }

    #[test]
    fn the_first_body_slips_the_other_way() {
        // The same relative motion with the ground moving instead of the block.
        let (frame, friction, ground) = block_on_ground();
        let shifted = Isometry3::translation(-0.01, 0.0, 0.0) * ground;
        let found = friction
            .kink_along(
                &frame,
                [&shifted, &at(0.0, 0.0)],
                [&moving(0.04, 0.0), &Twist::zeros()],
            )
            .expect("the slip passes through zero");
        assert!((found - 0.25).abs() < 1e-12, "{found}");
    }

    #[test]
    fn a_turning_body_sticks_where_its_points_stop_on_average() {
        // The block turns about the vertical through its centre while it slips 1 cm along x:
        // the turn moves its pressed points in opposite directions, so their mean follows the
        // translation alone.
        let (frame, friction, ground) = block_on_ground();
        let turn_and_back = Twist::from_column_slice(&[-0.02, 0.0, 0.0, 0.0, 0.0, 0.3]);
        let found = friction
            .kink_along(
                &frame,
                [&ground, &at(0.01, 0.0)],
                [&Twist::zeros(), &turn_and_back],
            )
            .expect("the slip passes through zero");
        assert!((found - 0.5).abs() < 1e-12, "{found}");
    }

    #[test]
    fn no_kink_where_the_slip_does_not_pass_zero() {
        let (frame, friction, ground) = block_on_ground();
        let kink = |from: Isometry3<f64>, rate: Twist| {
            friction.kink_along(&frame, [&ground, &from], [&Twist::zeros(), &rate])
        };
        // Faster the same way, or turned by a right angle (it passes 7 mm from zero).
        assert_eq!(kink(at(0.01, 0.0), moving(0.02, 0.0)), None);
        assert_eq!(kink(at(0.01, 0.0), moving(-0.01, 0.01)), None);
        // Within a tenth of where it started is a pass; beyond it is not.
        assert!(kink(at(0.01, 0.0), moving(-0.02, 0.0019)).is_some());
        assert_eq!(kink(at(0.01, 0.0), moving(-0.02, 0.0021)), None);
        // It sticks at the start (1 µm in 10 ms is 0.1 mm/s, below √ε_v = 1 mm/s): no kink
        // to find, so a step from a sticking pair is never bounded by it.
        assert_eq!(kink(at(1e-6, 0.0), moving(-2e-6, 0.0)), None);
        // It would reach zero only beyond the end of the move.
        assert_eq!(kink(at(0.01, 0.0), moving(-0.008, 0.0)), None);
        assert_eq!(kink(at(0.01, 0.0), moving(-0.005, 0.0)), None);
    }
}
