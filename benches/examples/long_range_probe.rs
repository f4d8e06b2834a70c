//! Times one hierarchical long-range evaluation (value, gradient, Hessian) between two
//! icospheres 1 cm apart at each subdivision level and prints what it did:
//! `cargo run --release -p sdrs-benches --example long_range_probe`.

use nalgebra::Isometry3;
use sdrs_contact::Order;
use sdrs_contact::long_range::{LongRange, MeshShape};
use sdrs_geometry::TriMesh;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let epsilon: f64 = std::env::var("EPS").map_or(Ok(0.5), |s| s.parse())?;
    let model = LongRange::new(epsilon)?;
    for level in 1..=5 {
        let ball = MeshShape::new(TriMesh::icosphere(0.5, level)?)?;
        let other = Isometry3::translation(1.01, 0.0, 0.0);
        let clock = Instant::now();
        let mut runs = 0;
        let mut census = None;
        while clock.elapsed().as_secs_f64() < 1.0 || runs < 3 {
            let (_, c) = model.evaluate_counted(
                &ball,
                &Isometry3::identity(),
                &ball,
                &other,
                &mut Default::default(),
                Order::Hessian,
            )?;
            census = Some(c);
            runs += 1;
        }
        let per = clock.elapsed().as_secs_f64() / runs as f64;
        println!(
            "{} triangles: {:.3} ms per evaluation; {:?}",
            ball.mesh().triangles().len(),
            per * 1e3,
            census.expect("ran")
        );
    }
    Ok(())
}
