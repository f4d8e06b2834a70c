//! [`NcpSimulator`]: velocity-level time stepping with hard frictional contact (paper eq. 2-3).
//!
//! One step from `(q, v)` under joint forces `τ` (the control's forces plus its PD terms):
//!
//! 1. free velocity `v_f = v + Δt q̈_f`, `q̈_f = ABA(q, v, τ)` (the unconstrained dynamics);
//! 2. contacts at `q` ([`detection`]): hull-ground and hull-hull patches of up to 4 points,
//!    for the hull pairs a broad phase over the hulls' world boxes finds;
//! 3. contact Jacobian `J_c` (rows `Rᵀ (J_B(p) − J_A(p))` per point, in its contact frame),
//!    Delassus `G = J_c M⁻¹ J_cᵀ = Xᵀ X` with `X = L⁻¹ J_cᵀ` from the Cholesky factor
//!    `M = L Lᵀ` (no explicit inverse), free contact velocity `g = J_c v_f + Δt⁻¹ c`;
//! 4. the impulses `λ` of eq. 1 ([`crate::solve`], warm-started from the previous step's
//!    impulses of the same contacts);
//! 5. eq. 3: `v⁺ = v_f + M⁻¹ J_cᵀ λ` and `q⁺ = q ⊕ Δt v⁺` ([`Model::integrate`]).
//!
//! **Drift correction.** The normal entry of `g` gets `c/Δt` with `c = s + ε` for a point of
//! separation `s` and penetration tolerance `ε` when `c ≥ 0` (a speculative contact: the
//! bodies may close the gap, but not more), and `β c/Δt` when `c < 0` (Baumgarte: a fraction
//! `β` of the excess penetration is pushed out per step). Resting contacts thus settle at a
//! depth `ε` and do not drift in.
//!
//! **Controls.** [`Control`]'s generalized forces and its PD terms
//! `kp (q* − q) + kd (v* − v)` (its SI stiffness and damping, as the SDRS stepper reads them),
//! evaluated explicitly at the step's start (the SDRS stepper's PD is implicit; here stiff
//! gains need a small enough `Δt`). The PD position error is taken
//! coordinate-wise, so it is meant for 1-DoF joints (a free joint's chart coordinates are zero
//! at a re-centred state).
//!
//! Velocities are the time derivatives `q̇` of sdrs's coordinates at a re-centred state (see
//! `sdrs_dynamics::algorithms`); the step re-centres the state first.

pub mod detection;
pub mod record;
pub mod settings;

use crate::error::NcpError;
use crate::solver::{ContactMode, NcpProblem, Residuals, solve};
use detection::{ContactKey, Detector, LinkContact};
use nalgebra::{Cholesky, DMatrix, DVector, Dyn, Isometry3, Vector3};
use record::StepRecord;
use sdrs_dynamics::{Control, Model, RigidBodyData, State};
use sdrs_geometry::contact::ContactPoint;
use settings::NcpSettings;
use std::collections::HashMap;

/// One contact of a step: where, between which links, its impulse and its mode.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepContact {
    /// Body A's link (`None`: the ground half-space).
    pub a: Option<usize>,
    /// Body B's link.
    pub b: usize,
    /// The geometric contact (world point, normal from A to B, separation, frame).
    pub point: ContactPoint,
    /// The impulse on B (on A its opposite) in the contact frame (tangent 1, tangent 2,
    /// normal), N s.
    pub impulse: Vector3<f64>,
    /// Its mode at the solution.
    pub mode: ContactMode,
}

/// What a step did.
#[derive(Debug, Clone, PartialEq)]
pub struct NcpStepReport {
    /// Every contact that entered the NCP.
    pub contacts: Vec<StepContact>,
    /// The solver's iterations.
    pub iterations: usize,
    /// The solver's residuals (zero without contacts).
    pub residuals: Residuals,
}

