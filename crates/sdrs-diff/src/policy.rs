//! Policies `u^t = π(θ^t, θ^{t−1}, t, c)`: the stable-PD targets of every step as functions
//! of parameters `c` (and, for feedback policies, of the state), with their derivatives.
//!
//! A policy sets the targets `θ*` and `θ̇*` that step `t` drives `θ^{t+1}` towards, and the
//! generalized forces `τ` it applies; the gains come from a base [`Control`] it holds. Three
//! open-loop families are provided: per-step targets or forces ([`OpenLoop`]), sums of sine waves ([`SineWaves`]) and clamped cubic B-splines over
//! the horizon ([`CubicSpline`]); the last two also set the velocity target to the time
//! derivative of the position target, as in the SDRS quadruped benchmark.

use crate::error::{DiffError, Result};
use nalgebra::{DMatrix, DVector};
use sdrs_dynamics::{Control, State};

/// What a policy sees at step `t`.
#[derive(Debug, Clone, Copy)]
pub struct PolicyInput<'a> {
    /// The step index `t` (its targets are for `θ^{t+1}`).
    pub step: usize,
    /// The time of `θ^{t+1}`: `(t + 1) Δt`.
    pub time: f64,
    /// `θ^t`.
    pub current: &'a State,
    /// `θ^{t−1}` (`None` at the first step).
    pub previous: Option<&'a State>,
}

/// Derivatives of a control with respect to one input: `∂θ*/∂y`, `∂θ̇*/∂y` and `∂τ/∂y`,
/// each `|θ| x dim(y)`.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetJacobian {
    /// `∂θ*/∂y`.
    pub position: DMatrix<f64>,
    /// `∂θ̇*/∂y`.
    pub velocity: DMatrix<f64>,
    /// `∂τ/∂y` of the generalized forces.
    pub force: DMatrix<f64>,
}

impl TargetJacobian {
    /// All zero: `n` DoFs, `inputs` columns.
    pub fn zeros(n: usize, inputs: usize) -> Self {
        Self {
            position: DMatrix::zeros(n, inputs),
            velocity: DMatrix::zeros(n, inputs),
            force: DMatrix::zeros(n, inputs),
        }
    }
}

/// A policy's derivatives at one step.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyDerivatives {
    /// With respect to the parameters `c`.
    pub parameters: TargetJacobian,
    /// With respect to `θ^t` (feedback policies only).
    pub current: Option<TargetJacobian>,
    /// With respect to `θ^{t−1}` (feedback policies only; ignored at the first step).
    pub previous: Option<TargetJacobian>,
}

/// A differentiable control policy.
pub trait Policy: std::fmt::Debug {
    /// The number of parameters.
    fn parameters(&self) -> usize;

    /// The control of one step.
    fn control(&self, parameters: &DVector<f64>, input: &PolicyInput) -> Control;

    /// The derivatives of the control's targets at one step.
    fn derivatives(&self, parameters: &DVector<f64>, input: &PolicyInput) -> PolicyDerivatives;

    /// Checks a parameter vector's length.
    fn check(&self, parameters: &DVector<f64>) -> Result<()> {
        if parameters.len() != self.parameters() {
            return Err(DiffError::LengthMismatch {
                what: "policy parameters",
                actual: parameters.len(),
                expected: self.parameters(),
            });
        }
        if let Some(index) = parameters.iter().position(|x| !x.is_finite()) {
            return Err(DiffError::NonFinite {
                what: "policy parameters",
                index,
            });
        }
        Ok(())
    }
}

/// The DoFs a policy drives, checked against the base control's size.
fn check_dofs(base: &Control, dofs: &[usize]) -> Result<()> {
    let n = base.kp.len();
    match dofs.iter().find(|&&j| j >= n) {
        Some(&j) => Err(DiffError::OutOfRange {
            what: "actuated DoF",
            index: j,
            len: n,
        }),
        None => Ok(()),
    }
}

/// What an [`OpenLoop`] policy sets at every step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    /// The PD position targets `θ*`.
    Position,
    /// The generalized forces `τ` (joint torques and forces).
    Force,
}

