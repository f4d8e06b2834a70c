//! Writes the `contact` suite's hull pairs (the same deterministic draws as the benchmark:
//! 8 pairs per vertex count, 5 mm apart) and the `contact-mesh` suite's icosphere pairs
//! (radius 0.5 m, 1 cm apart) as triangle meshes in world coordinates, for reference
//! measurements of mesh-based potentials outside Rust (`benches/reference/`):
//! `{"hulls": {M: [[A, B], ...]}, "icospheres": {T: [[A, B]]}}`.
//!
//! `cargo run --release -p sdrs-benches --example export_pairs > target/sdrs-out/hull_pairs.json`

use sdrs_benches::{hull_pairs, runner};
use sdrs_geometry::ConvexHull;

fn mesh(hull: &ConvexHull, pose: &nalgebra::Isometry3<f64>) -> String {
    json(hull.vertices(), hull.triangles(), pose)
}

fn json(
    vertices: &[nalgebra::Point3<f64>],
    triangles: &[[u32; 3]],
    pose: &nalgebra::Isometry3<f64>,
) -> String {
    let vertices: Vec<String> = vertices
        .iter()
        .map(|v| {
            let y = pose * v;
            format!("[{:e},{:e},{:e}]", y.x, y.y, y.z)
        })
        .collect();
    let triangles: Vec<String> = triangles
        .iter()
        .map(|t| format!("[{},{},{}]", t[0], t[1], t[2]))
        .collect();
    format!(
        "{{\"vertices\":[{}],\"triangles\":[{}]}}",
        vertices.join(","),
        triangles.join(",")
    )
}

fn main() {
    let mut rng = runner();
    let mut groups = Vec::new();
    for m in [8, 32, 96, 384, 768] {
        let pairs: Vec<String> = hull_pairs(m, 8, 0.005, &mut rng)
            .iter()
            .map(|p| format!("[{},{}]", mesh(&p.a, &p.pose_a), mesh(&p.b, &p.poses_b[0])))
            .collect();
        groups.push(format!("\"{m}\":[{}]", pairs.join(",")));
    }
    let spheres: Vec<String> = [2, 3, 4, 5]
        .map(|level| {
            let m = sdrs_geometry::TriMesh::icosphere(0.5, level).expect("icosphere");
            let at = |x: f64| {
                json(
                    m.vertices(),
                    m.triangles(),
                    &nalgebra::Isometry3::translation(x, 0.0, 0.0),
                )
            };
            format!("\"{}\":[[{},{}]]", m.triangles().len(), at(0.0), at(1.01))
        })
        .to_vec();
    println!(
        "{{\"hulls\":{{{}}},\"icospheres\":{{{}}}}}",
        groups.join(","),
        spheres.join(",")
    );
}
