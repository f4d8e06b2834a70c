//! Integration tests of sdrs-geometry (one binary, one module per component).

mod broad_phase;
mod contact;
mod gjk;
mod hull;
mod mass;
mod mesh;
mod robustness;
mod sphere_tree;
