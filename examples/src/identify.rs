//! System identification from a recorded trajectory (issue 46), run by the `identify_box`
//! example: a box thrown onto the ground and pushed by a known force, with friction, whose
//! friction coefficient and mass are recovered by minimising the squared distance of the
//! simulated positions to the recorded ones, with the adjoint's gradients with respect to both
//! (`StepSettings::parameters`, `TrajectoryGradient::physical`).
//!
//! The parameters are optimised as logarithms, so they stay positive whatever step is tried,
//! by BFGS with a backtracking (Armijo) line search. The push makes the mass identifiable:
//! gravity, inertia and friction alone all scale with it.

use nalgebra::{Matrix2, Vector2};
use sdrs::diff::{LossGradient, Recording, Trajectory, adjoint, rollout};
use sdrs::dynamics::scenes::{Scene, box_on_incline};
use sdrs::dynamics::stepper::PhysicalParameter;
use sdrs::prelude::*;

/// A boxed error.
pub type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The time step (s).
pub const DT: f64 = 0.01;
/// Steps recorded.
pub const STEPS: usize = 80;
/// The box's link in `box_on_incline`.
const BOX: usize = 1;
/// The friction coefficient and mass (kg) the trajectory is recorded at.
pub const TRUTH: [f64; 2] = [0.35, 1.4];
/// BFGS iterations at most.
const ITERATIONS: usize = 60;

/// The thrown, pushed box at friction coefficient `mu` and mass `mass`: the simulator (its
/// backward pass differentiating both), the start and the controls.
pub fn thrown_box(mu: f64, mass: f64) -> Result<(Simulator, Motion, Vec<Control>)> {
    let Scene {
        model,
        mut settings,
        control,
    } = box_on_incline(0.0, mu, DT)?;
    let model = model.with_link_mass(BOX, mass)?;
    settings.tolerance = 1e-10;
    settings.backward = true;
    settings.parameters = vec![
        PhysicalParameter::FrictionCoefficient,
        PhysicalParameter::LinkMass { link: BOX },
    ];
    let mut start = Motion::at_rest(&model, State::zero(&model));
    // Thrown: 1.5 m/s along x and 0.5 m/s along y in the step before, from 1 cm higher.
    start.previous[BOX] = Isometry3::translation(-0.015, -0.005, 0.01) * start.previous[BOX];
    // Pushed along x by 6 N for the first half, then along y by 2 N.
    let controls = (0..STEPS)
        .map(|k| {
            let mut c = control.clone();
            let push = if k < STEPS / 2 {
                [6.0, 0.0]
            } else {
                [0.0, 2.0]
            };
            c.force[0] = push[0];
            c.force[1] = push[1];
            c
        })
        .collect();
    Ok((Simulator::new(model, settings)?, start, controls))
}

/// The box's positions along a rollout, one per state.
pub fn positions(trajectory: &Trajectory) -> Vec<Vector3<f64>> {
    trajectory
        .states
        .iter()
        .map(|s| Vector3::new(s.q[0], s.q[1], s.q[2]))
        .collect()
}

/// The positions recorded at friction coefficient `mu` and mass `mass`.
pub fn record(mu: f64, mass: f64) -> Result<Vec<Vector3<f64>>> {
    let (mut sim, start, controls) = thrown_box(mu, mass)?;
    Ok(positions(&rollout(
        &mut sim,
        &start,
        &controls,
        Recording::States,
    )?))
}

/// The loss `½ Σ_t |x_t − x̂_t|²` at log-parameters `u`, its gradient in `u`, and the
/// simulated positions.
pub fn loss(
    u: &Vector2<f64>,
    recorded: &[Vector3<f64>],
) -> Result<(f64, Vector2<f64>, Vec<Vector3<f64>>)> {
    let (mu, mass) = (u[0].exp(), u[1].exp());
    let (mut sim, start, controls) = thrown_box(mu, mass)?;
    let trajectory = rollout(&mut sim, &start, &controls, Recording::Blocks)?;
    let simulated = positions(&trajectory);
    let model = sim.model().clone();
    let mut partials = LossGradient::zeros(&model, STEPS);
    let mut value = 0.0;
    for (t, (x, target)) in simulated.iter().zip(recorded).enumerate() {
        let r = x - target;
        value += 0.5 * r.norm_squared();
        partials.states[t].rows_mut(0, 3).copy_from(&r);
    }
    let g = adjoint(&mut sim, &trajectory, &partials)?.physical;
    // d/du = p d/dp for p = exp(u).
    Ok((value, Vector2::new(g[0] * mu, g[1] * mass), simulated))
}

/// What an identification found.
#[derive(Debug, Clone)]
pub struct Fit {
    /// The friction coefficient and mass found.
    pub found: [f64; 2],
    /// The loss after each iteration (the first at the guess).
    pub history: Vec<f64>,
    /// The positions simulated at the guess.
    pub first: Vec<Vector3<f64>>,
    /// The positions simulated at the fit.
    pub last: Vec<Vector3<f64>>,
}

/// Fits the friction coefficient and mass to `recorded` from `guess`, reporting each
/// iteration to `progress` (iteration, loss, parameters).
pub fn identify(
    recorded: &[Vector3<f64>],
    guess: [f64; 2],
    mut progress: impl FnMut(usize, f64, [f64; 2]),
) -> Result<Fit> {
    let mut u = Vector2::new(guess[0].ln(), guess[1].ln());
    let (mut value, mut gradient, first) = loss(&u, recorded)?;
    let mut inverse = Matrix2::identity() * 0.1;
    let mut history = vec![value];
    let mut last = first.clone();
    for iteration in 1..=ITERATIONS {
        let direction = -(inverse * gradient);
        let slope = gradient.dot(&direction);
        let mut step = 1.0;
        let accepted = loop {
            let trial = u + direction * step;
            match loss(&trial, recorded) {
                Ok((v, g, x)) if v <= value + 1e-4 * step * slope => break Some((trial, v, g, x)),
                _ if step < 1e-8 => break None,
                _ => step *= 0.5,
            }
        };
        let Some((next, v, g, x)) = accepted else {
            break;
        };
        let (s, y) = (next - u, g - gradient);
        if s.dot(&y) > 0.0 {
            let rho = 1.0 / s.dot(&y);
            let left = Matrix2::identity() - s * y.transpose() * rho;
            inverse = left * inverse * left.transpose() + s * s.transpose() * rho;
        }
        (u, value, gradient, last) = (next, v, g, x);
        history.push(value);
        progress(iteration, value, [u[0].exp(), u[1].exp()]);
        if s.amax() < 1e-10 {
            break;
        }
    }
    Ok(Fit {
        found: [u[0].exp(), u[1].exp()],
        history,
        first,
        last,
    })
}
