//! Integration tests of sdrs-dynamics (one binary).

mod backward;
mod kinematics;
mod physics;
mod urdf;
