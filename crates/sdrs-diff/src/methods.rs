//! The methods the long-range paper compares on its control benchmarks (sec. 6, appendix
//! A.6.1): exact adjoint gradients through the long-range model, the IPC model and the SDRS
//! plane barrier, and the gradient bundle over one of them, each run from the same initial
//! guess with the same optimiser ([`compare`]).
//!
//! A task supplies its three [`ContactSettings`] ([`ContactModels`]) and a builder from one of
//! them to its exact [`GradientSource`]; a [`Method`] picks the settings and, for the bundle,
//! wraps the exact source in [`Bundled`].

use crate::bundle::Bundled;
use crate::descent::{Best, Descent, GradientSource, Iterate, Stopping, descent};
use crate::error::{DiffError, Result};
use crate::optim::Adam;
use nalgebra::DVector;
use sdrs_dynamics::ContactSettings;
use std::time::Instant;

/// Which of a task's contact models a method simulates with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContactChoice {
    /// The long-range potential (globally supported).
    LongRange,
    /// The IPC barrier (supported within its distance `d̂`).
    Ipc,
    /// The SDRS plane barrier between convex hulls (supported within its distance `s`).
    Hulls,
}

/// How a method gets its gradient.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GradientKind {
    /// The adjoint (exact) gradient.
    Exact,
    /// The first-order gradient bundle ([`Bundled`]): `samples` Gaussian perturbations of
    /// standard deviation `sigma`, the generator seeded with `seed`.
    Bundle {
        /// Perturbations per gradient.
        samples: usize,
        /// Their standard deviation (in the parameters' units).
        sigma: f64,
        /// The seed.
        seed: u64,
    },
}

/// One method: a contact model and a gradient kind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Method {
    /// The contact model simulated.
    pub contact: ContactChoice,
    /// How the gradient is obtained.
    pub gradient: GradientKind,
}

/// A task's settings of each contact model.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactModels {
    /// Long-range contact.
    pub long_range: ContactSettings,
    /// IPC contact.
    pub ipc: ContactSettings,
    /// SDRS hull contact.
    pub hulls: ContactSettings,
}

impl Method {
    /// Exact gradients through `contact`.
    pub fn exact(contact: ContactChoice) -> Self {
        Self {
            contact,
            gradient: GradientKind::Exact,
        }
    }

    /// The paper's line-up: long-range, IPC and SDRS hulls with exact gradients, and the
    /// gradient bundle (`samples`, `sigma`, `seed`) over SDRS hulls (a compactly supported
    /// model, as in the paper's comparison, where the bundle has to find contact by sampling).
    pub fn paper(samples: usize, sigma: f64, seed: u64) -> Vec<Self> {
        vec![
            Self::exact(ContactChoice::LongRange),
            Self::exact(ContactChoice::Ipc),
            Self::exact(ContactChoice::Hulls),
            Self {
                contact: ContactChoice::Hulls,
                gradient: GradientKind::Bundle {
                    samples,
                    sigma,
                    seed,
                },
            },
        ]
    }

    /// A short name for tables and plot legends.
    ///
    /// ```
    /// use sdrs_diff::{ContactChoice, Method};
    /// assert_eq!(Method::exact(ContactChoice::Ipc).name(), "IPC");
    /// assert_eq!(Method::paper(8, 0.1, 0)[3].name(), "gradient bundle (SDRS hulls)");
    /// ```
    pub fn name(&self) -> String {
        let contact = match self.contact {
            ContactChoice::LongRange => "long-range",
            ContactChoice::Ipc => "IPC",
            ContactChoice::Hulls => "SDRS hulls",
        };
        match self.gradient {
            GradientKind::Exact => contact.to_string(),
            GradientKind::Bundle { .. } => format!("gradient bundle ({contact})"),
        }
    }

    /// The settings of this method's contact model among `models`.
    pub fn settings<'a>(&self, models: &'a ContactModels) -> &'a ContactSettings {
        match self.contact {
            ContactChoice::LongRange => &models.long_range,
            ContactChoice::Ipc => &models.ipc,
            ContactChoice::Hulls => &models.hulls,
        }
    }

    /// This method's gradient source from the `exact` one: `exact` itself, or bundled with
    /// the seed offset by `stream` (so that, e.g., every frame of a receding-horizon run draws
    /// its own perturbations).
    pub fn source<G: GradientSource>(&self, exact: G, stream: u64) -> Result<MethodSource<G>> {
        Ok(match self.gradient {
            GradientKind::Exact => MethodSource::Exact(exact),
            GradientKind::Bundle {
                samples,
                sigma,
                seed,
            } => MethodSource::Bundle(Bundled::new(
                exact,
                samples,
                sigma,
                seed.wrapping_add(stream),
            )?),
        })
    }
}

/// A [`Method`]'s gradient source ([`Method::source`]).
#[derive(Debug, Clone)]
pub enum MethodSource<G> {
    /// The exact source.
    Exact(G),
    /// The exact source, bundled.
    Bundle(Bundled<G>),
}

