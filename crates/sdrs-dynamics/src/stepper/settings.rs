//! What a step is asked to do: time step, gravity, solver settings, contact, user energies
//! and the stable-PD control.

use super::{ContactHook, IpcContact, LongRangeContact, SdrsContact};
use crate::error::{DynamicsError, Result, check_vector};
use crate::kinematics::{Kinematics, State};
use crate::model::Model;
use nalgebra::{DMatrix, DVector};
use sdrs_contact::friction::PlaneFriction;
use sdrs_contact::ipc::friction::IpcFriction;
use sdrs_contact::ipc::potential::Ipc;
use sdrs_contact::long_range::LongRange;
use sdrs_contact::long_range::friction::LongRangeFriction;
use sdrs_contact::{ContactModel, PlaneBarrier};

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

/// Which contact model a scene uses, with that model's own parameters.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub enum ContactKind {
    /// SDRS: the plane barrier between every pair of convex hulls on different links
    /// ([`super::SdrsContact`]), with plane friction.
    Hulls(PlaneBarrier),
    /// The long-range potential between the links' collision meshes
    /// ([`super::LongRangeContact`], globally supported), with long-range friction.
    LongRange(LongRange),
    /// The IPC barrier between the links' collision meshes ([`super::IpcContact`]), with IPC
    /// friction; every Newton step is limited by continuous collision detection.
    ///
    /// Choosing the stiffness `κ`: IPC's barrier acts on squared distances, so near contact
    /// it pushes with about `2κd̂⁴/d` at a distance `d`. To hold a force `F` (N) at `d̂/10`,
    /// `κ ≈ F/(20 d̂³)`: with `d̂` = 1 mm, stopping 0.2 kg at 2.8 m/s within 0.04 s (14 N)
    /// takes about 7e8. A `κ` orders of magnitude below that makes the barrier hold only at
    /// distances squared distances cannot resolve, and Newton stalls at the impact
    /// (`sdrs_examples::long_range::billiards`, "IPC's stiffness").
    Ipc(Ipc),
}

/// Friction of a contact model: the coefficient and the velocity smoothing. The time step is
/// not part of it: the simulator builds the model's friction with its own
/// [`StepSettings::dt`].
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub struct FrictionSettings {
    /// Coulomb coefficient `μ` (positive).
    pub mu: f64,
    /// The model's velocity smoothing; `None` keeps the model's default: `ε_v` of
    /// `√(|v|² + ε_v)` (m²/s², 1e-6) for plane and long-range friction, the velocity threshold
    /// (m/s, 1e-3) for IPC friction.
    pub velocity_epsilon: Option<f64>,
}

impl FrictionSettings {
    /// Friction of coefficient `mu` with the model's default smoothing.
    pub fn new(mu: f64) -> Result<Self> {
        positive_setting("friction coefficient mu", mu)?;
        Ok(Self {
            mu,
            velocity_epsilon: None,
        })
    }

    /// Sets the velocity smoothing (positive and finite; units as the model's, see
    /// [`FrictionSettings::velocity_epsilon`]).
    pub fn with_velocity_epsilon(mut self, epsilon: f64) -> Result<Self> {
        positive_setting("friction velocity_epsilon", epsilon)?;
        self.velocity_epsilon = Some(epsilon);
        Ok(self)
    }
}

/// Contact settings of a scene: the model, its stiffness, friction and which pairs to skip.
/// [`super::Simulator::new`] builds the matching [`super::ContactHook`].
///
/// ```
/// use sdrs_contact::long_range::LongRange;
/// use sdrs_dynamics::{ContactKind, ContactSettings, FrictionSettings};
/// let hulls = ContactSettings::default_for(f64::INFINITY)?
///     .with_friction(FrictionSettings::new(0.5)?);
/// // Hull contact: the barrier's support distance 2s / (1 − s), s = 0.4 mm.
/// assert!((hulls.support_distance() - 8e-4 / (1.0 - 4e-4)).abs() < 1e-15);
/// let meshes = ContactSettings::new(ContactKind::LongRange(LongRange::new(0.1)?), 1e-7)?;
/// assert_eq!(meshes.support_distance(), f64::INFINITY);
/// assert!(ContactSettings::new(ContactKind::LongRange(LongRange::new(0.1)?), -1.0).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub struct ContactSettings {
    /// The contact model.
    pub kind: ContactKind,
    /// Contact stiffness `κ`, the multiplier of the barrier sum in eq. 14.
    pub stiffness: f64,
    /// Friction, if any.
    pub friction: Option<FrictionSettings>,
    /// Skip pairs of links whose bodies are parent and child (they usually overlap at the
    /// joint), across fixed joints; the model's own filter ([`crate::filter`]) applies always.
    pub skip_adjacent: bool,
}

