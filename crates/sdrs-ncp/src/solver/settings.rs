//! [`SolverSettings`]: tolerance, iteration limit, the ADMM penalty and its spectral update,
//! the proximal term and the over-relaxation, built and checked by [`SolverSettingsBuilder`].

use crate::error::NcpError;

/// Settings of the ADMM solver; make them with [`SolverSettings::builder`] (checked) or take
/// [`SolverSettings::default`].
///
/// ```
/// use sdrs_ncp::SolverSettings;
/// let settings = SolverSettings::builder().tolerance(1e-10).max_iterations(500).build()?;
/// assert_eq!(settings.max_iterations(), 500);
/// assert!(SolverSettings::builder().tolerance(-1.0).build().is_err());
/// // The spectral penalty's knobs: proximal weight, initial power, its step, relaxation.
/// let tuned = SolverSettings::builder()
///     .proximal(1e-8)
///     .rho_power(0.2)
///     .rho_power_step(0.1)
///     .over_relaxation(1.2)
///     .build()?;
/// assert_eq!((tuned.proximal(), tuned.rho_power()), (1e-8, 0.2));
/// assert!(SolverSettings::builder().over_relaxation(2.0).build().is_err());
/// # Ok::<(), sdrs_ncp::NcpError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SolverSettings {
    tolerance: f64,
    max_iterations: usize,
    rho: Option<f64>,
    adaptive_rho: bool,
    proximal: f64,
    over_relaxation: f64,
    rho_power: f64,
    rho_power_step: f64,
}

impl Default for SolverSettings {
    /// Tolerance 1e-9 on every residual, at most 2000 iterations, proximal term `η` = 1e-6,
    /// no over-relaxation (`α` = 1), `ρ = √(L m) (L/m)^p` from the largest eigenvalue `L` of
    /// the Delassus matrix and `m = η` with `p` = 0.1, adapted in steps of 0.05 (see the
    /// [`admm`](super::admm) module docs for why these values).
    fn default() -> Self {
        Self {
            tolerance: 1e-9,
            max_iterations: 2000,
            rho: None,
            adaptive_rho: true,
            proximal: 1e-6,
            over_relaxation: 1.0,
            rho_power: 0.1,
            rho_power_step: 0.05,
        }
    }
}

impl SolverSettings {
    /// A builder starting from the defaults.
    pub fn builder() -> SolverSettingsBuilder {
        SolverSettingsBuilder {
            settings: Self::default(),
        }
    }

    /// The absolute tolerance on the primal, dual and complementarity residuals.
    pub fn tolerance(&self) -> f64 {
        self.tolerance
    }

    /// The iteration limit.
    pub fn max_iterations(&self) -> usize {
        self.max_iterations
    }

    /// The initial ADMM penalty `ρ`, if fixed by the user (otherwise the spectral rule).
    pub fn rho(&self) -> Option<f64> {
        self.rho
    }

    /// Whether `ρ` is adapted (by powers of the condition estimate `L/m`) when the primal and
    /// dual ADMM residuals drift apart.
    pub fn adaptive_rho(&self) -> bool {
        self.adaptive_rho
    }

    /// The proximal weight `η` of `½ η ‖λ − λ_prev‖²` added to the λ-step (regularises a
    /// singular Delassus matrix; also the smallest eigenvalue `m` of the spectral rule).
    pub fn proximal(&self) -> f64 {
        self.proximal
    }

    /// The over-relaxation factor `α` of the ADMM z- and u-steps.
    pub fn over_relaxation(&self) -> f64 {
        self.over_relaxation
    }

    /// The initial exponent `p` of the spectral rule `ρ = √(L m) (L/m)^p`.
    pub fn rho_power(&self) -> f64 {
        self.rho_power
    }

    /// The change of `p` at each adaptation of `ρ`.
    pub fn rho_power_step(&self) -> f64 {
        self.rho_power_step
    }
}

/// Builds [`SolverSettings`], checking every value in [`SolverSettingsBuilder::build`].
#[derive(Debug, Clone, Copy)]
pub struct SolverSettingsBuilder {
    settings: SolverSettings,
}

