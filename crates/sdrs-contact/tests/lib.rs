//! Integration tests of sdrs-contact (one binary, one module per component).

mod barrier;
mod batch;
mod cases;
mod common;
mod friction;
mod ipc;
mod ipc_derivatives;
mod long_range;
mod long_range_friction;
mod plane;
mod plane_regressions;
mod reference;
mod robustness;
