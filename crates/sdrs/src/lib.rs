//! # sdrs
//!
//! The facade of the sdrs workspace, a shape-differentiable robot simulator: robot links are
//! unions of convex hulls in V-representation, contact is a separating-plane barrier, dynamics
//! are position-level and reduced-coordinate, and gradients flow with respect to controls,
//! policy parameters and the robot's shape.
//!
//! Today the facade re-exports the engine crates; the high-level `World` / `Simulator` API and
//! `prelude` arrive with the dynamics and differentiation crates.
//!
//! ```
//! use sdrs::geometry::{ConvexHull, gjk};
//! use nalgebra::{Isometry3, Vector3};
//! let cube = ConvexHull::cuboid(Vector3::repeat(0.5))?;
//! let d = gjk::distance(&cube, &Isometry3::identity(), &cube, &Isometry3::translation(2.0, 0.0, 0.0));
//! assert!((d.separation().unwrap().distance - 1.0).abs() < 1e-12);
//! # Ok::<(), sdrs::geometry::GeometryError>(())
//! ```

pub use sdrs_contact as contact;
pub use sdrs_diff as diff;
pub use sdrs_dynamics as dynamics;
pub use sdrs_geometry as geometry;
