//! The step's objective at one configuration (SDRS eq. 14), evaluated into reused buffers:
//! the bodies' inertia and gravity, stable PD and the generalized forces' work, user energies,
//! joint-limit barriers and contact, each with the gradient and Hessian the caller needs
//! ([`Needs`]); and the checks and fixed data of a step ([`Simulator::prepare`]).

use super::{Control, Simulator};
use crate::energy::{joint_friction, link_energy, rows};
use crate::error::{DynamicsError, Result};
use crate::factor::all_finite;
use crate::kinematics::{Kinematics, State};
use crate::model::Model;
use crate::tendon;
use nalgebra::{DMatrix, DVector, Isometry3};
use sdrs_contact::barrier::barrier;

/// The objective at one configuration.
#[derive(Debug, Clone)]
pub(super) struct Evaluation {
    pub(super) kinematics: Kinematics,
    pub(super) value: f64,
    pub(super) gradient: DVector<f64>,
    /// The Hessian; the contact model's Newton model's where [`Evaluation::anchored`].
    pub(super) hessian: DMatrix<f64>,
    /// Whether `hessian` is the Newton model's ([`super::StepSettings::anchored_newton`]), whose
    /// gradient is `gradient + shift`.
    pub(super) anchored: bool,
    pub(super) shift: DVector<f64>,
    pub(super) active_pairs: usize,
}

/// What an evaluation of the objective computes besides its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Needs {
    /// The value only (a line-search trial).
    Value,
    /// The value and gradient (the residual of Newton's start at θ^t).
    Gradient,
    /// The value, gradient and Hessian (a Newton iterate).
    Hessian,
}

impl Needs {
    /// [`Needs::Hessian`] if `full`, else [`Needs::Value`].
    pub(super) fn full_if(full: bool) -> Self {
        if full { Self::Hessian } else { Self::Value }
    }
}

/// Which term makes the objective infinite at a configuration.
#[derive(Debug, Clone, Copy)]
pub(super) enum Infinite {
    /// A user energy (its index in [`super::StepSettings::external`]).
    External(usize),
    /// The limit barrier of a DoF.
    Limit(usize),
    /// The limit barrier of a tendon (its index in [`Model::tendons`]).
    TendonLimit(usize),
    /// Contact (two shapes touch).
    Contact,
}

fn is_finite_pose(p: &Isometry3<f64>) -> bool {
    p.translation.vector.iter().all(|v| v.is_finite())
        && p.rotation.coords.iter().all(|v| v.is_finite())
}

/// Checks a state θ^t and the link poses one step earlier: one finite pose per link.
pub(super) fn check_start(model: &Model, state: &State, previous: &[Isometry3<f64>]) -> Result<()> {
    if previous.len() != model.links().len() {
        return Err(DynamicsError::LengthMismatch {
            what: "previous link poses",
            actual: previous.len(),
            expected: model.links().len(),
        });
    }
    state.check(model)?;
    if let Some(index) = previous.iter().position(|p| !is_finite_pose(p)) {
        return Err(DynamicsError::NonFinite {
            what: "previous link poses",
            index,
        });
    }
    Ok(())
}

/// The data of one step that does not change during its Newton solve (with the inertial
/// predictions in [`Workspace::predicted`]).
pub(super) struct StepData<'a> {
    pub(super) q_t: &'a DVector<f64>,
    pub(super) control: &'a Control,
    /// The coordinate θ^{t−1} of every joint with armature ([`Model::joint_armature`]),
    /// recovered from the previous poses.
    pub(super) armature_previous: Vec<f64>,
}

/// θ^{t−1} of every joint of `model` with armature, from the `previous` link poses (angles
/// within half a turn of θ^t's).
fn model_previous_coordinates(
    model: &Model,
    previous: &[Isometry3<f64>],
    current: &State,
) -> Vec<f64> {
    model
        .joint_armature()
        .iter()
        .map(|&(link, j, _)| model.joint_coordinate(previous, link, current.q[j]))
        .collect()
}

