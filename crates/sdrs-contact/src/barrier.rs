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
