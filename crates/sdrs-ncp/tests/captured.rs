//! Real contact problems captured from [`NcpSimulator`] steps, for the solver's tests and the
//! `ncp_solver` bench (which includes this file by path).
//!
//! The stepper does not expose its NCP, so [`capture`] rebuilds it from public pieces exactly
//! as the stepper's module docs define it: `J_c` from each reported contact's point, frame and
//! links (the linear rows of [`RigidBodyData::frame_jacobian`] at the point), `M` by CRBA,
//! `G = J_c M⁻¹ J_cᵀ`, `g = J_c v_f + c/Δt` with `v_f = v + Δt ABA(q, v, τ)` and the
//! speculative / Baumgarte drift term `c`. The reported impulses come with it, so a test can
//! check the rebuilt problem against the stepper's own solution.
//!
//! Scenes: towers of 1 kg, 20 cm cubes on the ground (4 contact points per face pair, so a
//! tower of `k` boxes has `4k` contacts: 68 for 17 boxes) and Solo-12 standing under PD as in
//! `robot.rs`.

use nalgebra::{DMatrix, DVector, Isometry3, Vector3};
use sdrs_dynamics::{
    Control, Frame, JacobianFrame, JointKind, Link, MassModel, Model, RigidBodyData, Srdf, State,
    UrdfOptions, load_urdf,
};
use sdrs_geometry::ConvexHull;
use sdrs_ncp::{NcpProblem, NcpSettings, NcpSimulator, SolverSettings};

/// One step's contact problem and what the stepper made of it.
#[derive(Debug, Clone)]
pub struct Captured {
    /// The problem of eq. 1 the step solved.
    pub problem: NcpProblem,
    /// The stepper's impulses, contact after contact.
    pub impulses: DVector<f64>,
    /// The stepper's solver iterations at every step of the run, the captured one last.
    pub iterations: Vec<usize>,
}

/// The solver settings of the captures: the stepper's tolerance (1e-12), room for many
/// iterations, and the previous fixed-penalty ADMM (`ρ = L`, the largest eigenvalue of `G`:
/// the spectral rule with `p = ½` and no proximal term; no over-relaxation, no adaptation), so
/// that the captured trajectories do not depend on the solver under test.
pub fn fixed_rho_solver() -> SolverSettings {
    SolverSettings::builder()
        .tolerance(1e-12)
        .max_iterations(20_000)
        .proximal(0.0)
        .over_relaxation(1.0)
        .rho_power(0.5)
        .adaptive_rho(false)
        .build()
        .expect("valid solver settings")
}

/// Steps `sim` once from `(state, v)` and rebuilds the step's NCP (see the module docs);
/// `iterations` holds only this step's count.
pub fn capture(
    sim: &mut NcpSimulator,
    state: &mut State,
    v: &mut DVector<f64>,
    control: &Control,
) -> Captured {
    let model = sim.model().clone();
    let settings = *sim.settings();
    let before = state.recentred(&model);
    let v_before = v.clone();
    let report = sim.step(state, v, control).expect("the step succeeds");
    let dt = settings.dt();
    let mut data = RigidBodyData::new(&model);
    let tau = &control.force
        + control.kp.component_mul(&(&control.position - &before.q))
        + control.kd.component_mul(&(&control.velocity - &v_before));
    let acceleration = data
        .aba(&model, &before, &v_before, &tau, &settings.gravity())
        .expect("ABA")
        .clone();
    let v_free = v_before + acceleration * dt;
    let mass = data.crba(&model, &before).expect("CRBA").clone();
    let contacts = &report.contacts;
    let mut jacobian = DMatrix::zeros(3 * contacts.len(), model.dof());
    for (i, c) in contacts.iter().enumerate() {
        let rt = c.point.frame.transpose();
        for (link, sign) in [(Some(c.b), 1.0), (c.a, -1.0)] {
            let Some(link) = link else { continue };
            let id = model.link_id(link).expect("a link of the model");
            let pose = data.link_placement(id).expect("placed");
            let p = c.point.position;
            let at_point = pose.inverse() * Isometry3::translation(p.x, p.y, p.z);
            let frame = Frame::new(id, at_point);
            let linear = data
                .frame_jacobian(&model, &frame, JacobianFrame::Aligned)
                .expect("frame Jacobian")
                .fixed_rows::<3>(0)
                .into_owned();
            let mut rows = jacobian.rows_mut(3 * i, 3);
            rows += rt.matrix() * linear * sign;
        }
    }
    let minv_jt = mass
        .cholesky()
        .expect("positive definite inertia")
        .solve(&jacobian.transpose());
    let delassus = &jacobian * minv_jt;
    let delassus = (&delassus + delassus.transpose()) * 0.5;
    let mut g = &jacobian * v_free;
    let mut impulses = DVector::zeros(3 * contacts.len());
    for (i, c) in contacts.iter().enumerate() {
        let gap = c.point.separation + settings.penetration_tolerance();
        let drift = if gap >= 0.0 {
            gap
        } else {
            settings.baumgarte() * gap
        };
        g[3 * i + 2] += drift / dt;
        impulses.fixed_rows_mut::<3>(3 * i).copy_from(&c.impulse);
    }
    let problem = NcpProblem::new(delassus, g, vec![settings.friction(); contacts.len()])
        .expect("a valid problem");
    Captured {
        problem,
        impulses,
        iterations: vec![report.iterations],
    }
}

