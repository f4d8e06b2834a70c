//! Optimisers for co-design: Adam, and the projected step of SDRS eq. 15.

use crate::error::{DiffError, Result};
use nalgebra::DVector;

/// Adam (Kingma and Ba): per-parameter steps from bias-corrected first and second moments.
#[derive(Debug, Clone, PartialEq)]
pub struct Adam {
    /// Step size.
    pub learning_rate: f64,
    /// First-moment decay (default 0.9).
    pub beta1: f64,
    /// Second-moment decay (default 0.999).
    pub beta2: f64,
    /// Denominator guard (default 1e-8).
    pub epsilon: f64,
    m: DVector<f64>,
    v: DVector<f64>,
    t: i32,
    /// The box every step is projected onto ([`Adam::with_bounds`]).
    bounds: Option<(DVector<f64>, DVector<f64>)>,
    /// The geometric decay of the step size ([`Adam::with_decay`]): `(to, over)`.
    decay: Option<(f64, usize)>,
}

impl Adam {
    /// Adam for `len` parameters with the usual defaults.
    pub fn new(len: usize, learning_rate: f64) -> Self {
        Self {
            learning_rate,
            beta1: 0.9,
            beta2: 0.999,
            epsilon: 1e-8,
            m: DVector::zeros(len),
            v: DVector::zeros(len),
            t: 0,
            bounds: None,
            decay: None,
        }
    }

    /// The same Adam projecting every step onto the box `lower ≤ x ≤ upper` (projected Adam:
    /// the moments see the raw gradients, the parameters are clamped after each update).
    /// Entries may be infinite (unbounded); errors if a length differs from the parameters',
    /// a bound is NaN or `lower > upper` anywhere.
    ///
    /// ```
    /// use sdrs_diff::Adam;
    /// use nalgebra::DVector;
    /// let mut adam = Adam::new(2, 0.1).with_bounds(
    ///     DVector::from_vec(vec![-0.5, f64::NEG_INFINITY]),
    ///     DVector::from_vec(vec![0.5, f64::INFINITY]),
    /// )?;
    /// // Minimise (x₀ − 2)² + (x₁ − 2)²: x₀ stops at its bound, x₁ goes on.
    /// let mut x = DVector::zeros(2);
    /// for _ in 0..200 {
    ///     let g = x.map(|v| 2.0 * (v - 2.0));
    ///     adam.step(&mut x, &g)?;
    /// }
    /// assert_eq!(x[0], 0.5);
    /// assert!((x[1] - 2.0).abs() < 0.1);
    /// # Ok::<(), sdrs_diff::DiffError>(())
    /// ```
    pub fn with_bounds(self, lower: DVector<f64>, upper: DVector<f64>) -> Result<Self> {
        check_box(&lower, &upper, self.m.len(), "Adam")?;
        Ok(Self {
            bounds: Some((lower, upper)),
            ..self
        })
    }

    /// The same Adam with a step size that decays geometrically from `learning_rate` to
    /// `learning_rate · to` over the first `over` steps and stays there: step `k` (0-based)
    /// takes `learning_rate · to^(min(k, over) / over)`.
    ///
    /// Why: Adam divides by the gradient's running magnitude, so its steps keep the length
    /// `learning_rate` however small the gradient gets. With small moment decays (the
    /// long-range paper's `(0.3, 0.5)`) it then circles a narrow minimum instead of settling
    /// in it; the decay lets it settle. Errors unless `0 < to ≤ 1` and `over ≥ 1`.
    ///
    /// ```
    /// use sdrs_diff::Adam;
    /// use nalgebra::DVector;
    /// let mut adam = Adam::new(1, 0.1).with_decay(0.01, 100)?;
    /// assert_eq!(adam.current_learning_rate(), 0.1);
    /// let mut x = DVector::zeros(1);
    /// for _ in 0..50 {
    ///     adam.step(&mut x, &DVector::from_element(1, 1.0))?;
    /// }
    /// assert!((adam.current_learning_rate() - 0.01).abs() < 1e-15); // halfway: 0.1 · 0.01^½
    /// # Ok::<(), sdrs_diff::DiffError>(())
    /// ```
    pub fn with_decay(self, to: f64, over: usize) -> Result<Self> {
        if !(to > 0.0 && to <= 1.0) {
            return Err(DiffError::InvalidSetting {
                name: "decay target",
                value: to,
                allowed: "a fraction of the learning rate in (0, 1]",
            });
        }
        if over == 0 {
            return Err(DiffError::InvalidSetting {
                name: "decay steps",
                value: 0.0,
                allowed: "at least 1",
            });
        }
        Ok(Self {
            decay: Some((to, over)),
            ..self
        })
    }

    /// The step size the next [`Adam::step`] takes (`learning_rate` unless it decays).
    pub fn current_learning_rate(&self) -> f64 {
        match self.decay {
            None => self.learning_rate,
            Some((to, over)) => {
                let done = (self.t as usize).min(over) as f64 / over as f64;
                self.learning_rate * to.powf(done)
            }
        }
    }

