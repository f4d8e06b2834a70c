//! The position-level time step (SDRS eq. 14): `θ^{t+1} = argmin O`, by Newton's method.
//!
//! `O = Σ_links (inertia + gravity) + U_PD + κ Σ U_c + Σ U_f`: the contact barrier between
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
//! and the returned one, is collision-free. The step stops when `|∇O|∞ < tolerance` and fails
//! with [`DynamicsError::NotConverged`] otherwise.

use crate::energy::{link_energy, link_energy_cross, rows};
use crate::error::{DynamicsError, Result};
use crate::kinematics::{Kinematics, State};
use crate::model::Model;
use nalgebra::{DMatrix, DVector, Isometry3, Matrix3, SMatrix, Vector3};
use sdrs_contact::barrier::barrier;
use sdrs_contact::friction::{FrictionCache, FrictionFrame, PlaneFriction};
use sdrs_contact::{ContactModel, Order, PairOutcome, PlaneBarrier, PlaneCache};
use sdrs_geometry::broad_phase::{BroadPhase, Proxy};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// A user energy added to the time-stepping objective, e.g. a spring, a field or a soft
/// constraint. It sees the step-(t+1) configuration and adds its gradient and (when asked)
/// Hessian in generalized coordinates; [`Kinematics::add_term`] maps link-level derivatives
/// there. It must be smooth, may return `+∞` to forbid a state, and must not return NaN.
pub trait ExternalEnergy: std::fmt::Debug + Send + Sync {
    /// Adds this energy's gradient (and Hessian, if `hessian` is given) at `state` and returns
    /// its value.
    fn add(
        &self,
        model: &Model,
        kinematics: &Kinematics,
        state: &State,
        gradient: &mut DVector<f64>,
        hessian: Option<&mut DMatrix<f64>>,
    ) -> f64;
}

/// Contact settings of a scene.
#[derive(Debug, Clone)]
pub struct ContactSettings {
    /// The normal-contact barrier.
    pub barrier: PlaneBarrier,
    /// Contact stiffness `κ`, the multiplier of the barrier sum in eq. 14.
    pub stiffness: f64,
    /// Plane friction, if any.
    pub friction: Option<PlaneFriction>,
    /// Skip pairs of hulls on a parent and its child link (which usually overlap at the joint).
    pub skip_adjacent: bool,
}

/// Time-step settings.
#[derive(Debug, Clone)]
pub struct StepSettings {
    /// Time step Δt (s).
    pub dt: f64,
    /// Gravity along −z (m/s²).
    pub gravity: f64,
    /// Lower bound of the Hessian's eigenvalues (in absolute value) in the Newton direction.
    pub eigenvalue_floor: f64,
    /// Convergence tolerance on `|∇O|∞` (N, or N·m for rotations).
    pub tolerance: f64,
    /// Newton iteration cap.
    pub max_iterations: usize,
    /// Support of the joint-limit barrier: a limited DoF within this distance (rad or m) of a
    /// limit feels `limit_stiffness · P_s(distance)`, the SDRS barrier of eq. 6, which is
    /// infinite at the limit and exactly zero (C²) beyond the support.
    pub limit_support: f64,
    /// Multiplier of the joint-limit barrier.
    pub limit_stiffness: f64,
    /// Contact, if any.
    pub contact: Option<ContactSettings>,
    /// User energies added to the objective.
    pub external: Vec<std::sync::Arc<dyn ExternalEnergy>>,
    /// Also return the mixed derivative blocks of the step ([`StepDerivatives`]) that the
    /// backward pass needs.
    pub backward: bool,
}

impl StepSettings {
    /// `dt`, gravity 9.81, eigenvalue floor 1e-3, tolerance 1e-4, 100 iterations, no contact
    /// (the paper's settings, sec. V).
    pub fn new(dt: f64) -> Result<Self> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(DynamicsError::InvalidSetting {
                name: "dt",
                value: dt,
                allowed: "positive and finite",
            });
        }
        Ok(Self {
            dt,
            gravity: 9.81,
            eigenvalue_floor: 1e-3,
            tolerance: 1e-4,
            max_iterations: 100,
            limit_support: 0.01,
            limit_stiffness: 1.0,
            contact: None,
            external: Vec::new(),
            backward: false,
        })
    }
}

