//! Integration tests of sdrs-ncp (one binary).

mod solver;
mod stepper;