impl ContactSettings {
    /// Largest barrier support `s` of [`ContactSettings::default_for`] (m): resting gaps are at
    /// most `2s / (1 − s)` = 0.8 mm, whatever the load.
    pub const DEFAULT_SUPPORT: f64 = 4e-4;

    /// The barrier's force scale `κ̂ = κ / s²` of [`ContactSettings::default_for`] (N): a
    /// vertex pressed with a force `F ≪ κ̂` rests at `x = s (1 − (F / 4κ̂)^(1/3))` from the
    /// separating plane.
    pub const DEFAULT_FORCE_SCALE: f64 = 1e5;

    /// Friction velocity smoothing `ε_v` the defaults pair with hull contact (m²/s²): a body
    /// held by friction creeps at about `√ε_v = 1e-5` m/s (0.2 mm in 10 s on a 30° slope with
    /// μ = 0.8).
    pub const DEFAULT_VELOCITY_EPSILON: f64 = 1e-10;

    /// `kind` with stiffness `κ` (positive and finite), no friction, parent-child pairs
    /// skipped.
    pub fn new(kind: ContactKind, stiffness: f64) -> Result<Self> {
        positive_setting("contact stiffness", stiffness)?;
        Ok(Self {
            kind,
            stiffness,
            friction: None,
            skip_adjacent: true,
        })
    }

    /// Adds (or replaces) friction.
    pub fn with_friction(mut self, friction: FrictionSettings) -> Self {
        self.friction = Some(friction);
        self
    }

    /// Whether parent-child pairs are skipped.
    pub fn with_skip_adjacent(mut self, skip: bool) -> Self {
        self.skip_adjacent = skip;
        self
    }

    /// The barrier support for a scene whose smallest body is `smallest_size` m thick (the
    /// smallest side of a link's bounding box): 1% of it, at most
    /// [`ContactSettings::DEFAULT_SUPPORT`].
    pub fn default_support(smallest_size: f64) -> f64 {
        if smallest_size.is_finite() && smallest_size > 0.0 {
            (0.01 * smallest_size).min(Self::DEFAULT_SUPPORT)
        } else {
            Self::DEFAULT_SUPPORT
        }
    }

