//! Newton's method on the step's objective: the loop ([`Simulator::newton`]), its start
//! ([`Simulator::newton_start`]), its direction ([`Simulator::descent_direction`]) and the
//! damping that adapts the direction to how much of it the line search keeps.
//!
//! One iteration:
//! 1. the direction `−H̃⁻¹∇O`, `H̃` the Hessian with its diagonal scaled by `1 + λ`
//!    (Levenberg-Marquardt's damping, `λ` usually 0) and its eigenvalues `λ_i` replaced by
//!    `max(|λ_i|, eigenvalue_floor)` ([`Simulator::descent_direction`]); with the contact
//!    model's force-anchored Newton model ([`super::StepSettings::anchored_newton`]), the
//!    model's Hessian and gradient `∇O + shift`;
//! 2. the step the line search starts from ([`Simulator::step_bound`]): the longest the
//!    contact model allows (continuous collision detection), or shorter, where the hull model
//!    foresees a pair closing most of its gap or a slipping foot coming to stick;
//! 3. Armijo backtracking from there ([`Simulator::backtrack`]), or, when no step decreases
//!    the energy beyond its round-off, the longest step that shrinks `|∇O|∞`
//!    ([`Simulator::shrink_gradient`]);
//! 4. the damping for the next iteration ([`next_damping`]);
//! 5. the convergence test: `|∇O|∞ < tolerance`, or `|∇O|∞` at its round-off floor when no
//!    step can improve it ([`super::convergence`]).

use super::convergence::{resolvable_change, round_off_floor};
use super::evaluation::{Evaluation, Needs, StepData};
use super::line_search::Line;
use super::{Control, Linearization, NewtonStart, Result, Simulator, StepReport};
use crate::factor::{FactorError, HessianFactor};
use crate::kinematics::{Kinematics, State};
use nalgebra::{DMatrix, DVector, Isometry3};
use std::time::{Duration, Instant};

/// An extrapolated Newton start whose residual is below this fraction of the tolerance ends the
/// step without a Newton step (as accurate as a Newton step from θ^t leaves it).
const POLISHED: f64 = 1e-3;

/// The Levenberg-Marquardt damping `λ` an iteration starts damping with, and the factor it
/// grows by after a cut step and shrinks by after a full one ([`next_damping`]).
const DAMPING_START: f64 = 1e-2;
const DAMPING_FACTOR: f64 = 4.0;
/// The factor the damping shrinks by after a full step: less than it grows by, so that a
/// damping that alternates between cut and full steps settles instead of cycling.
const DAMPING_SHRINK: f64 = 2.0;
/// Below this the damping is dropped: the iterations are Newton's again.
const DAMPING_OFF: f64 = 1e-4;
/// The largest damping: the direction is then a gradient step scaled by `diag|H|`.
const DAMPING_MAX: f64 = 1e8;
/// Iterations that are pure Newton whatever their line search keeps: most steps converge
/// within them, on exactly Newton's path. Damping from the first cut step instead made steps
/// that start deep in a barrier (a swung chain's first contact) crawl: there the line search
/// cuts Newton's steps because the barrier rises steeply, not because the model overshoots a
/// kink, and the damped direction turns towards a badly scaled gradient.
const DAMPING_AFTER: usize = 8;
/// A decrease Newton promises within this factor of the energy's round-off is judged by
/// evaluating the energy at Newton's step ([`Simulator::newton_step_unresolvable`]).
const VISIBLE: f64 = 16.0;
/// A step the line search keeps at least this fraction of leaves the damping as it is.
const KEPT_ENOUGH: f64 = 0.5;

