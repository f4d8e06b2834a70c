//! Integration tests of sdrs-diff (one binary).

mod adjoint;
mod instances;
mod modes;
mod optim;
mod policy;