/// Stable-PD control of one step (eq. 5): per DoF gains and targets.
///
/// The energy is `k_p (θ* − θ)² + k_d (θ̇* − (θ − θ^t)/Δt)²` as the paper writes it, so the
/// spring force is `2 k_p (θ* − θ)` and the damping force `2 k_d (θ̇* − v)/Δt`: a damping
/// coefficient `c` (N·s/m or N·m·s/rad) is `k_d = c Δt / 2`.
#[derive(Debug, Clone, PartialEq)]
pub struct Control {
    /// Position gains `k_p` (zero for unactuated DoFs).
    pub kp: DVector<f64>,
    /// Velocity gains `k_d`.
    pub kd: DVector<f64>,
    /// Target positions `θ*`.
    pub position: DVector<f64>,
    /// Target velocities `θ̇*`.
    pub velocity: DVector<f64>,
}

impl Control {
    /// No actuation.
    pub fn passive(model: &Model) -> Self {
        let zero = DVector::zeros(model.dof());
        Self {
            kp: zero.clone(),
            kd: zero.clone(),
            position: zero.clone(),
            velocity: zero,
        }
    }

    fn check(&self, dof: usize) -> Result<()> {
        for (what, v) in [
            ("kp", &self.kp),
            ("kd", &self.kd),
            ("target position", &self.position),
            ("target velocity", &self.velocity),
        ] {
            if v.len() != dof {
                return Err(DynamicsError::LengthMismatch {
                    what,
                    actual: v.len(),
                    expected: dof,
                });
            }
            if let Some(index) = v.iter().position(|x| !x.is_finite()) {
                return Err(DynamicsError::NonFinite { what, index });
            }
        }
        Ok(())
    }
}

/// What a step returns besides the new state.
#[derive(Debug, Clone)]
pub struct StepReport {
    /// Newton iterations taken.
    pub iterations: usize,
    /// Final `|∇O|∞`.
    pub residual: f64,
    /// Final objective value.
    pub energy: f64,
    /// The Hessian of `O` at the solution (unclamped): the backward pass factorises it.
    pub hessian: DMatrix<f64>,
    /// Hull pairs with a non-zero barrier at the solution.
    pub active_pairs: usize,
    /// Where the time went.
    pub timings: StepTimings,
    /// The mixed blocks for the backward pass, when [`StepSettings::backward`] is set.
    pub derivatives: Option<StepDerivatives>,
}

/// Mixed second derivatives of the objective `O` at the solution `θ^{t+1}` of a step: with the
/// Hessian `H = ∂²O/∂θ^{t+1}²`, the implicit function theorem gives
/// `∂θ^{t+1}/∂y = −H⁻¹ ∂²O/∂θ^{t+1}∂y` for each input `y` of the step.
#[derive(Debug, Clone, PartialEq)]
pub struct StepDerivatives {
    /// `∂²O/∂θ^{t+1}∂θ^t` (n x n): inertia (through `T^t`), PD damping and friction's lagged
    /// frame.
    pub current: DMatrix<f64>,
    /// `∂²O/∂θ^{t+1}∂ξ^{t−1}` (n x 6·links): with respect to the twists of the previous link
    /// poses (compose with their Jacobians for `θ^{t−1}`).
    pub previous: DMatrix<f64>,
    /// `∂²O/∂θ^{t+1}_j ∂θ*_j = −2 k_p` (the block is diagonal).
    pub target_position: DVector<f64>,
    /// `∂²O/∂θ^{t+1}_j ∂θ̇*_j = −2 k_d / Δt` (diagonal).
    pub target_velocity: DVector<f64>,
    /// `∂²O/∂θ^{t+1}∂x` for the hull-vertex part of the design vector (n x 3·vertices; column
    /// `model.design_index(link, Some((hull, vertex))) − 3·links` is the vertex's first
    /// coordinate): vertex-lumped inertia and gravity, the barrier's and friction's shape
    /// derivatives. `None` when a link with hulls has a solid mass model, whose derivative in
    /// the vertices is not provided.
    pub vertices: Option<DMatrix<f64>>,
    /// `∂²O/∂θ^{t+1}∂t^d` for the attachment part of the design vector (n x 3·links, column
    /// `model.design_index(link, None)`), with `θ^t` and the previous poses held fixed (so
    /// `T^t = T(d, θ^t)` moves with the design, `T^{t−1}` does not). `None` when user energies
    /// are present: they are not differentiated with respect to the design.
    pub attachments: Option<DMatrix<f64>>,
}

