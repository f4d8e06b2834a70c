//! [`NcpSettings`]: time step, gravity, friction, contact margin and drift correction, the
//! optional ground half-space and the solver's settings; every setter checks its value.

use crate::error::NcpError;
use crate::solver::SolverSettings;
use nalgebra::Vector3;

/// Settings of [`super::NcpSimulator`].
///
/// ```
/// use sdrs_ncp::NcpSettings;
/// use nalgebra::Vector3;
/// let settings = NcpSettings::new(1e-3)?.with_friction(0.4)?.with_ground(Vector3::z(), 0.0)?;
/// assert_eq!(settings.friction(), 0.4);
/// assert!(NcpSettings::new(0.0).is_err());
/// # Ok::<(), sdrs_ncp::NcpError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NcpSettings {
    dt: f64,
    gravity: Vector3<f64>,
    friction: f64,
    margin: f64,
    penetration_tolerance: f64,
    baumgarte: f64,
    ground: Option<(Vector3<f64>, f64)>,
    solver: SolverSettings,
    mode_tolerance: f64,
    warm_start: bool,
}

fn invalid(name: &'static str, value: f64, allowed: &'static str) -> NcpError {
    NcpError::InvalidSetting {
        name,
        value,
        allowed,
    }
}

impl NcpSettings {
    /// Time step `dt` (finite, > 0); gravity `(0, 0, −9.81)`, friction 0.5, contact margin
    /// 1 cm, penetration tolerance 0.1 mm, Baumgarte factor 0.2, no ground half-space, the
    /// solver's defaults with tolerance 1e-12 and a mode tolerance of 1e-6.
    ///
    /// The solver's tolerance is tighter than its default because step impulses are small
    /// (m g Δt): the complementarity residual `|λ·σ̂|` ≤ 1e-9 would leave contact velocities
    /// of 1e-7 m/s under a 1 kg box at Δt = 1 ms.
    pub fn new(dt: f64) -> Result<Self, NcpError> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(invalid("dt", dt, "finite and > 0"));
        }
        Ok(Self {
            dt,
            gravity: Vector3::new(0.0, 0.0, -9.81),
            friction: 0.5,
            margin: 1e-2,
            penetration_tolerance: 1e-4,
            baumgarte: 0.2,
            ground: None,
            solver: SolverSettings::builder()
                .tolerance(1e-12)
                .build()
                .expect("valid solver settings"),
            mode_tolerance: 1e-6,
            warm_start: true,
        })
    }

    /// Gravity, a world acceleration (finite).
    pub fn with_gravity(mut self, gravity: Vector3<f64>) -> Result<Self, NcpError> {
        if let Some(g) = gravity.iter().find(|g| !g.is_finite()) {
            return Err(invalid("gravity", *g, "finite"));
        }
        self.gravity = gravity;
        Ok(self)
    }

    /// The friction coefficient of every contact (finite, ≥ 0).
    pub fn with_friction(mut self, mu: f64) -> Result<Self, NcpError> {
        if !(mu.is_finite() && mu >= 0.0) {
            return Err(invalid("friction", mu, "finite and >= 0"));
        }
        self.friction = mu;
        Ok(self)
    }

    /// Contact margin (finite, ≥ 0): points closer than this enter the NCP (as speculative
    /// contacts while apart); it should exceed the distance a body travels in one step.
    pub fn with_margin(mut self, margin: f64) -> Result<Self, NcpError> {
        if !(margin.is_finite() && margin >= 0.0) {
            return Err(invalid("margin", margin, "finite and >= 0"));
        }
        self.margin = margin;
        Ok(self)
    }

    /// Drift correction: the penetration tolerated without correction (finite, ≥ 0) and the
    /// fraction of the excess removed per step (Baumgarte factor, in [0, 1]).
    pub fn with_drift_correction(
        mut self,
        tolerance: f64,
        baumgarte: f64,
    ) -> Result<Self, NcpError> {
        if !(tolerance.is_finite() && tolerance >= 0.0) {
            return Err(invalid(
                "penetration_tolerance",
                tolerance,
                "finite and >= 0",
            ));
        }
        if !(0.0..=1.0).contains(&baumgarte) {
            return Err(invalid("baumgarte", baumgarte, "in [0, 1]"));
        }
        self.penetration_tolerance = tolerance;
        self.baumgarte = baumgarte;
        Ok(self)
    }

    /// A ground half-space `{x : n̂·x ≤ offset}` with outward normal `normal` (finite, not
    /// zero; normalised here) that every moving hull touches.
    pub fn with_ground(mut self, normal: Vector3<f64>, offset: f64) -> Result<Self, NcpError> {
        let length = normal.norm();
        if !(length.is_finite() && length > 0.0) {
            return Err(invalid("ground normal (norm)", length, "finite and > 0"));
        }
        if !offset.is_finite() {
            return Err(invalid("ground offset", offset, "finite"));
        }
        self.ground = Some((normal / length, offset));
        Ok(self)
    }

    /// The NCP solver's settings.
    pub fn with_solver(mut self, solver: SolverSettings) -> Self {
        self.solver = solver;
        self
    }

    /// Tolerance of the contact-mode classification in the step report (finite, > 0).
    pub fn with_mode_tolerance(mut self, tolerance: f64) -> Result<Self, NcpError> {
        if !(tolerance.is_finite() && tolerance > 0.0) {
            return Err(invalid("mode_tolerance", tolerance, "finite and > 0"));
        }
        self.mode_tolerance = tolerance;
        Ok(self)
    }

    /// The time step.
    pub fn dt(&self) -> f64 {
        self.dt
    }
    /// Gravity.
    pub fn gravity(&self) -> Vector3<f64> {
        self.gravity
    }
    /// The friction coefficient.
    pub fn friction(&self) -> f64 {
        self.friction
    }
    /// The contact margin.
    pub fn margin(&self) -> f64 {
        self.margin
    }
    /// The penetration tolerated without correction.
    pub fn penetration_tolerance(&self) -> f64 {
        self.penetration_tolerance
    }
    /// The Baumgarte factor.
    pub fn baumgarte(&self) -> f64 {
        self.baumgarte
    }
    /// The ground half-space (unit normal, offset), if any.
    pub fn ground(&self) -> Option<(Vector3<f64>, f64)> {
        self.ground
    }
    /// The solver's settings.
    pub fn solver(&self) -> &SolverSettings {
        &self.solver
    }
    /// The contact-mode tolerance.
    pub fn mode_tolerance(&self) -> f64 {
        self.mode_tolerance
    }

    /// Whether each step's solve starts from the previous step's impulses (the default) or
    /// from zero. Cold starts make a step a function of its inputs alone, which finite
    /// differences of rollouts need: the solver's residuals are of second order in a sliding
    /// contact's friction direction, so two warm starts can stop at directions a few 1e-6 apart
    /// at a 1e-13 tolerance.
    pub fn with_warm_start(mut self, warm_start: bool) -> Self {
        self.warm_start = warm_start;
        self
    }

    /// See [`NcpSettings::with_warm_start`].
    pub fn warm_start(&self) -> bool {
        self.warm_start
    }

    /// `c/Δt`'s numerator for a contact of separation `s` (see the [stepper's
    /// docs](super)): `c = s + ε` when `c ≥ 0` (the gap that may close this step), else `β c`
    /// (the Baumgarte fraction of the excess penetration).
    pub(crate) fn drift(&self, separation: f64) -> f64 {
        let c = separation + self.penetration_tolerance;
        c * self.drift_slope(separation)
    }

    /// `dc/ds` of [`NcpSettings::drift`]: 1 for a speculative contact, `β` under Baumgarte
    /// correction.
    pub(crate) fn drift_slope(&self, separation: f64) -> f64 {
        if separation + self.penetration_tolerance >= 0.0 {
            1.0
        } else {
            self.baumgarte
        }
    }
}
