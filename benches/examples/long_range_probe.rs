//! Times one hierarchical long-range evaluation (value, gradient, Hessian) between two
//! icospheres 1 cm apart at each subdivision level and prints what it did:
//! `cargo run --release -p sdrs-benches --example long_range_probe` (`EPS` sets the margin,
//! default 0.5; `LEVEL` one subdivision level, 1-5; `RUNS` caps the runs per level, e.g. 3
//! for a fixed amount of work under `valgrind --tool=callgrind`).

use nalgebra::Isometry3;
use sdrs_contact::Order;
use sdrs_contact::long_range::{LongRange, MeshShape};
use sdrs_geometry::TriMesh;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let epsilon: f64 = std::env::var("EPS").map_or(Ok(0.5), |s| s.parse())?;
    let model = LongRange::new(epsilon)?;
    let max_runs: usize = std::env::var("RUNS").map_or(Ok(200), |s| s.parse())?;
    let levels: Vec<u32> = match std::env::var("LEVEL") {
        Ok(l) => vec![l.parse()?],
        Err(_) => (1..=5).collect(),
    };
    for level in levels {
        let ball = MeshShape::new(TriMesh::icosphere(0.5, level)?)?;
        let other = Isometry3::translation(1.01, 0.0, 0.0);
        let clock = Instant::now();
        let mut runs = 0;
        let mut census = None;
        while runs < max_runs && (clock.elapsed().as_secs_f64() < 1.0 || runs < 3) {
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