/// The damping of the next iteration after one with damping `damping` whose line search kept
/// the fraction `kept` of the longest step (0 when it found no step).
///
/// A moving robot's step crosses the kinks of nearly non-smooth terms: plane friction whose
/// velocity smoothing is tiny (`√ε_v` = 10 µm/s by default) and barriers of sub-millimetre
/// support. Newton's quadratic model then overshoots by orders of magnitude and the line
/// search keeps 1/64 to 1/512 of each step, iteration after iteration (the ant's trot spent
/// 100 such iterations on one step). Past [`DAMPING_AFTER`] iterations, damping after a cut
/// step shortens the next direction and turns it towards the scaled gradient; after full steps
/// it decays back to pure Newton,
/// so a step whose full Newton steps are accepted takes exactly Newton's path. The solution
/// is the same stationary point either way, so the backward pass does not change.
pub(super) fn next_damping(damping: f64, kept: f64) -> f64 {
    if kept >= 1.0 {
        let smaller = damping / DAMPING_SHRINK;
        if smaller < DAMPING_OFF { 0.0 } else { smaller }
    } else if kept >= KEPT_ENOUGH {
        damping
    } else {
        (damping * DAMPING_FACTOR).clamp(DAMPING_START, DAMPING_MAX)
    }
}

/// The counters of one step's Newton solve.
#[derive(Debug)]
struct Progress {
    /// When the step started.
    started: Instant,
    iteration: usize,
    /// The iteration cap, extended once by [`super::StepSettings::max_iterations`] when the
    /// step may damp.
    limit: usize,
    extended: bool,
    damping: f64,
    damped: bool,
    trials: usize,
    /// The last step length the line search tried.
    step: f64,
    /// Time spent on Newton directions.
    directions: Duration,
}

impl Simulator {
    /// [`super::Simulator::solve`] on the calling thread: Newton's method on the step's objective.
    /// With `anchored`, the directions come from the contact hook's force-anchored Newton model
    /// where it has one ([`super::StepSettings::anchored_newton`]).
    pub(super) fn newton(
        &mut self,
        current: &State,
        previous: &[Isometry3<f64>],
        control: &Control,
        anchored: bool,
    ) -> Result<(State, StepReport, Kinematics)> {
        self.set_anchored(anchored);
        let result = self.newton_iterations(current, previous, control);
        self.set_anchored(false);
        result
    }

    /// Turns the contact hook's Newton model on or off for the evaluations that follow.
    fn set_anchored(&mut self, on: bool) {
        self.workspace.anchored = match self.contact.as_mut() {
            Some(hook) => hook.anchor_newton_model(on) && on,
            None => false,
        };
    }

    /// `eval`, the last evaluation with the Newton model, is of Newton's new iterate.
    fn accept_iterate(&mut self, eval: &Evaluation) {
        if eval.anchored
            && let Some(hook) = self.contact.as_mut()
        {
            hook.accept_iterate();
        }
    }

