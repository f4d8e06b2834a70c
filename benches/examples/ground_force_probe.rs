//! Vertical long-range force between a 5 cm icosphere ball (320 triangles) and the billiards
//! ground grid against the gap: where a 0.2 kg ball rests for a given stiffness.
//! `cargo run --release -p sdrs-benches --example ground_force_probe`

use nalgebra::Isometry3;
use sdrs_contact::long_range::{LongRange, MeshShape};
use sdrs_contact::{ContactModel, Order};
use sdrs_dynamics::scenes::ground_grid;
use sdrs_geometry::TriMesh;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ball = MeshShape::new(TriMesh::icosphere(0.05, 2)?)?;
    let ground = MeshShape::new(ground_grid(1.5, 30)?)?;
    let model = LongRange::new(0.1)?;
    for gap in [1e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3] {
        let pose = Isometry3::translation(0.013, 0.007, 0.05 + gap);
        let out = model.evaluate(
            &ground,
            &Isometry3::identity(),
            &ball,
            &pose,
            &mut Default::default(),
            Order::Gradient,
        )?;
        let c = out.contact().ok_or("penetrating")?;
        println!(
            "gap {gap:e} m: potential {:.4e}, upward force on the ball {:.4e} (x stiffness)",
            c.value, -c.gradient[8]
        );
    }
    for x in [-0.3, 0.2, 0.5] {
        let pose = Isometry3::translation(x, 0.0, 0.0505);
        let out = model.evaluate(
            &ground,
            &Isometry3::identity(),
            &ball,
            &pose,
            &mut Default::default(),
            Order::Gradient,
        )?;
        let c = out.contact().ok_or("penetrating")?;
        println!(
            "ball at x = {x}: force on the ball along x {:.4e}, along z {:.4e}",
            -c.gradient[6], -c.gradient[8]
        );
    }
    let other = Isometry3::translation(0.5, 0.0, 0.0);
    let out = model.evaluate(
        &ball,
        &Isometry3::identity(),
        &ball,
        &other,
        &mut Default::default(),
        Order::Gradient,
    )?;
    let c = out.contact().ok_or("penetrating")?;
    println!(
        "two balls 0.5 m apart along x: force on the second along x {:.4e}",
        -c.gradient[6]
    );
    Ok(())
}
