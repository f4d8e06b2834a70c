//! A rollout depends only on its inputs: after [`Simulator::reset`] it is bit-identical to the
//! same rollout in a fresh simulator whatever came before (steps elsewhere, linearizations),
//! and a clone steps exactly as its origin.

use sdrs_dynamics::scenes::{box_on_incline, sliding_block};
use sdrs_dynamics::{Control, Motion, Simulator, State};

/// `steps` steps from `start` under `control`: every state on the way.
fn rollout(sim: &mut Simulator, start: &Motion, control: &Control, steps: usize) -> Vec<Motion> {
    let mut motion = start.clone();
    (0..steps)
        .map(|_| {
            sim.advance(&mut motion, control).unwrap();
            motion.clone()
        })
        .collect()
}

/// Rollout A, then other steps from another start and a linearization at their end, then a
/// reset and A again: the same bits; a clone taken mid-run continues exactly as the origin.
fn assert_replays(mut sim: Simulator, a: Motion, b: Motion, control: &Control) {
    let first = rollout(&mut sim, &a, control, 25);
    let other = rollout(&mut sim, &b, control, 10);
    let [.., before, last] = other.as_slice() else {
        unreachable!("ten steps")
    };
    sim.linearize(&last.state, &before.state, &before.previous, control)
        .unwrap();
    // Without the reset the warm starts of the other run would change the iterates.
    sim.reset();
    assert_eq!(rollout(&mut sim, &a, control, 25), first);

    let mut twin = sim.clone();
    let (mine, theirs) = (
        rollout(&mut sim, &b, control, 15),
        rollout(&mut twin, &b, control, 15),
    );
    assert_eq!(mine, theirs);
}

#[test]
fn sdrs_contact_with_friction_replays_after_a_reset() {
    let scene = box_on_incline(0.3, 0.5, 0.01).unwrap();
    let sim = Simulator::new(scene.model.clone(), scene.settings).unwrap();
    let a = Motion::at_rest(&scene.model, State::zero(&scene.model));
    let mut tilted = State::zero(&scene.model);
    tilted.q[4] = 0.05;
    tilted.q[2] = 0.02;
    let b = Motion::at_rest(&scene.model, tilted);
    assert_replays(sim, a, b, &scene.control);
}

#[test]
fn long_range_contact_with_friction_replays_after_a_reset() {
    let sliding = sliding_block(0.5, 0.5, 0.01).unwrap();
    let resting = sliding_block(0.0, 0.5, 0.01).unwrap();
    let control = sliding.scene.control.clone();
    let sim = Simulator::with_contact(
        sliding.scene.model,
        sliding.scene.settings,
        Box::new(sliding.contact),
    )
    .unwrap();
    assert_replays(sim, sliding.start, resting.start, &control);
}
