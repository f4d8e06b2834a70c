//! The position-level time step (SDRS eq. 14): `θ^{t+1} = argmin O`, by Newton's method.
//!
//! `O = Σ_bodies (inertia + gravity) + U_PD − τ·(θ^{t+1} − θ^t) + κ Σ U_c + Σ U_f` (`τ` the
//! control's generalized forces; the inertia and gravity of links joined by fixed joints are
//! one rigid body's, with their merged second moment, see [`crate::bodies`]): the contact
//! barrier between
//! every pair of hulls on different links that the broad phase finds within the barrier's
//! support distance, scaled by the contact stiffness `κ`, and plane friction lagged from the
//! step-t planes (its normal forces already carry `κ`, see `sdrs_contact::friction`).
//!
//! Each iteration modifies the eigenvalues `λ` of the dense `|θ|x|θ|` Hessian to
//! `max(|λ|, eigenvalue_floor)` (sec. V clamps them to at least 1e-3; mapping a negative `λ`
//! to `|λ|` rather than to the floor keeps the step along negative curvature as long as the
//! curvature says, instead of `1/floor` times the gradient, which made the line search
//! backtrack for dozens of iterations in contact-rich scenes: the rotating chains with N = 16
//! went from 16 to 8 Newton iterations per step on average) and backtracks along the
//! resulting descent direction until the
//! energy is finite (no penetration) and decreases enough (Armijo); so every accepted state,
//! and the returned one, is collision-free. The step stops when `|∇O|∞ < tolerance`. If
//! `max_iterations` iterations do not get there (or stall on steps too short to count), it goes
//! on from where they stopped for as many again with Levenberg-Marquardt damping, `H + λ
//! diag|H|` before the eigenvalue floor (ours: Newton zig-zags on line-search steps of 1/64
//! while a body slides under stiff friction), and only then fails with
//! [`DynamicsError::NotConverged`].

mod active;
mod assembly;
mod backward;
pub mod contact;
mod link_sums;
mod mesh_contact;
mod pairs;
#[cfg(test)]
mod random_trees;
mod settings;

pub use active::ActiveContact;
pub use backward::{DesignBlock, DesignBlocks, StepDerivatives};
pub use contact::{ContactEnergy, ContactHook, PairTerm, PairVertex, SdrsContact};
pub use mesh_contact::{IpcContact, LongRangeContact, MeshContact};
pub use settings::{
    ContactKind, ContactSettings, Control, ExternalEnergy, FrictionSettings, NewtonStart,
    StepSettings,
};

use crate::motion::Motion;

use crate::energy::{link_energy, rows};
use crate::error::{DynamicsError, Result};
use crate::factor::{FactorError, HessianFactor, all_finite};
use crate::kinematics::{Kinematics, State};
use crate::model::Model;
use assembly::Composites;
use nalgebra::{DMatrix, DVector, Isometry3, SMatrix};
use sdrs_contact::barrier::barrier;
use std::time::{Duration, Instant};

/// An extrapolated Newton start whose residual is below this fraction of the tolerance ends the
/// step without a Newton step (as accurate as a Newton step from θ^t leaves it).
const POLISHED: f64 = 1e-3;

/// The Levenberg-Marquardt damping `λ` a step starts its second round of Newton iterations
/// with, after [`StepSettings::max_iterations`] undamped ones did not converge
/// ([`Simulator::newton`]), and the factor it shrinks by after a full step and grows by after a
/// cut one.
const DAMPING_START: f64 = 1e-2;
const DAMPING_FACTOR: f64 = 4.0;

/// What a step returns besides the new state.
#[derive(Debug, Clone)]
pub struct StepReport {
    /// Newton iterations taken.
    pub iterations: usize,
    /// Whether the undamped iterations did not converge within
    /// [`StepSettings::max_iterations`] and damped ones finished the step (see
    /// [`Simulator::step`]).
    pub damped: bool,
    /// Final `|∇O|∞`.
    pub residual: f64,
    /// Final objective value.
    pub energy: f64,
    /// Hull pairs with a non-zero barrier at the solution.
    pub active_pairs: usize,
    /// Where the time went.
    pub timings: StepTimings,
    /// The Hessian at the solution, its factorisation and the mixed blocks the backward pass
    /// needs, when [`StepSettings::backward`] is set. Without it a step computes no more than
    /// its solve needs: a scene at rest is one evaluation of the objective's gradient.
    pub linearization: Option<Linearization>,
}

