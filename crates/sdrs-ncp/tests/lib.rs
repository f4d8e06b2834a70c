//! Integration tests of sdrs-ncp (one binary).

mod captured;
mod convergence;
mod robot;
mod solver;
mod stepper;
