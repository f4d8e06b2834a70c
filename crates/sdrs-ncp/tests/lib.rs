//! Integration tests of sdrs-ncp (one binary).

mod robot;
mod solver;
mod stepper;
