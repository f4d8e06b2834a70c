//! Integration tests of sdrs-dynamics (one binary).

mod backward;
mod filter;
mod fuzz_scenes;
mod kinematics;
mod long_range;
mod physics;
mod urdf;