/// Velocity-level hard-contact simulation of a [`Model`] (see the [module docs](self)).
///
/// ```
/// use sdrs_dynamics::{Control, JointKind, Link, MassModel, Model, State};
/// use sdrs_geometry::ConvexHull;
/// use sdrs_ncp::{NcpSettings, NcpSimulator};
/// use nalgebra::{DVector, Isometry3, Vector3};
/// // A 1 kg, 20 cm cube resting on the ground z = 0 for 0.1 s.
/// let cube = ConvexHull::cuboid(Vector3::repeat(0.1))?;
/// let link = Link::new("box", None, Isometry3::identity(), JointKind::Free, vec![cube], MassModel::Lumped { mass: 1.0 });
/// let model = Model::new(vec![link])?;
/// let settings = NcpSettings::new(1e-3)?.with_ground(Vector3::z(), 0.0)?;
/// let mut sim = NcpSimulator::new(model.clone(), settings);
/// let mut state = State::new(&model, DVector::from_vec(vec![0.0, 0.0, 0.1, 0.0, 0.0, 0.0]))?;
/// let mut v = DVector::zeros(6);
/// for _ in 0..100 {
///     let report = sim.step(&mut state, &mut v, &Control::passive(&model))?;
///     assert_eq!(report.contacts.len(), 4);
/// }
/// assert!((state.q[2] - 0.1).abs() < 2e-4);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct NcpSimulator {
    pub(crate) model: Model,
    pub(crate) settings: NcpSettings,
    pub(crate) data: RigidBodyData,
    detector: Detector,
    warm: HashMap<ContactKey, Vector3<f64>>,
}

impl NcpSimulator {
    /// A simulator of `model` with `settings`.
    pub fn new(model: Model, settings: NcpSettings) -> Self {
        let data = RigidBodyData::new(&model);
        let detector = Detector::new(&model);
        Self {
            model,
            settings,
            data,
            detector,
            warm: HashMap::new(),
        }
    }

    /// The model.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The settings.
    pub fn settings(&self) -> &NcpSettings {
        &self.settings
    }

    /// The number of link pairs checked for contact (besides each moving link against the
    /// ground).
    pub fn collision_pairs(&self) -> usize {
        self.detector.link_pairs()
    }

    /// Advances `state` and the velocity `v` by one step under `control`.
    pub fn step(
        &mut self,
        state: &mut State,
        v: &mut DVector<f64>,
        control: &Control,
    ) -> Result<NcpStepReport, NcpError> {
        Ok(self.advance(state, v, control)?.0)
    }

    /// [`NcpSimulator::step`], also keeping what the step's derivatives need
    /// ([`StepRecord`], for [`NcpSimulator::step_jacobian`]); the plain step computes the same
    /// and drops it.
    pub fn step_recorded(
        &mut self,
        state: &mut State,
        v: &mut DVector<f64>,
        control: &Control,
    ) -> Result<(NcpStepReport, StepRecord), NcpError> {
        let velocity = v.clone();
        let (report, parts) = self.advance(state, v, control)?;
        let record = StepRecord {
            state: parts.start,
            velocity,
            tau: parts.tau,
            kp: control.kp.clone(),
            kd: control.kd.clone(),
            contacts: parts.contacts,
            solved: parts.solved,
            next_velocity: v.clone(),
        };
        Ok((report, record))
    }

    /// One step, returning its intermediate results for [`NcpSimulator::step_recorded`].
    fn advance(
        &mut self,
        state: &mut State,
        v: &mut DVector<f64>,
        control: &Control,
    ) -> Result<(NcpStepReport, StepParts), NcpError> {
        let n = self.model.dof();
        let dt = self.settings.dt();
        check_control(control, n)?;
        if v.len() != n {
            return Err(NcpError::SizeMismatch {
                what: "generalized velocity",
                actual: v.len(),
                expected: n,
            });
        }
        crate::solver::problem::check_finite("generalized velocity", v.as_slice())?;
        let current = state.recentred(&self.model);
        let tau = &control.force
            + control.kp.component_mul(&(&control.position - &current.q))
            + control.kd.component_mul(&(&control.velocity - &*v));
        let acceleration = self
            .data
            .aba(&self.model, &current, v, &tau, &self.settings.gravity())?
            .clone();
        let v_free = &*v + acceleration * dt;
        let mass = self.data.crba(&self.model, &current)?.clone();
        let factor = Cholesky::new(mass).ok_or(NcpError::SingularInertia)?;
        let poses: Vec<Isometry3<f64>> = (0..self.model.links().len())
            .map(|i| self.data.link_placement(self.model.link_id(i)?))
            .collect::<Result<_, _>>()?;
        let contacts = self.detector.detect(&self.model, &poses, &self.settings)?;
        let (v_next, report, solved) = if contacts.is_empty() {
            self.warm.clear();
            let report = NcpStepReport {
                contacts: Vec::new(),
                iterations: 0,
                residuals: Residuals {
                    primal: 0.0,
                    dual: 0.0,
                    complementarity: 0.0,
                },
            };
            (v_free, report, None)
        } else {
            let (v_next, report, solved) = self.solve_contacts(&contacts, &factor, v_free)?;
            (v_next, report, Some(solved))
        };
        *state = self.model.integrate(&current, &(&v_next * dt))?;
        *v = v_next;
        let parts = StepParts {
            start: current,
            tau,
            contacts,
            solved,
        };
        Ok((report, parts))
    }

