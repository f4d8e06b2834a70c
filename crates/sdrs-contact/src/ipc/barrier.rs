//! The clamped log barrier of IPC: `b(d) = −(d − d̂)² ln(d/d̂)` for `0 < d < d̂`, zero beyond
//! `d̂` (C² there), infinite at `d ≤ 0`. IPC applies it to squared distances with `d̂²`.

/// `(b, b', b'')` at `d` for activation distance `dhat`; `None` when `d ≤ 0` (infinite).
///
/// `b' = (d̂ − d)(2 ln(d/d̂) − d̂/d + 1)`, `b'' = (d̂/d + 2) d̂/d − 2 ln(d/d̂) − 3`.
///
/// ```
/// use sdrs_contact::ipc::barrier::barrier;
/// let (b, b1, _) = barrier(0.5e-3, 1e-3).unwrap();
/// assert!(b > 0.0 && b1 < 0.0);
/// assert_eq!(barrier(2e-3, 1e-3), Some((0.0, 0.0, 0.0)));
/// assert_eq!(barrier(0.0, 1e-3), None);
/// ```
pub fn barrier(d: f64, dhat: f64) -> Option<(f64, f64, f64)> {
    if !(d > 0.0) {
        return None;
    }
    if d >= dhat {
        return Some((0.0, 0.0, 0.0));
    }
    let log = (d / dhat).ln();
    let r = dhat / d;
    Some((
        -(d - dhat) * (d - dhat) * log,
        (dhat - d) * (2.0 * log - r + 1.0),
        (r + 2.0) * r - 2.0 * log - 3.0,
    ))
}
