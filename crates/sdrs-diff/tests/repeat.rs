//! A rollout depends only on its inputs: the warm starts that earlier runs and backward passes
//! leave in the simulator do not change it.

use nalgebra::DVector;
use sdrs_diff::{LossGradient, Recording, Seeds, adjoint, rollout, tangent};
use sdrs_dynamics::scenes::box_on_incline;
use sdrs_dynamics::{Motion, Simulator, State};

#[test]
fn a_rollout_is_the_same_after_other_runs_and_backward_passes() {
    let mut scene = box_on_incline(0.3, 0.5, 0.01).unwrap();
    scene.control.kp[0] = 100.0;
    scene.control.position[0] = 0.05;
    let model = scene.model.clone();
    let mut sim = Simulator::new(model.clone(), scene.settings.clone()).unwrap();
    let start = Motion::at_rest(&model, State::zero(&model));
    let controls = vec![scene.control.clone(); 40];
    let first = rollout(&mut sim, &start, &controls, Recording::States).unwrap();
    // Backward passes recompute every step's linearisation (warm-starting the planes there),
    // and another rollout from elsewhere leaves other warm starts behind.
    let mut dl = DVector::zeros(model.dof());
    dl[0] = 1.0;
    let loss = LossGradient::final_state(&model, controls.len(), dl);
    adjoint(&mut sim, &first, &loss).unwrap();
    tangent(&mut sim, &first, &Seeds::zeros(&model, 0, 1)).unwrap();
    let mut moved = start.clone();
    moved.state.q[0] += 0.02;
    rollout(&mut sim, &moved, &controls[..10], Recording::States).unwrap();
    let again = rollout(&mut sim, &start, &controls, Recording::States).unwrap();
    assert!(
        first.active_pairs.iter().any(|&a| a > 0),
        "the chains touch"
    );
    assert_eq!(first.states, again.states);
    assert_eq!(first.iterations, again.iterations);
}
