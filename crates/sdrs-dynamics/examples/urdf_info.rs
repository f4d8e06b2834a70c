//! Loads a URDF and prints its links, joints, degrees of freedom, hulls and masses.
//!
//! `cargo run --release -p sdrs-dynamics --example urdf_info [FILE.urdf [PACKAGE_DIR ...]]`
//! (default: the 4-DoF test arm in `crates/sdrs-dynamics/tests/data`).

use sdrs_dynamics::{JointKind, UrdfOptions, load_urdf};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut args = std::env::args().skip(1);
    let file = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| data.join("arm.urdf"));
    let mut package_paths: Vec<PathBuf> = args.map(PathBuf::from).collect();
    if package_paths.is_empty() {
        package_paths.push(data);
    }
    let options = UrdfOptions {
        package_paths,
        ..UrdfOptions::default()
    };
    let model = load_urdf(&file, &options)?;
    println!(
        "{}: {} links, {} degrees of freedom",
        file.display(),
        model.links().len(),
        model.dof()
    );
    println!(
        "{:<14} {:<12} {:<42} {:>5} {:>8} {:>6}",
        "link", "parent", "joint", "hulls", "mass", "dofs"
    );
    for (i, link) in model.links().iter().enumerate() {
        let parent = link
            .parent
            .map(|p| model.links()[p].name.clone())
            .unwrap_or_else(|| "(world)".into());
        let limits = link
            .limits
            .map(|(l, u)| format!(" [{l}, {u}]"))
            .unwrap_or_default();
        let axis = |a: &nalgebra::Vector3<f64>| format!("({:.2}, {:.2}, {:.2})", a.x, a.y, a.z);
        let kind = match &link.joint {
            JointKind::Fixed => "fixed".to_string(),
            JointKind::Revolute { axis: a } => format!("revolute {}", axis(a)),
            JointKind::Prismatic { axis: a } => format!("prismatic {}", axis(a)),
            JointKind::Universal { first, second } => {
                format!("universal {} {}", axis(first), axis(second))
            }
            JointKind::Spherical => "spherical".to_string(),
            JointKind::Free => "free".to_string(),
        };
        let joint = format!("{kind}{limits}");
        println!(
            "{:<14} {:<12} {:<42} {:>5} {:>8.3} {:>6}",
            link.name,
            parent,
            joint,
            link.hulls.len(),
            model.mass(i),
            link.joint.dof()
        );
    }
    Ok(())
}