    /// The production default: SDRS hull contact for a scene whose thinnest body is
    /// `thinnest_body` m thick (`f64::INFINITY` when unknown or at least 4 cm), with barrier
    /// support `s = min(0.4 mm, 1% of thinnest_body)` ([`ContactSettings::default_support`]),
    /// stiffness `κ = κ̂ s²` with `κ̂ = 1e5 N` ([`ContactSettings::DEFAULT_FORCE_SCALE`]),
    /// parent-child pairs skipped and no friction (with friction, pair it with
    /// [`ContactSettings::DEFAULT_VELOCITY_EPSILON`]).
    ///
    /// **Why.** At rest a vertex pressed with force `F` sits where `κ |P_s'(x)| = F`; with
    /// `x = y s` and `P_s'(x) = (x − s)³ (5s − x) / x⁶` this is
    /// `(1 − y)³ (5 − y) / y⁶ = F s² / κ = F / κ̂`, and the gap between the bodies is
    /// `2x / |n| ≈ 2 y s / (1 − s)` (the plane sits midway, `|n| ≈ 1 − s`). So:
    ///
    /// - the gap never exceeds the support distance `2s / (1 − s)`: `s = 0.4 mm` keeps every
    ///   resting gap under 0.8 mm; the 1% rule keeps it under 2% of the smallest body;
    /// - with `κ ∝ s²` the resting depth `y` depends on the load only: for `F ≪ κ̂`,
    ///   `1 − y ≈ (F / 4κ̂)^(1/3)`, so the contact is stiff (a 1 N vertex load compresses it
    ///   by `s (F / 4κ̂)^(1/3)` = 5 µm at `s = 0.4 mm`), and even a 20 kN vertex load (an
    ///   8-tonne, 2 m cube) rests at `y ≈ 0.78` (gap 0.62 mm). The 20-plank book stack of the
    ///   SDRS paper (sec. V-J) rests on plank edges that carry up to 15 N per vertex; it leans
    ///   on their compliance `s (F / 4κ̂)^(1/3)` and falls when that reaches about 50 µm
    ///   (measured: `s = 1 cm, κ = 1`, 0.7 mm, falls at once; `s = 0.4 mm` with
    ///   `κ̂ = 2.5e3 N`, 46 µm, falls after 2.8 s; `κ̂ = 1e4 N`, 29 µm, stands). `κ̂ = 1e5 N`
    ///   gives 13 µm;
    /// - friction's `√(|ẋ − ṗ|² + ε_v)` turns into a viscous law below `√ε_v`, so a body held
    ///   by friction creeps at about `√ε_v`: `1e-10` gives 1e-5 m/s, and its stiffness in the
    ///   stick regime, `μ F / (Δt √ε_v)`, still leaves Newton at about four iterations a step.
    ///
    /// Measured at Δt = 0.01 s (`examples/examples/contact_defaults.rs`, `book_stack.rs`):
    /// cubes of 5 cm, 20 cm and 2 m at 1000 kg/m³ and 1 kg/m³ rest 0.62-0.80 mm above the
    /// ground; the 20-plank book stack stands for 60 s with every plank 0.1% inside its
    /// harmonic overhang and falls at once 1% beyond it; a 1 kg block on a 30° slope with
    /// μ = 0.8 creeps 0.2 mm in 10 s; Newton takes 1.04 iterations a step on average in the
    /// stack (at most 9) and 4 on the slope. The authors' settings (`s = 1 cm`, `κ = 1`,
    /// `ε_v = 1e-6`, [`crate::scenes::sdrs_contact`]) left bodies 2 cm above the ground,
    /// toppled the stack after a fraction of a second and let the block creep 2 mm/s.
    ///
    /// ```
    /// use sdrs_dynamics::ContactSettings;
    /// let c = ContactSettings::default_for(f64::INFINITY)?;
    /// assert_eq!(c.barrier().unwrap().support(), 4e-4);
    /// assert!((c.stiffness - 1e5 * 4e-4 * 4e-4).abs() < 1e-15);
    /// // A 1 cm bead: s = 0.1 mm.
    /// assert_eq!(ContactSettings::default_for(0.01)?.barrier().unwrap().support(), 1e-4);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn default_for(thinnest_body: f64) -> Result<Self> {
        let support = Self::default_support(thinnest_body);
        Self::new(
            ContactKind::Hulls(PlaneBarrier::new(support)?),
            Self::DEFAULT_FORCE_SCALE * support * support,
        )
    }

    /// The SDRS plane barrier, for hull contact.
    pub fn barrier(&self) -> Option<&PlaneBarrier> {
        match &self.kind {
            ContactKind::Hulls(barrier) => Some(barrier),
            ContactKind::LongRange(_) | ContactKind::Ipc(_) => None,
        }
    }

    /// The distance beyond which two shapes do not interact (infinite for the globally
    /// supported long-range potential): the margin for [`crate::Model::exclude_touching`].
    pub fn support_distance(&self) -> f64 {
        match &self.kind {
            ContactKind::Hulls(barrier) => barrier.support_distance(),
            ContactKind::LongRange(potential) => potential.support_distance(),
            ContactKind::Ipc(potential) => potential.support_distance(),
        }
    }

    /// Checks the public fields: positive finite stiffness, friction coefficient and
    /// smoothing.
    pub fn check(&self) -> Result<()> {
        positive_setting("contact stiffness", self.stiffness)?;
        if let Some(f) = &self.friction {
            positive_setting("friction coefficient mu", f.mu)?;
            if let Some(e) = f.velocity_epsilon {
                positive_setting("friction velocity_epsilon", e)?;
            }
        }
        Ok(())
    }

    /// The contact hook these settings describe for `model`, its friction stepping with `dt`.
    pub(super) fn hook(&self, model: &Model, dt: f64) -> Result<Box<dyn ContactHook>> {
        self.check()?;
        let (k, skip) = (self.stiffness, self.skip_adjacent);
        let plane_friction = |f: &FrictionSettings| -> Result<PlaneFriction> {
            let friction = PlaneFriction::new(f.mu, dt)?;
            Ok(match f.velocity_epsilon {
                Some(e) => friction.with_velocity_epsilon(e)?,
                None => friction,
            })
        };
        Ok(match &self.kind {
            ContactKind::Hulls(barrier) => {
                let hook = SdrsContact::new(model, barrier.clone(), k, skip)?;
                match &self.friction {
                    Some(f) => Box::new(hook.with_friction(plane_friction(f)?)),
                    None => Box::new(hook),
                }
            }
            ContactKind::LongRange(potential) => {
                let hook = LongRangeContact::new(model, potential.clone(), k, skip)?;
                match &self.friction {
                    Some(f) => Box::new(hook.with_friction(LongRangeFriction::new(
                        plane_friction(f)?,
                        potential.epsilon(),
                    )?)),
                    None => Box::new(hook),
                }
            }
            ContactKind::Ipc(potential) => {
                let hook = IpcContact::new(model, potential.clone(), k, skip)?;
                match &self.friction {
                    Some(f) => {
                        let friction = IpcFriction::new(potential, f.mu, dt)?;
                        Box::new(hook.with_friction(match f.velocity_epsilon {
                            Some(e) => friction.with_velocity_epsilon(e)?,
                            None => friction,
                        }))
                    }
                    None => Box::new(hook),
                }
            }
        })
    }
}