/// Wall time of one step by part (SDRS Table II's breakdown); `+=` sums steps.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepTimings {
    /// Broad phase and plane-barrier evaluations (`U_c`), including friction frames.
    pub normal: Duration,
    /// Plane-friction evaluations (`U_f`).
    pub friction: Duration,
    /// Eigen-decompositions and Newton directions.
    pub newton: Duration,
    /// The whole step (the rest is kinematics, inertia, PD and assembly).
    pub total: Duration,
}

impl StepTimings {
    /// Percentages of the total: `[normal, friction, newton, other]`.
    pub fn percentages(&self) -> [f64; 4] {
        let share = |d: Duration| 100.0 * d.as_secs_f64() / self.total.as_secs_f64();
        let parts = [share(self.normal), share(self.friction), share(self.newton)];
        [
            parts[0],
            parts[1],
            parts[2],
            100.0 - parts.iter().sum::<f64>(),
        ]
    }
}

impl std::ops::AddAssign for StepTimings {
    fn add_assign(&mut self, other: Self) {
        self.normal += other.normal;
        self.friction += other.friction;
        self.newton += other.newton;
        self.total += other.total;
    }
}

/// Steps a model forward in time, keeping the per-pair warm-start caches between steps.
///
/// A clone carries the caches along and steps exactly as its origin would;
/// [`Simulator::reset`] forgets them, so that a rollout after it depends only on its inputs.
#[derive(Debug, Clone)]
pub struct Simulator {
    model: Model,
    settings: StepSettings,
    contact: Option<Box<dyn ContactHook>>,
    workspace: Workspace,
}

/// The buffers of the objective's evaluations, reused across Newton iterations, line-search
/// trials and steps: once a step has run, evaluating allocates nothing (the contact hook and
/// user energies aside).
#[derive(Debug, Clone, Default)]
struct Workspace {
    /// The step-t kinematics, lent to the step being prepared and given back after it.
    now: Kinematics,
    /// The inertial predictions `2T^t − T^{t−1}` (pose rows) of the prepared step, one per
    /// body ([`crate::bodies`]), from the poses of the bodies' first links.
    predicted: Vec<SMatrix<f64, 3, 4>>,
    /// The composite-body sums of the body energies ([`assembly`]).
    composites: Composites,
    /// Evaluations whose buffers the next evaluation reuses.
    spare: Vec<Evaluation>,
    /// The evaluation [`Simulator::objective_view`] lends out.
    viewed: Option<Evaluation>,
    /// The Newton iterations' factorisation, reused across iterations and steps.
    factor: HessianFactor,
    /// The converged Hessians' factorisation for the backward pass; each step hands out a
    /// copy (which skips the sparse pattern's analysis while the pattern holds).
    exact: HessianFactor,
    /// The Newton direction's buffer.
    direction: DVector<f64>,
}

/// A step's Hessian at its solution with the mixed blocks ([`Simulator::linearize`],
/// [`StepReport::linearization`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Linearization {
    /// `∂²O/∂θ^{t+1}²` at the solution (unclamped).
    pub hessian: DMatrix<f64>,
    /// The factorisation of [`Linearization::hessian`] ([`HessianFactor::factorize`]): the
    /// backward pass solves with it. Its method is `None` when the Hessian is singular (a
    /// solve then reports [`FactorError::Singular`]).
    pub factor: HessianFactor,
    /// The mixed blocks.
    pub derivatives: StepDerivatives,
}

/// The objective of a step at one configuration ([`Simulator::objective`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Objective {
    /// `O`.
    pub value: f64,
    /// `∂O/∂θ^{t+1}`.
    pub gradient: DVector<f64>,
    /// `∂²O/∂θ^{t+1}²` (unclamped).
    pub hessian: DMatrix<f64>,
}

/// The objective of a step at one configuration, lent from the simulator's buffers
/// ([`Simulator::objective_view`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ObjectiveView<'a> {
    /// `O`.
    pub value: f64,
    /// `∂O/∂θ^{t+1}`.
    pub gradient: &'a DVector<f64>,
    /// `∂²O/∂θ^{t+1}²` (unclamped).
    pub hessian: &'a DMatrix<f64>,
}

