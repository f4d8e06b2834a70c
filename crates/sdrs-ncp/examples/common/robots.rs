//! Robots from sdrs-robot-data for the velocity stepper, shared by the crate's tests
//! (`tests/robot.rs`) and examples (`examples/solo12_inverse_dynamics.rs`).

use nalgebra::Vector3;
use sdrs_dynamics::{Control, Model, Srdf, State, UrdfOptions, load_urdf};
use sdrs_ncp::{NcpSettings, NcpSimulator};

/// A robot of sdrs-robot-data with its SRDF's collision filter and named state `pose`
/// (`None`: the neutral state), moved so that its lowest hull vertex is at height 0 when it
/// has a floating base; also that height's offset for fixed-base robots.
pub fn load(name: &str, pose: Option<&str>) -> (Model, State, f64) {
    let robot = sdrs_robot_data::robot(name).expect("the robot is in the data set");
    let options = UrdfOptions {
        package_paths: vec![sdrs_robot_data::package_path().unwrap()],
        floating_base: robot.floating_base,
        ..UrdfOptions::default()
    };
    let mut model = load_urdf(robot.urdf_path().unwrap(), &options).unwrap();
    let srdf = Srdf::from_file(robot.srdf_path().unwrap()).unwrap();
    srdf.apply(&mut model).unwrap();
    let mut state = match pose {
        Some(pose) => srdf.state(&model, pose).unwrap(),
        None => State::neutral(&model),
    };
    let lowest = lowest_vertex(&model, &state);
    if robot.floating_base {
        state.q[2] -= lowest;
    }
    model.exclude_touching(&state, 1e-3).unwrap();
    (model, state, lowest)
}

/// The lowest world height of a moving link's hull vertex.
pub fn lowest_vertex(model: &Model, state: &State) -> f64 {
    let mut data = sdrs_dynamics::RigidBodyData::new(model);
    data.forward_kinematics(model, state).unwrap();
    let mut lowest = f64::INFINITY;
    for (i, link) in model.links().iter().enumerate() {
        if model.path(i).is_empty() {
            continue;
        }
        let pose = data.link_placement(model.link_id(i).unwrap()).unwrap();
        for hull in &link.hulls {
            for p in hull.vertices() {
                lowest = lowest.min((pose * p).z);
            }
        }
    }
    lowest
}

/// Solo-12 in its standing pose on the ground, PD on its 12 joints (5 N·m/rad, 0.1 N·m·s/rad)
/// towards it, μ = 0.9, margin 2 mm, and a solver with `tolerance` and up to 20000 iterations.
pub fn solo12(tolerance: f64) -> (NcpSimulator, State, Control) {
    let robot = sdrs_robot_data::robot("solo12").expect("solo12 is in the data set");
    let (model, state, _) = load("solo12", robot.standing);
    let n = model.dof();
    let mut control = Control::passive(&model);
    for k in 6..n {
        control.kp[k] = 5.0;
        control.kd[k] = 0.1;
    }
    control.position = state.q.clone();
    let settings = NcpSettings::new(1e-3)
        .unwrap()
        .with_friction(0.9)
        .unwrap()
        .with_ground(Vector3::z(), 0.0)
        .unwrap()
        .with_margin(2e-3)
        .unwrap()
        .with_solver(
            sdrs_ncp::SolverSettings::builder()
                .tolerance(tolerance)
                .max_iterations(20000)
                .adaptive_rho(false)
                .build()
                .unwrap(),
        );
    (NcpSimulator::new(model, settings), state, control)
}