/// One pose-dependent term of the objective at a step's solution (a link's inertia and
/// gravity, or a hull pair's barrier or friction), with its derivatives with respect to the
/// twists of its links (6 per link).
struct Term {
    links: Vec<usize>,
    /// The hulls of a pair term (empty for a link term).
    hulls: Vec<HullRef>,
    gradient: DVector<f64>,
    hessian: DMatrix<f64>,
    /// `∂g/∂ξ^t` with respect to the same links' step-t twists.
    step_t: DMatrix<f64>,
    /// `∂g/∂ξ^{t−1}` of a link term.
    step_prev: Option<SMatrix<f64, 6, 6>>,
    /// `(hull, vertex, body, ∂g/∂x)` for the local vertices it depends on; `hull` indexes the
    /// link's hulls for a link term and is the pair's hull `body` for a pair term.
    vertices: Vec<(usize, usize, usize, DMatrix<f64>)>,
}

/// `∂²O/∂θ^{t+1}∂x` over all hull vertices (columns as in [`StepDerivatives::vertices`]).
fn vertex_block(model: &Model, kin: &Kinematics, terms: &[Term]) -> DMatrix<f64> {
    let offset = 3 * model.links().len();
    let mut block = DMatrix::zeros(model.dof(), model.design_len() - offset);
    for term in terms {
        for (hull, vertex, body, m) in &term.vertices {
            let link = term.hulls.get(*body).map_or(term.links[0], |r| r.link);
            let col = model.design_index(link, Some((*hull, *vertex))) - offset;
            for (b, &l) in term.links.iter().enumerate() {
                let rows = m.fixed_view::<6, 3>(6 * b, 0);
                for (k, jac) in kin.jacobian(l) {
                    let row = jac.transpose() * rows;
                    for c in 0..3 {
                        block[(*k, col + c)] += row[c];
                    }
                }
            }
        }
    }
    block
}

/// `∂²O/∂θ^{t+1}∂t^d` (columns as in [`StepDerivatives::attachments`]).
///
/// Moving link `i`'s attachment by `δ` (parent frame) translates its subtree `S` by
/// `Δ = R_parent δ` at step t+1 and by `R^t_parent δ` at step t. Each term's twist gradient
/// changes by its Hessian's and step-t block's translation columns for the bodies in `S`,
/// and the Jacobian column of an outside DoF `k` for a link `l ∈ S` by `(ω_k × Δ, 0)`, which
/// adds `(g_v,l × ω_k) · Δ`.
fn attachment_block(
    model: &Model,
    kin: &Kinematics,
    now: &Kinematics,
    terms: &[Term],
) -> DMatrix<f64> {
    let links = model.links().len();
    let mut block = DMatrix::zeros(model.dof(), 3 * links);
    for i in 0..links {
        let inside = |l: usize| {
            let mut at = Some(l);
            while let Some(j) = at {
                if j == i {
                    return true;
                }
                at = model.links()[j].parent;
            }
            false
        };
        let parent = |k: &Kinematics| -> Matrix3<f64> {
            model.links()[i]
                .parent
                .map(|p| k.poses()[p].rotation.into())
                .unwrap_or_else(Matrix3::identity)
        };
        let (turn, turn_t) = (parent(kin), parent(now));
        let first_inside = model.dof_offset(i);
        for term in terms {
            let n = term.links.len();
            // ∂g/∂δ of the whole term: translation columns of the moved bodies.
            let mut dg = DMatrix::<f64>::zeros(6 * n, 3);
            for (c, &l) in term.links.iter().enumerate() {
                if inside(l) {
                    dg += term.hessian.view((0, 6 * c), (6 * n, 3)) * turn
                        + term.step_t.view((0, 6 * c), (6 * n, 3)) * turn_t;
                }
            }
            for (b, &l) in term.links.iter().enumerate() {
                let rows = dg.view((6 * b, 0), (6, 3));
                for (k, jac) in kin.jacobian(l) {
                    let row = jac.transpose() * rows;
                    for c in 0..3 {
                        block[(*k, 3 * i + c)] += row[c];
                    }
                }
                if !inside(l) {
                    continue;
                }
                let gv = Vector3::new(
                    term.gradient[6 * b],
                    term.gradient[6 * b + 1],
                    term.gradient[6 * b + 2],
                );
                for &k in model.path(l).iter().filter(|&&k| k < first_inside) {
                    let row = gv.cross(&kin.screw(k).0).transpose() * turn;
                    for c in 0..3 {
                        block[(k, 3 * i + c)] += row[c];
                    }
                }
            }
        }
    }
    block
}

/// Wall time of one step by part (SDRS Table II's breakdown).
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

/// A hull of the scene: its link and index in that link.
#[derive(Debug, Clone, Copy)]
struct HullRef {
    link: usize,
    hull: usize,
}