/// The objective at one configuration.
#[derive(Debug, Clone)]
struct Evaluation {
    kinematics: Kinematics,
    value: f64,
    gradient: DVector<f64>,
    hessian: DMatrix<f64>,
    active_pairs: usize,
}

/// What an evaluation of the objective computes besides its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Needs {
    /// The value only (a line-search trial).
    Value,
    /// The value and gradient (the residual of Newton's start at θ^t).
    Gradient,
    /// The value, gradient and Hessian (a Newton iterate).
    Hessian,
}

impl Needs {
    /// [`Needs::Hessian`] if `full`, else [`Needs::Value`].
    fn full_if(full: bool) -> Self {
        if full { Self::Hessian } else { Self::Value }
    }
}

/// Which term makes the objective infinite at a configuration.
#[derive(Debug, Clone, Copy)]
enum Infinite {
    /// A user energy (its index in [`StepSettings::external`]).
    External(usize),
    /// The limit barrier of a DoF.
    Limit(usize),
    /// Contact (two shapes touch).
    Contact,
}

fn is_finite_pose(p: &Isometry3<f64>) -> bool {
    p.translation.vector.iter().all(|v| v.is_finite())
        && p.rotation.coords.iter().all(|v| v.is_finite())
}

/// Checks a state θ^t and the link poses one step earlier: one finite pose per link.
fn check_start(model: &Model, state: &State, previous: &[Isometry3<f64>]) -> Result<()> {
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

/// The line search's trial `state + step·direction`, re-centred ([`State::recentred`]): the
/// same poses, with the rotation coordinates of free and spherical joints back at the centre
/// of their chart. Newton continues from an accepted trial in that chart, and a step that
/// converges there needs no evaluation in a new chart (a floating base's third evaluation).
fn trial_state(model: &Model, state: &State, direction: &DVector<f64>, step: f64) -> State {
    let mut trial = state.clone();
    trial.q.axpy(step, direction, 1.0);
    trial.recentre(model);
    trial
}

/// The data of one step that does not change during its Newton solve (with the inertial
/// predictions in [`Workspace::predicted`]).
struct StepData<'a> {
    q_t: &'a DVector<f64>,
    control: &'a Control,
}

impl Simulator {
    /// A simulator for `model` with `settings`, with the contact model `settings.contact`
    /// selects ([`ContactKind`]: SDRS hulls, long-range or IPC meshes), its friction stepping
    /// with `settings.dt`.
    pub fn new(model: Model, settings: StepSettings) -> Result<Self> {
        settings.check()?;
        let contact = settings
            .contact
            .as_ref()
            .map(|c| c.hook(&model, settings.dt))
            .transpose()?;
        Ok(Self {
            model,
            settings,
            contact,
            workspace: Workspace::default(),
        })
    }

    /// A simulator whose contact is the custom `hook`: the way in for contact models that
    /// [`ContactKind`] does not name. `settings.contact` must then be `None` (an error
    /// otherwise, rather than one of the two being ignored).
    pub fn with_contact(
        model: Model,
        settings: StepSettings,
        hook: Box<dyn ContactHook>,
    ) -> Result<Self> {
        settings.check()?;
        if let Some(contact) = &settings.contact {
            return Err(DynamicsError::TwoContactModels {
                settings: format!("{:?}", contact.kind),
            });
        }
        Ok(Self {
            model,
            settings,
            contact: Some(hook),
            workspace: Workspace::default(),
        })
    }