    fn newton_iterations(
        &mut self,
        current: &State,
        previous: &[Isometry3<f64>],
        control: &Control,
    ) -> Result<(State, StepReport, Kinematics)> {
        let started = Instant::now();
        let (now, data) = self.prepare(current, previous, control)?;
        let (mut state, mut eval, mut polish) =
            self.newton_start(current, previous, &now, &data)?;
        self.accept_iterate(&eval);
        // Taken out for the solve (the line search borrows `self` mutably), put back on
        // success: the buffer outlives the step.
        let mut direction = std::mem::replace(&mut self.workspace.direction, DVector::zeros(0));
        let tolerance = self.settings.tolerance;
        let may_damp = self.settings.damped_round;
        let mut run = Progress {
            started,
            iteration: 0,
            limit: self.settings.max_iterations,
            extended: false,
            damping: 0.0,
            damped: false,
            trials: 0,
            step: 1.0,
            directions: Duration::ZERO,
        };
        let converged = loop {
            let residual = eval.gradient.amax();
            if residual < tolerance && (!polish || residual < POLISHED * tolerance) {
                break true;
            }
            if run.iteration == run.limit {
                if run.extended || !may_damp {
                    break false;
                }
                // A last round as long again, damped from its first iteration.
                run.extended = true;
                run.limit += self.settings.max_iterations;
                run.damping = run.damping.max(DAMPING_START);
            }
            run.iteration += 1;
            run.damped |= run.damping > 0.0;
            let clock = Instant::now();
            self.descent_direction(&eval, run.damping, &mut direction)?;
            run.directions += clock.elapsed();
            let slope = eval.gradient.dot(&direction);
            let longest = self.step_bound(&state, &direction, &eval)?;
            let line = Line {
                state: &state,
                eval: &eval,
                direction: &direction,
                longest,
            };
            let searched = self.backtrack(&line, slope, &data, &mut run.trials)?;
            run.step = searched.step;
            // The damping follows how much of the step was kept, by either line search.
            let mut kept = 0.0;
            let mut moved = false;
            if let Some((next, evaluated)) = searched.accepted {
                let full = match evaluated {
                    Some(e) => Ok(e),
                    None => self.evaluate_consistently(&next, &data)?,
                };
                if let Ok(e) = full {
                    state = next;
                    self.recycle(std::mem::replace(&mut eval, e));
                    self.accept_iterate(&eval);
                    (kept, moved) = (searched.step / longest, true);
                }
            }
            if !moved
                && let Some((next, e, step)) = self.shrink_gradient(
                    &Line {
                        state: &state,
                        eval: &eval,
                        direction: &direction,
                        longest,
                    },
                    &data,
                    &mut run.trials,
                )?
            {
                state = next;
                self.recycle(std::mem::replace(&mut eval, e));
                self.accept_iterate(&eval);
                (kept, moved) = (step / longest, true);
            }
            if may_damp && (run.iteration >= DAMPING_AFTER || run.extended) {
                run.damping = next_damping(run.damping, kept);
            }
            if moved {
                polish = false;
                continue;
            }
            // No step improves the iterate.
            if polish && residual < tolerance {
                // A converged guess: keep it.
                polish = false;
                continue;
            }
            // At the floor: the gradient is at the round-off of its terms, or Newton's own step
            // promises a decrease the energy cannot resolve (the inner solves' accuracy and
            // the energy's round-off bound what any step can show).
            if residual <= round_off_floor(&eval, &state)
                || self.newton_step_unresolvable(
                    (&eval, &state),
                    run.damping,
                    (slope, longest),
                    &mut direction,
                    &data,
                )?
            {
                break true;
            }
            if !may_damp || run.extended {
                break false;
            }
            // Stuck undamped: go on damped for a round as long again, as after the cap.
            run.extended = true;
            run.limit = run.iteration + self.settings.max_iterations;
            run.damping = run.damping.max(DAMPING_START);
        };
        // At the cap, an iterate whose gradient is at its round-off floor is converged too.
        if converged || eval.gradient.amax() <= round_off_floor(&eval, &state) {
            return self
                .finish(state, eval, &now, previous, &data, &run)
                .map(|(next, report)| {
                    self.workspace.direction = direction;
                    (next, report, now)
                });
        }
        Err(self.not_converged(&eval, run.iteration, run.step, &state, &data))
    }

