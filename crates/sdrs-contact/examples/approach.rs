//! Two hulls approaching each other: the plane barrier's energy, the force on each hull and the
//! separating plane at each gap, with the inner Newton iterations a warm start takes.
//!
//! ```text
//! cargo run --release -p sdrs-contact --example approach
//! ```

use nalgebra::{Isometry3, Point3, Vector3};
use sdrs_contact::{ContactModel, Order, PairOutcome, PlaneBarrier, PlaneCache};
use sdrs_geometry::{ConvexHull, TriMesh};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A box and an icosphere hull (42 vertices), the sphere coming down onto the box's top face
    // at a slant so that the plane has to tilt.
    let block = ConvexHull::cuboid(Vector3::new(0.3, 0.2, 0.1))?;
    let ball = ConvexHull::new(TriMesh::icosphere(0.15, 1)?.vertices().to_vec())?;
    let model = PlaneBarrier::new(0.01)?;
    println!(
        "support s = {} m, support distance 2s/(1-s) = {:.5} m\n",
        model.support(),
        model.support_distance()
    );
    println!(
        "{:>9} {:>12} {:>12} {:>12} {:>26} {:>9} {:>5}",
        "gap (m)", "energy", "|force A|", "|force B|", "plane normal n/|n|", "offset", "iters"
    );
    let block_pose = Isometry3::identity();
    let mut cache = PlaneCache::default();
    let mut warm_iterations = Vec::new();
    for k in 0..=24 {
        let gap = 0.025 * 0.6f64.powi(k);
        let centre = Point3::new(0.1, 0.05, 0.1 + 0.15 + gap);
        let ball_pose = Isometry3::translation(centre.x, centre.y, centre.z);
        match model.evaluate(
            &block,
            &block_pose,
            &ball,
            &ball_pose,
            &mut cache,
            Order::Hessian,
        )? {
            PairOutcome::Penetrating => println!("{gap:>9.2e} penetrating"),
            PairOutcome::Separated(c) => {
                let force = |b: usize| {
                    Vector3::new(
                        c.gradient[6 * b],
                        c.gradient[6 * b + 1],
                        c.gradient[6 * b + 2],
                    )
                };
                let plane = cache.plane();
                let (normal, offset) = plane.map_or((Vector3::zeros(), 0.0), |(n, o)| {
                    (n / n.norm(), o / n.norm())
                });
                println!(
                    "{gap:>9.2e} {:>12.4e} {:>12.4e} {:>12.4e} ({:>7.4}, {:>7.4}, {:>7.4}) {:>9.5} {:>5}",
                    c.value,
                    force(0).norm(),
                    force(1).norm(),
                    normal.x,
                    normal.y,
                    normal.z,
                    offset,
                    c.iterations
                );
                if k > 0 && c.value > 0.0 {
                    warm_iterations.push(c.iterations);
                }
            }
        }
    }
    let mean = warm_iterations.iter().sum::<usize>() as f64 / warm_iterations.len() as f64;
    println!(
        "\nwarm-started solves: {} , mean {:.1} and at most {} inner Newton iterations (including the final polishing step)",
        warm_iterations.len(),
        mean,
        warm_iterations.iter().max().unwrap_or(&0)
    );
    Ok(())
}
