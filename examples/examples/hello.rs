//! The README's ten-line example: a box pushed along the ground, found by name, started with a
//! velocity and read back. Friction is lagged (its normal force comes from the step before),
//! so it acts from the second step on: after 50 steps the box has slowed by `μ g` over 49 of
//! them.
//!
//! `cargo run --release -p sdrs-examples --example hello`

use sdrs::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut world = World::new(0.01)?.with_ground().with_friction(0.3)?;
    let cube = ConvexHull::cuboid(Vector3::repeat(0.1))?;
    world.add_object("box", cube, 1.0, Isometry3::translation(0.0, 0.0, 0.1008));
    let (model, mut sim) = world.build()?;
    let body = model.link("box")?;
    let mut motion = Motion::at_rest(&model, State::neutral(&model)).with_body_velocity(
        &model,
        body,
        Vector3::new(2.0, 0.0, 0.0),
        Vector3::zeros(),
        0.01,
    )?;
    for _ in 0..50 {
        sim.advance(&mut motion, &Control::passive(&model))?;
    }
    let (v, _) = motion.body_velocity(&model, body, 0.01)?;
    let coulomb = 2.0 - 0.3 * 9.81 * 0.49;
    println!(
        "the box slides at {:.4} m/s (Coulomb: {coulomb:.4} m/s)",
        v.x
    );
    Ok(())
}
