//! Long-range forces on a 5 cm icosphere ball (320 triangles): from the billiards ground grid
//! against the gap (where a 0.2 kg ball rests for a given stiffness), sideways from the grid's
//! triangulation at a few positions, and from a second ball half a metre away.
//! `cargo run --release -p sdrs-benches --example ground_force_probe`

use nalgebra::{Isometry3, Vector3};
use sdrs_contact::long_range::{LongRange, MeshShape};
use sdrs_contact::{ContactModel, Order};
use sdrs_dynamics::scenes::ground_grid;
use sdrs_geometry::TriMesh;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ball = MeshShape::new(TriMesh::icosphere(0.05, 2)?)?;
    let ground = MeshShape::new(ground_grid(1.5, 30)?)?;
    let model = LongRange::new(0.1)?;
    // The potential and the force on the second body (per unit stiffness).
    let force = |a: &MeshShape, b: &MeshShape, at: Isometry3<f64>| {
        let out = model.evaluate(
            a,
            &Isometry3::identity(),
            b,
            &at,
            &mut Default::default(),
            Order::Gradient,
        )?;
        let c = out.contact().ok_or("penetrating")?;
        Ok::<_, Box<dyn std::error::Error>>((
            c.value,
            -Vector3::new(c.gradient[6], c.gradient[7], c.gradient[8]),
        ))
    };
    for gap in [1e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3] {
        let (value, f) = force(
            &ground,
            &ball,
            Isometry3::translation(0.013, 0.007, 0.05 + gap),
        )?;
        println!(
            "gap {gap:e} m: potential {value:.4e}, upward force on the ball {:.4e} (x stiffness)",
            f.z
        );
    }
    for x in [-0.3, 0.2, 0.5] {
        let (_, f) = force(&ground, &ball, Isometry3::translation(x, 0.0, 0.0505))?;
        println!(
            "ball at x = {x}: force on the ball along x {:.4e}, along z {:.4e}",
            f.x, f.z
        );
    }
    let (_, f) = force(&ball, &ball, Isometry3::translation(0.5, 0.0, 0.0))?;
    println!(
        "two balls 0.5 m apart along x: force on the second along x {:.4e}",
        f.x
    );
    Ok(())
}
