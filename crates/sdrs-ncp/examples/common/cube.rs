//! The NCP paper's thrown cube (Fig. 3): a free 1 kg cube of 20 cm with lumped vertex mass.

use nalgebra::{Isometry3, Vector3};
use sdrs_dynamics::{JointKind, Link, MassModel, Model};
use sdrs_geometry::ConvexHull;

/// The cube's model (one free link).
pub fn cube() -> Result<Model, Box<dyn std::error::Error>> {
    let hull = ConvexHull::cuboid(Vector3::repeat(0.1))?;
    let link = Link::new(
        "cube",
        None,
        Isometry3::identity(),
        JointKind::Free,
        vec![hull],
        MassModel::Lumped { mass: 1.0 },
    );
    Ok(Model::new(vec![link])?)
}
