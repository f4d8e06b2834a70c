//! Losses of a trajectory that know their partial derivatives: the [`Loss`] trait, weighted
//! sums and closure-based losses. The built-in losses are in `losses.rs`.

use crate::adjoint::LossGradient;
use crate::error::{DiffError, Result};
use crate::trajectory::Trajectory;
use nalgebra::DVector;
use sdrs_dynamics::{Model, State};

/// A loss `L(θ^0 … θ^H, u^0 … u^{H−1}, d)` of a trajectory: final-state terms, running terms
/// (per step state and control) and design terms. It supplies its value and its explicit
/// partial derivatives (a [`LossGradient`]: states held fixed; a point defined by hull
/// vertices moves with them, which is a design partial), which [`crate::adjoint`] turns into
/// total derivatives, or [`crate::Objective`] does in one call.
pub trait Loss: std::fmt::Debug {
    /// The value and partials for `trajectory` of `model` (the model with the trajectory's
    /// design).
    fn evaluate(&self, model: &Model, trajectory: &Trajectory) -> Result<(f64, LossGradient)>;
}

impl<L: Loss + ?Sized> Loss for Box<L> {
    fn evaluate(&self, model: &Model, trajectory: &Trajectory) -> Result<(f64, LossGradient)> {
        (**self).evaluate(model, trajectory)
    }
}

/// `Σ_k w_k L_k`: a weighted sum of losses.
///
/// ```
/// use sdrs_diff::{Effort, Loss, PointTarget, Recording, Sum, rollout};
/// use sdrs_dynamics::{Motion, Simulator, State, scenes::chain};
/// use nalgebra::{Point3, Vector3};
/// let scene = chain(2, 0.01)?;
/// let model = scene.model.clone();
/// let mut sim = Simulator::new(model.clone(), scene.settings)?;
/// let start = Motion::at_rest(&model, State::zero(&model));
/// let mut u = scene.control.clone();
/// u.force[0] = 0.1;
/// let t = rollout(&mut sim, &start, &vec![u; 5], Recording::States)?;
/// let tip = PointTarget::new(&model, "link1", Point3::new(0.0, 0.0, -0.1), Vector3::new(0.1, 0.0, -0.2))?;
/// let loss = Sum::new().with(1.0, tip).with(0.5, Effort::torque(1.0));
/// let (value, partials) = loss.evaluate(&model, &t)?;
/// // 0.5 · 5 steps · (0.1 N·m)² of effort, plus the tip's squared miss.
/// assert!(value > 0.025);
/// assert!((partials.force[2][0] - 0.5 * 2.0 * 0.1).abs() < 1e-12);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Default)]
pub struct Sum {
    terms: Vec<(f64, Box<dyn Loss>)>,
}

impl Sum {
    /// No terms (a zero loss).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `weight · loss`.
    pub fn with(mut self, weight: f64, loss: impl Loss + 'static) -> Self {
        self.terms.push((weight, Box::new(loss)));
        self
    }
}

impl Loss for Sum {
    fn evaluate(&self, model: &Model, trajectory: &Trajectory) -> Result<(f64, LossGradient)> {
        let mut gradient = LossGradient::zeros(model, trajectory.steps());
        let mut value = 0.0;
        for (k, (weight, loss)) in self.terms.iter().enumerate() {
            if !weight.is_finite() {
                return Err(DiffError::NonFinite {
                    what: "loss weights",
                    index: k,
                });
            }
            let (v, g) = loss.evaluate(model, trajectory)?;
            value += weight * v;
            gradient.add_scaled(*weight, &g)?;
        }
        Ok((value, gradient))
    }
}

/// A loss given by a closure that returns its value and partials (for anything the built-in
/// losses do not cover).
///
/// ```
/// use sdrs_diff::{Custom, Loss, LossGradient, Recording, rollout};
/// use sdrs_dynamics::{Motion, Simulator, State, scenes::chain};
/// let scene = chain(2, 0.01)?;
/// let model = scene.model.clone();
/// let mut sim = Simulator::new(model.clone(), scene.settings)?;
/// let start = Motion::at_rest(&model, State::zero(&model));
/// let t = rollout(&mut sim, &start, &vec![scene.control; 3], Recording::States)?;
/// // The final first joint angle.
/// let loss = Custom::new(|model, t| {
///     let mut g = LossGradient::zeros(model, t.steps());
///     g.states[t.steps()][0] = 1.0;
///     Ok((t.last().q[0], g))
/// });
/// assert_eq!(loss.evaluate(&model, &t)?.0, t.last().q[0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Custom<F> {
    function: F,
}

