//! # sdrs-contact
//!
//! Contact potentials behind one trait, so that models are interchangeable per scene:
//!
//! - the SDRS separating-plane barrier between two convex hulls (SDRS paper eq. 6-7) and the
//!   plane-relative frictional damping (eq. 8-13), with exact derivatives by the implicit
//!   function theorem (eq. 33-35);
//! - the long-range hierarchical potential over triangle meshes (long-range paper sec. 4-5,
//!   Algorithm 1) with its local friction (A.3);
//! - the IPC mesh barrier baseline (Li et al. 2020).
//!
//! This crate is not implemented yet: it is filled by the contact issues and builds on
//! `sdrs-geometry` (hulls, GJK for the initial plane, broad phase, sphere trees). See
//! `docs/architecture.md` for where each equation will live.