impl Simulator {
    /// Checks a step's inputs and gathers what stays fixed during its solve: the kinematics at
    /// step t (the workspace's, lent until the caller gives it back), the inertial predictions
    /// `2T^t − T^{t−1}` (into the workspace) and the friction frames.
    pub(super) fn prepare<'a>(
        &mut self,
        current: &'a State,
        previous: &[Isometry3<f64>],
        control: &'a Control,
    ) -> Result<(Kinematics, StepData<'a>)> {
        let model = &self.model;
        check_start(model, current, previous)?;
        control.check(model.dof())?;
        model.check_limits(current)?;
        let mut now = std::mem::take(&mut self.workspace.now);
        now.update(model, current);
        let predicted = &mut self.workspace.predicted;
        predicted.clear();
        predicted.extend(
            model
                .bodies()
                .roots()
                .iter()
                .map(|&i| rows(&now.poses()[i]) * 2.0 - rows(&previous[i])),
        );
        if let Some(hook) = self.contact.as_mut() {
            hook.begin_step(&self.model, &now)?;
        }
        let data = StepData {
            q_t: &current.q,
            control,
            armature_previous: model_previous_coordinates(&self.model, previous, current),
        };
        Ok((now, data))
    }

    /// The full evaluation of a state the line search accepted on its value alone. Warm-started
    /// inner solves can disagree with the value-only evaluation (another start, another
    /// iterate): the state is then evaluated cold before the trial is given up.
    pub(super) fn evaluate_consistently(
        &mut self,
        state: &State,
        data: &StepData,
    ) -> Result<std::result::Result<Evaluation, Infinite>> {
        let first = self.evaluate(state, data, Needs::Hessian)?;
        if first.is_ok() {
            return Ok(first);
        }
        if let Some(hook) = self.contact.as_mut() {
            hook.reset_warm_starts();
        }
        self.evaluate(state, data, Needs::Hessian)
    }

    /// Gives an evaluation's buffers back to the workspace for the next evaluation.
    pub(super) fn recycle(&mut self, eval: Evaluation) {
        self.workspace.spare.push(eval);
    }

    /// The objective at `state`, or which term is infinite there; an error if a term is NaN.
    /// Its buffers come from the workspace: give them back with [`Simulator::recycle`].
    pub(super) fn evaluate(
        &mut self,
        state: &State,
        data: &StepData,
        needs: Needs,
    ) -> Result<std::result::Result<Evaluation, Infinite>> {
        let mut eval = self.workspace.spare.pop().unwrap_or_else(|| Evaluation {
            kinematics: Kinematics::default(),
            value: 0.0,
            gradient: DVector::zeros(0),
            hessian: DMatrix::zeros(0, 0),
            anchored: false,
            shift: DVector::zeros(0),
            active_pairs: 0,
        });
        match self.evaluate_into(&mut eval, state, data, needs) {
            Ok(Ok(())) => Ok(Ok(eval)),
            Ok(Err(why)) => {
                self.recycle(eval);
                Ok(Err(why))
            }
            Err(error) => {
                self.recycle(eval);
                Err(error)
            }
        }
    }

    /// [`Simulator::evaluate`] into the buffers of `eval`.
    pub(super) fn evaluate_into(
        &mut self,
        eval: &mut Evaluation,
        state: &State,
        data: &StepData,
        needs: Needs,
    ) -> Result<std::result::Result<(), Infinite>> {
        let (derivatives, hessians) = (needs != Needs::Value, needs == Needs::Hessian);
        let model = &self.model;
        let n = model.dof();
        let dt = self.settings.dt;
        eval.kinematics.update(model, state);
        let kin = &eval.kinematics;
        if eval.gradient.len() == n {
            // On the slices: a memset, not nalgebra's strided element iterator.
            eval.gradient.as_mut_slice().fill(0.0);
            eval.hessian.as_mut_slice().fill(0.0);
        } else {
            eval.gradient = DVector::zeros(n);
            eval.hessian = DMatrix::zeros(n, n);
        }
        let (gradient, hessian) = (&mut eval.gradient, &mut eval.hessian);
        let mut value = 0.0;
        let composites = &mut self.workspace.composites;
        let bodies = model.bodies();
        if derivatives {
            composites.clear(bodies.roots().len());
        }
        for (b, &i) in bodies.roots().iter().enumerate() {
            let pose = &kin.poses()[i];
            let (e, g, h) = link_energy(
                bodies.second_moment(b),
                pose,
                &self.workspace.predicted[b],
                dt,
                self.settings.gravity,
            );
            value += e;
            if derivatives {
                composites.add_body(b, &pose.translation.vector, &g, &h);
            }
        }
        if derivatives {
            composites.accumulate(model);
            composites.add_to(model, kin, gradient, hessians.then_some(&mut *hessian));
        }
        let c = data.control;
        for j in 0..n {
            let p = c.position[j] - state.q[j];
            let v = c.velocity[j] - (state.q[j] - data.q_t[j]) / dt;
            // Stable PD (eq. 5) in the paper's form, whose negative gradient is the force
            // `k p + c v` of the control's stiffness and damping; and the work of the
            // generalized force.
            let (k_p, k_d) = c.paper_gains(j, dt);
            value += k_p * p * p + k_d * v * v - c.force[j] * (state.q[j] - data.q_t[j]);
            if derivatives {
                gradient[j] += -2.0 * k_p * p - 2.0 * k_d * v / dt - c.force[j];
            }
            if hessians {
                hessian[(j, j)] += 2.0 * k_p + 2.0 * k_d / (dt * dt);
            }
        }
        // Armature: the rotor's inertia `a/(2Δt²) (θ − 2θ^t + θ^{t−1})²`, as a body's.
        for (&(_, j, a), &before) in model.joint_armature().iter().zip(&data.armature_previous) {
            let d = state.q[j] - 2.0 * data.q_t[j] + before;
            value += 0.5 * a * d * d / (dt * dt);
            if derivatives {
                gradient[j] += a * d / (dt * dt);
            }
            if hessians {
                hessian[(j, j)] += a / (dt * dt);
            }
        }
        // Dry joint friction: a dissipation in the DoF's motion over the step.
        for &(j, friction) in model.joint_friction() {
            let dq = state.q[j] - data.q_t[j];
            let (v, d1, d2) =
                joint_friction(friction, dq, dt, self.settings.joint_friction_velocity);
            value += v;
            if derivatives {
                gradient[j] += d1;
            }
            if hessians {
                hessian[(j, j)] += d2;
            }
        }
        // Fixed tendons: spring, damper and limits on a length `c·θ` (crate::tendon).
        for (t, (tendon, terms)) in model.tendon_terms().enumerate() {
            let length = tendon::length(terms, &state.q);
            let moved = length - tendon::length(terms, data.q_t);
            let stretch = length - tendon.rest;
            value += 0.5 * tendon.stiffness * stretch * stretch
                + 0.5 * tendon.damping * moved * moved / dt;
            let mut force = tendon.stiffness * stretch + tendon.damping * moved / dt;
            let mut curvature = tendon.stiffness + tendon.damping / dt;
            if let Some((lower, upper)) = tendon.limits {
                let (k, support) = (self.settings.limit_stiffness, self.settings.limit_support);
                for (distance, sign) in [(length - lower, 1.0), (upper - length, -1.0)] {
                    let Some((v, d1, d2)) = barrier(distance, support) else {
                        return Ok(Err(Infinite::TendonLimit(t)));
                    };
                    value += k * v;
                    force += k * d1 * sign;
                    curvature += k * d2;
                }
            }
            if derivatives {
                add_rank_one(
                    terms,
                    force,
                    curvature,
                    gradient,
                    hessians.then_some(&mut *hessian),
                );
            }
        }
        // Welds and connections between links (crate::weld).
        value += crate::weld::add_welds(
            model,
            kin,
            derivatives.then_some(&mut *gradient),
            hessians.then_some(&mut *hessian),
        );
        for (index, energy) in self.settings.external.iter().enumerate() {
            let e = energy.add(
                model,
                kin,
                state,
                gradient,
                hessians.then_some(&mut *hessian),
            );
            if e == f64::INFINITY {
                return Ok(Err(Infinite::External(index)));
            }
            if e.is_nan() || e == f64::NEG_INFINITY {
                return Err(DynamicsError::NotANumber {
                    term: format!("user energy {index} ({energy:?}) returned {e}"),
                });
            }
            value += e;
        }
        // Joint limits: barriers on the distance to each limit.
        for (i, link) in model.links().iter().enumerate() {
            let Some((lower, upper)) = link.limits else {
                continue;
            };
            let j = model.dof_offset(i);
            let (k, support) = (self.settings.limit_stiffness, self.settings.limit_support);
            for (distance, sign) in [(state.q[j] - lower, 1.0), (upper - state.q[j], -1.0)] {
                let Some((v, d1, d2)) = barrier(distance, support) else {
                    return Ok(Err(Infinite::Limit(j)));
                };
                value += k * v;
                if derivatives {
                    gradient[j] += k * d1 * sign;
                }
                if hessians {
                    hessian[(j, j)] += k * d2;
                }
            }
        }
        let mut active_pairs = 0;
        eval.anchored = hessians && self.workspace.anchored;
        if let Some(hook) = self.contact.as_mut() {
            let added = if eval.anchored {
                if eval.shift.len() == n {
                    eval.shift.as_mut_slice().fill(0.0);
                } else {
                    eval.shift = DVector::zeros(n);
                }
                hook.add_anchored(model, kin, gradient, hessian, &mut eval.shift)?
            } else {
                let g = derivatives.then_some(&mut *gradient);
                let h = hessians.then_some(&mut *hessian);
                hook.add(model, kin, g, h)?
            };
            let Some(energy) = added else {
                return Ok(Err(Infinite::Contact));
            };
            value += energy.value;
            active_pairs = energy.active_pairs;
        }
        // `amax` (the convergence test) skips NaN, and a NaN energy defeats every comparison
        // of the line search: stop here instead.
        // Without derivatives the gradient and Hessian are not used (a trial accepted on its
        // value is evaluated again with them), so only the value is checked then.
        if !value.is_finite()
            || (derivatives && !all_finite(gradient.as_slice()))
            || (hessians && !all_finite(hessian.as_slice()))
        {
            return Err(DynamicsError::NotANumber {
                term: format!(
                    "the step's objective (value {value}; user energies and contact included) at \
                     configuration {:?}",
                    state.q.as_slice()
                ),
            });
        }
        eval.value = value;
        eval.active_pairs = active_pairs;
        Ok(Ok(()))
    }
}

/// Adds a term of a length `L = Σ cᵢ θᵢ` (`terms`: `(DoF, cᵢ)`) with scalar force `∂E/∂L` and
/// curvature `∂²E/∂L²`: `force · c` to the gradient and `curvature · c cᵀ` to the Hessian.
pub(super) fn add_rank_one(
    terms: &[(usize, f64)],
    force: f64,
    curvature: f64,
    gradient: &mut DVector<f64>,
    hessian: Option<&mut DMatrix<f64>>,
) {
    for &(j, c) in terms {
        gradient[j] += force * c;
    }
    if let Some(hessian) = hessian {
        add_outer(terms, curvature, hessian);
    }
}

/// Adds `scale · c cᵀ` of a length's terms `(DoF, cᵢ)` to `matrix`.
pub(super) fn add_outer(terms: &[(usize, f64)], scale: f64, matrix: &mut DMatrix<f64>) {
    for &(j, a) in terms {
        for &(k, b) in terms {
            matrix[(j, k)] += scale * a * b;
        }
    }
}
