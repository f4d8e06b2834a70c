//! The two line searches of a Newton iteration ([`super::newton`]).
//!
//! [`Simulator::backtrack`] is the usual one: from the longest step the contact model allows,
//! halve until the objective is finite (no penetration, every limit respected) and decreases
//! enough (Armijo). It is what keeps every accepted state collision-free.
//!
//! Near the solution the decrease a step promises can fall below the round-off of the energy
//! (a sum of terms far larger than the decrease, some from inner solves): the energy can no
//! longer judge steps, but the gradient still can. [`Simulator::shrink_gradient`] then accepts
//! the longest of a few steps that is collision-free and shrinks `|∇O|∞`.

use super::Simulator;
use super::convergence::resolvable_change;
use super::evaluation::{Evaluation, Needs, StepData};
use crate::error::Result;
use crate::kinematics::State;
use crate::model::Model;
use nalgebra::DVector;

/// Armijo's sufficient-decrease constant.
const ARMIJO: f64 = 1e-4;
/// Halvings of [`Simulator::backtrack`] before it gives up.
const HALVINGS: usize = 60;
/// Halvings of [`Simulator::shrink_gradient`] before it gives up.
const GRADIENT_HALVINGS: usize = 8;

/// A Newton iterate, evaluated, and the direction its line searches look along.
pub(super) struct Line<'a> {
    pub(super) state: &'a State,
    pub(super) eval: &'a Evaluation,
    pub(super) direction: &'a DVector<f64>,
    /// The longest step along `direction` the contact model allows.
    pub(super) longest: f64,
}

impl Line<'_> {
    /// The trial `state + step·direction`, re-centred ([`State::recentred`]): the same poses,
    /// with the rotation coordinates of free and spherical joints back at the centre of their
    /// chart. Newton continues from an accepted trial in that chart, and a step that converges
    /// there needs no evaluation in a new chart (a floating base's third evaluation).
    fn trial(&self, model: &Model, step: f64) -> State {
        let mut trial = self.state.clone();
        trial.q.axpy(step, self.direction, 1.0);
        trial.recentre(model);
        trial
    }
}

/// What [`Simulator::backtrack`] found.
pub(super) struct Backtracked {
    /// The accepted trial, with its full evaluation if it was the first trial (evaluated with
    /// its Hessian straight away: the full step is usually accepted).
    pub(super) accepted: Option<(State, Option<Evaluation>)>,
    /// The last step length tried (the accepted one if any).
    pub(super) step: f64,
}

impl Simulator {
    /// Armijo backtracking along `line` (directional derivative `slope`), starting at its
    /// longest step. Halving stops once the decrease a
    /// step promises is below the energy's round-off: there a "decrease" is luck, and accepting
    /// it stalls Newton on steps of 2^-30 (seen with stiff friction near the solution); the
    /// gradient test of [`Simulator::shrink_gradient`] judges instead. `trials` counts the
    /// evaluated trial states.
    pub(super) fn backtrack(
        &mut self,
        line: &Line,
        slope: f64,
        data: &StepData,
        trials: &mut usize,
    ) -> Result<Backtracked> {
        let (eval, mut step) = (line.eval, line.longest);
        let resolvable = resolvable_change(eval.value);
        for attempt in 0..HALVINGS {
            if step * slope.abs() < resolvable {
                break;
            }
            let trial = line.trial(&self.model, step);
            *trials += 1;
            match self.evaluate(&trial, data, Needs::full_if(attempt == 0))? {
                Ok(e) if e.value <= eval.value + ARMIJO * step * slope => {
                    let kept = if attempt == 0 {
                        Some(e)
                    } else {
                        self.recycle(e);
                        None
                    };
                    return Ok(Backtracked {
                        accepted: Some((trial, kept)),
                        step,
                    });
                }
                Ok(e) => self.recycle(e),
                Err(_) => {}
            }
            step *= 0.5;
        }
        Ok(Backtracked {
            accepted: None,
            step,
        })
    }

    /// The longest of the longest step, its half, … (a few halvings) along `line` that is
    /// collision-free and shrinks `|∇O|∞` below the iterate's, with its full evaluation and its
    /// length.
    pub(super) fn shrink_gradient(
        &mut self,
        line: &Line,
        data: &StepData,
        trials: &mut usize,
    ) -> Result<Option<(State, Evaluation, f64)>> {
        let mut step = line.longest;
        for _ in 0..GRADIENT_HALVINGS {
            let trial = line.trial(&self.model, step);
            *trials += 1;
            match self.evaluate(&trial, data, Needs::Hessian)? {
                Ok(e) if e.gradient.amax() < line.eval.gradient.amax() => {
                    return Ok(Some((trial, e, step)));
                }
                Ok(e) => self.recycle(e),
                Err(_) => {}
            }
            step *= 0.5;
        }
        Ok(None)
    }
}
