//! Recording a trajectory and the reverse (adjoint) recursion over it.

use crate::error::{DiffError, Result};
use nalgebra::{DMatrix, DVector, Isometry3, Matrix3, Vector3};
use sdrs_dynamics::{Control, Kinematics, Model, Motion, Simulator, State, StepReport};

/// A simulated trajectory with what its adjoint needs.
#[derive(Debug, Clone)]
pub struct Trajectory {
    /// `θ^0 … θ^H`.
    pub states: Vec<State>,
    /// The link poses before the first step (`T^{−1}`).
    pub initial_previous: Vec<Isometry3<f64>>,
    /// The controls of the `H` steps.
    pub controls: Vec<Control>,
    /// Every step's report, with its derivative blocks.
    pub reports: Vec<StepReport>,
}

/// `dL/d(inputs)` of a trajectory for a loss `L(θ^H)`.
#[derive(Debug, Clone, PartialEq)]
pub struct TrajectoryGradient {
    /// `dL/dθ^0`, with the poses before the first step held fixed.
    pub initial: DVector<f64>,
    /// `dL/dξ^{−1}`: with respect to the twists of the poses before the first step (6 per
    /// link); [`pose_adjoint`] maps it to coordinates (e.g. for a start at rest, where
    /// `T^{−1} = T(θ^0)`).
    pub initial_previous: DVector<f64>,
    /// `dL/dθ*^t` of every step's PD position targets.
    pub target_position: Vec<DVector<f64>>,
    /// `dL/dθ̇*^t` of every step's PD velocity targets.
    pub target_velocity: Vec<DVector<f64>>,
    /// `dL/dd` over the design vector (`Model::design`: attachments, then hull vertices),
    /// with `θ^0` and `T^{−1}` held fixed.
    pub design: DVector<f64>,
}

/// Simulates `controls.len()` steps from `initial` (with link poses `previous` one step
/// before) and records what the adjoint needs. The simulator must have
/// `StepSettings::backward` set.
pub fn rollout(
    sim: &mut Simulator,
    initial: &State,
    previous: &[Isometry3<f64>],
    controls: &[Control],
) -> Result<Trajectory> {
    if !sim.settings().backward {
        return Err(DiffError::NoBackwardBlocks);
    }
    let mut motion = Motion {
        state: initial.clone(),
        previous: previous.to_vec(),
    };
    let mut states = vec![initial.clone()];
    let mut reports = Vec::with_capacity(controls.len());
    for (step, control) in controls.iter().enumerate() {
        let report = sim
            .advance(&mut motion, control)
            .map_err(|source| DiffError::Step { step, source })?;
        states.push(motion.state.clone());
        reports.push(report);
    }
    Ok(Trajectory {
        states,
        initial_previous: previous.to_vec(),
        controls: controls.to_vec(),
        reports,
    })
}

/// Maps a gradient with respect to the twists of a state's link poses (6 per link) to the
/// state's coordinates and to the design's attachment translations (3 per link): link `l`'s
/// twist moves with `J_l(θ)`, and attachment `i` translates its subtree by `R_parent δ`.
pub fn pose_adjoint(
    model: &Model,
    state: &State,
    twist_gradient: &DVector<f64>,
) -> (DVector<f64>, DVector<f64>) {
    let kin = Kinematics::new(model, state);
    let links = model.links().len();
    let mut coordinates = DVector::zeros(model.dof());
    let mut attachments = DVector::zeros(3 * links);
    for l in 0..links {
        let g = twist_gradient.fixed_rows::<6>(6 * l);
        for (k, col) in kin.jacobian(l) {
            coordinates[*k] += col.dot(&g);
        }
        // Every attachment on l's path (l itself and its ancestors) moves l.
        let force = Vector3::new(g[0], g[1], g[2]);
        let mut at = Some(l);
        while let Some(i) = at {
            let parent = model.links()[i].parent;
            let turn: Matrix3<f64> = parent
                .map(|p| kin.poses()[p].rotation.into())
                .unwrap_or_else(Matrix3::identity);
            let mut rows = attachments.fixed_rows_mut::<3>(3 * i);
            rows += turn.transpose() * force;
            at = parent;
        }
    }
    (coordinates, attachments)
}

/// `dL/d(θ^0, controls, design)` for a loss whose gradient with respect to the final state
/// `θ^H` is `final_gradient` (in the final state's chart).
pub fn adjoint(
    model: &Model,
    trajectory: &Trajectory,
    final_gradient: &DVector<f64>,
) -> Result<TrajectoryGradient> {
    let n = model.dof();
    if final_gradient.len() != n {
        return Err(DiffError::LengthMismatch {
            what: "final gradient",
            actual: final_gradient.len(),
            expected: n,
        });
    }
    let steps = trajectory.reports.len();
    let links = model.links().len();
    let offset = 3 * links;
    // λ[t] = dL/dθ^t, accumulated as later steps are processed.
    let mut lambda = vec![DVector::zeros(n); steps + 1];
    lambda[steps] = final_gradient.clone();
    let mut out = TrajectoryGradient {
        initial: DVector::zeros(n),
        initial_previous: DVector::zeros(6 * links),
        target_position: vec![DVector::zeros(n); steps],
        target_velocity: vec![DVector::zeros(n); steps],
        design: DVector::zeros(model.design_len()),
    };
    for t in (0..steps).rev() {
        let report = &trajectory.reports[t];
        let blocks = report
            .derivatives
            .as_ref()
            .ok_or(DiffError::NoBackwardBlocks)?;
        // μ = −H⁻¹ λ^{t+1} (H symmetric).
        let mu = solve(&report.hessian, &lambda[t + 1])
            .ok_or(DiffError::SingularHessian { step: t })?
            * -1.0;
        let into_current = blocks.current.transpose() * &mu;
        lambda[t] += into_current;
        out.target_position[t] = blocks.target_position.component_mul(&mu);
        out.target_velocity[t] = blocks.target_velocity.component_mul(&mu);
        let vertices = blocks.vertices.as_ref().ok_or(DiffError::MissingBlock {
            step: t,
            block: "hull-vertex",
            why: "solid-hull masses have no vertex derivative",
        })?;
        let attachments = blocks.attachments.as_ref().ok_or(DiffError::MissingBlock {
            step: t,
            block: "attachment",
            why: "user energies are not differentiated with respect to the design",
        })?;
        {
            let mut d = out.design.rows_mut(offset, model.design_len() - offset);
            d += vertices.transpose() * &mu;
        }
        {
            let mut d = out.design.rows_mut(0, offset);
            d += attachments.transpose() * &mu;
        }
        // The previous poses: T^{t−1} = T(d, θ^{t−1}) for t ≥ 1, given for t = 0.
        let previous: DVector<f64> = blocks.previous.transpose() * &mu;
        if t == 0 {
            out.initial_previous = previous;
        } else {
            let (coordinates, attach) = pose_adjoint(model, &trajectory.states[t - 1], &previous);
            lambda[t - 1] += coordinates;
            let mut d = out.design.rows_mut(0, offset);
            d += attach;
        }
    }
    out.initial = lambda[0].clone();
    Ok(out)
}

/// `H⁻¹ b` by Cholesky, or LU when `H` is not positive definite.
fn solve(h: &DMatrix<f64>, b: &DVector<f64>) -> Option<DVector<f64>> {
    match h.clone().cholesky() {
        Some(chol) => Some(chol.solve(b)),
        None => h.clone().lu().solve(b),
    }
}