/// Per-step position targets (or generalized forces, [`OpenLoop::forces`]) of the actuated
/// DoFs, `steps x dofs` parameters (step-major); everything else is the base control's.
///
/// ```
/// use sdrs_diff::{OpenLoop, Policy, PolicyInput};
/// use sdrs_dynamics::{State, scenes::chain};
/// let scene = chain(2, 0.01)?;
/// let policy = OpenLoop::new(scene.control.clone(), vec![1], 3)?;
/// let c = nalgebra::DVector::from_vec(vec![0.1, 0.2, 0.3]);
/// let state = State::zero(&scene.model);
/// let input = PolicyInput { step: 1, time: 0.02, current: &state, previous: None };
/// assert_eq!(policy.control(&c, &input).position[1], 0.2);
/// // The same with torques: 0.2 N·m on the second joint at step 1.
/// let torques = OpenLoop::forces(scene.control.clone(), vec![1], 3)?;
/// assert_eq!(torques.control(&c, &input).force[1], 0.2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct OpenLoop {
    base: Control,
    dofs: Vec<usize>,
    steps: usize,
    channel: Channel,
}

impl OpenLoop {
    /// Targets for `dofs` over `steps` steps, gains and other targets from `base`.
    pub fn new(base: Control, dofs: Vec<usize>, steps: usize) -> Result<Self> {
        Self::with_channel(base, dofs, steps, Channel::Position)
    }

    /// Generalized forces on `dofs` over `steps` steps (the parameters replace `base.force`
    /// on those DoFs); gains and targets from `base`.
    pub fn forces(base: Control, dofs: Vec<usize>, steps: usize) -> Result<Self> {
        Self::with_channel(base, dofs, steps, Channel::Force)
    }

    /// Values of `channel` for `dofs` over `steps` steps.
    pub fn with_channel(
        base: Control,
        dofs: Vec<usize>,
        steps: usize,
        channel: Channel,
    ) -> Result<Self> {
        check_dofs(&base, &dofs)?;
        if steps == 0 || dofs.is_empty() {
            return Err(DiffError::InvalidSetting {
                name: "open-loop steps x actuated DoFs",
                value: (steps * dofs.len()) as f64,
                allowed: "at least one step and one DoF",
            });
        }
        Ok(Self {
            base,
            dofs,
            steps,
            channel,
        })
    }

    /// The parameters that hold the base control's targets (or forces) at every step.
    pub fn initial(&self) -> DVector<f64> {
        let base = self.channel_of(&self.base);
        DVector::from_fn(self.parameters(), |k, _| {
            base[self.dofs[k % self.dofs.len()]]
        })
    }

    fn channel_of<'c>(&self, control: &'c Control) -> &'c DVector<f64> {
        match self.channel {
            Channel::Position => &control.position,
            Channel::Force => &control.force,
        }
    }
}

impl Policy for OpenLoop {
    fn parameters(&self) -> usize {
        self.steps * self.dofs.len()
    }

    fn control(&self, parameters: &DVector<f64>, input: &PolicyInput) -> Control {
        let mut control = self.base.clone();
        let m = self.dofs.len();
        let step = input.step.min(self.steps - 1);
        let values = match self.channel {
            Channel::Position => &mut control.position,
            Channel::Force => &mut control.force,
        };
        for (a, &j) in self.dofs.iter().enumerate() {
            values[j] = parameters[step * m + a];
        }
        control
    }

    fn derivatives(&self, _: &DVector<f64>, input: &PolicyInput) -> PolicyDerivatives {
        let (n, m) = (self.base.kp.len(), self.dofs.len());
        let mut jacobian = TargetJacobian::zeros(n, self.parameters());
        let block = match self.channel {
            Channel::Position => &mut jacobian.position,
            Channel::Force => &mut jacobian.force,
        };
        if input.step < self.steps {
            for (a, &j) in self.dofs.iter().enumerate() {
                block[(j, input.step * m + a)] = 1.0;
            }
        }
        PolicyDerivatives {
            parameters: jacobian,
            current: None,
            previous: None,
        }
    }
}

/// Per actuated DoF `j`, a sum of `waves` sines added to the base position target:
/// `θ*_j(τ) = θ*_base,j + Σ_w a_w sin(ω_w τ + φ_w)` and `θ̇*_j(τ) = Σ_w a_w ω_w cos(ω_w τ + φ_w)`.
/// Parameters: `(a, ω, φ)` per wave, waves of a DoF together, DoFs in order.
///
/// ```
/// use sdrs_diff::{Policy, PolicyInput, SineWaves};
/// use sdrs_dynamics::{State, scenes::chain};
/// let scene = chain(2, 0.01)?;
/// let policy = SineWaves::new(scene.control.clone(), vec![0], 1)?;
/// // a = 0.5, ω = π rad/s, φ = 0: at t = 0.5 s the target is base + 0.5, moving at 0.
/// let c = nalgebra::DVector::from_vec(vec![0.5, std::f64::consts::PI, 0.0]);
/// let state = State::zero(&scene.model);
/// let input = PolicyInput { step: 49, time: 0.5, current: &state, previous: None };
/// let u = policy.control(&c, &input);
/// assert!((u.position[0] - (scene.control.position[0] + 0.5)).abs() < 1e-12);
/// assert!(u.velocity[0].abs() < 1e-12);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct SineWaves {
    base: Control,
    dofs: Vec<usize>,
    waves: usize,
}

