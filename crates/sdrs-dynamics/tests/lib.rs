//! Integration tests of sdrs-dynamics (one binary).

mod backward;
mod filter;
mod forces;
mod fuzz_loaders;
mod fuzz_scenes;
mod kinematics;
mod long_range;
mod mjcf;
mod motion;
mod names;
mod physics;
mod regressions;
mod srdf;
mod urdf;
