//! Integration tests of sdrs-diff (one binary).

mod adjoint;
mod force;
mod instances;
mod long_range_tools;
mod losses;
mod modes;
mod objective;
mod optim;
mod policy;
mod repeat;
