//! One step as a function of coordinates, `θ^{t+1} = S(θ^{t−1}, θ^t, u, d)`, and its
//! vector-Jacobian product: what a per-step automatic-differentiation framework composes
//! (`sdrs.torch.step`), where [`adjoint`](crate::adjoint) differentiates a whole recorded
//! trajectory at once.
//!
//! The state is the pair of consecutive coordinate vectors `(θ^{t−1}, θ^t)` in the identity
//! chart of [`State::new`] (spherical and free joints as XYZ angles, see `chart.rs`): the
//! previous link poses are those of `θ^{t−1}` (as in a rollout, where they are the last
//! step's), and the velocity is their difference over `Δt`. The result's angles are taken
//! on the branch nearest `θ^t`'s, so a trajectory's coordinates stay continuous.
//!
//! The backward pass is the implicit function theorem on the step's own linearisation (no
//! finite differences): with `μ = −H⁻¹ ḡ` for the result's cotangent `ḡ`, the inputs get
//! `B_θᵀ μ`, `J_prevᵀ B_ξᵀ μ` (through the previous poses' Jacobian), `B_uᵀ μ` for the PD
//! targets, `−μ` for the generalized forces and `B_dᵀ μ` for the design, as in SDRS
//! sec. IV-D, with the chart maps `E(q)` of the rotation angles around it.
//!
//! One limitation, of the stepper rather than of this map: generalized forces and PD terms on
//! the rotation coordinates of a spherical or free joint act along θ^t's chart, while the
//! linearisation is taken in θ^{t+1}'s re-centred one, where their gradient is balanced only
//! to first order in the step's turn. Derivatives through such terms are off by that much
//! (measured: 2e-4 in `∂ roll/∂ pitch` of a 1 kg box under a 0.05 N·m yaw torque). Forces and
//! PD on translations and on revolute, prismatic and universal joints are exact.

use crate::chart;
use crate::error::{DiffError, Result};
use crate::pose::pose_adjoint;
use crate::step::neg_solve_in_place;
use nalgebra::DVector;
use sdrs_dynamics::{Control, Kinematics, Linearization, Model, Simulator, State};

/// A step taken by [`step_coordinates`]: its result, its Newton iterations and what its
/// vector-Jacobian product needs.
#[derive(Debug, Clone)]
pub struct CoordinateStep {
    /// `θ^{t+1}` in the identity chart.
    pub next: DVector<f64>,
    /// Newton iterations the step took.
    pub iterations: usize,
    /// Hull pairs with a non-zero barrier at the solution.
    pub active_pairs: usize,
    /// The linearisation and the charts, when the simulator gives backward blocks.
    record: Option<Record>,
}

/// What [`CoordinateStep::vjp`] needs.
#[derive(Debug, Clone)]
struct Record {
    linearization: Linearization,
    /// `θ^{t−1}`, `θ^t` (identity chart) and `θ^{t−1}` re-centred, where its poses' Jacobian
    /// is taken.
    previous: DVector<f64>,
    current: DVector<f64>,
    previous_state: State,
}

/// The gradient of a scalar with respect to a step's inputs, from its gradient with respect
/// to the result ([`CoordinateStep::vjp`]).
#[derive(Debug, Clone, PartialEq)]
pub struct StepCotangent {
    /// With respect to `θ^{t−1}` (identity chart).
    pub previous: DVector<f64>,
    /// With respect to `θ^t` (identity chart).
    pub current: DVector<f64>,
    /// With respect to the PD position targets.
    pub target_position: DVector<f64>,
    /// With respect to the PD velocity targets.
    pub target_velocity: DVector<f64>,
    /// With respect to the generalized forces.
    pub force: DVector<f64>,
    /// With respect to the model's design vector (`Model::design`: attachments, then hull
    /// vertices), `None` when the step gives no design blocks (solid-hull masses, user
    /// energies, or `StepSettings::design_derivatives` off).
    pub design: Option<DVector<f64>>,
}

