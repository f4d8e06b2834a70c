//! Integration tests of sdrs-dynamics (one binary).

mod backward;
mod contacts;
mod filter;
mod fuzz_loaders;
mod fuzz_scenes;
mod kinematics;
mod long_range;
mod mjcf;
mod physics;
mod regressions;
mod srdf;
mod urdf;
