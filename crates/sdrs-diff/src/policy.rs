//! Policies `u^t = π(θ^t, θ^{t−1}, t, c)`: the stable-PD targets of every step as functions
//! of parameters `c` (and, for feedback policies, of the state), with their vector-Jacobian
//! products ([`Policy::pullback`], for the adjoint) and Jacobian-vector products
//! ([`Policy::pushforward`], for tangents); dense Jacobians only on request
//! ([`Policy::derivatives`]).
//!
//! A policy sets the targets `θ*` and `θ̇*` that step `t` drives `θ^{t+1}` towards, and the
//! generalized forces `τ` it applies; the gains come from a base [`Control`] it holds. Three
//! open-loop families are provided: per-step targets or forces ([`OpenLoop`]: a step's
//! products touch its `m` parameters), sums of sine waves ([`SineWaves`]) and clamped cubic
//! B-splines over the horizon ([`CubicSpline`]: a step's products touch the 4 control values
//! of its span); the last two also set the velocity target to the time derivative of the
//! position target, as in the SDRS quadruped benchmark.

use crate::error::{DiffError, Result};
use nalgebra::{DMatrix, DVector};
use sdrs_dynamics::{Control, State};
use std::ops::AddAssign;
use std::sync::Arc;

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

/// A policy's dense derivatives at one step ([`Policy::derivatives`], built from
/// pullbacks): for inspection and tests. The adjoint and the tangents never form them; an
/// open-loop policy's `∂u/∂c` is `|θ| x (H·m)` per step.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyDerivatives {
    /// With respect to the parameters `c`.
    pub parameters: TargetJacobian,
    /// With respect to `θ^t` (`None` when it is zero: open-loop policies).
    pub current: Option<TargetJacobian>,
    /// With respect to `θ^{t−1}` (`None` when it is zero, and at the first step).
    pub previous: Option<TargetJacobian>,
}

/// A gradient with respect to one step's control: `(dL/dθ*, dL/dθ̇*, dL/dτ)`, `|θ|` each.
#[derive(Debug, Clone, Copy)]
pub struct ControlCotangent<'a> {
    /// `dL/dθ*` of the PD position targets.
    pub position: &'a DVector<f64>,
    /// `dL/dθ̇*` of the PD velocity targets.
    pub velocity: &'a DVector<f64>,
    /// `dL/dτ` of the generalized forces.
    pub force: &'a DVector<f64>,
}

/// The caller's gradient buffers a [`Policy::pullback`] adds to.
#[derive(Debug)]
pub struct PolicyGradient<'a> {
    /// `dL/dc` (`Policy::parameters()` entries).
    pub parameters: &'a mut DVector<f64>,
    /// `dL/dθ^t` (`|θ|` entries).
    pub current: &'a mut DVector<f64>,
    /// `dL/dθ^{t−1}` (`|θ|` entries; `None` at the first step).
    pub previous: Option<&'a mut DVector<f64>>,
}

/// Tangent directions of a policy's inputs, `k` columns each.
#[derive(Debug, Clone, Copy)]
pub struct PolicyTangent<'a> {
    /// `dc/ds` (`Policy::parameters()` x k).
    pub parameters: &'a DMatrix<f64>,
    /// `dθ^t/ds` (`|θ|` x k).
    pub current: &'a DMatrix<f64>,
    /// `dθ^{t−1}/ds` (`|θ|` x k; `None` at the first step).
    pub previous: Option<&'a DMatrix<f64>>,
}

/// Tangents of one step's control, `|θ| x k` each: what a [`Policy::pushforward`] adds to.
#[derive(Debug, Clone, PartialEq)]
pub struct ControlTangent {
    /// `dθ*/ds`.
    pub position: DMatrix<f64>,
    /// `dθ̇*/ds`.
    pub velocity: DMatrix<f64>,
    /// `dτ/ds`.
    pub force: DMatrix<f64>,
}

impl ControlTangent {
    /// All zero: `n` DoFs, `k` directions.
    pub fn zeros(n: usize, k: usize) -> Self {
        Self {
            position: DMatrix::zeros(n, k),
            velocity: DMatrix::zeros(n, k),
            force: DMatrix::zeros(n, k),
        }
    }
}

/// Shares a policy with the trajectory it records ([`crate::rollout_policy`]), so the backward
/// pass can pull back through it. Implemented for every `Clone` policy.
pub trait SharePolicy {
    /// A shared copy of this policy.
    fn share(&self) -> Arc<dyn Policy>;
}

impl<P: Policy + Clone + 'static> SharePolicy for P {
    fn share(&self) -> Arc<dyn Policy> {
        Arc::new(self.clone())
    }
}

/// A differentiable control policy: its controls and their vector-Jacobian products
/// ([`Policy::pullback`], reverse mode) and Jacobian-vector products ([`Policy::pushforward`],
/// forward mode). Neither forms a Jacobian, so an open-loop policy over `H` steps costs the
/// backward pass `O(m)` per step, not `O(|θ|·H·m)`. Implementors derive `Clone` (see
/// [`SharePolicy`]).
pub trait Policy: std::fmt::Debug + Send + Sync + SharePolicy {
    /// The number of parameters.
    fn parameters(&self) -> usize;