    /// One step: updates `params` in place to descend along `gradient`.
    pub fn step(&mut self, params: &mut DVector<f64>, gradient: &DVector<f64>) -> Result<()> {
        for (what, v) in [("parameters", params.len()), ("gradient", gradient.len())] {
            if v != self.m.len() {
                return Err(DiffError::LengthMismatch {
                    what,
                    actual: v,
                    expected: self.m.len(),
                });
            }
        }
        let learning_rate = self.current_learning_rate();
        self.t += 1;
        let (b1, b2) = (self.beta1, self.beta2);
        self.m = &self.m * b1 + gradient * (1.0 - b1);
        self.v = &self.v * b2 + gradient.component_mul(gradient) * (1.0 - b2);
        let (c1, c2) = (1.0 - b1.powi(self.t), 1.0 - b2.powi(self.t));
        for i in 0..params.len() {
            let m = self.m[i] / c1;
            let v = self.v[i] / c2;
            params[i] -= learning_rate * m / (v.sqrt() + self.epsilon);
        }
        if let Some((lower, upper)) = &self.bounds {
            for i in 0..params.len() {
                params[i] = params[i].clamp(lower[i], upper[i]);
            }
        }
        Ok(())
    }
}

/// Checks a box for `len` parameters of `what`: both bounds of length `len`, no NaN, and
/// `lower ≤ upper` everywhere.
pub(crate) fn check_box(
    lower: &DVector<f64>,
    upper: &DVector<f64>,
    len: usize,
    what: &'static str,
) -> Result<()> {
    for (name, bound) in [("lower bounds", lower), ("upper bounds", upper)] {
        if bound.len() != len {
            return Err(DiffError::InvalidInput {
                what,
                reason: format!(
                    "{} {name} for {len} parameters: give one per parameter",
                    bound.len()
                ),
            });
        }
    }
    if let Some(i) = (0..len).find(|&i| !(lower[i] <= upper[i])) {
        return Err(DiffError::InvalidInput {
            what,
            reason: format!(
                "bounds [{}, {}] at index {i}: the lower bound must not exceed the upper one \
                 and neither may be NaN (use ±infinity for none)",
                lower[i], upper[i]
            ),
        });
    }
    Ok(())
}

/// The step of SDRS eq. 15 for one block of parameters `x` (design or control): the
/// minimiser of the linearised loss `gᵀΔ` subject to `|Δ| ≤ radius` and the box
/// `lower ≤ x + Δ ≤ upper`.
///
/// With a multiplier `ν > 0` on the ball, the minimiser of `gᵀΔ + ν/2 |Δ|²` over the box is
/// `Δ(ν) = clamp(−g/ν, lower − x, upper − x)`, whose norm falls as `ν` grows; the solution is
/// `Δ(ν*)` with `|Δ(ν*)| = radius`, or the box's farthest corner in the descent direction when
/// even that is inside the ball. `ν*` is found by bisection in log scale (to relative 1e-14).
///
/// ```
/// use sdrs_diff::projected_step;
/// use nalgebra::DVector;
/// let x = DVector::from_vec(vec![0.0, 0.0]);
/// let g = DVector::from_vec(vec![1.0, 1.0]);
/// let (lo, hi) = (DVector::from_element(2, -1.0), DVector::from_element(2, 0.1));
/// let d = projected_step(&x, &g, 0.5, &lo, &hi).unwrap();
/// assert!((d.norm() - 0.5).abs() < 1e-12 && (d[0] - d[1]).abs() < 1e-12 && d[0] < 0.0);
/// ```
pub fn projected_step(
    x: &DVector<f64>,
    gradient: &DVector<f64>,
    radius: f64,
    lower: &DVector<f64>,
    upper: &DVector<f64>,
) -> Result<DVector<f64>> {
    let n = x.len();
    for (what, v) in [
        ("gradient", gradient),
        ("lower bounds", lower),
        ("upper bounds", upper),
    ] {
        if v.len() != n {
            return Err(DiffError::LengthMismatch {
                what,
                actual: v.len(),
                expected: n,
            });
        }
    }
    if !(radius.is_finite() && radius >= 0.0) {
        return Err(DiffError::InvalidSetting {
            name: "radius",
            value: radius,
            allowed: "finite and non-negative",
        });
    }
    if (0..n).any(|i| !(lower[i] <= x[i] && x[i] <= upper[i])) {
        return Err(DiffError::InvalidSetting {
            name: "x",
            value: f64::NAN,
            allowed: "inside its box: lower ≤ x ≤ upper",
        });
    }
    let (lo, hi) = (lower - x, upper - x);
    let at = |nu: f64| -> DVector<f64> {
        DVector::from_fn(n, |i, _| (-gradient[i] / nu).clamp(lo[i], hi[i]))
    };
    // ν → 0: the box corner in the descent direction (finite bounds) or unbounded.
    let corner = DVector::from_fn(n, |i, _| {
        if gradient[i] > 0.0 {
            lo[i]
        } else if gradient[i] < 0.0 {
            hi[i]
        } else {
            0.0
        }
    });
    if corner.iter().all(|v| v.is_finite()) && corner.norm() <= radius {
        return Ok(corner);
    }
    if gradient.norm() == 0.0 || radius == 0.0 {
        return Ok(DVector::zeros(n));
    }
    // Bracket ν: |Δ(ν)| ≥ radius at `small`, ≤ radius at `large`.
    let mut large = gradient.norm() / radius; // unclamped |Δ| = radius there, clamping shrinks it
    let mut small = large;
    while at(small).norm() < radius {
        small *= 0.5;
        if small < f64::MIN_POSITIVE * 1e10 {
            break;
        }
    }
    for _ in 0..200 {
        let mid = (small * large).sqrt();
        if at(mid).norm() > radius {
            small = mid;
        } else {
            large = mid;
        }
        if large / small - 1.0 < 1e-14 {
            break;
        }
    }
    Ok(at(large))
}