    /// The step's result at a converged iterate: the state re-centred, the report, and the
    /// linearization when [`super::StepSettings::backward`] asks for it.
    fn finish(
        &mut self,
        state: State,
        mut eval: Evaluation,
        now: &Kinematics,
        previous: &[Isometry3<f64>],
        data: &StepData,
        run: &Progress,
    ) -> Result<(State, StepReport)> {
        // Re-centring changes the chart of spherical and free joints, not the poses: the
        // Hessian (and blocks) the backward pass gets are those of the new chart. The poses
        // are the same up to round-off; should that round-off cross a barrier (or a warm start
        // disagree), the step keeps the chart it converged in.
        // The backward pass needs the exact Hessian, not the Newton model's.
        self.set_anchored(false);
        let backward = self.settings.backward;
        let needs = if backward {
            Needs::Hessian
        } else {
            Needs::Gradient
        };
        let mut next = state.recentred(&self.model);
        if next != state {
            match self.evaluate(&next, data, needs)? {
                Ok(e) => self.recycle(std::mem::replace(&mut eval, e)),
                Err(_) => next = state,
            }
        }
        if backward && eval.anchored {
            match self.evaluate(&next, data, needs)? {
                Ok(e) => self.recycle(std::mem::replace(&mut eval, e)),
                Err(why) => return Err(self.infinite_error(why, now)),
            }
        }
        let linearization = if backward {
            Some(Linearization {
                derivatives: self.step_derivatives(
                    (&next, &eval.kinematics),
                    now,
                    previous,
                    data,
                )?,
                factor: self.exact_factor(&eval.hessian)?,
                hessian: eval.hessian.clone(),
            })
        } else {
            None
        };
        let mut timings = self
            .contact
            .as_ref()
            .map(|c| c.timings())
            .unwrap_or_default();
        timings.newton = run.directions;
        timings.total = run.started.elapsed();
        let report = StepReport {
            iterations: run.iteration,
            line_search_trials: run.trials,
            damped: run.damped,
            residual: eval.gradient.amax(),
            energy: eval.value,
            active_pairs: eval.active_pairs,
            timings,
            linearization,
        };
        self.recycle(eval);
        Ok((next, report))
    }

    /// Newton's starting iterate, its evaluation, and whether it must be polished by a Newton
    /// step before it may end the step. The evaluation has its Hessian unless it ends the step
    /// without the backward pass.
    ///
    /// With [`NewtonStart::Extrapolated`] and contact, Newton starts where the last step's
    /// motion would carry θ^t ([`Simulator::extrapolated`]) when the objective is lower there
    /// than at θ^t (it is not where that motion runs into a barrier, e.g. at an impact), and θ^t
    /// is not converged; else at θ^t. A converged θ^t is the state at rest: the step ends
    /// there, so the next step's start did not move, and a scene at rest costs one evaluation
    /// per step, of the gradient only unless [`super::StepSettings::backward`] asks for the Hessian.
    /// θ^t is evaluated first: its pairs are still at the poses the last step's solve left
    /// them at, so their plane solves start converged (and a converged θ^t needs no guess at
    /// all). Without contact the objective is smooth and Newton from θ^t takes one or two steps
    /// anyway: there the extra evaluation would only cost (UR5 +30%, measured), and
    /// [`NewtonStart::Current`] evaluates θ^t with its Hessian straight away.
    ///
    /// An extrapolated start is polished unless its residual is far inside the tolerance
    /// ([`POLISHED`]): a guess just inside it would end the step at the last step's velocity,
    /// a drift the residual test does not see (the book stack's statics move from 1e-9 to
    /// 1e-5 m without the polish).
    pub(super) fn newton_start(
        &mut self,
        current: &State,
        previous: &[Isometry3<f64>],
        now: &Kinematics,
        data: &StepData<'_>,
    ) -> Result<(State, Evaluation, bool)> {
        let backward = self.settings.backward;
        let extrapolate =
            self.settings.start == NewtonStart::Extrapolated && self.contact.is_some();
        let guess = if extrapolate {
            self.extrapolated(current, previous, now)?
        } else {
            None
        };
        // θ^t's gradient first when it may be all the step needs: a guess may replace θ^t, or
        // θ^t may be at rest with no Hessian wanted. Otherwise its Hessian straight away.
        if guess.is_some() || (extrapolate && !backward) {
            let at_current = self.evaluate_start(current, data, Needs::Gradient, now)?;
            let converged = at_current.gradient.amax() < self.settings.tolerance;
            if converged && !backward {
                return Ok((current.clone(), at_current, false));
            }
            if !converged
                && let Some(guess) = guess
                && let Ok(at_guess) = self.evaluate(&guess, data, Needs::Hessian)?
            {
                if at_guess.value <= at_current.value {
                    self.recycle(at_current);
                    return Ok((guess, at_guess, true));
                }
                self.recycle(at_guess);
            }
            self.recycle(at_current);
        }
        let at_current = self.evaluate_start(current, data, Needs::Hessian, now)?;
        Ok((current.clone(), at_current, false))
    }