/// Every hull of the scene, the broad phase over them and the per-pair warm starts.
#[derive(Debug)]
struct ContactState {
    settings: ContactSettings,
    hulls: Vec<HullRef>,
    broad_phase: BroadPhase,
    planes: HashMap<(usize, usize), PlaneCache>,
    frictions: HashMap<(usize, usize), FrictionCache>,
    timings: StepTimings,
}

/// Steps a model forward in time, keeping the per-pair warm-start caches between steps.
#[derive(Debug)]
pub struct Simulator {
    model: Model,
    settings: StepSettings,
    contact: Option<ContactState>,
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

/// The objective at one configuration.
struct Evaluation {
    value: f64,
    gradient: DVector<f64>,
    hessian: DMatrix<f64>,
    active_pairs: usize,
}

/// The data of one step that does not change during its Newton solve.
struct StepData<'a> {
    predicted: Vec<SMatrix<f64, 3, 4>>,
    q_t: &'a DVector<f64>,
    control: &'a Control,
    frames: Vec<((usize, usize), FrictionFrame)>,
}

impl Simulator {
    /// A simulator for `model` with `settings`.
    pub fn new(model: Model, settings: StepSettings) -> Result<Self> {
        let contact = match &settings.contact {
            Some(c) => {
                if !(c.stiffness.is_finite() && c.stiffness > 0.0) {
                    return Err(DynamicsError::InvalidSetting {
                        name: "stiffness",
                        value: c.stiffness,
                        allowed: "positive and finite",
                    });
                }
                Some(ContactState {
                    settings: c.clone(),
                    hulls: model
                        .links()
                        .iter()
                        .enumerate()
                        .flat_map(|(link, l)| {
                            (0..l.hulls.len()).map(move |hull| HullRef { link, hull })
                        })
                        .collect(),
                    broad_phase: BroadPhase::new(c.barrier.support_distance())
                        .expect("a barrier's support distance is a valid margin"),
                    planes: HashMap::new(),
                    frictions: HashMap::new(),
                    timings: StepTimings::default(),
                })
            }
            None => None,
        };
        Ok(Self {
            model,
            settings,
            contact,
        })
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
    /// the last step, or [`Kinematics::poses`] of a state at rest), under `control`. Returns
    /// θ^{t+1} (re-centred, see [`State::recentred`]) and the step's report.
    pub fn step(
        &mut self,
        current: &State,
        previous: &[Isometry3<f64>],
        control: &Control,
    ) -> Result<(State, StepReport)> {
        let started = Instant::now();
        let mut newton = Duration::ZERO;
        if let Some(c) = self.contact.as_mut() {
            c.timings = StepTimings::default();
        }
        let (now, data) = self.prepare(current, previous, control)?;
        let mut state = current.clone();
        let mut eval = match self.evaluate(&state, &data, true)? {
            Some(e) => e,
            None => return Err(self.penetrating_pair(&now)),
        };
        let mut step = 1.0;
        for iteration in 0..self.settings.max_iterations {
            let residual = eval.gradient.amax();
            if residual < self.settings.tolerance {
                // Re-centring changes the chart of spherical and free joints, not the poses:
                // the Hessian (and blocks) the backward pass gets are those of the new chart.
                let next = state.recentred(&self.model);
                if next != state {
                    eval = self
                        .evaluate(&next, &data, true)?
                        .expect("the same poses have the same finite energy");
                }
                let derivatives = if self.settings.backward {
                    Some(self.step_derivatives(&next, &now, previous, &data)?)
                } else {
                    None
                };
                let mut timings = self.contact.as_ref().map(|c| c.timings).unwrap_or_default();
                timings.newton = newton;
                timings.total = started.elapsed();
                return Ok((
                    next,
                    StepReport {
                        iterations: iteration,
                        residual,
                        energy: eval.value,
                        hessian: eval.hessian,
                        active_pairs: eval.active_pairs,
                        timings,
                        derivatives,
                    },
                ));
            }
            let clock = Instant::now();
            let direction = self.descent_direction(&eval);
            newton += clock.elapsed();
            let slope = eval.gradient.dot(&direction);
            step = 1.0;
            // The full step is usually accepted: evaluate it with derivatives straight away.
            let mut accepted = None;
            for attempt in 0..60 {
                let mut trial = state.clone();
                trial.q += &direction * step;
                if let Some(e) = self.evaluate(&trial, &data, attempt == 0)?
                    && e.value <= eval.value + 1e-4 * step * slope
                {
                    accepted = Some((trial, (attempt == 0).then_some(e)));
                    break;
                }
                step *= 0.5;
            }
            if let Some((next, evaluated)) = accepted {
                eval = match evaluated {
                    Some(e) => e,
                    None => self
                        .evaluate(&next, &data, true)?
                        .expect("an accepted state has finite energy"),
                };
                state = next;
                continue;
            }
            // Near the solution the decrease a step promises can fall below the round-off of
            // the energy (a sum of terms far larger than the decrease, some from inner solves):
            // the energy can no longer judge steps, but the gradient still can. Accept the
            // longest of a few steps that is collision-free and shrinks |∇O|∞.
            let mut shrunk = None;
            step = 1.0;
            for _ in 0..8 {
                let mut trial = state.clone();
                trial.q += &direction * step;
                if let Some(e) = self.evaluate(&trial, &data, true)?
                    && e.gradient.amax() < eval.gradient.amax()
                {
                    shrunk = Some((trial, e));
                    break;
                }
                step *= 0.5;
            }
            let Some((next, e)) = shrunk else { break };
            (state, eval) = (next, e);
        }
        Err(DynamicsError::NotConverged {
            iterations: self.settings.max_iterations,
            residual: eval.gradient.amax(),
            tolerance: self.settings.tolerance,
            energy: eval.value,
            step,
        })
    }

    /// Checks a step's inputs and gathers what stays fixed during its solve: the kinematics at
    /// step t, the inertial predictions `2T^t − T^{t−1}` and the friction frames.
    fn prepare<'a>(
        &mut self,
        current: &'a State,
        previous: &[Isometry3<f64>],
        control: &'a Control,
    ) -> Result<(Kinematics, StepData<'a>)> {
        let model = &self.model;
        if previous.len() != model.links().len() {
            return Err(DynamicsError::LengthMismatch {
                what: "previous link poses",
                actual: previous.len(),
                expected: model.links().len(),
            });
        }
        if current.q.len() != model.dof() {
            return Err(DynamicsError::LengthMismatch {
                what: "generalized coordinates",
                actual: current.q.len(),
                expected: model.dof(),
            });
        }
        control.check(model.dof())?;
        for (i, link) in model.links().iter().enumerate() {
            if let Some((lower, upper)) = link.limits {
                let dof = model.dof_offset(i);
                let value = current.q[dof];
                if !(value > lower && value < upper) {
                    return Err(DynamicsError::OutsideLimits {
                        dof,
                        value,
                        lower,
                        upper,
                    });
                }
            }
        }
        let now = Kinematics::new(model, current);
        let predicted = now
            .poses()
            .iter()
            .zip(previous)
            .map(|(t, p)| rows(t) * 2.0 - rows(p))
            .collect();
        let frames = self.friction_frames(&now)?;
        let data = StepData {
            predicted,
            q_t: &current.q,
            control,
            frames,
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
        let (_, data) = self.prepare(current, previous, control)?;
        Ok(self.evaluate(next, &data, true)?.map(|e| Objective {
            value: e.value,
            gradient: e.gradient,
            hessian: e.hessian,
        }))
    }

    /// The mixed blocks of [`StepDerivatives`] at the solution `next`.
    fn step_derivatives(
        &mut self,
        next: &State,
        now: &Kinematics,
        previous: &[Isometry3<f64>],
        data: &StepData,
    ) -> Result<StepDerivatives> {
        let (n, links, dt) = (self.model.dof(), self.model.links().len(), self.settings.dt);
        let kin = Kinematics::new(&self.model, next);
        let terms = self.terms(&kin, now, previous, data)?;
        let model = &self.model;
        let mut current = DMatrix::zeros(n, n);
        let mut before = DMatrix::zeros(n, 6 * links);
        for term in &terms {
            kin.add_cross(now, &term.links, &term.step_t, &mut current);
            if let Some(at_prev) = &term.step_prev {
                let i = term.links[0];
                for (k, col) in kin.jacobian(i) {
                    let row = col.transpose() * at_prev;
                    for c in 0..6 {
                        before[(*k, 6 * i + c)] += row[c];
                    }
                }
            }
        }
        let c = data.control;
        for j in 0..n {
            current[(j, j)] -= 2.0 * c.kd[j] / (dt * dt);
        }
        let solid = model.links().iter().any(|l| {
            !l.hulls.is_empty() && matches!(l.mass, crate::model::MassModel::Solid { .. })
        });
        let vertices = (!solid).then(|| vertex_block(model, &kin, &terms));
        let attachments = self
            .settings
            .external
            .is_empty()
            .then(|| attachment_block(model, &kin, now, &terms));
        Ok(StepDerivatives {
            current,
            previous: before,
            target_position: -c.kp.clone() * 2.0,
            target_velocity: -c.kd.clone() * (2.0 / dt),
            vertices,
            attachments,
        })
    }

    /// Every pose-dependent term of the objective at the solution, with its twist derivatives
    /// and the mixed blocks the backward pass needs.
    fn terms(
        &mut self,
        kin: &Kinematics,
        now: &Kinematics,
        previous: &[Isometry3<f64>],
        data: &StepData,
    ) -> Result<Vec<Term>> {
        let model = &self.model;
        let dt = self.settings.dt;
        let mut terms = Vec::new();
        for (i, link) in model.links().iter().enumerate() {
            let pose = &kin.poses()[i];
            let (_, g, h) = link_energy(
                model.second_moment(i),
                pose,
                &data.predicted[i],
                dt,
                self.settings.gravity,
            );
            let (at_t, at_prev) = link_energy_cross(
                model.second_moment(i),
                pose,
                &now.poses()[i],
                &previous[i],
                dt,
            );
            let mut vertices = Vec::new();
            if let crate::model::MassModel::Lumped { mass } = link.mass {
                let count: usize = link.hulls.iter().map(|h| h.vertices().len()).sum();
                for (h, hull) in link.hulls.iter().enumerate() {
                    for (v, x) in hull.vertices().iter().enumerate() {
                        let m = crate::energy::link_energy_vertex(
                            mass / count as f64,
                            &x.coords,
                            pose,
                            &data.predicted[i],
                            dt,
                            self.settings.gravity,
                        );
                        vertices.push((h, v, 0, DMatrix::from_column_slice(6, 3, m.as_slice())));
                    }
                }
            }
            terms.push(Term {
                links: vec![i],
                hulls: vec![],
                gradient: DVector::from_column_slice(g.as_slice()),
                hessian: DMatrix::from_column_slice(6, 6, h.as_slice()),
                step_t: DMatrix::from_column_slice(6, 6, at_t.as_slice()),
                step_prev: Some(at_prev),
                vertices,
            });
        }
        let Some(contact) = self.contact.as_mut() else {
            return Ok(terms);
        };
        let settings = contact.settings.clone();
        let pair_term = |refs: [HullRef; 2],
                         pair: &sdrs_contact::PairContact,
                         step_t: DMatrix<f64>,
                         scale: f64| Term {
            links: vec![refs[0].link, refs[1].link],
            hulls: refs.to_vec(),
            gradient: DVector::from_column_slice(pair.gradient.as_slice()) * scale,
            hessian: DMatrix::from_column_slice(12, 12, pair.hessian.as_slice()) * scale,
            step_t,
            step_prev: None,
            vertices: pair
                .vertices
                .iter()
                .map(|v| {
                    let m = DMatrix::from_column_slice(12, 3, v.mixed.as_slice()) * scale;
                    (refs[v.body].hull, v.vertex, v.body, m)
                })
                .collect(),
        };
        for (a, b) in contact.candidate_pairs(model, kin) {
            let refs = [contact.hulls[a], contact.hulls[b]];
            let cache = contact.planes.entry((a, b)).or_default();
            let outcome = settings
                .barrier
                .evaluate(
                    &model.links()[refs[0].link].hulls[refs[0].hull],
                    &kin.poses()[refs[0].link],
                    &model.links()[refs[1].link].hulls[refs[1].hull],
                    &kin.poses()[refs[1].link],
                    cache,
                    Order::Design,
                )
                .map_err(|source| DynamicsError::Contact {
                    link_a: refs[0].link,
                    link_b: refs[1].link,
                    source,
                })?;
            if let PairOutcome::Separated(pair) = outcome
                && pair.value > 0.0
            {
                terms.push(pair_term(
                    refs,
                    &pair,
                    DMatrix::zeros(12, 12),
                    settings.stiffness,
                ));
            }
        }
        if let Some(friction) = &settings.friction {
            for ((a, b), frame) in &data.frames {
                let refs = [contact.hulls[*a], contact.hulls[*b]];
                let cache = contact.frictions.entry((*a, *b)).or_default();
                let lagged = friction
                    .evaluate_lagged(
                        frame,
                        &kin.poses()[refs[0].link],
                        &kin.poses()[refs[1].link],
                        cache,
                    )
                    .map_err(|source| DynamicsError::Contact {
                        link_a: refs[0].link,
                        link_b: refs[1].link,
                        source,
                    })?;
                let step_t = DMatrix::from_column_slice(12, 12, lagged.step_mixed.as_slice());
                terms.push(pair_term(refs, &lagged.contact, step_t, 1.0));
            }
        }
        Ok(terms)
    }

    /// `−H⁻¹g` with `H`'s eigenvalues `λ` replaced by `max(|λ|, floor)`. When `H − floor·I` has
    /// a Cholesky factor every eigenvalue is above the floor, nothing changes and a
    /// Cholesky solve (a ninth of the cost of the eigen-decomposition) gives the direction.
    fn descent_direction(&self, eval: &Evaluation) -> DVector<f64> {
        let floor = self.settings.eigenvalue_floor;
        let n = eval.hessian.nrows();
        let shifted = &eval.hessian - DMatrix::identity(n, n) * floor;
        if shifted.cholesky().is_some()
            && let Some(chol) = eval.hessian.clone().cholesky()
        {
            return -chol.solve(&eval.gradient);
        }
        let eig = eval.hessian.clone().symmetric_eigen();
        let coefficients = eig.eigenvectors.transpose() * &eval.gradient;
        let scaled = DVector::from_iterator(
            coefficients.len(),
            coefficients
                .iter()
                .zip(eig.eigenvalues.iter())
                .map(|(c, l)| -c / l.abs().max(floor)),
        );
        eig.eigenvectors * scaled
    }

    /// The objective at `state`; `None` if two hulls penetrate.
    fn evaluate(
        &mut self,
        state: &State,
        data: &StepData,
        derivatives: bool,
    ) -> Result<Option<Evaluation>> {
        let model = &self.model;
        let n = model.dof();
        let dt = self.settings.dt;
        let kin = Kinematics::new(model, state);
        let mut value = 0.0;
        let mut gradient = DVector::zeros(n);
        let mut hessian = DMatrix::zeros(n, n);
        for (i, pose) in kin.poses().iter().enumerate() {
            let (e, g, h) = link_energy(
                model.second_moment(i),
                pose,
                &data.predicted[i],
                dt,
                self.settings.gravity,
            );
            value += e;
            if derivatives {
                kin.add_term(model, [i], &g, Some(&h), &mut gradient, Some(&mut hessian));
            }
        }
        // Stable PD (eq. 5).
        let c = data.control;
        for j in 0..n {
            let p = c.position[j] - state.q[j];
            let v = c.velocity[j] - (state.q[j] - data.q_t[j]) / dt;
            value += c.kp[j] * p * p + c.kd[j] * v * v;
            if derivatives {
                gradient[j] += -2.0 * c.kp[j] * p - 2.0 * c.kd[j] * v / dt;
                hessian[(j, j)] += 2.0 * c.kp[j] + 2.0 * c.kd[j] / (dt * dt);
            }
        }
        for energy in &self.settings.external {
            let e = energy.add(
                model,
                &kin,
                state,
                &mut gradient,
                derivatives.then_some(&mut hessian),
            );
            if e == f64::INFINITY {
                return Ok(None);
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
                    return Ok(None);
                };
                value += k * v;
                if derivatives {
                    gradient[j] += k * d1 * sign;
                    hessian[(j, j)] += k * d2;
                }
            }
        }
        let mut active_pairs = 0;
        if let Some(contact) = self.contact.as_mut() {
            let order = if derivatives {
                Order::Hessian
            } else {
                Order::Value
            };
            let settings = contact.settings.clone();
            let mut add = |links: [usize; 2], pair: &sdrs_contact::PairContact, scale: f64| {
                if derivatives {
                    kin.add_term(
                        model,
                        links,
                        &(pair.gradient * scale),
                        Some(&(pair.hessian * scale)),
                        &mut gradient,
                        Some(&mut hessian),
                    );
                }
            };
            let clock = Instant::now();
            for (a, b) in contact.candidate_pairs(model, &kin) {
                let (ha, hb) = (contact.hulls[a], contact.hulls[b]);
                let cache = contact.planes.entry((a, b)).or_default();
                let outcome = settings
                    .barrier
                    .evaluate(
                        &model.links()[ha.link].hulls[ha.hull],
                        &kin.poses()[ha.link],
                        &model.links()[hb.link].hulls[hb.hull],
                        &kin.poses()[hb.link],
                        cache,
                        order,
                    )
                    .map_err(|source| DynamicsError::Contact {
                        link_a: ha.link,
                        link_b: hb.link,
                        source,
                    })?;
                let PairOutcome::Separated(pair) = outcome else {
                    contact.timings.normal += clock.elapsed();
                    return Ok(None);
                };
                if pair.value == 0.0 {
                    continue;
                }
                active_pairs += 1;
                value += settings.stiffness * pair.value;
                add([ha.link, hb.link], &pair, settings.stiffness);
            }
            contact.timings.normal += clock.elapsed();
            let clock = Instant::now();
            if let Some(friction) = &settings.friction {
                for ((a, b), frame) in &data.frames {
                    let (ha, hb) = (contact.hulls[*a], contact.hulls[*b]);
                    let cache = contact.frictions.entry((*a, *b)).or_default();
                    let pair = friction
                        .evaluate(
                            frame,
                            &kin.poses()[ha.link],
                            &kin.poses()[hb.link],
                            cache,
                            order,
                        )
                        .map_err(|source| DynamicsError::Contact {
                            link_a: ha.link,
                            link_b: hb.link,
                            source,
                        })?;
                    value += pair.value;
                    add([ha.link, hb.link], &pair, 1.0);
                }
            }
            contact.timings.friction += clock.elapsed();
        }
        Ok(Some(Evaluation {
            value,
            gradient,
            hessian,
            active_pairs,
        }))
    }

