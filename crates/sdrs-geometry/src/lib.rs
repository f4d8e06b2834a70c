//! # sdrs-geometry
//!
//! The geometry every sdrs contact model stands on:
//!
//! - [`ConvexHull`]: convex polyhedra in **V-representation** — a set of local vertices, the
//!   design variables of the SDRS paper (sec. IV) — with support function, world AABB,
//!   bounding sphere, boundary triangulation, and mass properties of the solid and of the
//!   vertex-lumped model (SDRS eq. 4, module [`mass`]);
//! - [`gjk`]: GJK distance with witness points and a separating direction, used to find the
//!   initial separating plane of a hull pair (SDRS eq. 18);
//! - [`broad_phase`]: candidate hull pairs from AABBs inflated by the potential's support
//!   distance, with several interchangeable BVHs;
//! - [`SphereTree`]: the *layered* bounding-sphere hierarchy of the long-range paper
//!   (Definition 5.3) over a triangle mesh;
//! - [`TriMesh`]: validated triangle meshes, OBJ/STL import, primitive generators and convex
//!   decomposition into hulls;
//! - [`twist`]: the pose-perturbation convention (`perturb`, 12-vectors and 12x12 blocks of a
//!   body pair) that contact derivatives and the dynamics' Jacobians share.
//!
//! Everything here is `f64` and not differentiated, except [`lumped_second_moment`], which is
//! generic so dual numbers pass through it. parry3d-f64 is used only offline (quickhull,
//! VHACD), behind one adapter module.
//!
//! ```
//! use sdrs_geometry::{ConvexHull, gjk};
//! use nalgebra::{Isometry3, Vector3};
//!
//! let link = ConvexHull::cuboid(Vector3::new(0.1, 0.1, 0.4))?;
//! let mass = link.solid_mass_properties(1000.0)?;
//! assert!((mass.mass - 1000.0 * 0.2 * 0.2 * 0.8).abs() < 1e-9);
//!
//! let other = Isometry3::translation(0.25, 0.0, 0.0);
//! let d = gjk::distance(&link, &Isometry3::identity(), &link, &other);
//! assert!((d.separation().unwrap().distance - 0.05).abs() < 1e-12);
//! # Ok::<(), sdrs_geometry::GeometryError>(())
//! ```
//!
//! ## Limitations
//! - GJK reports touching and overlapping hulls alike as [`gjk::Proximity::Intersecting`]; it
//!   computes no penetration depth (the barrier potentials never need one). The hard-contact
//!   patches of [`contact::hull_pair_contacts`] get theirs from the separating axes instead:
//!   exact for polytopes, with a cost that grows with the product of the edge counts (only
//!   the edge pairs whose Gauss-map arcs cross are evaluated).
//! - The hull's bounding sphere is centred at its AABB centre, not the minimal sphere.
//! - Convex decomposition is approximate (VHACD) and drops parts thinner than the coplanarity
//!   tolerance.

pub mod aabb;
pub mod broad_phase;
pub mod contact;
pub mod error;
pub mod gjk;
pub mod hull;
pub mod mass;
pub mod mesh;
pub mod parry_adapter;
pub mod sphere_tree;
#[cfg(feature = "testing")]
pub mod testing;
pub mod twist;

pub use aabb::Aabb;
pub use error::{GeometryError, Result};
pub use hull::{ConvexHull, HullEdge};
pub use mass::{MassProperties, lumped_second_moment};
pub use mesh::TriMesh;
pub use sphere_tree::SphereTree;

/// The README's example, run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
