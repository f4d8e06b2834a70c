//! Integration tests of sdrs-diff (one binary).

mod adjoint;
mod instances;
mod optim;
mod policy;
mod modes;
