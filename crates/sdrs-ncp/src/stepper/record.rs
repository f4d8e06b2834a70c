//! [`StepRecord`]: what one step of [`super::NcpSimulator`] computed that its derivatives need
//! ([`crate::step_jacobian`]), kept by [`super::NcpSimulator::step_recorded`].

use super::detection::LinkContact;
use crate::solver::{NcpProblem, NcpSolution};
use nalgebra::{DMatrix, DVector};
use sdrs_dynamics::State;

/// The contact problem of a step with contacts: `J_c`, eq. 1's data and its solution.
#[derive(Debug, Clone)]
pub struct SolvedContacts {
    /// `J_c` (3 rows per contact, in its frame: tangent 1, tangent 2, normal).
    pub jacobian: DMatrix<f64>,
    /// `G = J_c M⁻¹ J_cᵀ`, `g = J_c v_f + c/Δt` and the friction coefficients.
    pub problem: NcpProblem,
    /// The impulses and contact velocities.
    pub solution: NcpSolution,
}

/// One step's inputs and intermediate results.
#[derive(Debug, Clone)]
pub struct StepRecord {
    /// The start state, re-centred (the step's linearisation point).
    pub state: State,
    /// The start velocity.
    pub velocity: DVector<f64>,
    /// The joint forces `τ` applied: the control's forces plus its PD terms.
    pub tau: DVector<f64>,
    /// The control's PD stiffness (N·m/rad, N/m).
    pub kp: DVector<f64>,
    /// The control's PD damping (N·m·s/rad, N·s/m).
    pub kd: DVector<f64>,
    /// The contacts detected at the start state.
    pub contacts: Vec<LinkContact>,
    /// The contact problem and its solution (`None` without contacts).
    pub solved: Option<SolvedContacts>,
    /// The velocity `v⁺` after the step.
    pub next_velocity: DVector<f64>,
}
