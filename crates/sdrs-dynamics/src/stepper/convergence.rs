//! When a step's Newton solve is done, and how it says that it failed.
//!
//! A step converges when `|∇O|∞ < tolerance`. A tolerance below what the energy can resolve
//! is not reachable: the gradient is a sum of terms far larger than the residual (a barrier's
//! force, the body's weight, a stiff PD spring), and each carries the round-off of the
//! configuration it was computed from, about `ε · Σ_j |H_ij| · max(|θ_j|, 1)` on coordinate
//! `i` ([`round_off_floor`]). An iterate that no line search can improve, and whose gradient is
//! at that floor or whose Newton step promises a decrease below the energy's round-off
//! ([`resolvable_change`]: the inner solves' accuracy and the energy's round-off bound what
//! any step can show), is converged, whatever the tolerance; [`DynamicsError::NotConverged`] is kept
//! for steps that stop above it, and its message names the coordinate that did not converge and
//! the terms that pull on it ([`Simulator::not_converged`]).

use super::evaluation::{Evaluation, Infinite, StepData};
use super::{DynamicsError, Simulator};
use crate::kinematics::{Kinematics, State};
use std::fmt::Write as _;

/// The smallest change of an energy of value `value` that its round-off lets a line search
/// see: `64 ε max(|value|, 1)`.
pub(super) fn resolvable_change(value: f64) -> f64 {
    64.0 * f64::EPSILON * value.abs().max(1.0)
}

/// The safety factor of [`round_off_floor`] over the bare estimate.
const ROUND_OFF_FACTOR: f64 = 64.0;

/// The round-off floor of `|∇O|∞` at an iterate: `c · ε · max_i Σ_j |H_ij| · max(|θ_j|, 1)`,
/// the change of the gradient that round-off in the coordinates (relative `ε`, and at least
/// `ε` absolute, since poses and gaps are formed in metres and radians) causes, with a safety
/// factor `c` = 64. 0 when the evaluation has no Hessian.
pub(super) fn round_off_floor(eval: &Evaluation, state: &State) -> f64 {
    let h = &eval.hessian;
    let n = state.q.len();
    if h.nrows() != n || n == 0 {
        return 0.0;
    }
    let largest = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| h[(i, j)].abs() * state.q[j].abs().max(1.0))
                .sum::<f64>()
        })
        .fold(0.0, f64::max);
    ROUND_OFF_FACTOR * f64::EPSILON * largest
}

impl Simulator {
    /// The error for a step that starts where the objective is infinite.
    pub(super) fn infinite_error(&mut self, why: Infinite, now: &Kinematics) -> DynamicsError {
        match why {
            Infinite::External(index) => DynamicsError::ForbiddenStart {
                what: format!(
                    "user energy {index} ({:?}) is +∞ there",
                    self.settings.external[index]
                ),
            },
            Infinite::Limit(dof) => DynamicsError::ForbiddenStart {
                what: format!("'{}' is at a joint limit", self.model.dof_name(dof)),
            },
            Infinite::TendonLimit(t) => DynamicsError::ForbiddenStart {
                what: format!(
                    "tendon '{}' is at a length limit",
                    self.model.tendons()[t].name
                ),
            },
            Infinite::Contact => self
                .contact
                .as_mut()
                .and_then(|hook| hook.penetration(&self.model, now))
                .unwrap_or(DynamicsError::ForbiddenStart {
                    what: "the contact model reports an infinite energy but no penetrating pair"
                        .into(),
                }),
        }
    }

    /// The error of a step whose Newton solve stopped at `eval` (after `iterations`, the last
    /// line search at step length `step`) above its tolerance and its round-off floor: which
    /// coordinate is furthest from balance, how the smooth terms (inertia, gravity, PD, tendons, welds, limits,
    /// user energies) and contact each pull on it, and the contact pair with the largest energy
    /// with its gap against the barrier's support distance.
    pub(super) fn not_converged(
        &mut self,
        eval: &Evaluation,
        iterations: usize,
        step: f64,
        state: &State,
        data: &StepData,
    ) -> DynamicsError {
        let residual = eval.gradient.amax();
        let dof = eval.gradient.iamax();
        let mut hint = format!(
            "; the largest residual is on '{}' ({:.3e}; its round-off floor {:.1e})",
            self.model.dof_name(dof),
            eval.gradient[dof],
            round_off_floor(eval, state)
        );
        // The smooth terms' share: the same objective without contact.
        let hook = self.contact.take();
        let smooth = self.evaluate(state, data, super::evaluation::Needs::Gradient);
        self.contact = hook;
        if let Ok(Ok(smooth)) = smooth {
            let own = smooth.gradient[dof];
            let _ = write!(
                hint,
                ": inertia, gravity, PD, tendons, welds and limits give {own:.3e}, contact {:.3e}",
                eval.gradient[dof] - own
            );
            self.recycle(smooth);
        }
        hint.push_str(&self.largest_pair_hint(&eval.kinematics));
        DynamicsError::NotConverged {
            iterations,
            residual,
            tolerance: self.settings.tolerance,
            energy: eval.value,
            step,
            hint,
        }
    }

    /// The contact pair with the largest energy at `kin`, its gap, and where that gap lies
    /// against the barrier's support distance (empty without contact).
    fn largest_pair_hint(&mut self, kin: &Kinematics) -> String {
        let support = self.settings.contact.as_ref().map(|c| c.support_distance());
        let Some(hook) = self.contact.as_mut() else {
            return String::new();
        };
        let Ok(Some(([a, b], energy))) = hook.largest_pair(&self.model, kin) else {
            return String::new();
        };
        let links = self.model.links();
        let mut hint = format!(
            "; the largest contact term is between '{}' and '{}' (energy {energy:.3e}",
            links[a].name, links[b].name
        );
        if let Some(gap) = self.model.link_distance(kin, a, b, f64::INFINITY) {
            let _ = write!(hint, " at a gap of {gap:.3e} m");
            if let Some(support) = support
                && gap < 0.1 * support
            {
                let _ = write!(
                    hint,
                    ", a tenth of the barrier's support distance {support:.1e} m or less: a \
                     pair pressed this hard stiffens the step; a smaller time step, or a pair \
                     started farther apart or left out of contact (Model::exclude_touching), \
                     may help"
                );
            }
        }
        hint.push(')');
        hint
    }
}
