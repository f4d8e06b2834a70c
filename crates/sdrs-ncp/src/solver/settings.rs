//! [`SolverSettings`]: tolerance, iteration limit and ADMM penalty, built and checked by
//! [`SolverSettingsBuilder`].

use crate::error::NcpError;

/// Settings of the ADMM solver; make them with [`SolverSettings::builder`] (checked) or take
/// [`SolverSettings::default`].
///
/// ```
/// use sdrs_ncp::SolverSettings;
/// let settings = SolverSettings::builder().tolerance(1e-10).max_iterations(500).build()?;
/// assert_eq!(settings.max_iterations(), 500);
/// assert!(SolverSettings::builder().tolerance(-1.0).build().is_err());
/// # Ok::<(), sdrs_ncp::NcpError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SolverSettings {
    tolerance: f64,
    max_iterations: usize,
    rho: Option<f64>,
    adaptive_rho: bool,
}

impl Default for SolverSettings {
    /// Tolerance 1e-9 on every residual, at most 2000 iterations, `ρ` the largest eigenvalue
    /// of the Delassus matrix, not adapted (residual balancing stalled on Solo-12's
    /// rank-deficient feet contacts; see [`SolverSettingsBuilder::adaptive_rho`]).
    fn default() -> Self {
        Self {
            tolerance: 1e-9,
            max_iterations: 2000,
            rho: None,
            adaptive_rho: false,
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

    /// The initial ADMM penalty `ρ`, if fixed by the user.
    pub fn rho(&self) -> Option<f64> {
        self.rho
    }

    /// Whether `ρ` is adapted by residual balancing.
    pub fn adaptive_rho(&self) -> bool {
        self.adaptive_rho
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

    /// Initial ADMM penalty `ρ` (finite, > 0); by default it is the largest eigenvalue of the
    /// Delassus matrix (estimated by power iteration).
    pub fn rho(mut self, rho: f64) -> Self {
        self.settings.rho = Some(rho);
        self
    }

    /// Adapt `ρ` by residual balancing (off by default: on Solo-12 standing, 16 contacts for
    /// 18 DoFs, it stalled at a residual of 1e-3 where the fixed `ρ` converges).
    pub fn adaptive_rho(mut self, adaptive: bool) -> Self {
        self.settings.adaptive_rho = adaptive;
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
        Ok(s)
    }
}
