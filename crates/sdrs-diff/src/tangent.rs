//! Forward mode: Jacobian-vector products carried along a recorded trajectory.
//!
//! For `k` seed directions at once,
//! `Θ^{t+1} = −H⁻¹ (B_θ Θ^t + B_ξ Ξ^{t−1} + B_u U^t − F^t + B_d D)` with `Ξ^{t−1}` the
//! previous poses' twists and `U^t`, `F^t` the targets' and forces' tangents through the
//! policy's pushforward (and [`Seeds::force`]): `k` solves per step against one factorisation, so the full
//! Jacobian of every state with respect to a few parameters (Gauss–Newton) costs one pass
//! instead of `|θ|` adjoint passes.

use crate::error::{DiffError, Result};
use crate::policy::{ControlTangent, PolicyTangent};
use crate::pose::pose_tangent;
use crate::step::neg_solve_in_place;
use crate::trajectory::Trajectory;
use nalgebra::DMatrix;
use sdrs_dynamics::{Model, Simulator};

/// Seed directions (one per column, `k` columns in every matrix).
#[derive(Debug, Clone, PartialEq)]
pub struct Seeds {
    /// `dθ^0/ds` (n x k), with the poses before the first step moving only as
    /// [`Seeds::initial_previous`] says.
    pub initial: DMatrix<f64>,
    /// `dξ^{−1}/ds` (6·links x k), the twists of the poses before the first step.
    pub initial_previous: DMatrix<f64>,
    /// `dc/ds` (policy parameters x k).
    pub parameters: DMatrix<f64>,
    /// `dd/ds` (|d| x k).
    pub design: DMatrix<f64>,
    /// `dτ^t/ds` of every step's generalized forces (n x k each, one per step), added to what
    /// the policy gives; empty for none.
    pub force: Vec<DMatrix<f64>>,
}

impl Seeds {
    /// `k` zero directions for `model` and a policy with `parameters` parameters.
    pub fn zeros(model: &Model, parameters: usize, k: usize) -> Self {
        Self {
            initial: DMatrix::zeros(model.dof(), k),
            initial_previous: DMatrix::zeros(6 * model.links().len(), k),
            parameters: DMatrix::zeros(parameters, k),
            design: DMatrix::zeros(model.design_len(), k),
            force: Vec::new(),
        }
    }

    /// [`Seeds::force`] for `steps` steps, all zero, to fill in.
    pub fn with_forces(mut self, steps: usize) -> Self {
        let (n, k) = self.initial.shape();
        self.force = vec![DMatrix::zeros(n, k); steps];
        self
    }

    fn check(&self, model: &Model, parameters: usize, steps: usize) -> Result<()> {
        let k = self.initial.ncols();
        if !self.force.is_empty() && self.force.len() != steps {
            return Err(DiffError::LengthMismatch {
                what: "force seeds (one per step, or none)",
                actual: self.force.len(),
                expected: steps,
            });
        }
        let forces = self
            .force
            .iter()
            .map(|m| ("force seeds of a step", m, model.dof()));
        let shapes = [
            ("initial-state seeds", &self.initial, model.dof()),
            (
                "previous-pose seeds",
                &self.initial_previous,
                6 * model.links().len(),
            ),
            ("parameter seeds", &self.parameters, parameters),
            ("design seeds", &self.design, model.design_len()),
        ];
        for (what, m, rows) in shapes.into_iter().chain(forces) {
            if m.nrows() != rows {
                return Err(DiffError::LengthMismatch {
                    what,
                    actual: m.nrows(),
                    expected: rows,
                });
            }
            if m.ncols() != k {
                return Err(DiffError::LengthMismatch {
                    what: "seed columns (all seed matrices need as many as the initial-state seeds)",
                    actual: m.ncols(),
                    expected: k,
                });
            }
        }
        Ok(())
    }
}

/// `dθ^t/ds` for `t = 0 … H` (each n x k) along `trajectory` (recorded by `sim`).
///
/// ```
/// use sdrs_diff::{Recording, Seeds, rollout, tangent};
/// use sdrs_dynamics::scenes::chain;
/// use sdrs_dynamics::{Motion, Simulator, State};
/// let mut scene = chain(2, 0.01)?;
/// scene.settings.backward = true;
/// let model = scene.model.clone();
/// let mut sim = Simulator::new(model.clone(), scene.settings)?;
/// let start = Motion::at_rest(&model, State::zero(&model));
/// let trajectory = rollout(&mut sim, &start, &vec![scene.control; 10], Recording::Blocks)?;
/// // How the final angles move with the first initial angle (previous poses held).
/// let mut seeds = Seeds::zeros(&model, 0, 1);
/// seeds.initial[(0, 0)] = 1.0;
/// let jacobians = tangent(&mut sim, &trajectory, &seeds)?;
/// assert_eq!(jacobians.len(), 11);
/// assert!(jacobians[10][(0, 0)].abs() > 0.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn tangent(
    sim: &mut Simulator,
    trajectory: &Trajectory,
    seeds: &Seeds,
) -> Result<Vec<DMatrix<f64>>> {
    let model = sim.model().clone();
    seeds.check(&model, trajectory.parameters(), trajectory.steps())?;
    let links = model.links().len();
    let offset = 3 * links;
    let attachments = seeds.design.rows(0, offset).into_owned();
    let design_seeded = seeds.design.iter().any(|x| *x != 0.0);
    let mut states = vec![seeds.initial.clone()];
    let mut previous_twists = seeds.initial_previous.clone();
    for t in 0..trajectory.steps() {
        let lin = trajectory.linearization(sim, t)?;
        let b = &lin.derivatives;
        let now = &states[t];
        let mut rhs = &b.current * now + &b.previous * &previous_twists;
        if let Some((recorded, input)) = trajectory.policy_input(t) {
            let mut u = ControlTangent::zeros(model.dof(), now.ncols());
            recorded.policy.pushforward(
                &recorded.parameters,
                &input,
                PolicyTangent {
                    parameters: &seeds.parameters,
                    current: now,
                    previous: t.checked_sub(1).map(|before| &states[before]),
                },
                &mut u,
            );
            // The forces enter through B_τ = −I, the targets through the diagonal blocks.
            rhs -= &u.force;
            for ((mut row, (p, v)), (rp, rv)) in rhs
                .row_iter_mut()
                .zip(b.target_position.iter().zip(b.target_velocity.iter()))
                .zip(u.position.row_iter().zip(u.velocity.row_iter()))
            {
                row += rp * *p + rv * *v;
            }
        }
        if let Some(df) = seeds.force.get(t) {
            rhs -= df;
        }
        if design_seeded {
            match (&b.vertices, &b.attachments) {
                (Some(bv), Some(ba)) => {
                    bv.add_product(&seeds.design, &mut rhs);
                    ba.add_product(&seeds.design, &mut rhs);
                }
                _ => {
                    return Err(DiffError::InvalidSetting {
                        name: "design seeds",
                        value: t as f64,
                        allowed: "zero when the steps have no design blocks (solid-hull masses or user energies)",
                    });
                }
            }
        }
        let mut next = rhs;
        neg_solve_in_place(&lin, &mut next, t)?;
        previous_twists = pose_tangent(&model, &trajectory.states[t], now, &attachments);
        states.push(next);
    }
    Ok(states)
}
