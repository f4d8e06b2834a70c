//! Plain first-order descent with [`Adam`] over any gradient source: the optimiser of the
//! long-range paper's control benchmarks (sec. 6, Table 3: a fixed learning rate,
//! `(β₁, β₂) = (0.3, 0.5)`), whatever gives the gradient (an adjoint through one contact
//! model, or a [`crate::Bundled`] estimate).

use crate::error::{DiffError, Result};
use crate::optim::Adam;
use nalgebra::DVector;

/// Something that maps parameters to a value and its gradient (or an estimate of it): any
/// closure `FnMut(&DVector<f64>) -> Result<(f64, DVector<f64>)>` is one.
pub trait GradientSource {
    /// The value at `x` and the gradient (estimate) there.
    fn value_and_gradient(&mut self, x: &DVector<f64>) -> Result<(f64, DVector<f64>)>;

    /// The value at `x` alone. By default [`GradientSource::value_and_gradient`]'s value; a
    /// source that can skip the gradient's work (e.g. a rollout without its adjoint)
    /// overrides it.
    fn value(&mut self, x: &DVector<f64>) -> Result<f64> {
        self.value_and_gradient(x).map(|(value, _)| value)
    }
}

impl<F> GradientSource for F
where
    F: FnMut(&DVector<f64>) -> Result<(f64, DVector<f64>)>,
{
    fn value_and_gradient(&mut self, x: &DVector<f64>) -> Result<(f64, DVector<f64>)> {
        self(x)
    }
}

/// Adam with the long-range paper's moment decays `(β₁, β₂) = (0.3, 0.5)` (Table 3; small
/// values help it escape local minima) and learning rate `learning_rate`, for `len`
/// parameters.
pub fn paper_adam(len: usize, learning_rate: f64) -> Adam {
    let mut adam = Adam::new(len, learning_rate);
    adam.beta1 = 0.3;
    adam.beta2 = 0.5;
    adam
}

/// What one iteration of [`descend`] saw: its index, the value and the gradient at the
/// parameters before its step, and those parameters.
#[derive(Debug, Clone, Copy)]
pub struct Iterate<'a> {
    /// The iteration (0-based).
    pub iteration: usize,
    /// The value at `x`.
    pub value: f64,
    /// The gradient (estimate) at `x`.
    pub gradient: &'a DVector<f64>,
    /// The parameters.
    pub x: &'a DVector<f64>,
}

/// How [`descend_with`] ends: which iterate it leaves in `x` and whether it stops early.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Stopping {
    /// Leave `x` at the best iterate seen (the lowest value, the earliest of equals) instead
    /// of the last: Adam with the paper's small `(β₁, β₂)` takes every step, so its last
    /// iterate can be worse than one it passed.
    pub keep_best: bool,
    /// Stop as soon as an iterate's value is at most this (e.g. `Some(0.0)` for a loss that
    /// cannot go below zero, such as the paper's `ReLU(d² − ε²)`): no step is taken from it.
    pub stop_at: Option<f64>,
}

impl Stopping {
    /// Keep the best iterate, no early stop.
    pub fn best() -> Self {
        Self {
            keep_best: true,
            stop_at: None,
        }
    }

    /// The same, stopping once an iterate's value is at most `value`.
    pub fn stopping_at(self, value: f64) -> Self {
        Self {
            stop_at: Some(value),
            ..self
        }
    }
}