    /// Friction frames of every pair in contact at the step-t configuration.
    fn friction_frames(
        &mut self,
        now: &Kinematics,
    ) -> Result<Vec<((usize, usize), FrictionFrame)>> {
        let model = &self.model;
        let Some(contact) = self.contact.as_mut() else {
            return Ok(Vec::new());
        };
        if contact.settings.friction.is_none() {
            return Ok(Vec::new());
        }
        let clock = Instant::now();
        let mut frames = Vec::new();
        for (a, b) in contact.candidate_pairs(model, now) {
            let (ha, hb) = (contact.hulls[a], contact.hulls[b]);
            let cache = contact.planes.entry((a, b)).or_default();
            let frame = FrictionFrame::new(
                &contact.settings.barrier,
                contact.settings.stiffness,
                &model.links()[ha.link].hulls[ha.hull],
                &now.poses()[ha.link],
                &model.links()[hb.link].hulls[hb.hull],
                &now.poses()[hb.link],
                cache,
            )
            .map_err(|source| match source {
                sdrs_contact::ContactError::PenetratingFrame => DynamicsError::InitialPenetration {
                    link_a: ha.link,
                    link_b: hb.link,
                },
                source => DynamicsError::Contact {
                    link_a: ha.link,
                    link_b: hb.link,
                    source,
                },
            })?;
            if let Some(frame) = frame {
                frames.push(((a, b), frame));
            }
        }
        contact.timings.normal += clock.elapsed();
        Ok(frames)
    }