/// `value` must be positive and finite.
fn positive_setting(name: &'static str, value: f64) -> Result<()> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(DynamicsError::InvalidSetting {
            name,
            value,
            allowed: "positive and finite",
        })
    }
}

/// Where a step's Newton solve starts.
///
/// Where a step's objective has one minimum, both starts converge to it to within
/// [`StepSettings::tolerance`]; they differ in how many Newton iterations that takes, and so in
/// which point inside the tolerance a step ends at. Where it has more than one (an impact
/// between faceted meshes can), they may end in different minima, and the extrapolated start
/// chooses between its guess and θ^t by their objective, a choice that flips under tiny
/// changes of the step's inputs: the trajectory, and any loss of it, then jumps between
/// branches. Measured on billiards (4 balls of 80 triangles, Δt = 0.04 s, the long-range
/// potential): moving the cue ball's start by 2e-6 m sent the impact step to a minimum 1 mm
/// away in one case out of two and the loss jumped by 2e-4, so central differences of the
/// loss were off by 20x at h = 1e-5; from θ^t the loss is smooth and differences converge to
/// the adjoint gradient as h² (`examples/tests/long_range_control.rs`). Optimise through
/// impacts with [`NewtonStart::Current`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NewtonStart {
    /// `θ^t ⊕ (θ^t ⊖ θ^{t−1})`, where the last step's motion carries θ^t (the minimiser of
    /// the inertial term alone), when the objective is lower there than at θ^t; else θ^t.
    /// Moving scenes with contact converge in fewer iterations (rotating chains 4 → 2, billiards
    /// 9 → 3); contact-free steps and steps from rest start at θ^t.
    #[default]
    Extrapolated,
    /// θ^t, the state at the start of the step (the paper's Algorithm 1).
    Current,
}

