//! Integration tests of sdrs-ncp (one binary).

mod robot;
mod solver;
mod step_jacobian;
mod stepper;
mod trajectory;
