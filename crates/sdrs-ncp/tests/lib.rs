//! Integration tests of sdrs-ncp (one binary).

mod captured;
mod convergence;
mod detection;
mod inverse;
mod robot;
mod solver;
mod step_jacobian;
mod step_jacobian_robots;
mod stepper;
mod trajectory;
