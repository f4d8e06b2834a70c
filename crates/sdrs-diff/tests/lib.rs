//! Integration tests of sdrs-diff (one binary).

mod adjoint;
mod coordinate_step;
mod force;
mod instances;
mod long_range_tools;
mod losses;
mod modes;
mod objective;
mod optim;
mod physical_parameters;
mod policy;
mod repeat;

/// The 3-link chain (Δt 0.01) under PD (kp 20, kd 0.05), solved to 1e-10 with the backward
/// blocks recorded: the scene several gradient tests differentiate.
fn pd_chain() -> sdrs_dynamics::scenes::Scene {
    let mut scene = sdrs_dynamics::scenes::chain(3, 0.01).unwrap();
    scene.settings.backward = true;
    scene.settings.tolerance = 1e-10;
    scene.control.kp = nalgebra::DVector::from_element(3, 40.0); // N·m/rad
    scene.control.kd = nalgebra::DVector::from_element(3, 10.0); // N·m·s/rad
    scene
}
