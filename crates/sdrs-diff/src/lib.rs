//! # sdrs-diff
//!
//! Gradients of whole trajectories: step Jacobians by the implicit function theorem, the
//! reverse-mode adjoint over a horizon (SDRS paper sec. IV-D), policies with derivatives, and
//! the co-design optimisers (Adam and the projected gradient step of eq. 15).
//!
//! This crate is not implemented yet. See `docs/architecture.md`.