/// One step from the coordinate pair (`previous` = `θ^{t−1}`, `current` = `θ^t`, identity
/// chart) under `control`. With `StepSettings::backward` the result keeps the step's
/// linearisation for [`CoordinateStep::vjp`]; without it the step does no more than a
/// forward step.
///
/// ```
/// use sdrs_diff::step_coordinates;
/// use sdrs_dynamics::scenes::chain;
/// use sdrs_dynamics::Simulator;
/// use nalgebra::DVector;
/// let mut scene = chain(2, 0.01)?;
/// scene.settings.backward = true;
/// let model = scene.model.clone();
/// let mut sim = Simulator::new(model.clone(), scene.settings)?;
/// // Swinging: the first joint moved from 0.30 to 0.31 rad over the last step.
/// let (previous, current) = (DVector::from_vec(vec![0.30, 0.0]), DVector::from_vec(vec![0.31, 0.0]));
/// let step = step_coordinates(&mut sim, &previous, &current, &scene.control)?;
/// // d(next first angle)/d(inputs): the swing carries on, so θ^t pushes and θ^{t−1} holds back.
/// let g = step.vjp(&model, &DVector::from_vec(vec![1.0, 0.0]))?;
/// assert!(g.current[0] > 1.0 && g.previous[0] < 0.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn step_coordinates(
    sim: &mut Simulator,
    previous: &DVector<f64>,
    current: &DVector<f64>,
    control: &Control,
) -> Result<CoordinateStep> {
    let model = sim.model();
    let previous_state = chart::state(model, previous, "previous coordinates")?;
    let current_state = chart::state(model, current, "current coordinates")?;
    let poses = Kinematics::new(model, &previous_state).poses().to_vec();
    let (next, report) = sim
        .step(&current_state, &poses, control)
        .map_err(|source| DiffError::Setup {
            what: "the step",
            source,
        })?;
    let next_q = chart::identity_chart(sim.model(), &next, current)?;
    Ok(CoordinateStep {
        next: next_q,
        iterations: report.iterations,
        active_pairs: report.active_pairs,
        record: report.linearization.map(|linearization| Record {
            linearization,
            previous: previous.clone(),
            current: current.clone(),
            previous_state,
        }),
    })
}

impl CoordinateStep {
    /// The gradient of a scalar with respect to the step's inputs, given its gradient
    /// `gradient` with respect to the result `θ^{t+1}`: one solve with the factor of the step's
    /// Hessian. `model` is the simulator's. Needs a simulator built with
    /// `StepSettings::backward`.
    pub fn vjp(&self, model: &Model, gradient: &DVector<f64>) -> Result<StepCotangent> {
        let record = self.record.as_ref().ok_or(DiffError::NoBackwardBlocks)?;
        let n = model.dof();
        if gradient.len() != n {
            return Err(DiffError::LengthMismatch {
                what: "gradient of the step's result",
                actual: gradient.len(),
                expected: n,
            });
        }
        if let Some(index) = gradient.iter().position(|x| !x.is_finite()) {
            return Err(DiffError::NonFinite {
                what: "gradient of the step's result",
                index,
            });
        }
        let blocks = &record.linearization.derivatives;
        let mut mu = gradient.clone();
        chart::push_back(model, &self.next, &mut mu)?;
        neg_solve_in_place(&record.linearization, &mut mu, 0)?;
        let mut current = blocks.current.tr_mul(&mu);
        chart::pull_back(model, &record.current, &mut current);
        let twists = blocks.previous.tr_mul(&mu);
        let (mut previous, attachments) = pose_adjoint(model, &record.previous_state, &twists);
        chart::pull_back(model, &record.previous, &mut previous);
        let design = match (&blocks.vertices, &blocks.attachments) {
            (Some(vertices), Some(blocks_attachments)) => {
                let mut d = DVector::zeros(model.design_len());
                vertices.add_transpose_product(&mu, &mut d);
                blocks_attachments.add_transpose_product(&mu, &mut d);
                let mut moved = d.rows_mut(0, attachments.len());
                moved += &attachments;
                Some(d)
            }
            _ => None,
        };
        Ok(StepCotangent {
            previous,
            current,
            target_position: blocks.target_position.component_mul(&mu),
            target_velocity: blocks.target_velocity.component_mul(&mu),
            force: -mu,
            design,
        })
    }
}