    /// The evaluation of the step's start θ^t, or why the step cannot start there.
    pub(super) fn evaluate_start(
        &mut self,
        current: &State,
        data: &StepData<'_>,
        needs: Needs,
        now: &Kinematics,
    ) -> Result<Evaluation> {
        match self.evaluate(current, data, needs)? {
            Ok(e) => Ok(e),
            Err(why) => Err(self.infinite_error(why, now)),
        }
    }

    /// `θ^t ⊕ (θ^t ⊖ θ^{t−1})`: θ^t moved on by the motion of the step before (θ^{t−1}
    /// recovered from the previous poses), the minimiser of the step's inertial term alone and
    /// so usually far closer to θ^{t+1} than θ^t is (a moving scene converges in fewer
    /// iterations). A function of the step's inputs only, so a step does not depend on the
    /// steps taken before it. `None` (start at θ^t) when the previous poses are not those of a
    /// state, the step before did not move a link, or the contact model's continuous collision
    /// check does not allow the whole move from θ^t.
    pub(super) fn extrapolated(
        &mut self,
        current: &State,
        previous: &[Isometry3<f64>],
        now: &Kinematics,
    ) -> Result<Option<State>> {
        if previous == now.poses() {
            return Ok(None);
        }
        let model = &self.model;
        let Ok(before) = model.state_from_poses(previous, current) else {
            return Ok(None);
        };
        let motion = model.difference(&before, current)?;
        let guess = model.integrate(current, &motion)?;
        if let Some(hook) = self.contact.as_mut()
            && hook.max_step(model, now, &guess)? < 1.0
        {
            return Ok(None);
        }
        Ok(Some(guess))
    }

    /// Whether Newton's own step from `eval` promises a decrease the energy cannot resolve:
    /// then no step can show progress and the iterate is converged. The decrease Newton's
    /// model promises at the longest step `t` it may take is `|∇O·d| t (1 − t/2)`; it is
    /// unresolvable when it is below the energy's round-off ([`resolvable_change`]), or within
    /// [`VISIBLE`] times it and the energy at Newton's step, evaluated, misses it by more than
    /// half: then what the energy shows at that scale is its noise, not the model's decrease
    /// (`64 ε |O|` underestimates the noise of an energy summed from many contact terms and
    /// inner solves: a perturbed rotating-chain rollout stalled where Newton promised 6.7e-12,
    /// 1.06 times it, and the energy fell by 2.1e-11). `(slope, longest)` are those of the
    /// direction just searched, Newton's when `damping` is 0. A damped direction is not
    /// Newton's (damping shortens it, so its small slope says nothing about the iterate):
    /// Newton's is computed into `direction` for the test. (A walker stuck on a sticking foot
    /// at 2.6 times the round-off floor with damping 2.5e-3 failed the step for want of this.)
    fn newton_step_unresolvable(
        &mut self,
        (eval, state): (&Evaluation, &State),
        damping: f64,
        (slope, longest): (f64, f64),
        direction: &mut DVector<f64>,
        data: &StepData,
    ) -> Result<bool> {
        let (slope, longest) = if damping == 0.0 {
            (slope, longest)
        } else {
            self.descent_direction(eval, 0.0, direction)?;
            let slope = eval.gradient.dot(direction);
            (slope, self.step_bound(state, direction, eval)?)
        };
        let resolvable = resolvable_change(eval.value);
        let promised = slope.abs() * longest * (1.0 - 0.5 * longest);
        if promised <= resolvable {
            return Ok(true);
        }
        if promised > VISIBLE * resolvable {
            return Ok(false);
        }
        let newton = Line {
            state,
            eval,
            direction: &*direction,
            longest,
        };
        let trial = newton.trial(&self.model, longest);
        Ok(match self.evaluate(&trial, data, Needs::Value)? {
            Ok(e) => {
                let shown = eval.value - e.value;
                self.recycle(e);
                (shown - promised).abs() > 0.5 * promised
            }
            Err(_) => false,
        })
    }

