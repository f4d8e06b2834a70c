//! Functions of the distance between two points carried by two rigid bodies: the centred
//! potential (long-range paper eq. 5 and 7) and the blending weight (eq. 4), with their first
//! two derivatives (the hierarchy maps them to the bodies' twists).

/// A scalar function of `r` with its first two derivatives.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Radial {
    /// `f(r)`.
    pub value: f64,
    /// `f'(r)`.
    pub first: f64,
    /// `f''(r)`.
    pub second: f64,
}

/// The centred potential `P_c(r) = 12 (1 + 1/√r)²` of two points `r` apart (eq. 5, 7): the
/// triangle-pair potential with each triangle collapsed to its centre.
pub fn centred(r: f64) -> Radial {
    let u = 1.0 / r.sqrt();
    let (du, ddu) = (-0.5 * u / r, 0.75 * u / (r * r));
    Radial {
        value: 12.0 * (1.0 + u) * (1.0 + u),
        first: 24.0 * (1.0 + u) * du,
        second: 24.0 * (du * du + (1.0 + u) * ddu),
    }
}

/// The blending weight `φ = Φ((r − d₁)/(d₂ − d₁))` of eq. 4 with the quintic smoothstep
/// `Φ(s) = 6s⁵ − 15s⁴ + 10s³` clamped to `[0, 1]` (C² at both ends).
pub fn blend(r: f64, d1: f64, d2: f64) -> Radial {
    let w = d2 - d1;
    let s = ((r - d1) / w).clamp(0.0, 1.0);
    if s <= 0.0 || s >= 1.0 {
        return Radial {
            value: s,
            first: 0.0,
            second: 0.0,
        };
    }
    Radial {
        value: s * s * s * (10.0 + s * (6.0 * s - 15.0)),
        first: 30.0 * s * s * (s - 1.0) * (s - 1.0) / w,
        second: 60.0 * s * (2.0 * s - 1.0) * (s - 1.0) / (w * w),
    }
}
