//! The wall experiment (SDRS sec. V-J, Fig. 24 top; [`sdrs_examples::wall`]) checked against
//! what physics says without a reference simulator: both boxes come to rest, no hulls ever
//! touch, the mechanical energy never rises, box 1 ends against the wall, the final angles
//! are reproducible, and a box spun alone slows at the Coulomb rate.

use sdrs_examples::wall::{DT, HALF, MU, SPIN, wall_scene};

/// Steps of 10 ms: 3 s, enough for both boxes to stop (they do within 0.6 s).
const STEPS: usize = 300;

#[test]
fn both_boxes_come_to_rest_against_the_wall_without_touching() {
    let samples = wall_scene(MU, SPIN).unwrap().simulate(STEPS).unwrap();
    let (first, last) = (&samples[0], samples.last().unwrap());
    // Box 2 turned and hit box 1, which turned too.
    assert!(last.yaw[1] < -1.0, "box 2 turned only {} rad", last.yaw[1]);
    assert!(last.yaw[0] < -0.05, "box 1 turned only {} rad", last.yaw[0]);
    // At rest: over the last second no vertex moved faster than 1 µm/s and no angle changed.
    let second = (1.0 / DT) as usize;
    for s in &samples[samples.len() - second..] {
        assert!(
            s.speed < 1e-6,
            "moving at {} m/s at t = {}",
            s.speed,
            s.time
        );
        for k in 0..2 {
            assert!(
                (s.yaw[k] - last.yaw[k]).abs() < 1e-6,
                "box {} turning at t = {}",
                k + 1,
                s.time
            );
        }
    }
    // No penetration: every pair that may touch stays apart, at every step.
    let gap = samples.iter().map(|s| s.gap).fold(f64::INFINITY, f64::min);
    assert!(gap > 0.0, "hulls touched: smallest gap {gap}");
    // Friction and the barrier only take energy out (1e-8 J: the Newton solve's tolerance).
    for w in samples.windows(2) {
        assert!(
            w[1].energy <= w[0].energy + 1e-8,
            "energy rose from {} to {} J at t = {}",
            w[0].energy,
            w[1].energy,
            w[1].time
        );
    }
    assert!(
        last.energy < first.energy - 1.0,
        "{} -> {} J",
        first.energy,
        last.energy
    );
    // Box 1 ends against the wall: within 2 mm, the contact barrier's reach.
    assert!(
        last.to_wall[0] < 2e-3,
        "box 1 is {} m from the wall",
        last.to_wall[0]
    );
    // Reproducible: a second run from a fresh scene ends at the very same angles.
    let again = wall_scene(MU, SPIN).unwrap().simulate(STEPS).unwrap();
    assert_eq!(again.last().unwrap().yaw, last.yaw);
}

#[test]
fn a_box_spun_alone_slows_at_the_coulomb_rate() {
    // Spun at 2 rad/s, box 2 turns about 0.1 rad and never reaches box 1. Its mass sits at its
    // 8 corners (sdrs's lumped model), the 4 lower ones carrying m g / 4 each at distance r from
    // the centre, so friction decelerates it at μ m g r / (m r²) = μ g / r while it slides.
    let mut scene = wall_scene(MU, -2.0).unwrap();
    let g = scene.simulator.settings().gravity;
    let samples = scene.simulate(60).unwrap();
    let r = HALF[0].hypot(HALF[1]);
    let coulomb = MU * g / r;
    let yaw: Vec<f64> = samples.iter().map(|s| s.yaw[1]).collect();
    // Steps 3 to 9: settled on the ground, still sliding (it stops near step 11).
    for k in 3..9 {
        let rate = (yaw[k + 2] - 2.0 * yaw[k + 1] + yaw[k]) / (DT * DT);
        assert!(
            (rate - coulomb).abs() < 1e-3 * coulomb,
            "step {k}: angular deceleration {rate} rad/s², Coulomb {coulomb}"
        );
    }
    assert!(samples.iter().all(|s| s.yaw[0].abs() < 1e-9), "box 1 moved");
}
