//! Solo-12 from example-robot-data standing on the ground under PD in the velocity stepper
//! for 0.6 s (contact margin 2 mm, fixed ADMM penalty, up to 20000 solver iterations).

use nalgebra::{DVector, Vector3};
use sdrs_dynamics::{Control, Srdf, UrdfOptions, load_urdf};
use sdrs_ncp::{NcpSettings, NcpSimulator};

#[test]
fn solo12_stands_under_pd() {
    let robot = sdrs_robot_data::robot("solo12").expect("solo12 is in the data set");
    let options = UrdfOptions {
        package_paths: vec![sdrs_robot_data::package_path().unwrap()],
        floating_base: true,
        ..UrdfOptions::default()
    };
    let mut model = load_urdf(robot.urdf_path().unwrap(), &options).unwrap();
    let srdf = Srdf::from_file(robot.srdf_path().unwrap()).unwrap();
    srdf.apply(&mut model).unwrap();
    let mut state = srdf.state(&model, robot.standing.unwrap()).unwrap();
    // Put the lowest hull vertex on the ground z = 0.
    let mut data = sdrs_dynamics::RigidBodyData::new(&model);
    data.forward_kinematics(&model, &state).unwrap();
    let mut lowest = f64::INFINITY;
    for (i, link) in model.links().iter().enumerate() {
        let pose = data.link_placement(model.link_id(i).unwrap()).unwrap();
        for hull in &link.hulls {
            for p in hull.vertices() {
                lowest = lowest.min((pose * p).z);
            }
        }
    }
    state.q[2] -= lowest;
    let height = state.q[2];
    model.exclude_touching(&state, 1e-3).unwrap();
    // PD on the 12 joints towards the standing pose; the base (first 6 DoFs) is free.
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
                .tolerance(1e-12)
                .max_iterations(20000)
                .adaptive_rho(false)
                .build()
                .unwrap(),
        );
    let mut sim = NcpSimulator::new(model.clone(), settings);
    let mut v = DVector::zeros(n);
    let mut feet = 0;
    for step in 0..600 {
        let report = match sim.step(&mut state, &mut v, &control) {
            Ok(r) => r,
            Err(e) => panic!("step {step}: {e}"),
        };
        feet = report.contacts.iter().filter(|c| c.a.is_none()).count();
    }
    assert!(feet >= 4, "{feet} ground contacts");
    // Standing: the base sags by less than 15% under PD and is nearly at rest.
    assert!(
        state.q[2] > 0.85 * height,
        "base at {} from {height}",
        state.q[2]
    );
    assert!(v.rows(0, 3).norm() < 1e-2, "base velocity {}", v.rows(0, 3));
}
