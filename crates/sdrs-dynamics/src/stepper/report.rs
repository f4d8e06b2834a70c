//! What a step hands back: its report ([`StepReport`] with [`StepTimings`]), the
//! linearization at its solution for the backward pass ([`Linearization`]), and the objective
//! at a configuration ([`Objective`], [`ObjectiveView`]).

use super::backward::StepDerivatives;
use crate::factor::HessianFactor;
use nalgebra::{DMatrix, DVector};
use std::time::Duration;

/// What a step returns besides the new state.
#[derive(Debug, Clone)]
pub struct StepReport {
    /// Newton iterations taken.
    pub iterations: usize,
    /// Trial states the line searches evaluated (each iteration's full step included): as
    /// many as [`StepReport::iterations`] when every full step is accepted.
    pub line_search_trials: usize,
    /// Whether any iteration was damped (after a cut line-search step, or past
    /// [`super::StepSettings::max_iterations`]; see [`super::Simulator::step`]).
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
    /// needs, when [`super::StepSettings::backward`] is set. Without it a step computes no more than
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

/// A step's Hessian at its solution with the mixed blocks ([`super::Simulator::linearize`],
/// [`StepReport::linearization`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Linearization {
    /// `∂²O/∂θ^{t+1}²` at the solution (unclamped).
    pub hessian: DMatrix<f64>,
    /// The factorisation of [`Linearization::hessian`] ([`crate::factor::HessianFactor::factorize`]): the
    /// backward pass solves with it. Its method is `None` when the Hessian is singular (a
    /// solve then reports [`crate::factor::FactorError::Singular`]).
    pub factor: HessianFactor,
    /// The mixed blocks.
    pub derivatives: StepDerivatives,
}

/// The objective of a step at one configuration ([`super::Simulator::objective`]).
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
/// ([`super::Simulator::objective_view`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ObjectiveView<'a> {
    /// `O`.
    pub value: f64,
    /// `∂O/∂θ^{t+1}`.
    pub gradient: &'a DVector<f64>,
    /// `∂²O/∂θ^{t+1}²` (unclamped).
    pub hessian: &'a DMatrix<f64>,
}
