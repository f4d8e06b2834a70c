//! # sdrs-dynamics
//!
//! Reduced-coordinate articulated bodies with position-level Newton time stepping (SDRS paper
//! sec. IV-A, eq. 1-5 and 14): the kinematic tree and its joints, forward kinematics and its
//! derivatives, inertial, gravity and stable-PD energies, the Newton solver whose line search
//! keeps every state collision-free, and URDF import.
//!
//! This crate is not implemented yet; it sees contact only through the `sdrs-contact` trait.
//! See `docs/architecture.md`.
