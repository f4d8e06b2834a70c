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
//! A step is a pipeline; each stage has its module:
//!
//! 1. `Simulator::prepare` (`evaluation.rs`): checks the inputs and gathers what stays fixed
//!    during the solve: the step-t kinematics, the inertial predictions `2T^t − T^{t−1}`, the
//!    contact model's lagged friction frames.
//! 2. `Simulator::newton_start` (`newton.rs`): θ^t, or the state the last step's motion
//!    carries it to.
//! 3. `Simulator::newton` (`newton.rs`): Newton iterations, each a direction from the
//!    Hessian (with contact, the contact model's force-anchored model of it, see
//!    [`StepSettings::anchored_newton`]) with its eigenvalues clamped (sec. V clamps them to at least 1e-3; mapping a
//!    negative `λ` to `|λ|` keeps the step along negative curvature) and damped after cut
//!    line-search steps (Levenberg-Marquardt, `newton::next_damping`).
//! 4. The line search (`line_search.rs`): backtracking until the energy is finite (no
//!    penetration) and decreases enough (Armijo), so every accepted state, and the returned
//!    one, is collision-free; near the round-off of the energy, the step that shrinks `|∇O|∞`.
//! 5. Each trial is an evaluation of `O` (`evaluation.rs`): body energies assembled through
//!    composite bodies (`assembly.rs`), PD, limits, user energies, and the contact hook
//!    (`contact.rs`, `mesh_contact.rs`: pairs through `pairs.rs`, summed per link in
//!    `link_sums.rs` and mapped to coordinates once).
//! 6. The convergence test (`convergence.rs`): `|∇O|∞ < tolerance`, or at its round-off floor
//!    when no step improves it; otherwise [`DynamicsError::NotConverged`] names the
//!    coordinate and the terms that did not balance.
//! 7. The report (`report.rs`) and, with [`StepSettings::backward`], the linearization at the
//!    solution for the backward pass (`backward.rs`).

mod active;
mod assembly;
mod backward;
mod candidates;
pub mod contact;
mod convergence;
mod evaluation;
mod line_search;
mod link_sums;
mod mesh_contact;
mod newton;
mod pairs;
mod parameters;
#[cfg(test)]
mod random_trees;
mod report;
mod settings;

pub use active::ActiveContact;
pub use backward::{DesignBlock, DesignBlocks, StepDerivatives};
pub use contact::{ContactEnergy, ContactHook, PairTerm, PairVertex, SdrsContact};
pub use mesh_contact::{IpcContact, LongRangeContact, MeshContact};
pub use parameters::PhysicalParameter;
pub use report::{Linearization, Objective, ObjectiveView, StepReport, StepTimings};
pub use settings::{
    ContactKind, ContactSettings, Control, ExternalEnergy, FrictionSettings, Gain, NewtonStart,
    StepSettings,
};

use crate::motion::Motion;

use crate::error::{DynamicsError, Result};
use crate::factor::HessianFactor;
use crate::kinematics::{Kinematics, State};
use crate::model::Model;
use assembly::Composites;
use evaluation::{Evaluation, Infinite, Needs, check_start};
use nalgebra::{DMatrix, DVector, Isometry3, SMatrix};

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
    /// The damped Hessian's buffer ([`Simulator::descent_direction`]).
    damped: DMatrix<f64>,
    /// Whether evaluations with a Hessian take the contact hook's Newton model
    /// ([`StepSettings::anchored_newton`]): on during a step's Newton iterations only.
    anchored: bool,
}

