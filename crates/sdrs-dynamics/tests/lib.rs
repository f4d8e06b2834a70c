//! Integration tests of sdrs-dynamics (one binary).

mod kinematics;
mod physics;
mod urdf;
