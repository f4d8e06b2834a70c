//! # sdrs-view
//!
//! See the motion: a trajectory of a model exported as a glTF 2.0 binary ([`glb`]: one node
//! per link carrying its hulls' boundary triangles, animated by translation and rotation
//! channels sampled at every step), and a self-contained HTML viewer ([`html`]: three.js
//! vendored, the `.glb` embedded, no server and no internet). [`write_run`] writes both for a
//! run, side by side.

pub mod glb;
pub mod html;
mod run;

pub use run::{Plots, RunError, write_run};

/// The README's example, run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