/// `iterations` Adam steps on `x` along `source`'s gradients; returns the value before each
/// step and at the end (`iterations + 1` values: the convergence history). `progress` sees
/// every iterate before its step. [`descend_with`] can keep the best iterate and stop early;
/// [`descent`] also returns the best iterate and what it did before a failure.
///
/// Errors when the source fails or returns a non-finite value or gradient (the parameters
/// are then those of the last good iterate).
///
/// ```
/// use sdrs_diff::{descend, paper_adam};
/// use nalgebra::DVector;
/// // A quadratic bowl around (1, −2).
/// let mut bowl = |x: &DVector<f64>| {
///     let d = x - DVector::from_vec(vec![1.0, -2.0]);
///     Ok((d.norm_squared(), 2.0 * d))
/// };
/// let mut x = DVector::zeros(2);
/// let history = descend(&mut x, &mut paper_adam(2, 0.05), 200, &mut bowl, |_| {})?;
/// assert_eq!(history.len(), 201);
/// assert!(history[200] < 1e-3 * history[0]);
/// # Ok::<(), sdrs_diff::DiffError>(())
/// ```
pub fn descend(
    x: &mut DVector<f64>,
    adam: &mut Adam,
    iterations: usize,
    source: &mut impl GradientSource,
    progress: impl FnMut(Iterate<'_>),
) -> Result<Vec<f64>> {
    descend_with(x, adam, iterations, source, Stopping::default(), progress)
}

/// The iterate of the lowest value a descent saw (the earliest of equals).
#[derive(Debug, Clone, PartialEq)]
pub struct Best {
    /// Its iteration (its index in the history).
    pub iteration: usize,
    /// Its value.
    pub value: f64,
    /// Its parameters.
    pub x: DVector<f64>,
}

/// What a [`descent`] did, up to its end or its failure.
#[derive(Debug)]
pub struct Descent {
    /// The value at each iterate reached (`iterations + 1` when it ran to the end).
    pub history: Vec<f64>,
    /// The best iterate, `None` when the first evaluation failed.
    pub best: Option<Best>,
    /// Why it stopped early (the source failed, or gave a non-finite value or gradient).
    pub error: Option<DiffError>,
}

impl Descent {
    /// The history, or the error.
    pub fn into_result(self) -> Result<Vec<f64>> {
        match self.error {
            Some(error) => Err(error),
            None => Ok(self.history),
        }
    }
}

/// [`descend`] ending as `stopping` says: with [`Stopping::keep_best`] `x` is left at the
/// iterate of the lowest value in the returned history (on an error, at the best good
/// iterate so far); with [`Stopping::stop_at`] the history ends at the first value at or
/// below it (fewer than `iterations + 1` values).
///
/// ```
/// use sdrs_diff::{Stopping, descend_with, paper_adam};
/// use nalgebra::DVector;
/// // |x − 1|, whose minimum Adam at a large rate overshoots and circles.
/// let mut v = |x: &DVector<f64>| Ok(((x[0] - 1.0).abs(), DVector::from_element(1, (x[0] - 1.0).signum())));
/// let mut x = DVector::zeros(1);
/// let history = descend_with(&mut x, &mut paper_adam(1, 0.3), 20, &mut v, Stopping::best(), |_| {})?;
/// let best = history.iter().cloned().fold(f64::INFINITY, f64::min);
/// assert_eq!((x[0] - 1.0).abs(), best);
/// # Ok::<(), sdrs_diff::DiffError>(())
/// ```
pub fn descend_with(
    x: &mut DVector<f64>,
    adam: &mut Adam,
    iterations: usize,
    source: &mut impl GradientSource,
    stopping: Stopping,
    progress: impl FnMut(Iterate<'_>),
) -> Result<Vec<f64>> {
    descent(x, adam, iterations, source, stopping, progress).into_result()
}

/// [`descend_with`] that keeps what it did when it fails and always records the best
/// iterate ([`Descent::best`]), whichever iterate `stopping` leaves in `x`.
///
/// ```
/// use sdrs_diff::{Stopping, descent, paper_adam};
/// use nalgebra::DVector;
/// let mut v = |x: &DVector<f64>| Ok(((x[0] - 1.0).abs(), DVector::from_element(1, (x[0] - 1.0).signum())));
/// let mut x = DVector::zeros(1);
/// let run = descent(&mut x, &mut paper_adam(1, 0.3), 20, &mut v, Stopping::default(), |_| {});
/// let best = run.best.unwrap();
/// assert!(run.error.is_none() && best.value < *run.history.last().unwrap());
/// assert_eq!(run.history[best.iteration], best.value);
/// assert_eq!((best.x[0] - 1.0).abs(), best.value);
/// ```
pub fn descent(
    x: &mut DVector<f64>,
    adam: &mut Adam,
    iterations: usize,
    source: &mut impl GradientSource,
    stopping: Stopping,
    mut progress: impl FnMut(Iterate<'_>),
) -> Descent {
    let mut history = Vec::with_capacity(iterations + 1);
    let mut best: Option<Best> = None;
    let outcome = (|| -> Result<()> {
        for iteration in 0..=iterations {
            let (value, gradient) = source.value_and_gradient(x)?;
            if !value.is_finite() {
                return Err(DiffError::NonFinite {
                    what: "descent objective value",
                    index: iteration,
                });
            }
            if let Some(index) = gradient.iter().position(|g| !g.is_finite()) {
                return Err(DiffError::NonFinite {
                    what: "descent gradient",
                    index,
                });
            }
            history.push(value);
            if best.as_ref().is_none_or(|b| value < b.value) {
                best = Some(Best {
                    iteration,
                    value,
                    x: x.clone(),
                });
            }
            if iteration == iterations || stopping.stop_at.is_some_and(|stop| value <= stop) {
                break;
            }
            progress(Iterate {
                iteration,
                value,
                gradient: &gradient,
                x,
            });
            adam.step(x, &gradient)?;
        }
        Ok(())
    })();
    if let Some(best) = best.as_ref().filter(|_| stopping.keep_best) {
        x.clone_from(&best.x);
    }
    Descent {
        history,
        best,
        error: outcome.err(),
    }
}
