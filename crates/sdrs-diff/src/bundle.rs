//! The first-order gradient bundle of Suh et al. (2022), the sampling baseline of the
//! long-range paper (appendix A.6.1): the gradient of the Gaussian-smoothed objective
//! `E_w[f(x + σw)]`, `w ~ N(0, I)`, estimated by the mean of exact gradients at `N` perturbed
//! parameters, `(1/N) Σ_i ∇f(x + σ w_i)`.
//!
//! Where every sample lands in a region of zero gradient (objects far apart under a contact
//! model with local support) the estimate is zero too; it helps only where some samples
//! reach contact. The random numbers come from a seeded xoshiro256++ generator (the `rand`
//! crate), normal deviates by the Box-Muller transform, so a run is reproducible.

use crate::descent::GradientSource;
use crate::error::{DiffError, Result};
use nalgebra::DVector;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// A [`GradientSource`] that bundles another one's gradients: the value is the source's at
/// `x` (unsmoothed, so histories compare with other methods), the gradient the mean of the
/// source's gradients at `samples` points `x + σ w_i` (`samples + 1` evaluations in all).
///
/// ```
/// use sdrs_diff::{Bundled, GradientSource};
/// use nalgebra::DVector;
/// // |x| has gradient sign(x); around 0 the bundle averages it towards zero.
/// let abs = |x: &DVector<f64>| Ok((x[0].abs(), DVector::from_element(1, x[0].signum())));
/// let mut bundle = Bundled::new(abs, 2000, 1.0, 7)?;
/// let (value, g) = bundle.value_and_gradient(&DVector::from_element(1, 0.0))?;
/// assert_eq!(value, 0.0);
/// assert!(g[0].abs() < 0.1);
/// // Far from the kink every sample agrees.
/// let (_, g) = bundle.value_and_gradient(&DVector::from_element(1, 10.0))?;
/// assert_eq!(g[0], 1.0);
/// # Ok::<(), sdrs_diff::DiffError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Bundled<S> {
    source: S,
    samples: usize,
    sigma: f64,
    rng: Xoshiro256PlusPlus,
}

impl<S: GradientSource> Bundled<S> {
    /// Bundles `source` with `samples ≥ 1` perturbations of standard deviation `sigma`
    /// (positive, finite), the generator seeded with `seed`.
    pub fn new(source: S, samples: usize, sigma: f64, seed: u64) -> Result<Self> {
        if samples == 0 {
            return Err(DiffError::InvalidSetting {
                name: "gradient-bundle samples",
                value: 0.0,
                allowed: "at least 1",
            });
        }
        if !(sigma.is_finite() && sigma > 0.0) {
            return Err(DiffError::InvalidSetting {
                name: "gradient-bundle sigma",
                value: sigma,
                allowed: "positive and finite",
            });
        }
        Ok(Self {
            source,
            samples,
            sigma,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
        })
    }

    /// A standard normal deviate (Box-Muller; `1 − u` keeps the logarithm finite).
    fn normal(&mut self) -> f64 {
        let u: f64 = self.rng.random();
        let v: f64 = self.rng.random();
        (-2.0 * (1.0 - u).ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

impl<S: GradientSource> GradientSource for Bundled<S> {
    fn value_and_gradient(&mut self, x: &DVector<f64>) -> Result<(f64, DVector<f64>)> {
        let value = self.source.value(x)?;
        let mut mean = DVector::zeros(x.len());
        for _ in 0..self.samples {
            let w = DVector::from_fn(x.len(), |_, _| self.normal());
            let (_, g) = self.source.value_and_gradient(&(x + self.sigma * w))?;
            if g.len() != x.len() {
                return Err(DiffError::LengthMismatch {
                    what: "a bundled sample's gradient",
                    actual: g.len(),
                    expected: x.len(),
                });
            }
            mean += g;
        }
        Ok((value, mean / self.samples as f64))
    }

    /// The source's value at `x` (unperturbed, as [`GradientSource::value_and_gradient`]
    /// gives it).
    fn value(&mut self, x: &DVector<f64>) -> Result<f64> {
        self.source.value(x)
    }
}
