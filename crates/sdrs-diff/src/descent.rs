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

/// `iterations` Adam steps on `x` along `source`'s gradients; returns the value before each
/// step and at the end (`iterations + 1` values: the convergence history). `progress` sees
/// every iterate before its step.
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
    mut progress: impl FnMut(Iterate<'_>),
) -> Result<Vec<f64>> {
    let mut history = Vec::with_capacity(iterations + 1);
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
        if iteration == iterations {
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
    Ok(history)
}