    /// Steps 3-5 of the module docs for a non-empty contact set.
    fn solve_contacts(
        &mut self,
        contacts: &[LinkContact],
        factor: &Cholesky<f64, Dyn>,
        v_free: DVector<f64>,
    ) -> Result<(DVector<f64>, NcpStepReport, record::SolvedContacts), NcpError> {
        let dt = self.settings.dt();
        let jacobian = self.contact_jacobian(contacts);
        let mut x = jacobian.transpose();
        let l = factor.l();
        if !l.solve_lower_triangular_mut(&mut x) {
            return Err(NcpError::SingularInertia);
        }
        let delassus = x.transpose() * &x;
        let delassus = (&delassus + delassus.transpose()) * 0.5;
        let mut g = &jacobian * &v_free;
        for (i, c) in contacts.iter().enumerate() {
            g[3 * i + 2] += self.settings.drift(c.point.separation) / dt;
        }
        let problem = NcpProblem::new(delassus, g, vec![self.settings.friction(); contacts.len()])?;
        let mut warm = DVector::zeros(3 * contacts.len());
        for (i, c) in contacts.iter().enumerate() {
            if let Some(w) = self.warm.get(&c.key) {
                warm.fixed_rows_mut::<3>(3 * i).copy_from(w);
            }
        }
        let start = self.settings.warm_start().then_some(&warm);
        let solution = solve(&problem, self.settings.solver(), start)?;
        let v_next = v_free + factor.solve(&jacobian.tr_mul(&solution.impulses));
        let modes = solution.modes(&problem, self.settings.mode_tolerance());
        self.warm.clear();
        let reported = contacts
            .iter()
            .zip(modes)
            .enumerate()
            .map(|(i, (c, mode))| {
                let impulse = solution.impulses.fixed_rows::<3>(3 * i).into_owned();
                self.warm.insert(c.key, impulse);
                StepContact {
                    a: c.a,
                    b: c.b,
                    point: c.point,
                    impulse,
                    mode,
                }
            })
            .collect();
        let report = NcpStepReport {
            contacts: reported,
            iterations: solution.iterations,
            residuals: solution.residuals,
        };
        let solved = record::SolvedContacts {
            jacobian,
            problem,
            solution,
        };
        Ok((v_next, report, solved))
    }

    /// `J_c`: per contact, the rows `Rᵀ (J_B(p) − J_A(p))` of the linear velocity of the point
    /// `p` on B relative to A, in the contact frame, from the DoF screws of the last forward
    /// kinematics.
    fn contact_jacobian(&self, contacts: &[LinkContact]) -> DMatrix<f64> {
        let n = self.model.dof();
        let screws = self.data.screws();
        let mut jacobian = DMatrix::zeros(3 * contacts.len(), n);
        for (i, c) in contacts.iter().enumerate() {
            let p = c.point.position.coords;
            let rt = c.point.frame.transpose();
            let mut add = |link: usize, sign: f64| {
                for &k in self.model.path(link) {
                    let s = screws[k];
                    let (linear, angular) = (s.fixed_rows::<3>(0), s.fixed_rows::<3>(3));
                    let velocity = linear + angular.cross(&p);
                    let column = rt * velocity * sign;
                    for r in 0..3 {
                        jacobian[(3 * i + r, k)] += column[r];
                    }
                }
            };
            add(c.b, 1.0);
            if let Some(a) = c.a {
                add(a, -1.0);
            }
        }
        jacobian
    }
}

/// What [`NcpSimulator::advance`] computed on the way, moved into a [`StepRecord`] on request.
struct StepParts {
    start: State,
    tau: DVector<f64>,
    contacts: Vec<LinkContact>,
    solved: Option<record::SolvedContacts>,
}

/// Checks the control's vectors: `dof` finite entries each.
fn check_control(control: &Control, dof: usize) -> Result<(), NcpError> {
    for (what, x) in [
        ("control kp", &control.kp),
        ("control kd", &control.kd),
        ("control target position", &control.position),
        ("control target velocity", &control.velocity),
        ("control force", &control.force),
    ] {
        if x.len() != dof {
            return Err(NcpError::SizeMismatch {
                what,
                actual: x.len(),
                expected: dof,
            });
        }
        crate::solver::problem::check_finite(what, x.as_slice())?;
    }
    Ok(())
}
