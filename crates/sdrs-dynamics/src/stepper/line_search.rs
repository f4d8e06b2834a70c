//! The two line searches of a Newton iteration ([`super::newton`]).
//!
//! [`Simulator::backtrack`] is the usual one: from the step the contact model bounds Newton's
//! to ([`Simulator::step_bound`]), halve until the objective is finite (no penetration, every limit respected) and decreases
//! enough (Armijo). It is what keeps every accepted state collision-free. When the halving
//! overshot a kink of the objective (a sliding contact coming to stick), it tries the kink
//! itself, located from the trials on either side ([`kink_estimate`]).
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
/// A kink estimate beyond this fraction of Armijo's step is not tried ([`kink_estimate`]).
const NEAR_KINK: f64 = 0.875;
/// Halvings of [`Simulator::shrink_gradient`] before it gives up.
const GRADIENT_HALVINGS: usize = 8;

/// A Newton iterate, evaluated, and the direction its line searches look along.
pub(super) struct Line<'a> {
    pub(super) state: &'a State,
    pub(super) eval: &'a Evaluation,
    pub(super) direction: &'a DVector<f64>,
    /// The step along `direction` the line searches start from
    /// ([`Simulator::step_bound`]).
    pub(super) longest: f64,
}

impl Line<'_> {
    /// The trial `state + step·direction`, re-centred ([`State::recentred`]): the same poses,
    /// with the rotation coordinates of free and spherical joints back at the centre of their
    /// chart. Newton continues from an accepted trial in that chart, and a step that converges
    /// there needs no evaluation in a new chart (a floating base's third evaluation).
    pub(super) fn trial(&self, model: &Model, step: f64) -> State {
        let mut trial = self.state.moved(self.direction, step);
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
    /// longest step; a cut step is replaced by the kink it overshot ([`kink_estimate`]) when
    /// the objective is lower there. Halving stops once the decrease a
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
        // The last trial rejected with a finite value: (step, value).
        let mut rejected: Option<(f64, f64)> = None;
        for attempt in 0..HALVINGS {
            if step * slope.abs() < resolvable {
                break;
            }
            let trial = line.trial(&self.model, step);
            *trials += 1;
            match self.evaluate(&trial, data, Needs::full_if(attempt == 0))? {
                Ok(e) if e.value <= eval.value + ARMIJO * step * slope => {
                    if attempt == 0 {
                        return Ok(Backtracked {
                            accepted: Some((trial, Some(e))),
                            step,
                        });
                    }
                    let value = e.value;
                    self.recycle(e);
                    // A cut step may have overshot a kink: try the kink itself.
                    let kink = rejected
                        .and_then(|beyond| kink_estimate(eval.value, slope, (step, value), beyond));
                    let lower = match kink {
                        Some(kink) => self.lower_trial(line, kink, value, data, trials)?,
                        None => None,
                    };
                    let (trial, step) = lower.unwrap_or((trial, step));
                    return Ok(Backtracked {
                        accepted: Some((trial, None)),
                        step,
                    });
                }
                Ok(e) => {
                    rejected = Some((step, e.value));
                    self.recycle(e);
                }
                Err(_) => {}
            }
            step *= 0.5;
        }
        Ok(Backtracked {
            accepted: None,
            step,
        })
    }

    /// The trial at `step` along `line` and its length, if its value is finite and below
    /// `value`.
    fn lower_trial(
        &mut self,
        line: &Line,
        step: f64,
        value: f64,
        data: &StepData,
        trials: &mut usize,
    ) -> Result<Option<(State, f64)>> {
        let trial = line.trial(&self.model, step);
        *trials += 1;
        Ok(match self.evaluate(&trial, data, Needs::Value)? {
            Ok(e) => {
                let lower = e.value < value;
                self.recycle(e);
                lower.then_some((trial, step))
            }
            Err(_) => None,
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

/// Where along a line the objective has the kink that cut Armijo's step, if it has one: from
/// the value `e0` and slope `slope` at the start, the accepted trial `(t, e_t)` and the rejected
/// one beyond it `(t_r, e_r)`.
///
/// A moving robot's Newton step crosses the kink of a nearly non-smooth term (a sticking
/// foot's friction, whose velocity smoothing is 10 µm/s) by orders of magnitude, so the
/// objective along the step is V-shaped: Newton's quadratic model `e0 + slope·(s − s²/2)` up to
/// the kink `s*`, and that model plus `J·(s − s*)` beyond it, the jump `J` of the slope being
/// the friction force turning round. Halving lands in `(s*, 2s*]`: the next iterate is past the
/// kink by up to as far as the last one was before it, and Newton only halves its distance to
/// the kink per iteration. Two trials past the kink fix `J` and `s*` (the excess of their
/// values over the model is linear in `s`): the kink itself, inside `(0, t)`, is the
/// estimate. `None` when the trials do not show such a kink (the accepted one is not past
/// it, or the excess does not grow), or when it is so close to `t` ([`NEAR_KINK`]) that
/// another evaluation would not pay (the excess of a barrier's wall, no kink, fits one at `t`).
pub(super) fn kink_estimate(
    e0: f64,
    slope: f64,
    (t, e_t): (f64, f64),
    (t_r, e_r): (f64, f64),
) -> Option<f64> {
    let excess = |s: f64, e: f64| e - (e0 + slope * (s - 0.5 * s * s));
    let (r_t, r_r) = (excess(t, e_t), excess(t_r, e_r));
    if !(r_t > 0.0 && r_r > r_t && t_r > t) {
        return None;
    }
    let jump = (r_r - r_t) / (t_r - t);
    let kink = t - r_t / jump;
    (kink > 0.0 && kink < NEAR_KINK * t).then_some(kink)
}

#[cfg(test)]
mod tests {
    use super::kink_estimate;

    /// Newton's model along its direction (slope −1, minimum at 1), with a kink at `kink` where
    /// the slope jumps by `jump`.
    fn v_shaped(kink: f64, jump: f64) -> impl Fn(f64) -> f64 {
        move |s: f64| -(s - 0.5 * s * s) + jump * (s - kink).max(0.0)
    }

    #[test]
    fn the_kink_of_a_v_shaped_line_is_found_from_two_trials_past_it() {
        for (kink, jump) in [(1e-3, 2.0), (0.3, 1.5), (2e-6, 2.0), (0.01, 2.5)] {
            let e = v_shaped(kink, jump);
            // Halving from 1: the first trial Armijo accepts and the one rejected before it.
            let mut t = 1.0;
            while e(t) > 1e-4 * -t {
                t *= 0.5;
            }
            let found = kink_estimate(e(0.0), -1.0, (t, e(t)), (2.0 * t, e(2.0 * t)))
                .expect("the trials are past the kink");
            assert!(
                (found - kink).abs() < 1e-12 * (1.0 + kink),
                "{found} vs {kink}"
            );
            assert!(e(found) < e(t), "the kink is lower than Armijo's step");
        }
    }

    #[test]
    fn no_kink_is_claimed_where_the_trials_do_not_show_one() {
        // Accepted before the kink: only one trial is past it.
        let e = v_shaped(0.3, 2.0);
        assert_eq!(
            kink_estimate(e(0.0), -1.0, (0.25, e(0.25)), (0.5, e(0.5))),
            None
        );
        // A smooth line (Newton's model itself): nothing in excess of the model.
        let e = v_shaped(2.0, 0.0);
        assert_eq!(
            kink_estimate(e(0.0), -1.0, (0.5, e(0.5)), (1.0, e(1.0))),
            None
        );
    }
}
