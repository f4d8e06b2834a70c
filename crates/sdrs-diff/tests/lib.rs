//! Integration tests of sdrs-diff (one binary).

mod adjoint;
mod optim;
mod policy;
mod instances;
