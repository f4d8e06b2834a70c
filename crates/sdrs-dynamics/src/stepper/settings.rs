//! What a step is asked to do: time step, gravity, solver settings, contact, user energies
//! and the stable-PD control.

use crate::error::{DynamicsError, Result, check_vector};
use crate::kinematics::{Kinematics, State};
use crate::model::Model;
use nalgebra::{DMatrix, DVector};
use sdrs_contact::PlaneBarrier;
use sdrs_contact::friction::PlaneFriction;

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
    /// Skip pairs of links whose bodies are parent and child (they usually overlap at the
    /// joint), across fixed joints; the model's own filter ([`crate::filter`]) applies always.
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
    /// Also return the mixed derivative blocks of the step ([`super::StepDerivatives`]) that the
    /// backward pass needs.
    pub backward: bool,
    /// With [`StepSettings::backward`], also the design blocks (hull vertices and
    /// attachments; default on). They cost more than the rest of the blocks together on
    /// robots with many links or vertices; turn them off when only states and controls are
    /// differentiated.
    pub design_derivatives: bool,
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
            design_derivatives: true,
        })
    }
}

impl StepSettings {
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
        if let Some(c) = &self.contact
            && !(c.stiffness.is_finite() && c.stiffness > 0.0)
        {
            return Err(DynamicsError::InvalidSetting {
                name: "contact stiffness",
                value: c.stiffness,
                allowed: "positive and finite",
            });
        }
        Ok(())
    }
}

/// The control of one step: stable PD (eq. 5) with per-DoF gains and targets, and
/// generalized forces.
///
/// The PD energy is `k_p (θ* − θ)² + k_d (θ̇* − (θ − θ^t)/Δt)²` as the paper writes it, so the
/// spring force is `2 k_p (θ* − θ)` and the damping force `2 k_d (θ̇* − v)/Δt`: a damping
/// coefficient `c` (N·s/m or N·m·s/rad) is `k_d = c Δt / 2`.
///
/// A generalized force `τ` (N on a prismatic or translational coordinate, N·m on a revolute
/// one) adds the negative of its work over the step, `−τ · (θ^{t+1} − θ^t)`, held constant
/// during the step: its gradient is `−τ`, so at the step's minimiser it balances inertia,
/// gravity and PD exactly as an applied joint torque does.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Control {
    /// Position gains `k_p` (zero for unactuated DoFs).
    pub kp: DVector<f64>,
    /// Velocity gains `k_d`.
    pub kd: DVector<f64>,
    /// Target positions `θ*`.
    pub position: DVector<f64>,
    /// Target velocities `θ̇*`.
    pub velocity: DVector<f64>,
    /// Generalized forces `τ` (joint torques and forces), in the coordinates of `θ`.
    pub force: DVector<f64>,
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

    pub(super) fn check(&self, dof: usize) -> Result<()> {
        for (what, v) in [
            ("kp", &self.kp),
            ("kd", &self.kd),
            ("target position", &self.position),
            ("target velocity", &self.velocity),
            ("generalized force", &self.force),
        ] {
            check_vector(what, v, dof)?;
        }
        Ok(())
    }
}