impl SineWaves {
    /// `waves` sines on each of `dofs`, gains and base targets from `base`.
    pub fn new(base: Control, dofs: Vec<usize>, waves: usize) -> Result<Self> {
        check_dofs(&base, &dofs)?;
        Ok(Self { base, dofs, waves })
    }

    /// `(target, its time derivative, their 3 partials each)` of one wave at time `tau`.
    fn wave(p: &[f64], tau: f64) -> (f64, f64, [f64; 3], [f64; 3]) {
        let (a, w, phi) = (p[0], p[1], p[2]);
        let (s, c) = (w * tau + phi).sin_cos();
        (
            a * s,
            a * w * c,
            [s, a * tau * c, a * c],
            [w * c, a * c - a * w * tau * s, -a * w * s],
        )
    }
}

impl Policy for SineWaves {
    fn parameters(&self) -> usize {
        3 * self.waves * self.dofs.len()
    }

    fn control(&self, parameters: &DVector<f64>, input: &PolicyInput) -> Control {
        let mut control = self.base.clone();
        for (a, &j) in self.dofs.iter().enumerate() {
            for w in 0..self.waves {
                let at = 3 * (a * self.waves + w);
                let (x, v, _, _) = Self::wave(&parameters.as_slice()[at..at + 3], input.time);
                control.position[j] += x;
                control.velocity[j] += v;
            }
        }
        control
    }

    fn derivatives(&self, parameters: &DVector<f64>, input: &PolicyInput) -> PolicyDerivatives {
        let n = self.base.kp.len();
        let mut position = DMatrix::zeros(n, self.parameters());
        let mut velocity = DMatrix::zeros(n, self.parameters());
        for (a, &j) in self.dofs.iter().enumerate() {
            for w in 0..self.waves {
                let at = 3 * (a * self.waves + w);
                let (_, _, dx, dv) = Self::wave(&parameters.as_slice()[at..at + 3], input.time);
                for c in 0..3 {
                    position[(j, at + c)] = dx[c];
                    velocity[(j, at + c)] = dv[c];
                }
            }
        }
        PolicyDerivatives {
            parameters: TargetJacobian {
                position,
                velocity,
                force: DMatrix::zeros(n, self.parameters()),
            },
            current: None,
            previous: None,
        }
    }
}

/// Per actuated DoF, a clamped uniform cubic B-spline over `[0, duration]` with `points`
/// control values: the position target is the spline, the velocity target its time
/// derivative (after the duration both hold the end value and zero). With 4 points the spline
/// is one cubic (a Bézier curve), the SDRS chain benchmark's controller. Parameters: the
/// control values of each DoF together, DoFs in order.
///
/// ```
/// use sdrs_diff::{CubicSpline, Policy, PolicyInput};
/// use sdrs_dynamics::{State, scenes::chain};
/// let scene = chain(2, 0.01)?;
/// let policy = CubicSpline::new(scene.control.clone(), vec![0], 4, 1.0)?;
/// let c = nalgebra::DVector::from_vec(vec![0.0, 1.0, 1.0, 0.0]);
/// let state = State::zero(&scene.model);
/// let input = PolicyInput { step: 49, time: 0.5, current: &state, previous: None };
/// // The Bézier curve of (0, 1, 1, 0) peaks at 3/4 halfway.
/// assert!((policy.control(&c, &input).position[0] - 0.75).abs() < 1e-12);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct CubicSpline {
    base: Control,
    dofs: Vec<usize>,
    points: usize,
    duration: f64,
    knots: Vec<f64>,
}