/// Time-step settings: [`StepSettings::new`] and the validated `with_*` builders; the public
/// fields may also be edited, and are checked when a simulator is built.
///
/// ```
/// use sdrs_dynamics::{ContactSettings, StepSettings};
/// let settings = StepSettings::new(0.005)?
///     .with_gravity(1.62)? // the Moon
///     .with_tolerance(1e-6)?
///     .with_contact(Some(ContactSettings::default_for(f64::INFINITY)?));
/// assert_eq!((settings.dt, settings.gravity), (0.005, 1.62));
/// assert!(StepSettings::new(0.01)?.with_tolerance(-1.0).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[non_exhaustive]
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
    /// Whether Newton damps its direction after cut line-search steps (Levenberg-Marquardt,
    /// decaying back to pure Newton after full steps) and, when `max_iterations` iterations do
    /// not converge, goes on from there for as many again, damped (default on; see
    /// [`super::Simulator::step`]). Off, every iteration is pure Newton and the step fails at
    /// the cap.
    pub damped_round: bool,
    /// Where Newton starts (default [`NewtonStart::Extrapolated`]).
    pub start: NewtonStart,
    /// Whether Newton's direction comes from the contact model's force-anchored model (on by
    /// default; SDRS hulls have one, see [`sdrs_contact::plane::Anchors`]): each barrier term
    /// expanded at the gap its force estimate implies, the estimates carried from step to step
    /// and updated after every iteration as a primal-dual interior-point method updates its
    /// forces. A robot's foot pressed far into the barrier by Newton's start then returns in
    /// one or two iterations instead of climbing out by a sixth of its gap per iteration. The
    /// energy, the gradient and the line search are the barrier's own, so the solution does
    /// not change (within the tolerance); off, every direction is the exact Hessian's.
    pub anchored_newton: bool,
    /// Support of the joint-limit barrier: a limited DoF within this distance (rad or m) of a
    /// limit feels `limit_stiffness · P_s(distance)`, the SDRS barrier of eq. 6, which is
    /// infinite at the limit and exactly zero (C²) beyond the support.
    pub limit_support: f64,
    /// Multiplier of the joint-limit barrier.
    pub limit_stiffness: f64,
    /// The velocity (rad/s or m/s) below which dry joint friction ([`crate::Link::friction`])
    /// turns viscous ([`crate::energy::joint_friction`]): a joint held by a torque below its
    /// friction creeps at about this speed. Default 1e-4.
    pub joint_friction_velocity: f64,
    /// Contact, if any.
    pub contact: Option<ContactSettings>,
    /// User energies added to the objective.
    pub external: Vec<std::sync::Arc<dyn ExternalEnergy>>,
    /// Also return the mixed derivative blocks of the step ([`super::StepDerivatives`]) that the
    /// backward pass needs.
    pub backward: bool,
    /// With [`StepSettings::backward`], also the design blocks (hull vertices and
    /// attachments; default on). They cost more than the rest of the blocks together on
    /// robots with many links or vertices; turn them off when only states and controls are
    /// differentiated.
    pub design_derivatives: bool,
    /// With [`StepSettings::backward`], the physical parameters whose mixed block
    /// [`super::StepDerivatives::parameters`] holds, one column each in this order (none by
    /// default): gravity, contact stiffness and friction, PD gains, link masses
    /// ([`super::PhysicalParameter`]).
    pub parameters: Vec<super::PhysicalParameter>,
}

impl StepSettings {
    /// The default [`StepSettings::limit_support`] (rad or m).
    pub const DEFAULT_LIMIT_SUPPORT: f64 = 0.01;

    /// `dt`, gravity 9.81, eigenvalue floor 1e-3, tolerance 1e-4, 100 iterations, no contact
    /// (the paper's settings, sec. V), Newton started at the extrapolated state.
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
            damped_round: true,
            start: NewtonStart::default(),
            anchored_newton: true,
            limit_support: Self::DEFAULT_LIMIT_SUPPORT,
            limit_stiffness: 1.0,
            joint_friction_velocity: 1e-4,
            contact: None,
            external: Vec::new(),
            backward: false,
            design_derivatives: true,
            parameters: Vec::new(),
        })
    }
}

impl StepSettings {
    /// Sets gravity along −z (m/s², finite).
    pub fn with_gravity(mut self, gravity: f64) -> Result<Self> {
        if !gravity.is_finite() {
            return Err(DynamicsError::InvalidSetting {
                name: "gravity",
                value: gravity,
                allowed: "finite (m/s², along −z)",
            });
        }
        self.gravity = gravity;
        Ok(self)
    }

    /// Sets the convergence tolerance on `|∇O|∞` (positive and finite).
    pub fn with_tolerance(mut self, tolerance: f64) -> Result<Self> {
        positive_setting("tolerance", tolerance)?;
        self.tolerance = tolerance;
        Ok(self)
    }

    /// Sets the Newton iteration cap (at least 1).
    pub fn with_max_iterations(mut self, max_iterations: usize) -> Result<Self> {
        if max_iterations == 0 {
            return Err(DynamicsError::InvalidSetting {
                name: "max_iterations",
                value: 0.0,
                allowed: "at least 1",
            });
        }
        self.max_iterations = max_iterations;
        Ok(self)
    }