impl SolverSettingsBuilder {
    /// Absolute tolerance on every residual (finite, > 0).
    pub fn tolerance(mut self, tolerance: f64) -> Self {
        self.settings.tolerance = tolerance;
        self
    }

    /// Iteration limit (≥ 1).
    pub fn max_iterations(mut self, max_iterations: usize) -> Self {
        self.settings.max_iterations = max_iterations;
        self
    }

    /// Initial ADMM penalty `ρ` (finite, > 0); by default the spectral rule
    /// `√(L m) (L/m)^p` with `L` the largest eigenvalue of the Delassus matrix (by power
    /// iteration) and `m` the proximal weight.
    pub fn rho(mut self, rho: f64) -> Self {
        self.settings.rho = Some(rho);
        self
    }

    /// Adapt `ρ` when the primal and dual ADMM residuals differ by more than a factor 10, by
    /// the factor `(L/m)^Δp` with `Δp` the [`rho_power_step`](Self::rho_power_step) (on by
    /// default; off keeps the initial `ρ`).
    pub fn adaptive_rho(mut self, adaptive: bool) -> Self {
        self.settings.adaptive_rho = adaptive;
        self
    }

    /// Proximal weight `η` (finite, ≥ 0; default 1e-6): the λ-step minimises the augmented
    /// Lagrangian plus `½ η ‖λ − λ_prev‖²`. It keeps the spectral rule's `m = η` positive for a
    /// singular Delassus matrix; 0 turns the proximal term off.
    pub fn proximal(mut self, proximal: f64) -> Self {
        self.settings.proximal = proximal;
        self
    }

    /// Over-relaxation `α` (in [1, 2), default 1: plain ADMM; on the captured box towers and
    /// Solo-12 problems 1.2 and 1.5 needed more iterations, not fewer).
    pub fn over_relaxation(mut self, alpha: f64) -> Self {
        self.settings.over_relaxation = alpha;
        self
    }

    /// Initial exponent `p` of the spectral rule `ρ = √(L m) (L/m)^p` (in [−1, 1], default
    /// 0.1: on the captured problems 0.1 to 0.3 perform alike, on random rank-deficient ones
    /// 0.1 converged more often than 0.2).
    pub fn rho_power(mut self, power: f64) -> Self {
        self.settings.rho_power = power;
        self
    }

    /// Change of `p` per adaptation of `ρ` (in (0, 1], default 0.05).
    pub fn rho_power_step(mut self, step: f64) -> Self {
        self.settings.rho_power_step = step;
        self
    }

    /// The settings, or [`NcpError::InvalidSetting`] naming the first bad value.
    pub fn build(self) -> Result<SolverSettings, NcpError> {
        let s = self.settings;
        if !(s.tolerance.is_finite() && s.tolerance > 0.0) {
            return Err(NcpError::InvalidSetting {
                name: "tolerance",
                value: s.tolerance,
                allowed: "finite and > 0",
            });
        }
        if s.max_iterations == 0 {
            return Err(NcpError::InvalidSetting {
                name: "max_iterations",
                value: 0.0,
                allowed: ">= 1",
            });
        }
        if let Some(rho) = s.rho
            && !(rho.is_finite() && rho > 0.0)
        {
            return Err(NcpError::InvalidSetting {
                name: "rho",
                value: rho,
                allowed: "finite and > 0",
            });
        }
        if !(s.proximal.is_finite() && s.proximal >= 0.0) {
            return Err(NcpError::InvalidSetting {
                name: "proximal",
                value: s.proximal,
                allowed: "finite and >= 0",
            });
        }
        if !(1.0..2.0).contains(&s.over_relaxation) {
            return Err(NcpError::InvalidSetting {
                name: "over_relaxation",
                value: s.over_relaxation,
                allowed: "in [1, 2)",
            });
        }
        if !(-1.0..=1.0).contains(&s.rho_power) {
            return Err(NcpError::InvalidSetting {
                name: "rho_power",
                value: s.rho_power,
                allowed: "in [-1, 1]",
            });
        }
        if !(s.rho_power_step > 0.0 && s.rho_power_step <= 1.0) {
            return Err(NcpError::InvalidSetting {
                name: "rho_power_step",
                value: s.rho_power_step,
                allowed: "in (0, 1]",
            });
        }
        Ok(s)
    }
}
