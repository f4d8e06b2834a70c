//! Decompose a mesh into convex hulls and print hull statistics, pairwise GJK distances, the
//! broad-phase candidate pairs and the mesh's sphere tree.
//!
//! ```text
//! cargo run --release -p sdrs-geometry --example decompose              # built-in bracket
//! cargo run --release -p sdrs-geometry --example decompose -- part.stl  # your OBJ or STL
//! ```

use anyhow::Result;
use nalgebra::{Isometry3, Vector3};
use sdrs_geometry::broad_phase::{BroadPhase, Proxy};
use sdrs_geometry::gjk::{self, Proximity};
use sdrs_geometry::mesh::DecompositionSettings;
use sdrs_geometry::{SphereTree, TriMesh};
use std::time::Instant;

/// A U-shaped bracket: a base plate with two uprights and a bar across (non-convex).
fn bracket() -> Result<TriMesh> {
    let plate =
        |hx: f64, hy: f64, hz: f64, x: f64, y: f64, z: f64| -> Result<TriMesh> {
            Ok(TriMesh::cuboid(Vector3::new(hx, hy, hz))?
                .transformed(&Isometry3::translation(x, y, z)))
        };
    Ok(TriMesh::merged(&[
        plate(0.5, 0.2, 0.05, 0.0, 0.0, 0.0)?,
        plate(0.05, 0.2, 0.3, -0.45, 0.0, 0.35)?,
        plate(0.05, 0.2, 0.3, 0.45, 0.0, 0.35)?,
        plate(0.4, 0.03, 0.03, 0.0, 0.0, 0.55)?,
    ])?)
}

fn main() -> Result<()> {
    let mesh = match std::env::args().nth(1) {
        Some(path) => TriMesh::from_file(&path)?,
        None => bracket()?,
    };
    println!(
        "mesh: {} vertices, {} triangles, area {:.4} m², volume {:.5} m³",
        mesh.vertices().len(),
        mesh.triangles().len(),
        mesh.surface_area(),
        mesh.signed_volume()
    );

    let start = Instant::now();
    let settings = DecompositionSettings {
        resolution: 48,
        concavity: 0.01,
    };
    let hulls = mesh.convex_decomposition(&settings)?;
    println!(
        "\nVHACD (resolution {}, concavity {}): {} hulls in {:.1?}",
        settings.resolution,
        settings.concavity,
        hulls.len(),
        start.elapsed()
    );
    println!(
        "{:>4} {:>8} {:>10} {:>10} {:>28}",
        "hull", "vertices", "volume", "mass (kg)", "centre of mass"
    );
    for (i, h) in hulls.iter().enumerate() {
        let m = h.solid_mass_properties(1000.0)?;
        let c = m.center_of_mass;
        println!(
            "{i:>4} {:>8} {:>10.5} {:>10.3} ({:>7.3}, {:>7.3}, {:>7.3})",
            h.vertices().len(),
            h.volume(),
            m.mass,
            c.x,
            c.y,
            c.z
        );
    }

    // Two copies of the decomposed part, the second lifted and turned, as two bodies.
    let poses = [
        Isometry3::identity(),
        Isometry3::new(Vector3::new(0.1, 0.05, 0.75), Vector3::new(0.0, 0.0, 0.4)),
    ];
    println!("\nGJK distances between the hulls of body 0 (rows) and body 1 (columns):");
    for a in &hulls {
        let row: Vec<String> = hulls
            .iter()
            .map(|b| match gjk::distance(a, &poses[0], b, &poses[1]) {
                Proximity::Separated(s) => format!("{:>8.4}", s.distance),
                Proximity::Intersecting { .. } => format!("{:>8}", "overlap"),
            })
            .collect();
        println!("  {}", row.join(" "));
    }

    let proxies: Vec<Proxy> = poses
        .iter()
        .enumerate()
        .flat_map(|(body, pose)| {
            hulls.iter().map(move |h| Proxy {
                body,
                aabb: h.aabb(pose),
            })
        })
        .collect();
    let mut broad_phase = BroadPhase::new(0.05)?;
    let mut pairs = Vec::new();
    broad_phase.candidate_pairs(&proxies, |_, _| false, &mut pairs);
    println!(
        "\nbroad phase ({}, margin 5 cm): {} candidate hull pairs of {} cross-body pairs",
        broad_phase.finder_name(),
        pairs.len(),
        hulls.len() * hulls.len()
    );

    let tree = SphereTree::build(&mesh)?;
    println!(
        "sphere tree: {} nodes over {} triangles, root radius {:.3} m, layered: {}",
        tree.node_count(),
        tree.leaf_count(),
        tree.radius(tree.root()),
        tree.check_layered(mesh.vertices(), 1e-12).is_ok()
    );
    Ok(())
}