    /// Sets the contact (`None`: no contact).
    pub fn with_contact(mut self, contact: Option<ContactSettings>) -> Self {
        self.contact = contact;
        self
    }

    /// Asks every step for the mixed blocks of the backward pass.
    pub fn with_backward(mut self, backward: bool) -> Self {
        self.backward = backward;
        self
    }

    /// Checks every numeric setting (the fields are public, so a simulator checks them when it
    /// is built): positive finite `dt`, tolerance, eigenvalue floor, limit support and
    /// stiffness, finite gravity, at least one iteration.
    pub fn check(&self) -> Result<()> {
        let positive = [
            ("dt", self.dt),
            ("tolerance", self.tolerance),
            ("eigenvalue_floor", self.eigenvalue_floor),
            ("limit_support", self.limit_support),
            ("limit_stiffness", self.limit_stiffness),
            ("joint_friction_velocity", self.joint_friction_velocity),
        ];
        for (name, value) in positive {
            if !(value.is_finite() && value > 0.0) {
                return Err(DynamicsError::InvalidSetting {
                    name,
                    value,
                    allowed: "positive and finite",
                });
            }
        }
        if !self.gravity.is_finite() {
            return Err(DynamicsError::InvalidSetting {
                name: "gravity",
                value: self.gravity,
                allowed: "finite (m/s², along −z)",
            });
        }
        if self.max_iterations == 0 {
            return Err(DynamicsError::InvalidSetting {
                name: "max_iterations",
                value: 0.0,
                allowed: "at least 1",
            });
        }
        if let Some(c) = &self.contact {
            c.check()?;
        }
        Ok(())
    }
}

/// The control of one step: stable PD (eq. 5) with per-DoF gains and targets, and
/// generalized forces.
///
/// The gains are physical: `kp` is a stiffness `k` and `kd` a damping `c`, so the PD force on
/// a coordinate is `k (θ* − θ) + c (θ̇* − v)` with `v = (θ − θ^t)/Δt`, as in MuJoCo or
/// Pinocchio. Units follow the coordinate: N·m/rad and N·m·s/rad on a revolute one, N/m and
/// N·s/m on a prismatic or translational one. The step evaluates the force implicitly
/// (stable PD, eq. 5): the paper's energy `k_p (θ* − θ)² + k_d (θ̇* − v)²` with
/// `k_p = k/2` and `k_d = c Δt/2` is formed inside the step only. The explicit NCP stepper
/// (`sdrs-ncp`) reads the same gains.
///
/// A generalized force `τ` (N on a prismatic or translational coordinate, N·m on a revolute
/// one) adds the negative of its work over the step, `−τ · (θ^{t+1} − θ^t)`, held constant
/// during the step: its gradient is `−τ`, so at the step's minimiser it balances inertia,
/// gravity and PD exactly as an applied joint torque does.
///
/// A step refuses gains that are negative or not finite ([`DynamicsError::InvalidGain`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Control {
    /// Stiffness `k` per DoF (N·m/rad, or N/m on a prismatic or translational coordinate;
    /// zero for unactuated DoFs).
    pub kp: DVector<f64>,
    /// Damping `c` per DoF (N·m·s/rad, or N·s/m on a prismatic or translational coordinate).
    pub kd: DVector<f64>,
    /// Target positions `θ*` (rad or m).
    pub position: DVector<f64>,
    /// Target velocities `θ̇*` (rad/s or m/s).
    pub velocity: DVector<f64>,
    /// Generalized forces `τ` (joint torques and forces), in the coordinates of `θ`.
    pub force: DVector<f64>,
}

/// One of [`Control`]'s two PD gains, for checks and messages that name its units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gain {
    /// `kp`, a stiffness.
    Stiffness,
    /// `kd`, a damping.
    Damping,
}