    /// The error for a step whose starting state already penetrates (limits were checked).
    fn penetrating_pair(&mut self, now: &Kinematics) -> DynamicsError {
        let model = &self.model;
        let contact = self
            .contact
            .as_mut()
            .expect("within the limits, only contact makes the energy infinite");
        for (a, b) in contact.candidate_pairs(model, now) {
            let (ha, hb) = (contact.hulls[a], contact.hulls[b]);
            let outcome = contact.settings.barrier.evaluate(
                &model.links()[ha.link].hulls[ha.hull],
                &now.poses()[ha.link],
                &model.links()[hb.link].hulls[hb.hull],
                &now.poses()[hb.link],
                &mut PlaneCache::default(),
                Order::Value,
            );
            if matches!(outcome, Ok(PairOutcome::Penetrating)) {
                return DynamicsError::InitialPenetration {
                    link_a: ha.link,
                    link_b: hb.link,
                };
            }
        }
        unreachable!("an infinite energy comes from a penetrating pair")
    }
}

impl ContactState {
    /// Candidate hull pairs (indices into `hulls`, sorted) within the barrier's support.
    fn candidate_pairs(&mut self, model: &Model, kin: &Kinematics) -> Vec<(usize, usize)> {
        let proxies: Vec<Proxy> = self
            .hulls
            .iter()
            .map(|h| Proxy {
                body: h.link,
                aabb: model.links()[h.link].hulls[h.hull].aabb(&kin.poses()[h.link]),
            })
            .collect();
        let skip = self.settings.skip_adjacent;
        let adjacent = |a: usize, b: usize| {
            skip && (model.links()[a].parent == Some(b) || model.links()[b].parent == Some(a))
        };
        let mut pairs = Vec::new();
        self.broad_phase
            .candidate_pairs(&proxies, adjacent, &mut pairs);
        pairs
    }
}
