//! Convex decomposition of a mesh into V-rep hulls (VHACD, through parry).

use super::TriMesh;
use crate::error::{GeometryError, Result};
use crate::hull::ConvexHull;
use crate::parry_adapter;

/// Settings of [`TriMesh::convex_decomposition`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DecompositionSettings {
    /// Voxel grid resolution along the longest axis (8 to 512): higher is finer and slower.
    pub resolution: u32,
    /// Largest allowed concavity of a part, relative to the mesh size (0 to 1): lower gives
    /// more, tighter parts.
    pub concavity: f64,
}

impl Default for DecompositionSettings {
    fn default() -> Self {
        Self {
            resolution: 64,
            concavity: 0.01,
        }
    }
}

impl TriMesh {
    /// Approximate convex decomposition: hulls whose union approximates the mesh's solid.
    ///
    /// Each hull keeps only its extreme points; parts too thin to span a volume are dropped.
    ///
    /// ```
    /// use sdrs_geometry::{TriMesh, mesh::DecompositionSettings};
    /// let capsule = TriMesh::capsule(0.1, 0.3, 12, 4).unwrap();
    /// let hulls = capsule.convex_decomposition(&DecompositionSettings { resolution: 16, concavity: 0.05 }).unwrap();
    /// assert!(!hulls.is_empty());
    /// ```
    pub fn convex_decomposition(
        &self,
        settings: &DecompositionSettings,
    ) -> Result<Vec<ConvexHull>> {
        if !(8..=512).contains(&settings.resolution) {
            return Err(GeometryError::InvalidParameter {
                name: "resolution",
                value: f64::from(settings.resolution),
                allowed: "8 to 512",
            });
        }
        if !(settings.concavity > 0.0 && settings.concavity <= 1.0) {
            return Err(GeometryError::InvalidParameter {
                name: "concavity",
                value: settings.concavity,
                allowed: "in (0, 1]",
            });
        }
        let parts = parry_adapter::vhacd(
            self.vertices(),
            self.triangles(),
            settings.resolution,
            settings.concavity,
        );
        Ok(parts
            .iter()
            .filter_map(|points| ConvexHull::from_point_cloud(points).ok())
            .collect())
    }
}