impl<G: GradientSource> GradientSource for MethodSource<G> {
    fn value_and_gradient(&mut self, x: &DVector<f64>) -> Result<(f64, DVector<f64>)> {
        match self {
            Self::Exact(source) => source.value_and_gradient(x),
            Self::Bundle(source) => source.value_and_gradient(x),
        }
    }

    fn value(&mut self, x: &DVector<f64>) -> Result<f64> {
        match self {
            Self::Exact(source) => source.value(x),
            Self::Bundle(source) => source.value(x),
        }
    }
}

/// One method's optimisation in a [`compare`].
#[derive(Debug)]
pub struct MethodRun {
    /// The method.
    pub method: Method,
    /// The convergence history ([`descent`]); when the method failed, the values up to the
    /// failure.
    pub history: Vec<f64>,
    /// The final parameters (the last iterate reached when the method failed).
    pub parameters: DVector<f64>,
    /// The best iterate of the history (its loss and parameters: Adam with the paper's small
    /// `(β₁, β₂)` takes every step, so it can end above a loss it passed); `None` when the
    /// method failed before its first value.
    pub best: Option<Best>,
    /// Wall time of the whole optimisation (s).
    pub seconds: f64,
    /// Why the method stopped early (e.g. a step's Newton solve failed), `None` when it ran
    /// all its iterations.
    pub error: Option<DiffError>,
}

/// Runs up to `iterations` Adam steps (a copy of `adam` each) from `x0` under every method,
/// each ending as `stopping` says (e.g. [`Stopping::stopping_at`] `0.0` ends a method's run at
/// a zero task loss, the same rule for all): `build(settings)` gives the exact gradient source
/// of the task simulated with `settings`, `progress(method, iterate)` sees each iterate.
/// [`MethodRun::parameters`] are the last iterate's unless `stopping` keeps the best. A
/// method that fails (its source cannot be built, a step fails, a value is not finite) keeps
/// its history up to the failure and its error ([`MethodRun::error`]); the other methods
/// still run.
///
/// ```
/// use sdrs_diff::{ContactModels, Method, Stopping, compare, paper_adam};
/// use sdrs_dynamics::ContactSettings;
/// use nalgebra::DVector;
/// let hulls = ContactSettings::default_for(f64::INFINITY)?;
/// let models = ContactModels { long_range: hulls.clone(), ipc: hulls.clone(), hulls };
/// // A stand-in task whose gradient does not depend on the contact model.
/// let runs = compare(
///     &Method::paper(4, 0.1, 1),
///     &models,
///     &DVector::from_element(1, 1.0),
///     &paper_adam(1, 0.1),
///     20,
///     Stopping::default(),
///     |_settings| Ok(|x: &DVector<f64>| Ok((x[0] * x[0], 2.0 * x.clone()))),
///     |_, _| {},
/// );
/// assert_eq!(runs.len(), 4);
/// assert!(runs.iter().all(|r| r.error.is_none() && r.history[20] < r.history[0]));
/// assert!(runs.iter().all(|r| r.best.as_ref().unwrap().value <= r.history[20]));
/// // A task that fails under one contact model: that method's row holds the error.
/// let runs = compare(
///     &Method::paper(4, 0.1, 1),
///     &models,
///     &DVector::from_element(1, 1.0),
///     &paper_adam(1, 0.1),
///     5,
///     Stopping::default(),
///     |_settings| Ok(|x: &DVector<f64>| {
///         let r = (x[0] - 0.95).sqrt(); // NaN once Adam steps below 0.95
///         Ok((r, DVector::from_element(1, 0.5 / r)))
///     }),
///     |_, _| {},
/// );
/// assert!(runs.iter().all(|r| r.error.is_some() && r.history.len() < 6));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn compare<G: GradientSource>(
    methods: &[Method],
    models: &ContactModels,
    x0: &DVector<f64>,
    adam: &Adam,
    iterations: usize,
    stopping: Stopping,
    mut build: impl FnMut(&ContactSettings) -> Result<G>,
    mut progress: impl FnMut(&Method, Iterate<'_>),
) -> Vec<MethodRun> {
    methods
        .iter()
        .map(|method| {
            let started = Instant::now();
            let mut x = x0.clone();
            let run = build(method.settings(models))
                .and_then(|exact| method.source(exact, 0))
                .map(|mut source| {
                    descent(
                        &mut x,
                        &mut adam.clone(),
                        iterations,
                        &mut source,
                        stopping,
                        |it| progress(method, it),
                    )
                })
                .unwrap_or_else(|error| Descent {
                    history: Vec::new(),
                    best: None,
                    error: Some(error),
                });
            MethodRun {
                method: *method,
                history: run.history,
                parameters: x,
                best: run.best,
                seconds: started.elapsed().as_secs_f64(),
                error: run.error,
            }
        })
        .collect()
}