impl<F> Custom<F>
where
    F: Fn(&Model, &Trajectory) -> Result<(f64, LossGradient)>,
{
    /// The loss `function(model, trajectory) = (value, partials)`.
    pub fn new(function: F) -> Self {
        Self { function }
    }
}

impl<F> std::fmt::Debug for Custom<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Custom(closure)")
    }
}

impl<F> Loss for Custom<F>
where
    F: Fn(&Model, &Trajectory) -> Result<(f64, LossGradient)>,
{
    fn evaluate(&self, model: &Model, trajectory: &Trajectory) -> Result<(f64, LossGradient)> {
        let (value, gradient) = (self.function)(model, trajectory)?;
        if !value.is_finite() {
            return Err(DiffError::NonFinite {
                what: "custom loss value",
                index: 0,
            });
        }
        Ok((value, gradient))
    }
}

/// A loss of the final state's coordinates given by its value alone, `f(model, θ^H)`; the
/// partials `∂f/∂θ^H` are central differences with step `h` (2·|θ| evaluations of `f`).
///
/// Only the coordinates are differentiated: the partial with respect to the design is taken
/// as zero, so a value that depends on the design with the coordinates held (e.g. through
/// link poses whose attachments are designed) gets a wrong design gradient. Give partials
/// with [`Custom`] for such losses.
///
/// ```
/// use sdrs_diff::{FinalValue, Loss, Recording, rollout};
/// use sdrs_dynamics::{Motion, Simulator, State, scenes::chain};
/// let scene = chain(2, 0.01)?;
/// let model = scene.model.clone();
/// let mut sim = Simulator::new(model.clone(), scene.settings)?;
/// let start = Motion::at_rest(&model, State::zero(&model));
/// let t = rollout(&mut sim, &start, &vec![scene.control; 3], Recording::States)?;
/// let loss = FinalValue::new(|_, state| state.q.norm_squared(), 1e-6)?;
/// let (value, g) = loss.evaluate(&model, &t)?;
/// assert!((g.states[3][1] - 2.0 * t.last().q[1]).abs() < 1e-8);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct FinalValue<F> {
    function: F,
    h: f64,
}

impl<F> FinalValue<F>
where
    F: Fn(&Model, &State) -> f64,
{
    /// The loss `function(model, θ^H)`, differentiated with step `h > 0`.
    pub fn new(function: F, h: f64) -> Result<Self> {
        if !(h.is_finite() && h > 0.0) {
            return Err(DiffError::InvalidSetting {
                name: "finite-difference step",
                value: h,
                allowed: "positive and finite",
            });
        }
        Ok(Self { function, h })
    }
}

impl<F> std::fmt::Debug for FinalValue<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FinalValue(closure, h = {})", self.h)
    }
}

impl<F> Loss for FinalValue<F>
where
    F: Fn(&Model, &State) -> f64,
{
    fn evaluate(&self, model: &Model, trajectory: &Trajectory) -> Result<(f64, LossGradient)> {
        let last = trajectory.last();
        let finite = |what, value: f64| {
            if value.is_finite() {
                Ok(value)
            } else {
                Err(DiffError::NonFinite { what, index: 0 })
            }
        };
        let value = finite("final-state loss value", (self.function)(model, last))?;
        let mut shifted = last.clone();
        let mut at = |k: usize, s: f64| {
            shifted.q[k] = last.q[k] + s;
            let v = (self.function)(model, &shifted);
            shifted.q[k] = last.q[k];
            finite("final-state loss value near the final state", v)
        };
        let n = last.q.len();
        let mut partial = DVector::zeros(n);
        for k in 0..n {
            partial[k] = (at(k, self.h)? - at(k, -self.h)?) / (2.0 * self.h);
        }
        let mut gradient = LossGradient::zeros(model, trajectory.steps());
        gradient.states[trajectory.steps()] = partial;
        Ok((value, gradient))
    }
}
