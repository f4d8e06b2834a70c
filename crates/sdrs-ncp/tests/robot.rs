//! Robots from example-robot-data in the velocity stepper: Solo-12 standing on the ground under
//! PD for 0.6 s (contact margin 2 mm, the spectral ADMM penalty without adaptation, up to
//! 20000 solver iterations).

#[path = "../examples/common/robots.rs"]
mod robots;

use nalgebra::DVector;
pub use robots::{load, lowest_vertex, solo12};

#[test]
fn solo12_stands_under_pd() {
    let (mut sim, mut state, control) = solo12(1e-12);
    let height = state.q[2];
    let n = sim.model().dof();
    let mut v = DVector::zeros(n);
    let mut feet = 0;
    for step in 0..600 {
        let report = match sim.step(&mut state, &mut v, &control) {
            Ok(r) => r,
            Err(e) => panic!("step {step}: {e}"),
        };
        feet = report.contacts.iter().filter(|c| c.a.is_none()).count();
    }
    assert!(feet >= 4, "{feet} ground contacts");
    // Standing: the base sags by less than 15% under PD and is nearly at rest.
    assert!(
        state.q[2] > 0.85 * height,
        "base at {} from {height}",
        state.q[2]
    );
    assert!(v.rows(0, 3).norm() < 1e-2, "base velocity {}", v.rows(0, 3));
}
