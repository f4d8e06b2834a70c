//! The IPC baseline (Li et al. 2020), the mesh-based barrier both papers compare against:
//! squared distances between mesh primitives by Voronoi-region type ([`distance`]), the
//! clamped log barrier ([`barrier`]) and the edge-edge mollifier ([`mollifier`]), each with
//! exact gradients and Hessians; the potential between two meshes ([`potential`]) and IPC's
//! lagged friction ([`friction`]). Conventions follow the IPC Toolkit (`ipctk`): distances are
//! squared, the barrier acts on squared distances with `d̂²`, and the reference numbers the
//! tests hold were produced with `ipctk` 1.6.1 (`benches/reference/ipctk_reference.py`).
//!
//! Derivatives of the distance functions and the mollifier are hand-expanded over a few local
//! difference vectors of a primitive pair and scattered to its 12 coordinates
//! (module `derivatives`): exact, checked against `ipctk`, second-order dual numbers (kept in the
//! tests) and finite differences.
//!
//! ```
//! use sdrs_contact::ipc::distance::{PointTriangleType, point_triangle};
//! use nalgebra::Point3;
//! let t = [Point3::origin(), Point3::new(1.0, 0.0, 0.0), Point3::new(0.0, 1.0, 0.0)];
//! let d = point_triangle(&Point3::new(0.2, 0.3, 0.7), &t);
//! assert_eq!(d.kind, PointTriangleType::Face);
//! assert!((d.value - 0.49).abs() < 1e-15); // squared distance
//! ```

pub mod barrier;
mod ccd;
mod derivatives;
pub mod distance;
pub mod friction;
pub mod mollifier;
pub mod potential;