/// A tower of `boxes` 1 kg, 20 cm cubes resting on the ground, stepped `steps` times at 1 ms
/// with friction 0.5 and the solver `solver`; the last step's problem (`4 boxes` contacts).
pub fn box_tower(boxes: usize, steps: usize, solver: SolverSettings) -> Captured {
    let half = 0.1;
    let links = (0..boxes)
        .map(|i| {
            Link::new(
                format!("box{i}"),
                None,
                Isometry3::identity(),
                JointKind::Free,
                vec![ConvexHull::cuboid(Vector3::repeat(half)).expect("a cube")],
                MassModel::Lumped { mass: 1.0 },
            )
        })
        .collect();
    let model = Model::new(links).expect("free boxes");
    let mut q = DVector::zeros(model.dof());
    for i in 0..boxes {
        q[6 * i + 2] = half * (2 * i + 1) as f64;
    }
    let mut state = State::new(&model, q).expect("a state");
    let settings = NcpSettings::new(1e-3)
        .and_then(|s| s.with_ground(Vector3::z(), 0.0))
        .expect("valid settings")
        .with_solver(solver);
    run(model, settings, &mut state, &Control::passive, steps)
}

/// Solo-12 standing under PD on the ground (as in `robot.rs`), stepped `steps` times with
/// the solver `solver`; the last step's problem.
pub fn solo12_standing(steps: usize, solver: SolverSettings) -> Captured {
    let robot = sdrs_robot_data::robot("solo12").expect("solo12 is in the data set");
    let options = UrdfOptions {
        package_paths: vec![sdrs_robot_data::package_path().expect("the robot data")],
        floating_base: true,
        ..UrdfOptions::default()
    };
    let mut model = load_urdf(robot.urdf_path().expect("URDF"), &options).expect("loads");
    let srdf = Srdf::from_file(robot.srdf_path().expect("SRDF")).expect("SRDF loads");
    srdf.apply(&mut model).expect("SRDF applies");
    let mut state = srdf
        .state(&model, robot.standing.expect("a standing pose"))
        .expect("standing state");
    let mut data = RigidBodyData::new(&model);
    data.forward_kinematics(&model, &state).expect("kinematics");
    let mut lowest = f64::INFINITY;
    for (i, link) in model.links().iter().enumerate() {
        let pose = data
            .link_placement(model.link_id(i).expect("a link"))
            .expect("placed");
        for hull in &link.hulls {
            for p in hull.vertices() {
                lowest = lowest.min((pose * p).z);
            }
        }
    }
    state.q[2] -= lowest;
    model.exclude_touching(&state, 1e-3).expect("filter");
    let settings = NcpSettings::new(1e-3)
        .and_then(|s| s.with_friction(0.9))
        .and_then(|s| s.with_ground(Vector3::z(), 0.0))
        .and_then(|s| s.with_margin(2e-3))
        .expect("valid settings")
        .with_solver(solver);
    let target = state.q.clone();
    let pd = move |model: &Model| {
        let mut control = Control::passive(model);
        for k in 6..model.dof() {
            control.kp[k] = 5.0;
            control.kd[k] = 0.1;
        }
        control.position = target.clone();
        control
    };
    run(model, settings, &mut state, &pd, steps)
}

/// Steps `steps − 1` times, then captures the last step, with every step's iterations.
fn run(
    model: Model,
    settings: NcpSettings,
    state: &mut State,
    control: &dyn Fn(&Model) -> Control,
    steps: usize,
) -> Captured {
    let control = control(&model);
    let mut v = DVector::zeros(model.dof());
    let mut sim = NcpSimulator::new(model, settings);
    let mut iterations = Vec::with_capacity(steps);
    for _ in 1..steps {
        let report = sim
            .step(state, &mut v, &control)
            .expect("the step succeeds");
        iterations.push(report.iterations);
    }
    let mut captured = capture(&mut sim, state, &mut v, &control);
    iterations.append(&mut captured.iterations);
    captured.iterations = iterations;
    captured
}