    /// The control of one step.
    fn control(&self, parameters: &DVector<f64>, input: &PolicyInput) -> Control;

    /// Adds `Jᵀ g` to `gradient` for the control's gradient `g = cotangent`: to `dL/dc`, and
    /// for feedback policies to `dL/dθ^t` and `dL/dθ^{t−1}`.
    fn pullback(
        &self,
        parameters: &DVector<f64>,
        input: &PolicyInput,
        cotangent: ControlCotangent,
        gradient: PolicyGradient,
    );

    /// Adds `J s` to `control` for the inputs' tangents `s = tangent`.
    fn pushforward(
        &self,
        parameters: &DVector<f64>,
        input: &PolicyInput,
        tangent: PolicyTangent,
        control: &mut ControlTangent,
    );

    /// The dense Jacobians of one step's control, one [`Policy::pullback`] per target and
    /// force component (`3·|θ|` in all). For inspection: the adjoint does not use them.
    ///
    /// ```
    /// use sdrs_diff::{OpenLoop, Policy, PolicyInput};
    /// use sdrs_dynamics::{State, scenes::chain};
    /// let scene = chain(2, 0.01)?;
    /// let policy = OpenLoop::new(scene.control.clone(), vec![1], 3)?;
    /// let state = State::zero(&scene.model);
    /// let input = PolicyInput { step: 1, time: 0.02, current: &state, previous: None };
    /// let d = policy.derivatives(&nalgebra::DVector::zeros(3), &input);
    /// // Step 1's parameter sets joint 1's target; no feedback.
    /// assert_eq!(d.parameters.position[(1, 1)], 1.0);
    /// assert_eq!(d.parameters.position.sum(), 1.0);
    /// assert!(d.current.is_none() && d.previous.is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn derivatives(&self, parameters: &DVector<f64>, input: &PolicyInput) -> PolicyDerivatives {
        let n = input.current.q.len();
        let mut out = [
            TargetJacobian::zeros(n, self.parameters()),
            TargetJacobian::zeros(n, n),
            TargetJacobian::zeros(n, n),
        ];
        let zero = DVector::zeros(n);
        let mut unit = DVector::zeros(n);
        for channel in 0..3 {
            for j in 0..n {
                unit[j] = 1.0;
                let mut rows = [
                    DVector::zeros(self.parameters()),
                    DVector::zeros(n),
                    DVector::zeros(n),
                ];
                let [dc, now, before] = &mut rows;
                let pick = |c: usize| if c == channel { &unit } else { &zero };
                self.pullback(
                    parameters,
                    input,
                    ControlCotangent {
                        position: pick(0),
                        velocity: pick(1),
                        force: pick(2),
                    },
                    PolicyGradient {
                        parameters: dc,
                        current: now,
                        previous: input.previous.map(|_| before),
                    },
                );
                for (jacobian, row) in out.iter_mut().zip(&rows) {
                    let block = match channel {
                        0 => &mut jacobian.position,
                        1 => &mut jacobian.velocity,
                        _ => &mut jacobian.force,
                    };
                    block.row_mut(j).tr_copy_from(row);
                }
                unit[j] = 0.0;
            }
        }
        let [parameters, current, previous] = out;
        let nonzero = |j: TargetJacobian| {
            let any = [&j.position, &j.velocity, &j.force]
                .iter()
                .any(|m| m.iter().any(|x| *x != 0.0));
            any.then_some(j)
        };
        PolicyDerivatives {
            parameters,
            current: nonzero(current),
            previous: nonzero(previous),
        }
    }

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

    /// The index of the first parameter that step `input.step` uses (the last step's past
    /// the horizon).
    fn first(&self, input: &PolicyInput) -> usize {
        input.step.min(self.steps - 1) * self.dofs.len()
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
        let first = self.first(input);
        let values = match self.channel {
            Channel::Position => &mut control.position,
            Channel::Force => &mut control.force,
        };
        for (a, &j) in self.dofs.iter().enumerate() {
            values[j] = parameters[first + a];
        }
        control
    }

    fn pullback(
        &self,
        _: &DVector<f64>,
        input: &PolicyInput,
        cotangent: ControlCotangent,
        gradient: PolicyGradient,
    ) {
        let first = self.first(input);
        let g = match self.channel {
            Channel::Position => cotangent.position,
            Channel::Force => cotangent.force,
        };
        for (a, &j) in self.dofs.iter().enumerate() {
            gradient.parameters[first + a] += g[j];
        }
    }

    fn pushforward(
        &self,
        _: &DVector<f64>,
        input: &PolicyInput,
        tangent: PolicyTangent,
        control: &mut ControlTangent,
    ) {
        let first = self.first(input);
        let rows = match self.channel {
            Channel::Position => &mut control.position,
            Channel::Force => &mut control.force,
        };
        for (a, &j) in self.dofs.iter().enumerate() {
            let mut row = rows.row_mut(j);
            row += tangent.parameters.row(first + a);
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

    fn pullback(
        &self,
        parameters: &DVector<f64>,
        input: &PolicyInput,
        cotangent: ControlCotangent,
        gradient: PolicyGradient,
    ) {
        for (a, &j) in self.dofs.iter().enumerate() {
            for w in 0..self.waves {
                let at = 3 * (a * self.waves + w);
                let (_, _, dx, dv) = Self::wave(&parameters.as_slice()[at..at + 3], input.time);
                for c in 0..3 {
                    gradient.parameters[at + c] +=
                        dx[c] * cotangent.position[j] + dv[c] * cotangent.velocity[j];
                }
            }
        }
    }

    fn pushforward(
        &self,
        parameters: &DVector<f64>,
        input: &PolicyInput,
        tangent: PolicyTangent,
        control: &mut ControlTangent,
    ) {
        for (a, &j) in self.dofs.iter().enumerate() {
            for w in 0..self.waves {
                let at = 3 * (a * self.waves + w);
                let (_, _, dx, dv) = Self::wave(&parameters.as_slice()[at..at + 3], input.time);
                for c in 0..3 {
                    let direction = tangent.parameters.row(at + c);
                    control.position.row_mut(j).add_assign(direction * dx[c]);
                    control.velocity.row_mut(j).add_assign(direction * dv[c]);
                }
            }
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

    /// The first control point whose basis function is non-zero at `u ∈ [0, 1]`, and the
    /// values and `u`-derivatives of the 4 basis functions from it on (the others vanish on
    /// the span).
    fn basis(&self, u: f64) -> (usize, [f64; 4], [f64; 4]) {
        let u = u.clamp(0.0, 1.0);
        let k = &self.knots;
        // The span with k[s] ≤ u < k[s+1] (the last non-empty span at u = 1).
        let s = (3..self.points).rev().find(|&s| k[s] <= u).unwrap_or(3);
        let first = s - 3;
        // Cox–de Boor, degree by degree: n[p][i − first] = N_{i,p}(u), non-zero for
        // i = s − p … s (slot 4 stays zero, for N_{s+1,p}).
        let mut n = [[0.0; 5]; 4];
        n[0][3] = 1.0;
        for p in 1..=3 {
            for i in s - p..=s {
                let left = if k[i + p] > k[i] {
                    (u - k[i]) / (k[i + p] - k[i]) * n[p - 1][i - first]
                } else {
                    0.0
                };
                let right = if k[i + p + 1] > k[i + 1] {
                    (k[i + p + 1] - u) / (k[i + p + 1] - k[i + 1]) * n[p - 1][i + 1 - first]
                } else {
                    0.0
                };
                n[p][i - first] = left + right;
            }
        }
        let mut value = [0.0; 4];
        let mut derivative = [0.0; 4];
        for r in 0..4 {
            let i = first + r;
            let a = if k[i + 3] > k[i] {
                3.0 / (k[i + 3] - k[i]) * n[2][r]
            } else {
                0.0
            };
            let b = if k[i + 4] > k[i + 1] {
                3.0 / (k[i + 4] - k[i + 1]) * n[2][r + 1]
            } else {
                0.0
            };
            value[r] = n[3][r];
            derivative[r] = a - b;
        }
        (first, value, derivative)
    }

    /// [`CubicSpline::basis`] at `time`, with time derivatives (zero past the end).
    fn at(&self, time: f64) -> (usize, [f64; 4], [f64; 4]) {
        let (first, value, mut rate) = self.basis(time / self.duration);
        let inside = time < self.duration;
        for r in &mut rate {
            *r = if inside { *r / self.duration } else { 0.0 };
        }
        (first, value, rate)
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
        let (first, value, rate) = self.at(input.time);
        let mut control = self.base.clone();
        for (a, &j) in self.dofs.iter().enumerate() {
            let c = parameters.rows(a * self.points + first, 4);
            control.position[j] = value.iter().zip(c.iter()).map(|(b, c)| b * c).sum();
            control.velocity[j] = rate.iter().zip(c.iter()).map(|(b, c)| b * c).sum();
        }
        control
    }

    fn pullback(
        &self,
        _: &DVector<f64>,
        input: &PolicyInput,
        cotangent: ControlCotangent,
        gradient: PolicyGradient,
    ) {
        let (first, value, rate) = self.at(input.time);
        for (a, &j) in self.dofs.iter().enumerate() {
            let at = a * self.points + first;
            for r in 0..4 {
                gradient.parameters[at + r] +=
                    value[r] * cotangent.position[j] + rate[r] * cotangent.velocity[j];
            }
        }
    }

    fn pushforward(
        &self,
        _: &DVector<f64>,
        input: &PolicyInput,
        tangent: PolicyTangent,
        control: &mut ControlTangent,
    ) {
        let (first, value, rate) = self.at(input.time);
        for (a, &j) in self.dofs.iter().enumerate() {
            let at = a * self.points + first;
            for r in 0..4 {
                let direction = tangent.parameters.row(at + r);
                control.position.row_mut(j).add_assign(direction * value[r]);
                control.velocity.row_mut(j).add_assign(direction * rate[r]);
            }
        }
    }
}
