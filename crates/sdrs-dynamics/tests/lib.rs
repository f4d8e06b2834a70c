//! Integration tests of sdrs-dynamics (one binary).

mod algorithms;
mod backward;
mod bodies;
mod contacts;
mod factor;
mod filter;
mod forces;
mod fuzz_loaders;
mod fuzz_scenes;
mod joint_terms;
mod kinematics;
mod long_range;
mod mjcf;
mod motion;
mod names;
mod newton_damping;
mod newton_start;
mod physics;
mod regressions;
mod replay;
mod settings;
mod srdf;
mod step_threads;
mod tendons;
mod urdf;
mod urdf_export;