    /// Forgets every warm start of the contact model (separating planes, GJK hints, inner
    /// friction solves): the next step starts cold, as in a new simulator, so a rollout after
    /// a reset is bit-identical to the same rollout in a fresh simulator, whatever steps,
    /// [`Simulator::linearize`] or [`Simulator::objective`] calls came before.
    ///
    /// ```
    /// use sdrs_dynamics::scenes::box_on_incline;
    /// use sdrs_dynamics::{Motion, Simulator, State};
    /// let scene = box_on_incline(0.3, 0.5, 0.01)?;
    /// let mut sim = Simulator::new(scene.model.clone(), scene.settings)?;
    /// let start = Motion::at_rest(&scene.model, State::zero(&scene.model));
    /// let mut rollout = |sim: &mut Simulator| -> Result<Motion, sdrs_dynamics::DynamicsError> {
    ///     let mut motion = start.clone();
    ///     for _ in 0..5 {
    ///         sim.advance(&mut motion, &scene.control)?;
    ///     }
    ///     Ok(motion)
    /// };
    /// let first = rollout(&mut sim)?;
    /// sim.reset();
    /// assert_eq!(rollout(&mut sim)?, first);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reset(&mut self) {
        if let Some(hook) = self.contact.as_mut() {
            hook.reset_warm_starts();
        }
    }

    /// The model.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The settings.
    pub fn settings(&self) -> &StepSettings {
        &self.settings
    }

    /// One time step from `current` (θ^t) with link poses `previous` at t−1 (as returned by
    /// the last step, or [`Kinematics::poses`] of a state at rest; of the links of one rigid
    /// body only the first one's pose is read, the others follow it), under `control`. Returns
    /// θ^{t+1} (re-centred, see [`State::recentred`]) and the step's report. [`Motion`] and
    /// [`Simulator::advance`] keep the previous poses for you.
    ///
    /// The step is Newton's method with a line search that keeps every iterate collision-free.
    /// Should [`StepSettings::max_iterations`] iterations not converge (or stall before), the
    /// step goes on from where they stopped for as many again, damped (Levenberg-Marquardt,
    /// [`StepReport::damped`]); only when those do not converge either does it fail with
    /// [`DynamicsError::NotConverged`].
    pub fn step(
        &mut self,
        current: &State,
        previous: &[Isometry3<f64>],
        control: &Control,
    ) -> Result<(State, StepReport)> {
        let (next, report, now) = self.solve(current, previous, control)?;
        self.workspace.now = now;
        Ok((next, report))
    }

    /// Advances `motion` by one step under `control` and returns the step's report.
    ///
    /// ```
    /// use sdrs_dynamics::scenes::chain;
    /// use sdrs_dynamics::{Motion, Simulator, State};
    /// use nalgebra::DVector;
    /// let scene = chain(2, 0.01)?;
    /// let mut sim = Simulator::new(scene.model.clone(), scene.settings)?;
    /// let tilted = State::new(&scene.model, DVector::from_vec(vec![0.3, 0.0]))?;
    /// let mut motion = Motion::at_rest(&scene.model, tilted);
    /// let report = sim.advance(&mut motion, &scene.control)?;
    /// assert!(report.residual < 1e-4 && motion.state.q[0] < 0.3); // gravity swings it back
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn advance(&mut self, motion: &mut Motion, control: &Control) -> Result<StepReport> {
        let (next, report, now) = self.solve(&motion.state, &motion.previous, control)?;
        motion.state = next;
        motion.previous.clear();
        motion.previous.extend_from_slice(now.poses());
        self.workspace.now = now;
        Ok(report)
    }

    /// The contacts of `motion`: every pair of shapes with a non-zero normal energy at
    /// `motion.state` and, when the contact model has friction, every pair the friction of the
    /// step from `motion.previous` to `motion.state` acts on (the step [`Simulator::advance`]
    /// took last), with their points, normals, gaps and forces ([`ActiveContact`]). Empty
    /// without contact. Evaluated cold: it changes no warm start, so it does not change the
    /// steps that follow.
    ///
    /// ```
    /// use sdrs_dynamics::scenes::box_on_incline;
    /// use sdrs_dynamics::{Motion, Simulator, State};
    /// let scene = box_on_incline(0.0, 0.5, 0.01)?; // flat: a 1 kg box on a slab
    /// let mut sim = Simulator::new(scene.model.clone(), scene.settings)?;
    /// let mut motion = Motion::at_rest(&scene.model, State::zero(&scene.model));
    /// for _ in 0..100 {
    ///     sim.advance(&mut motion, &scene.control)?;
    /// }
    /// let contacts = sim.contacts(&motion)?;
    /// let load: f64 = contacts.iter().map(|c| c.normal_force).sum();
    /// assert!((load - 9.81).abs() < 1e-2 && contacts[0].normal.z > 0.99);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn contacts(&mut self, motion: &Motion) -> Result<Vec<ActiveContact>> {
        let model = &self.model;
        check_start(model, &motion.state, &motion.previous)?;
        let Some(hook) = self.contact.as_mut() else {
            return Ok(Vec::new());
        };
        let kin = Kinematics::new(model, &motion.state);
        hook.contacts(model, &motion.previous, &kin)
    }

    /// [`Simulator::step`], also returning the step-t kinematics it computed (on a pool thread
    /// when the contact hook asks for it, [`Simulator::on_pool`]).
    fn solve(
        &mut self,
        current: &State,
        previous: &[Isometry3<f64>],
        control: &Control,
    ) -> Result<(State, StepReport, Kinematics)> {
        self.on_pool(|sim| sim.newton(current, previous, control))
    }

    /// `work` on this simulator, run on a thread of rayon's pool when the contact hook asks
    /// for it ([`ContactHook::runs_on_pool`]) and the calling thread is not one already.
    ///
    /// Each evaluation of many hull pairs is a parallel region. Started from a thread outside
    /// the pool, a region is sent to the pool and the thread sleeps until it is done: two trips
    /// through the OS scheduler per region, about 4 regions per Newton iteration. Run on a pool
    /// thread, a step forks its regions itself (the other workers steal their share) and pays
    /// one such round trip: the rotating chains (N = 4) step in 312 µs instead of 383 µs on 2
    /// threads. Small scenes evaluate their pairs on the calling thread and stay there (the
    /// round trip would cost a resting box 3x its step); the mesh hooks stay too (the 16-ball
    /// billiards step took 230-254 ms on a pool thread against 181 ms, measured).
    fn on_pool<R: Send>(&mut self, work: impl FnOnce(&mut Self) -> R + Send) -> R {
        let asked = self.contact.as_ref().is_some_and(|c| c.runs_on_pool());
        if asked && rayon::current_thread_index().is_none() {
            rayon::scope(|_| work(self))
        } else {
            work(self)
        }
    }

    /// [`Simulator::solve`] on the calling thread: Newton's method on the step's objective.
    fn newton(
        &mut self,
        current: &State,
        previous: &[Isometry3<f64>],
        control: &Control,
    ) -> Result<(State, StepReport, Kinematics)> {
        let started = Instant::now();
        let mut newton = Duration::ZERO;
        let (now, data) = self.prepare(current, previous, control)?;
        let (mut state, mut eval, mut polish) =
            self.newton_start(current, previous, &now, &data)?;
        let mut step = 1.0;
        // Taken out for the solve (the line search borrows `self` mutably), put back on
        // success: the buffer outlives the step.
        let mut direction = std::mem::replace(&mut self.workspace.direction, DVector::zeros(0));
        // Levenberg-Marquardt damping, 0 in the first `max_iterations` iterations. A step whose
        // undamped Newton does not converge in them (it zig-zags on cut steps, as a body
        // sliding under stiff friction does: a quadruped's foot took 250 iterations, at line
        // search steps of 1/64) gets as many again from where it stopped, with the direction
        // `H + λ diag|H|` in place of `H` and `λ` adapted to how much of each step the line
        // search kept.
        // The solution is the same stationary point, so the backward pass does not change; a
        // step that converges undamped takes exactly the path it took without the fallback.
        let mut damping = 0.0;
        let mut limit = self.settings.max_iterations;
        let mut iteration = 0;
        loop {
            let residual = eval.gradient.amax();
            if residual < self.settings.tolerance
                && (!polish || residual < POLISHED * self.settings.tolerance)
            {
                // Re-centring changes the chart of spherical and free joints, not the poses:
                // the Hessian (and blocks) the backward pass gets are those of the new chart.
                // The poses are the same up to round-off; should that round-off cross a barrier
                // (or a warm start disagree), the step keeps the chart it converged in.
                let backward = self.settings.backward;
                let mut next = state.recentred(&self.model);
                if next != state {
                    let needs = if backward {
                        Needs::Hessian
                    } else {
                        Needs::Gradient
                    };
                    match self.evaluate(&next, &data, needs)? {
                        Ok(e) => self.recycle(std::mem::replace(&mut eval, e)),
                        Err(_) => next = state,
                    }
                }
                let linearization = if backward {
                    Some(Linearization {
                        derivatives: self.step_derivatives(
                            &eval.kinematics,
                            &now,
                            previous,
                            &data,
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
                timings.newton = newton;
                timings.total = started.elapsed();
                let report = StepReport {
                    iterations: iteration,
                    damped: damping > 0.0,
                    residual,
                    energy: eval.value,
                    active_pairs: eval.active_pairs,
                    timings,
                    linearization,
                };
                self.recycle(eval);
                self.workspace.direction = direction;
                return Ok((next, report, now));
            }
            if iteration == limit {
                if damping > 0.0 || !self.settings.damped_round {
                    break;
                }
                damping = DAMPING_START;
                limit += self.settings.max_iterations;
            }
            iteration += 1;
            let clock = Instant::now();
            self.descent_direction(&eval, damping, &mut direction)?;
            newton += clock.elapsed();
            let slope = eval.gradient.dot(&direction);
            let longest = self.max_step(&state, &direction, &eval)?;
            step = longest;
            // The full step is usually accepted: evaluate it with derivatives straight away.
            // Halving stops once the decrease a step promises is below the energy's round-off:
            // there a "decrease" is luck, and accepting it stalls Newton on steps of 2^-30 (seen
            // with stiff friction near the solution); the gradient test below judges instead.
            let resolvable = 64.0 * f64::EPSILON * eval.value.abs().max(1.0);
            let mut accepted = None;
            for attempt in 0..60 {
                if step * slope.abs() < resolvable {
                    break;
                }
                let trial = trial_state(&self.model, &state, &direction, step);
                match self.evaluate(&trial, &data, Needs::full_if(attempt == 0))? {
                    Ok(e) if e.value <= eval.value + 1e-4 * step * slope => {
                        let kept = if attempt == 0 {
                            Some(e)
                        } else {
                            self.recycle(e);
                            None
                        };
                        accepted = Some((trial, kept));
                        break;
                    }
                    Ok(e) => self.recycle(e),
                    Err(_) => {}
                }
                step *= 0.5;
            }
            if damping > 0.0 {
                // Shrink the damping after a full step, grow it after a cut or refused one.
                damping = if accepted.is_some() && step == longest {
                    (damping / DAMPING_FACTOR).max(f64::EPSILON)
                } else {
                    damping * DAMPING_FACTOR
                };
            }
            if let Some((next, evaluated)) = accepted {
                let full = match evaluated {
                    Some(e) => Ok(e),
                    None => self.evaluate_consistently(&next, &data)?,
                };
                if let Ok(e) = full {
                    state = next;
                    self.recycle(std::mem::replace(&mut eval, e));
                    polish = false;
                    continue;
                }
            }
            // Near the solution the decrease a step promises can fall below the round-off of
            // the energy (a sum of terms far larger than the decrease, some from inner solves):
            // the energy can no longer judge steps, but the gradient still can. Accept the
            // longest of a few steps that is collision-free and shrinks |∇O|∞.
            let mut shrunk = None;
            step = longest;
            for _ in 0..8 {
                let trial = trial_state(&self.model, &state, &direction, step);
                match self.evaluate(&trial, &data, Needs::Hessian)? {
                    Ok(e) if e.gradient.amax() < eval.gradient.amax() => {
                        shrunk = Some((trial, e));
                        break;
                    }
                    Ok(e) => self.recycle(e),
                    Err(_) => {}
                }
                step *= 0.5;
            }
            let Some((next, e)) = shrunk else {
                if polish && eval.gradient.amax() < self.settings.tolerance {
                    // No step improves a converged guess: keep it.
                    polish = false;
                    continue;
                }
                if damping == 0.0
                    && self.settings.damped_round
                    && eval.gradient.amax() >= self.settings.tolerance
                {
                    // Stuck undamped: go on damped, as after the iteration cap.
                    damping = DAMPING_START;
                    limit = iteration + self.settings.max_iterations;
                    continue;
                }
                break;
            };
            state = next;
            self.recycle(std::mem::replace(&mut eval, e));
            polish = false;
        }
        Err(DynamicsError::NotConverged {
            iterations: iteration,
            residual: eval.gradient.amax(),
            tolerance: self.settings.tolerance,
            energy: eval.value,
            step,
            hint: self.convergence_hint(&eval.kinematics),
        })
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
    /// per step, of the gradient only unless [`StepSettings::backward`] asks for the Hessian.
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
    fn newton_start(
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
    fn evaluate_start(
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
    fn extrapolated(
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

    /// The full evaluation of a state the line search accepted on its value alone. Warm-started
    /// inner solves can disagree with the value-only evaluation (another start, another
    /// iterate): the state is then evaluated cold before the trial is given up.
    fn evaluate_consistently(
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

    /// The error for a step that starts where the objective is infinite.
    fn infinite_error(&mut self, why: Infinite, now: &Kinematics) -> DynamicsError {
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

    /// Why a step may not have converged, from the contact pair with the largest energy.
    fn convergence_hint(&mut self, kin: &Kinematics) -> String {
        let Some(hook) = self.contact.as_mut() else {
            return String::new();
        };
        let Ok(Some(([a, b], energy))) = hook.largest_pair(&self.model, kin) else {
            return String::new();
        };
        let gap = self
            .model
            .link_distance(kin, a, b, f64::INFINITY)
            .map_or(String::new(), |d| format!(" at a gap of {:.3e} m", d));
        let links = self.model.links();
        format!(
            "; the largest contact term is between '{}' and '{}' (energy {energy:.3e}{gap}). \
             A pair that starts well inside the barrier's support distance is pushed apart \
             very hard: start it farther apart or leave it out of contact \
             (Model::exclude_touching with the support distance as margin); for a pair that \
             met during the run, a smaller time step may help",
            links[a].name, links[b].name
        )
    }

    /// Checks a step's inputs and gathers what stays fixed during its solve: the kinematics at
    /// step t (the workspace's, lent until the caller gives it back), the inertial predictions
    /// `2T^t − T^{t−1}` (into the workspace) and the friction frames.
    fn prepare<'a>(
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
        };
        Ok((now, data))
    }

    /// The objective `O(θ^{t+1}; θ^t, T^{t−1}, u)` of the step from `current` at `next`, with
    /// its gradient and Hessian in `θ^{t+1}`; `None` where it is infinite (penetration or a
    /// limit). What [`Simulator::step`] minimises, exposed for checks and custom solvers.
    pub fn objective(
        &mut self,
        next: &State,
        current: &State,
        previous: &[Isometry3<f64>],
        control: &Control,
    ) -> Result<Option<Objective>> {
        Ok(self
            .objective_view(next, current, previous, control)?
            .map(|o| Objective {
                value: o.value,
                gradient: o.gradient.clone(),
                hessian: o.hessian.clone(),
            }))
    }

    /// [`Simulator::objective`] lent from the simulator's buffers instead of copied, valid
    /// until the simulator is used again: once the simulator has stepped (or evaluated) the
    /// model, this allocates nothing when the contact hook and user energies do not.
    ///
    /// ```
    /// use sdrs_dynamics::scenes::chain;
    /// use sdrs_dynamics::{Motion, Simulator, State};
    /// let scene = chain(3, 0.01)?;
    /// let mut sim = Simulator::new(scene.model.clone(), scene.settings.clone())?;
    /// let motion = Motion::at_rest(&scene.model, State::zero(&scene.model));
    /// let (next, _) = sim.step(&motion.state, &motion.previous, &scene.control)?;
    /// let at = sim
    ///     .objective_view(&next, &motion.state, &motion.previous, &scene.control)?
    ///     .expect("finite: no contact, no limits");
    /// assert!(at.gradient.amax() < scene.settings.tolerance); // the step's solution
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn objective_view(
        &mut self,
        next: &State,
        current: &State,
        previous: &[Isometry3<f64>],
        control: &Control,
    ) -> Result<Option<ObjectiveView<'_>>> {
        if let Some(old) = self.workspace.viewed.take() {
            self.recycle(old);
        }
        let (now, data) = self.prepare(current, previous, control)?;
        self.workspace.now = now;
        next.check(&self.model)?;
        if let Ok(e) = self.evaluate(next, &data, Needs::Hessian)? {
            self.workspace.viewed = Some(e);
        }
        Ok(self.workspace.viewed.as_ref().map(|e| ObjectiveView {
            value: e.value,
            gradient: &e.gradient,
            hessian: &e.hessian,
        }))
    }

    /// The Hessian and mixed blocks of the step from `current` (with link poses `previous` at
    /// t−1) under `control`, at a given solution `next`, without solving: what a step with
    /// [`StepSettings::backward`] reports, recomputed from stored states. The backward pass of a
    /// trajectory recorded without blocks (O(H·|θ|) memory) calls it once per step.
    pub fn linearize(
        &mut self,
        next: &State,
        current: &State,
        previous: &[Isometry3<f64>],
        control: &Control,
    ) -> Result<Linearization> {
        self.on_pool(|sim| sim.linearize_here(next, current, previous, control))
    }

    /// [`Simulator::linearize`] on the calling thread.
    fn linearize_here(
        &mut self,
        next: &State,
        current: &State,
        previous: &[Isometry3<f64>],
        control: &Control,
    ) -> Result<Linearization> {
        let (now, data) = self.prepare(current, previous, control)?;
        next.check(&self.model)?;
        let eval = match self.evaluate(next, &data, Needs::Hessian)? {
            Ok(e) => e,
            Err(Infinite::Contact) => {
                let at = Kinematics::new(&self.model, next);
                return Err(self
                    .contact
                    .as_mut()
                    .and_then(|hook| hook.penetration(&self.model, &at))
                    .unwrap_or(DynamicsError::InfiniteEnergy));
            }
            Err(_) => return Err(DynamicsError::InfiniteEnergy),
        };
        let derivatives = self.step_derivatives(&eval.kinematics, &now, previous, &data)?;
        self.workspace.now = now;
        Ok(Linearization {
            factor: self.exact_factor(&eval.hessian)?,
            hessian: eval.hessian,
            derivatives,
        })
    }

    /// The longest step along `direction` from `state` the contact model allows (continuous
    /// collision detection between the two configurations; 1 without contact).
    fn max_step(
        &mut self,
        state: &State,
        direction: &DVector<f64>,
        eval: &Evaluation,
    ) -> Result<f64> {
        let Some(hook) = self.contact.as_mut() else {
            return Ok(1.0);
        };
        let mut end = state.clone();
        end.q += direction;
        hook.max_step(&self.model, &eval.kinematics, &end)
    }

    /// The factorisation of a converged Hessian for the backward pass; a singular one is kept
    /// empty, for the backward pass to report when it solves.
    fn exact_factor(&mut self, hessian: &DMatrix<f64>) -> Result<HessianFactor> {
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
    fn descent_direction(
        &mut self,
        eval: &Evaluation,
        damping: f64,
        direction: &mut DVector<f64>,
    ) -> Result<()> {
        let floor = self.settings.eigenvalue_floor;
        if damping > 0.0 {
            let mut damped = eval.hessian.clone();
            for i in 0..damped.nrows() {
                damped[(i, i)] += damping * damped[(i, i)].abs();
            }
            self.workspace.factor.factorize_modified(&damped, floor)?;
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
        self.workspace.factor.solve_in_place(direction)?;
        direction.neg_mut();
        Ok(())
    }

    /// Gives an evaluation's buffers back to the workspace for the next evaluation.
    fn recycle(&mut self, eval: Evaluation) {
        self.workspace.spare.push(eval);
    }

    /// The objective at `state`, or which term is infinite there; an error if a term is NaN.
    /// Its buffers come from the workspace: give them back with [`Simulator::recycle`].
    fn evaluate(
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
    fn evaluate_into(
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
            // Stable PD (eq. 5) and the work of the generalized force.
            value += c.kp[j] * p * p + c.kd[j] * v * v - c.force[j] * (state.q[j] - data.q_t[j]);
            if derivatives {
                gradient[j] += -2.0 * c.kp[j] * p - 2.0 * c.kd[j] * v / dt - c.force[j];
            }
            if hessians {
                hessian[(j, j)] += 2.0 * c.kp[j] + 2.0 * c.kd[j] / (dt * dt);
            }
        }
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
        if let Some(hook) = self.contact.as_mut() {
            let g = derivatives.then_some(&mut *gradient);
            let h = hessians.then_some(&mut *hessian);
            let Some(energy) = hook.add(model, kin, g, h)? else {
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