impl Gain {
    /// The field's name (`kp` or `kd`), also the key of scene files and Python.
    pub fn key(self) -> &'static str {
        match self {
            Gain::Stiffness => "kp",
            Gain::Damping => "kd",
        }
    }

    /// What the gain is, with its units.
    pub fn units(self) -> &'static str {
        match self {
            Gain::Stiffness => "stiffness in N·m/rad (N/m on a prismatic coordinate)",
            Gain::Damping => "damping in N·m·s/rad (N·s/m on a prismatic coordinate)",
        }
    }

    /// `Ok` for a finite gain of at least 0; otherwise [`DynamicsError::InvalidGain`] for
    /// DoF `dof`.
    ///
    /// ```
    /// # use sdrs_dynamics::Gain;
    /// assert!(Gain::Stiffness.check(0, 60.0).is_ok());
    /// let e = Gain::Damping.check(3, -2.0).unwrap_err();
    /// assert!(e.to_string().contains("N·m·s/rad"));
    /// assert!(Gain::Stiffness.check(0, f64::NAN).is_err());
    /// ```
    pub fn check(self, dof: usize, value: f64) -> Result<()> {
        if value.is_finite() && value >= 0.0 {
            Ok(())
        } else {
            Err(DynamicsError::InvalidGain {
                gain: self,
                dof,
                value,
            })
        }
    }
}

impl Control {
    /// No actuation.
    pub fn passive(model: &Model) -> Self {
        let zero = DVector::zeros(model.dof());
        Self {
            kp: zero.clone(),
            kd: zero.clone(),
            position: zero.clone(),
            velocity: zero.clone(),
            force: zero,
        }
    }

    /// Writes `part`, the control of a robot whose coordinates start at `offset` in this
    /// control's model (e.g. an MJCF robot's [`crate::MjcfModel::step_control`] in a world),
    /// over those coordinates.
    ///
    /// ```
    /// # use sdrs_dynamics::{Control, JointKind, Link, Model};
    /// # use nalgebra::{Isometry3, Vector3};
    /// let hinge = |name: &str, parent| {
    ///     let axis = Vector3::z();
    ///     Link::frame(name, parent, Isometry3::identity(), JointKind::Revolute { axis })
    /// };
    /// let world = Model::new(vec![hinge("a", None), hinge("b", Some(0))]).unwrap();
    /// let arm = Model::new(vec![hinge("b", None)]).unwrap();
    /// let mut part = Control::passive(&arm);
    /// part.kp[0] = 20.0;
    /// let mut control = Control::passive(&world);
    /// control.write_at(1, &part).unwrap();
    /// assert_eq!(control.kp.as_slice(), &[0.0, 20.0]);
    /// assert!(control.write_at(2, &part).is_err());
    /// let mut short = part.clone();
    /// short.kd = nalgebra::DVector::zeros(0);
    /// assert!(control.write_at(0, &short).is_err());
    /// ```
    pub fn write_at(&mut self, offset: usize, part: &Control) -> Result<()> {
        let n = part.kp.len();
        part.check(n)?;
        let end = offset.saturating_add(n);
        for (what, v) in self.fields() {
            if v.len() < end {
                return Err(DynamicsError::InvalidControlSpan {
                    what,
                    length: v.len(),
                    offset,
                    count: n,
                });
            }
        }
        for (whole, own) in [
            (&mut self.kp, &part.kp),
            (&mut self.kd, &part.kd),
            (&mut self.position, &part.position),
            (&mut self.velocity, &part.velocity),
            (&mut self.force, &part.force),
        ] {
            whole.rows_mut(offset, n).copy_from(own);
        }
        Ok(())
    }

    /// The paper's gains `(k_p, k_d) = (k/2, c Δt/2)` of DoF `j` for a step of `dt`: the
    /// terms of eq. 5's energy `k_p (θ* − θ)² + k_d (θ̇* − v)²`.
    pub(super) fn paper_gains(&self, j: usize, dt: f64) -> (f64, f64) {
        (0.5 * self.kp[j], 0.5 * self.kd[j] * dt)
    }

    pub(super) fn check(&self, dof: usize) -> Result<()> {
        for (gain, v) in [(Gain::Stiffness, &self.kp), (Gain::Damping, &self.kd)] {
            for (j, &value) in v.iter().enumerate() {
                gain.check(j, value)?;
            }
        }
        for (what, v) in self.fields() {
            check_vector(what, v, dof)?;
        }
        Ok(())
    }

    /// Each vector with the name its errors give it.
    fn fields(&self) -> [(&'static str, &DVector<f64>); 5] {
        [
            ("kp", &self.kp),
            ("kd", &self.kd),
            ("target position", &self.position),
            ("target velocity", &self.velocity),
            ("generalized force", &self.force),
        ]
    }
}
