//! # sdrs-view
//!
//! See the motion: a trajectory of a model exported as a glTF 2.0 binary ([`glb`]: one node
//! per link carrying its hulls' boundary triangles, animated by translation and rotation
//! channels sampled at every step), and a self-contained HTML viewer ([`html`]: three.js
//! vendored, the `.glb` embedded, no server and no internet).

pub mod glb;
pub mod html;
