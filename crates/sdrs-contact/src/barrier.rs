//! The barrier function `P_s(x) = (x − s)⁴ / x⁵` on `(0, s)` (SDRS eq. 7).
//!
//! `P_s` is `+∞` for `x ≤ 0`, positive, decreasing and strictly convex on `(0, s)`, and zero with
//! its first three derivatives at `x = s`, so it is C³ across the support `s`:
//!
//! - `P'(x) = (x − s)³ (5s − x) / x⁶`
//! - `P''(x) = 2 (x − s)² (x² − 10 s x + 15 s²) / x⁷`

/// Value and first two derivatives of `P_s` at a point, or `None` where it is infinite.
///
/// ```
/// use sdrs_contact::barrier::barrier;
/// let s = 0.1;
/// assert_eq!(barrier(0.2, s), Some((0.0, 0.0, 0.0)));
/// assert!(barrier(0.0, s).is_none());
/// let (p, dp, ddp) = barrier(0.05, s).unwrap();
/// assert!(p > 0.0 && dp < 0.0 && ddp > 0.0);
/// ```
#[inline]
pub fn barrier(x: f64, s: f64) -> Option<(f64, f64, f64)> {
    if !(x > 0.0) {
        return None;
    }
    if x >= s {
        return Some((0.0, 0.0, 0.0));
    }
    let d = x - s;
    let d2 = d * d;
    let inv = 1.0 / x;
    let inv2 = inv * inv;
    let inv5 = inv2 * inv2 * inv;
    let value = d2 * d2 * inv5;
    let first = d2 * d * (5.0 * s - x) * inv5 * inv;
    let second = 2.0 * d2 * (x * x - 10.0 * s * x + 15.0 * s * s) * inv5 * inv2;
    Some((value, first, second))
}

/// The distance `x ∈ (0, s)` at which the barrier pushes with `force`: the solution of
/// `−P_s'(x) = force` (`−P_s'` falls from `+∞` at 0 to 0 at `s`, so there is one); `s` for a
/// force that is not positive. [`gap_at_force_from`] with the small-gap asymptote
/// `x ≈ (5s⁴/force)^{1/6}` as the start.
///
/// ```
/// use sdrs_contact::barrier::{barrier, gap_at_force};
/// let s = 0.01;
/// let (_, d1, _) = barrier(0.003, s).unwrap();
/// assert!((gap_at_force(-d1, s) - 0.003).abs() < 1e-15);
/// assert_eq!(gap_at_force(0.0, s), s);
/// ```
pub fn gap_at_force(force: f64, s: f64) -> f64 {
    if !(force > 0.0) {
        return s;
    }
    let start = (5.0 * s.powi(4) / force).powf(1.0 / 6.0);
    gap_at_force_from(force, s, start, 4.0 * f64::EPSILON).0
}

/// [`gap_at_force`] started from `start`, to a relative `tolerance` in the gap, with `P_s'` and
/// `P_s''` at the gap found: `(x, P'(x), P''(x))`, or `(s, 0, 0)` for a force that is not
/// positive.
///
/// `ln(−P'(x)) = 3 ln(s − x) + ln(5s − x) − 6 ln x` is nearly linear in `ln x` where forces are
/// large, so safeguarded Newton on `ln(−P'(x)) − ln(force)` (bisection when a step leaves the
/// bracket; one logarithm per iteration) converges in a few iterations, in one or two from a
/// nearby start.
pub fn gap_at_force_from(force: f64, s: f64, start: f64, tolerance: f64) -> (f64, f64, f64) {
    if !(force > 0.0) {
        return (s, 0.0, 0.0);
    }
    let target = force.ln();
    let (mut lo, mut hi) = (0.0, s);
    let mut x = if start > 0.0 && start < s {
        start
    } else {
        0.5 * s
    };
    for _ in 0..100 {
        let (_, d1, d2) = barrier(x, s).unwrap_or((0.0, 0.0, 0.0));
        // h(x) = ln(−P'(x)) − ln(force) decreases: positive below the solution; h' = P''/P'.
        let value = (-d1).ln() - target;
        let newton = x - value * d1 / d2;
        if (newton - x).abs() <= tolerance * x {
            // Within the tolerance already, and `(d1, d2)` are `x`'s.
            return (x, d1, d2);
        }
        if value > 0.0 {
            lo = x;
        } else {
            hi = x;
        }
        x = if newton > lo && newton < hi {
            newton
        } else {
            0.5 * (lo + hi)
        };
    }
    let (_, d1, d2) = barrier(x, s).unwrap_or((0.0, 0.0, 0.0));
    (x, d1, d2)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `gap_at_force` inverts `−P'` across the support, from far inside (forces of 1e30) to
    /// its edge.
    #[test]
    fn gap_at_force_inverts_the_barrier_force() {
        for s in [1e-3, 0.01, 0.3] {
            for k in 1..200 {
                let x = s * (k as f64 / 200.0).powi(3);
                let (_, d1, _) = barrier(x, s).unwrap();
                let back = gap_at_force(-d1, s);
                assert!((back - x).abs() <= 1e-12 * x, "s {s}, x {x}: {back}");
            }
        }
        assert_eq!(gap_at_force(-1.0, 0.01), 0.01);
        // From a start nearby, far off or outside the support, with the derivatives there.
        let s = 0.01;
        let (_, d1, _) = barrier(0.002, s).unwrap();
        for start in [0.002, 0.0021, 1e-9, 0.5 * s, 2.0 * s, f64::NAN] {
            let (x, p1, p2) = gap_at_force_from(-d1, s, start, 1e-9);
            assert!((x - 0.002).abs() <= 1e-9 * 0.002, "from {start}: {x}");
            let (_, e1, e2) = barrier(x, s).unwrap();
            assert_eq!((p1, p2), (e1, e2));
        }
        assert_eq!(gap_at_force(f64::NAN, 0.01), 0.01);
    }
}