impl Simulator {
    /// A simulator for `model` with `settings`, with the contact model `settings.contact`
    /// selects ([`ContactKind`]: SDRS hulls, long-range or IPC meshes), its friction stepping
    /// with `settings.dt`.
    pub fn new(model: Model, settings: StepSettings) -> Result<Self> {
        settings.check()?;
        parameters::check_parameters(&model, &settings)?;
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
        parameters::check_parameters(&model, &settings)?;
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

    /// Sets the physical parameters the backward pass differentiates with respect to
    /// ([`StepSettings::parameters`]); an error naming a parameter the model or the settings
    /// do not have, and then nothing changes.
    ///
    /// ```
    /// use sdrs_dynamics::scenes::chain;
    /// use sdrs_dynamics::stepper::PhysicalParameter;
    /// use sdrs_dynamics::Simulator;
    /// let scene = chain(3, 0.01)?;
    /// let mut sim = Simulator::new(scene.model, scene.settings)?;
    /// sim.set_parameters(vec![PhysicalParameter::Gravity, PhysicalParameter::LinkMass { link: 2 }])?;
    /// // The chain has no contact: its stiffness is not a parameter.
    /// assert!(sim.set_parameters(vec![PhysicalParameter::ContactStiffness]).is_err());
    /// assert_eq!(sim.settings().parameters.len(), 2);
    /// # Ok::<(), sdrs_dynamics::DynamicsError>(())
    /// ```
    pub fn set_parameters(&mut self, parameters: Vec<PhysicalParameter>) -> Result<()> {
        let previous = std::mem::replace(&mut self.settings.parameters, parameters);
        if let Err(error) = parameters::check_parameters(&self.model, &self.settings) {
            self.settings.parameters = previous;
            return Err(error);
        }
        Ok(())
    }

    /// One time step from `current` (θ^t) with link poses `previous` at t−1 (as returned by
    /// the last step, or [`Kinematics::poses`] of a state at rest; of the links of one rigid
    /// body only the first one's pose is read, the others follow it), under `control`. Returns
    /// θ^{t+1} (re-centred, see [`State::recentred`]) and the step's report. [`Motion`] and
    /// [`Simulator::advance`] keep the previous poses for you.
    ///
    /// The step is Newton's method with a line search that keeps every iterate collision-free.
    /// Iterations whose line search had to cut the step are followed by damped ones
    /// (Levenberg-Marquardt, [`StepReport::damped`]). Should
    /// [`StepSettings::max_iterations`] iterations not converge (or stall before), the step
    /// goes on from where they stopped for as many again, damped; an iterate that no step
    /// improves and whose gradient is at its round-off floor is converged whatever the
    /// tolerance. Otherwise the step is solved once more with the contact model's warm starts
    /// forgotten, and if that fails too, it fails with [`DynamicsError::NotConverged`], which
    /// names the coordinate that did not balance.
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
    ///
    /// A step that does not converge is solved once more from cold contact warm starts, with
    /// the exact Hessian's directions ([`StepSettings::anchored_newton`] off), before it fails:
    /// planes and friction solves carried over from earlier steps can hold Newton where a cold
    /// start does not (an ant under random PD targets at Δt = 20 ms: 200 iterations warm
    /// without converging, 128 cold). Steps that converge are unchanged; the report of a
    /// retried step counts both attempts' iterations.
    fn solve(
        &mut self,
        current: &State,
        previous: &[Isometry3<f64>],
        control: &Control,
    ) -> Result<(State, StepReport, Kinematics)> {
        let anchored = self.settings.anchored_newton;
        self.on_pool(
            |sim| match sim.newton(current, previous, control, anchored) {
                Err(DynamicsError::NotConverged { iterations, .. }) if sim.contact.is_some() => {
                    if let Some(hook) = sim.contact.as_mut() {
                        hook.reset_warm_starts();
                    }
                    // Cold, and with the exact Hessian's directions.
                    let (next, mut report, now) = sim.newton(current, previous, control, false)?;
                    report.iterations += iterations;
                    Ok((next, report, now))
                }
                result => result,
            },
        )
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
        let derivatives = self.step_derivatives((next, &eval.kinematics), &now, previous, &data)?;
        self.workspace.now = now;
        Ok(Linearization {
            factor: self.exact_factor(&eval.hessian)?,
            hessian: eval.hessian,
            derivatives,
        })
    }
}
