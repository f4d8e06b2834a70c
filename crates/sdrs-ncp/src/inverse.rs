//! Inverse problems solved by Gauss-Newton on the simulator's Jacobians (NCP paper sec. IV,
//! Fig. 3 and 4), with the Jacobians either from implicit differentiation
//! ([`crate::step_jacobian`], [`crate::trajectory`]) or from central finite differences of
//! the simulator, to compare the two:
//!
//! - [`estimate_initial_velocity`]: the initial velocity of a rollout from its final pose
//!   (a thrown cube, Fig. 3);
//! - [`contact_inverse_dynamics`]: the joint torques that give zero acceleration in contact
//!   (a standing quadruped, Fig. 4).
//!
//! Each Gauss-Newton step solves the linearised least-squares problem `min ‖r + J Δ‖` by the
//! SVD of `J` (singular values below `1e-12 σ_max` dropped), the paper's undamped update.

use crate::error::NcpError;
use crate::solver::problem::{check_finite, check_size};
use crate::stepper::NcpSimulator;
use nalgebra::{DMatrix, DVector};
use sdrs_dynamics::{Control, State};
use std::time::Instant;

/// Where the Gauss-Newton Jacobian comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum JacobianSource {
    /// Implicit differentiation (forward mode).
    Implicit,
    /// Central finite differences of the simulator with this step.
    FiniteDifferences(f64),
}

/// The iterates of a Gauss-Newton run.
#[derive(Debug, Clone, PartialEq)]
pub struct GaussNewtonTrace {
    /// The unknowns before each iteration and after the last (`iterations + 1` entries).
    pub estimates: Vec<DVector<f64>>,
    /// The residual norm `‖r‖` at each estimate.
    pub residual_norms: Vec<f64>,
    /// The wall time of each iteration's Jacobian, s.
    pub jacobian_seconds: Vec<f64>,
}

/// The residual and its Jacobian with respect to the unknowns at `x`.
type Linearisation = (DVector<f64>, DMatrix<f64>);

/// Gauss-Newton from `x0` for `iterations` steps; `residual` gives `r(x)`, `linearise` gives
/// `(r(x), ∂r/∂x)`.
fn gauss_newton(
    x0: DVector<f64>,
    iterations: usize,
    residual: impl Fn(&DVector<f64>) -> Result<DVector<f64>, NcpError>,
    linearise: impl Fn(&DVector<f64>) -> Result<Linearisation, NcpError>,
) -> Result<GaussNewtonTrace, NcpError> {
    let mut trace = GaussNewtonTrace {
        estimates: vec![x0.clone()],
        residual_norms: Vec::with_capacity(iterations + 1),
        jacobian_seconds: Vec::with_capacity(iterations),
    };
    let mut x = x0;
    for _ in 0..iterations {
        let start = Instant::now();
        let (r, jacobian) = linearise(&x)?;
        trace.jacobian_seconds.push(start.elapsed().as_secs_f64());
        trace.residual_norms.push(r.norm());
        let svd = jacobian.svd(true, true);
        let cutoff = 1e-12 * svd.singular_values.max();
        let step = svd.solve(&-r, cutoff).map_err(|_| NcpError::NonFinite {
            what: "Gauss-Newton Jacobian",
            index: 0,
        })?;
        x += step;
        trace.estimates.push(x.clone());
    }
    trace.residual_norms.push(residual(&x)?.norm());
    Ok(trace)
}

/// Central differences of `f` at `x` with step `eps`, one column per unknown.
fn central_differences(
    x: &DVector<f64>,
    eps: f64,
    f: impl Fn(&DVector<f64>) -> Result<DVector<f64>, NcpError>,
) -> Result<DMatrix<f64>, NcpError> {
    let mut columns = Vec::with_capacity(x.len());
    for k in 0..x.len() {
        let mut plus = x.clone();
        plus[k] += eps;
        let mut minus = x.clone();
        minus[k] -= eps;
        columns.push((f(&plus)? - f(&minus)?) / (2.0 * eps));
    }
    Ok(DMatrix::from_columns(&columns))
}

fn check_unknowns(what: &'static str, indices: &[usize], n: usize) -> Result<(), NcpError> {
    match indices.iter().find(|&&k| k >= n) {
        Some(&k) => Err(NcpError::SizeMismatch {
            what,
            actual: k,
            expected: n,
        }),
        None => Ok(()),
    }
}