    /// The fraction of the Newton step along `direction` from `state` that the line search
    /// starts from ([`super::contact::ContactHook::step_bound`]; 1 without contact).
    pub(super) fn step_bound(
        &mut self,
        state: &State,
        direction: &DVector<f64>,
        eval: &Evaluation,
    ) -> Result<f64> {
        let Some(hook) = self.contact.as_mut() else {
            return Ok(1.0);
        };
        hook.step_bound(&self.model, (state, &eval.kinematics), direction)
    }

    /// The factorisation of a converged Hessian for the backward pass; a singular one is kept
    /// empty, for the backward pass to report when it solves.
    pub(super) fn exact_factor(&mut self, hessian: &DMatrix<f64>) -> Result<HessianFactor> {
        let factor = &mut self.workspace.exact;
        match factor.factorize(hessian) {
            Ok(_) | Err(FactorError::Singular) => Ok(factor.clone()),
            Err(other) => Err(other.into()),
        }
    }

    /// `−H̃⁻¹g` into `direction`, `H̃` the modified Newton matrix of the Hessian
    /// ([`HessianFactor::factorize_modified`]: eigenvalues `λ` replaced by
    /// `max(|λ|, floor)`), factorised in the simulator's reused buffers; with `damping` > 0,
    /// of the Hessian with its diagonal scaled by `1 + damping` (Marquardt's damping).
    pub(super) fn descent_direction(
        &mut self,
        eval: &Evaluation,
        damping: f64,
        direction: &mut DVector<f64>,
    ) -> Result<()> {
        let floor = self.settings.eigenvalue_floor;
        if damping > 0.0 {
            let damped = &mut self.workspace.damped;
            damped.clone_from(&eval.hessian);
            for i in 0..damped.nrows() {
                damped[(i, i)] += damping * damped[(i, i)].abs();
            }
            self.workspace.factor.factorize_modified(damped, floor)?;
        } else {
            self.workspace
                .factor
                .factorize_modified(&eval.hessian, floor)?;
        }
        if direction.len() == eval.gradient.len() {
            direction.copy_from(&eval.gradient);
        } else {
            direction.clone_from(&eval.gradient);
        }
        if eval.anchored {
            *direction += &eval.shift;
        }
        self.workspace.factor.solve_in_place(direction)?;
        direction.neg_mut();
        if eval.anchored && eval.gradient.dot(direction) >= 0.0 {
            // The model's direction does not descend the energy: the model's Hessian with the
            // exact gradient (positive definite once modified, so it does).
            direction.copy_from(&eval.gradient);
            self.workspace.factor.solve_in_place(direction)?;
            direction.neg_mut();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damping_starts_after_a_cut_step_and_decays_to_newton_after_full_ones() {
        assert_eq!(next_damping(0.0, 1.0), 0.0, "full steps stay Newton");
        assert_eq!(next_damping(0.0, 0.0), DAMPING_START, "no step found");
        assert_eq!(next_damping(0.0, 1.0 / 64.0), DAMPING_START, "a cut step");
        assert_eq!(next_damping(0.5, 0.5), 0.5, "half a step keeps it");
        assert_eq!(next_damping(0.5, 0.25), 2.0);
        assert_eq!(next_damping(DAMPING_MAX, 0.0), DAMPING_MAX, "bounded");
        let mut damping = 1.0;
        let mut full_steps = 0;
        while damping > 0.0 {
            damping = next_damping(damping, 1.0);
            full_steps += 1;
        }
        assert_eq!(
            full_steps, 14,
            "1 → 2^-14 < DAMPING_OFF after 14 full steps"
        );
    }
}