impl CubicSpline {
    /// `points ≥ 4` control values per DoF in `dofs` over `duration` seconds.
    pub fn new(base: Control, dofs: Vec<usize>, points: usize, duration: f64) -> Result<Self> {
        check_dofs(&base, &dofs)?;
        if points < 4 {
            return Err(DiffError::InvalidSetting {
                name: "spline control points",
                value: points as f64,
                allowed: "at least 4 (a cubic)",
            });
        }
        if !(duration.is_finite() && duration > 0.0) {
            return Err(DiffError::InvalidSetting {
                name: "spline duration",
                value: duration,
                allowed: "positive and finite",
            });
        }
        // Clamped uniform knots: 4 at each end, `points − 4` evenly inside.
        let spans = (points - 3) as f64;
        let knots = (0..points + 4)
            .map(|i| (i.saturating_sub(3).min(points - 3) as f64) / spans)
            .collect();
        Ok(Self {
            base,
            dofs,
            points,
            duration,
            knots,
        })
    }

    /// The basis values and their derivatives in `u ∈ [0, 1]` of every control point.
    fn basis(&self, u: f64) -> (Vec<f64>, Vec<f64>) {
        let u = u.clamp(0.0, 1.0);
        let k = &self.knots;
        // The span with k[s] ≤ u < k[s+1] (the last non-empty span at u = 1).
        let s = (3..self.points).rev().find(|&s| k[s] <= u).unwrap_or(3);
        // Cox–de Boor, degree by degree, over the 4 functions non-zero on span s.
        let mut n = vec![vec![0.0; self.points + 4]; 4];
        n[0][s] = 1.0;
        for p in 1..=3 {
            for i in s.saturating_sub(p)..=s {
                let left = if k[i + p] > k[i] {
                    (u - k[i]) / (k[i + p] - k[i]) * n[p - 1][i]
                } else {
                    0.0
                };
                let right = if k[i + p + 1] > k[i + 1] {
                    (k[i + p + 1] - u) / (k[i + p + 1] - k[i + 1]) * n[p - 1][i + 1]
                } else {
                    0.0
                };
                n[p][i] = left + right;
            }
        }
        let derivative = (0..self.points)
            .map(|i| {
                let a = if k[i + 3] > k[i] {
                    3.0 / (k[i + 3] - k[i]) * n[2][i]
                } else {
                    0.0
                };
                let b = if k[i + 4] > k[i + 1] {
                    3.0 / (k[i + 4] - k[i + 1]) * n[2][i + 1]
                } else {
                    0.0
                };
                a - b
            })
            .collect();
        (n[3][..self.points].to_vec(), derivative)
    }

    /// Values and time derivatives of the basis at `time` (zero derivative past the end).
    fn at(&self, time: f64) -> (Vec<f64>, Vec<f64>) {
        let (value, mut rate) = self.basis(time / self.duration);
        let inside = time < self.duration;
        for r in &mut rate {
            *r = if inside { *r / self.duration } else { 0.0 };
        }
        (value, rate)
    }

    /// Control values that hold each actuated DoF at its base target.
    pub fn initial(&self) -> DVector<f64> {
        DVector::from_fn(self.parameters(), |k, _| {
            self.base.position[self.dofs[k / self.points]]
        })
    }
}

impl Policy for CubicSpline {
    fn parameters(&self) -> usize {
        self.points * self.dofs.len()
    }

    fn control(&self, parameters: &DVector<f64>, input: &PolicyInput) -> Control {
        let (value, rate) = self.at(input.time);
        let mut control = self.base.clone();
        for (a, &j) in self.dofs.iter().enumerate() {
            let c = parameters.rows(a * self.points, self.points);
            control.position[j] = value.iter().zip(c.iter()).map(|(b, c)| b * c).sum();
            control.velocity[j] = rate.iter().zip(c.iter()).map(|(b, c)| b * c).sum();
        }
        control
    }

    fn derivatives(&self, _: &DVector<f64>, input: &PolicyInput) -> PolicyDerivatives {
        let (value, rate) = self.at(input.time);
        let n = self.base.kp.len();
        let mut position = DMatrix::zeros(n, self.parameters());
        let mut velocity = DMatrix::zeros(n, self.parameters());
        for (a, &j) in self.dofs.iter().enumerate() {
            for i in 0..self.points {
                position[(j, a * self.points + i)] = value[i];
                velocity[(j, a * self.points + i)] = rate[i];
            }
        }
        PolicyDerivatives {
            parameters: TargetJacobian {
                position,
                velocity,
                force: DMatrix::zeros(n, self.parameters()),
            },
            current: None,
            previous: None,
        }
    }
}