/// Estimates the entries `unknowns` of the initial velocity of a rollout from `state` under
/// `controls` (the other entries taken from `guess`) so that its final configuration matches
/// `target`: Gauss-Newton on `r = q_H ⊖ target` (tangent coordinates, see
/// [`crate::step_jacobian`]) from `guess`, `iterations` steps. The simulator `sim` is copied
/// for every rollout.
///
/// ```
/// use sdrs_dynamics::{Control, JointKind, Link, MassModel, Model, State};
/// use sdrs_geometry::ConvexHull;
/// use sdrs_ncp::{NcpSettings, NcpSimulator};
/// use sdrs_ncp::inverse::{JacobianSource, estimate_initial_velocity};
/// use nalgebra::{DVector, Isometry3, Vector3};
/// // A cube in free flight for 0.1 s: the final position gives the initial velocity.
/// let cube = ConvexHull::cuboid(Vector3::repeat(0.1))?;
/// let link = Link::new("box", None, Isometry3::identity(), JointKind::Free, vec![cube], MassModel::Lumped { mass: 1.0 });
/// let model = Model::new(vec![link])?;
/// let sim = NcpSimulator::new(model.clone(), NcpSettings::new(1e-2)?);
/// let start = State::new(&model, DVector::zeros(6))?;
/// let controls = vec![Control::passive(&model); 10];
/// let truth = DVector::from_vec(vec![1.0, -2.0, 3.0, 0.0, 0.0, 0.0]);
/// let target = sim.clone().rollout_with_jacobians(&start, &truth, &controls)?.states[10].clone();
/// let trace = estimate_initial_velocity(
///     &sim, &start, &DVector::zeros(6), &controls, &target, &[0, 1, 2], 2, JacobianSource::Implicit)?;
/// assert!((&trace.estimates[2] - truth.rows(0, 3)).norm() < 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn estimate_initial_velocity(
    sim: &NcpSimulator,
    state: &State,
    guess: &DVector<f64>,
    controls: &[Control],
    target: &State,
    unknowns: &[usize],
    iterations: usize,
    source: JacobianSource,
) -> Result<GaussNewtonTrace, NcpError> {
    let model = sim.model();
    let n = model.dof();
    check_size("initial velocity guess", guess.len(), n)?;
    check_finite("initial velocity guess", guess.as_slice())?;
    check_unknowns("unknown velocity index", unknowns, n)?;
    let velocity = |x: &DVector<f64>| {
        let mut v = guess.clone();
        for (i, &k) in unknowns.iter().enumerate() {
            v[k] = x[i];
        }
        v
    };
    let final_residual = |x: &DVector<f64>| -> Result<DVector<f64>, NcpError> {
        let (mut s, mut v) = (state.clone(), velocity(x));
        let mut sim = sim.clone();
        for control in controls {
            sim.step(&mut s, &mut v, control)?;
        }
        Ok(model.difference(target, &s)?)
    };
    let linearise = |x: &DVector<f64>| -> Result<Linearisation, NcpError> {
        match source {
            JacobianSource::Implicit => {
                let rollout = sim
                    .clone()
                    .rollout_with_jacobians(state, &velocity(x), controls)?;
                let last = rollout.states.last().unwrap_or(state);
                let r = model.difference(target, last)?;
                let total = rollout.final_state_jacobian();
                let columns: Vec<DVector<f64>> = unknowns
                    .iter()
                    .map(|&k| total.view((0, n + k), (n, 1)).column(0).into_owned())
                    .collect();
                Ok((r, DMatrix::from_columns(&columns)))
            }
            JacobianSource::FiniteDifferences(eps) => Ok((
                final_residual(x)?,
                central_differences(x, eps, final_residual)?,
            )),
        }
    };
    let x0 = DVector::from_iterator(unknowns.len(), unknowns.iter().map(|&k| guess[k]));
    gauss_newton(x0, iterations, final_residual, linearise)
}

/// Contact inverse dynamics: the forces on the DoFs `actuated` (the other entries of
/// `control.force` kept) for which one step from `(state, v)` leaves the velocity unchanged,
/// by Gauss-Newton on the acceleration `r = (v⁺ − v)/Δt` from `control.force`, `iterations`
/// steps.
pub fn contact_inverse_dynamics(
    sim: &NcpSimulator,
    state: &State,
    v: &DVector<f64>,
    control: &Control,
    actuated: &[usize],
    iterations: usize,
    source: JacobianSource,
) -> Result<GaussNewtonTrace, NcpError> {
    let n = sim.model().dof();
    let dt = sim.settings().dt();
    check_size("velocity", v.len(), n)?;
    check_size("control force", control.force.len(), n)?;
    check_unknowns("actuated DoF", actuated, n)?;
    let with = |x: &DVector<f64>| {
        let mut c = control.clone();
        for (i, &k) in actuated.iter().enumerate() {
            c.force[k] = x[i];
        }
        c
    };
    let acceleration = |x: &DVector<f64>| -> Result<DVector<f64>, NcpError> {
        let (mut s, mut w) = (state.clone(), v.clone());
        sim.clone().step(&mut s, &mut w, &with(x))?;
        Ok((w - v) / dt)
    };
    let linearise = |x: &DVector<f64>| -> Result<Linearisation, NcpError> {
        match source {
            JacobianSource::Implicit => {
                let mut sim = sim.clone();
                let (mut s, mut w) = (state.clone(), v.clone());
                let (_, record) = sim.step_recorded(&mut s, &mut w, &with(x))?;
                let jacobian = sim.step_jacobian(&record)?;
                let columns: Vec<DVector<f64>> = actuated
                    .iter()
                    .map(|&k| jacobian.dv_du.column(k) / dt)
                    .collect();
                Ok(((w - v) / dt, DMatrix::from_columns(&columns)))
            }
            JacobianSource::FiniteDifferences(eps) => {
                Ok((acceleration(x)?, central_differences(x, eps, acceleration)?))
            }
        }
    };
    let x0 = DVector::from_iterator(actuated.len(), actuated.iter().map(|&k| control.force[k]));
    gauss_newton(x0, iterations, acceleration, linearise)
}
