//! The rigid-body algorithms (`sdrs_dynamics::algorithms`): Pinocchio's numbers on UR5,
//! Solo-12 and TALOS (`tests/data/pinocchio/reference.json`, written by
//! `benches/reference/pinocchio_reference.py`), central finite differences of every
//! derivative on a chain, a tree and a floating base, and identities.

use nalgebra::{DMatrix, DVector, Isometry3, Matrix4, Matrix6, UnitQuaternion, Vector3};
use sdrs_dynamics::energy::{link_energy, rows};
use sdrs_dynamics::{
    DynamicsError, JacobianFrame, JointKind, Kinematics, Link, MassModel, Model, RigidBodyData,
    State, UrdfOptions, load_urdf, scenes::chain,
};
use sdrs_geometry::ConvexHull;
use serde::Deserialize;
use std::path::PathBuf;

const GRAVITY: Vector3<f64> = Vector3::new(0.0, 0.0, -9.81);

/// A small deterministic generator (xorshift) of numbers in (−1, 1).
struct Random(u64);

impl Random {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }

    fn vector(&mut self, n: usize, scale: f64) -> DVector<f64> {
        DVector::from_fn(n, |_, _| scale * self.next())
    }
}

/// A 1 kg box of half extents `(a, b, c)`, lumped on its corners.
fn box_link(
    name: &str,
    parent: Option<usize>,
    at: Isometry3<f64>,
    joint: JointKind,
    size: [f64; 3],
) -> Link {
    let hull = ConvexHull::cuboid(Vector3::new(size[0], size[1], size[2])).unwrap();
    Link::new(
        name,
        parent,
        at,
        joint,
        vec![hull],
        MassModel::Lumped { mass: 1.0 },
    )
}

fn offset(x: f64, y: f64, z: f64, roll: f64) -> Isometry3<f64> {
    Isometry3::from_parts(
        nalgebra::Translation3::new(x, y, z),
        UnitQuaternion::from_euler_angles(roll, 0.5 * roll, -roll),
    )
}

/// A floating tree with every joint kind, a link fixed to a moving one, a massless fixed
/// frame and off-axis attachments.
fn tree() -> Model {
    let axis = Vector3::new(0.3, -0.5, 0.8);
    let links = vec![
        box_link(
            "base",
            None,
            Isometry3::identity(),
            JointKind::Free,
            [0.2, 0.1, 0.05],
        ),
        box_link(
            "ball",
            Some(0),
            offset(0.2, 0.0, 0.1, 0.3),
            JointKind::Spherical,
            [0.03, 0.05, 0.1],
        ),
        box_link(
            "hinge",
            Some(1),
            offset(0.0, 0.1, -0.2, -0.4),
            JointKind::Revolute { axis },
            [0.05, 0.02, 0.1],
        ),
        box_link(
            "slider",
            Some(0),
            offset(-0.2, 0.05, 0.0, 0.7),
            JointKind::Prismatic {
                axis: Vector3::new(1.0, 0.2, 0.0),
            },
            [0.04, 0.04, 0.04],
        ),
        box_link(
            "cardan",
            Some(3),
            offset(0.0, 0.0, -0.1, 0.2),
            JointKind::Universal {
                first: Vector3::x(),
                second: Vector3::new(0.0, 0.6, 0.8),
            },
            [0.02, 0.06, 0.03],
        ),
        box_link(
            "bolted",
            Some(2),
            offset(0.05, 0.0, -0.15, 1.0),
            JointKind::Fixed,
            [0.02, 0.02, 0.02],
        ),
        Link::new(
            "tool",
            Some(4),
            offset(0.0, 0.03, -0.05, 0.0),
            JointKind::Fixed,
            vec![],
            MassModel::SecondMoment(Matrix4::zeros()),
        ),
    ];
    Model::new(links).unwrap()
}

/// The models the finite-difference checks run on.
fn models() -> Vec<(&'static str, Model)> {
    vec![("chain", chain(5, 0.01).unwrap().model), ("tree", tree())]
}

fn state(model: &Model, random: &mut Random) -> State {
    State::new(model, random.vector(model.dof(), 0.8)).unwrap()
}

/// Central differences of `f` along every coordinate of `x` (step 1e-6).
fn central(x: &DVector<f64>, mut f: impl FnMut(&DVector<f64>) -> DVector<f64>) -> DMatrix<f64> {
    let h = 1e-6;
    let columns: Vec<DVector<f64>> = (0..x.len())
        .map(|k| {
            let mut y = x.clone();
            y[k] += h;
            let up = f(&y);
            y[k] -= 2.0 * h;
            (up - f(&y)) / (2.0 * h)
        })
        .collect();
    DMatrix::from_columns(&columns)
}

fn assert_close(what: &str, actual: &DMatrix<f64>, expected: &DMatrix<f64>, tolerance: f64) {
    let scale = expected.amax().max(1.0);
    let error = (actual - expected).amax();
    assert!(
        error <= tolerance * scale,
        "{what}: error {error:e} (scale {scale:e})\nactual {actual}\nexpected {expected}"
    );
}

#[test]
fn rnea_derivatives_match_finite_differences() {
    let mut random = Random(7);
    for (name, model) in models() {
        let mut data = RigidBodyData::new(&model);
        let n = model.dof();
        for _ in 0..3 {
            let s = state(&model, &mut random);
            let (v, a) = (random.vector(n, 2.0), random.vector(n, 2.0));
            let d = data.rnea_derivatives(&model, &s, &v, &a, &GRAVITY).unwrap();
            let (dq, dv, da, tau) = (
                d.dtau_dq.clone(),
                d.dtau_dv.clone(),
                d.dtau_da.clone(),
                d.tau.clone(),
            );
            let mut rnea = |q: &DVector<f64>, v: &DVector<f64>, a: &DVector<f64>| {
                let at = State::new(&model, q.clone()).unwrap();
                data.rnea(&model, &at, v, a, &GRAVITY).unwrap().clone()
            };
            assert_close(
                &format!("{name} tau"),
                &DMatrix::from_column_slice(n, 1, tau.as_slice()),
                &DMatrix::from_column_slice(n, 1, rnea(&s.q, &v, &a).as_slice()),
                1e-12,
            );
            assert_close(
                &format!("{name} dtau/dq"),
                &dq,
                &central(&s.q, |q| rnea(q, &v, &a)),
                1e-6,
            );
            assert_close(
                &format!("{name} dtau/dv"),
                &dv,
                &central(&v, |w| rnea(&s.q, w, &a)),
                1e-6,
            );
            assert_close(
                &format!("{name} dtau/da"),
                &da,
                &central(&a, |b| rnea(&s.q, &v, b)),
                1e-6,
            );
        }
    }
}

#[test]
fn aba_derivatives_match_finite_differences() {
    let mut random = Random(11);
    for (name, model) in models() {
        let mut data = RigidBodyData::new(&model);
        let n = model.dof();
        for _ in 0..3 {
            let s = state(&model, &mut random);
            let (v, tau) = (random.vector(n, 2.0), random.vector(n, 3.0));
            let d = data
                .aba_derivatives(&model, &s, &v, &tau, &GRAVITY)
                .unwrap();
            let (dq, dv, dtau) = (d.dddq_dq.clone(), d.dddq_dv.clone(), d.dddq_dtau.clone());
            let mut aba = |q: &DVector<f64>, v: &DVector<f64>, t: &DVector<f64>| {
                let at = State::new(&model, q.clone()).unwrap();
                data.aba(&model, &at, v, t, &GRAVITY).unwrap().clone()
            };
            assert_close(
                &format!("{name} dddq/dq"),
                &dq,
                &central(&s.q, |q| aba(q, &v, &tau)),
                1e-6,
            );
            assert_close(
                &format!("{name} dddq/dv"),
                &dv,
                &central(&v, |w| aba(&s.q, w, &tau)),
                1e-6,
            );
            assert_close(
                &format!("{name} dddq/dtau"),
                &dtau,
                &central(&tau, |t| aba(&s.q, &v, t)),
                1e-6,
            );
        }
    }
}

#[test]
fn mass_matrix_is_symmetric_positive_definite_and_aba_inverts_rnea() {
    let mut random = Random(3);
    for (name, model) in models() {
        let mut data = RigidBodyData::new(&model);
        let n = model.dof();
        for _ in 0..3 {
            let s = state(&model, &mut random);
            let (v, a) = (random.vector(n, 2.0), random.vector(n, 2.0));
            let m = data.crba(&model, &s).unwrap().clone();
            assert!(
                (&m - m.transpose()).amax() == 0.0,
                "{name}: M not symmetric"
            );
            assert!(
                m.clone().symmetric_eigenvalues().min() > 0.0,
                "{name}: M not positive definite"
            );
            let minv = data.minverse(&model, &s).unwrap().clone();
            assert_close(
                &format!("{name} M⁻¹ M"),
                &(&minv * &m),
                &DMatrix::identity(n, n),
                1e-10,
            );
            let tau = data.rnea(&model, &s, &v, &a, &GRAVITY).unwrap().clone();
            let back = data.aba(&model, &s, &v, &tau, &GRAVITY).unwrap().clone();
            assert!(
                (back - &a).amax() < 1e-9 * a.amax().max(1.0),
                "{name}: ABA(RNEA(a)) != a"
            );
            // τ = M a + b(q, v): RNEA is affine in a with slope M.
            let bias = data
                .rnea(&model, &s, &v, &DVector::zeros(n), &GRAVITY)
                .unwrap()
                .clone();
            assert!(
                (&m * &a + bias - tau).amax() < 1e-9 * m.amax(),
                "{name}: τ != M a + b"
            );
        }
    }
}

/// The algorithms agree with the step's energy: at a pose equal to its prediction, the
/// inertial Hessian times Δt² is `M`, and the gravity gradient is RNEA at rest.
#[test]
fn inertia_and_gravity_agree_with_the_step_energy() {
    let mut random = Random(5);
    for (name, model) in models() {
        let mut data = RigidBodyData::new(&model);
        let n = model.dof();
        let s = state(&model, &mut random);
        let kinematics = Kinematics::new(&model, &s);
        let dt = 0.01;
        let mut hessian = DMatrix::zeros(n, n);
        let mut gradient = DVector::zeros(n);
        for (i, pose) in kinematics.poses().iter().enumerate() {
            let (_, g, h) = link_energy(model.second_moment(i), pose, &rows(pose), dt, 9.81);
            let h: Matrix6<f64> = h * (dt * dt);
            kinematics.add_term(&model, [i], &g, Some(&h), &mut gradient, Some(&mut hessian));
        }
        // The second-order kinematic term of the gravity gradient is not part of M.
        let mut gravity_only = DMatrix::zeros(n, n);
        let mut unused = DVector::zeros(n);
        for (i, pose) in kinematics.poses().iter().enumerate() {
            let (_, g, _) = link_energy(model.second_moment(i), pose, &rows(pose), dt, 9.81);
            kinematics.add_term(
                &model,
                [i],
                &g,
                Some(&Matrix6::zeros()),
                &mut unused,
                Some(&mut gravity_only),
            );
        }
        let m = data.crba(&model, &s).unwrap().clone();
        assert_close(
            &format!("{name} M vs energy"),
            &m,
            &(hessian - gravity_only),
            1e-12,
        );
        let zero = DVector::zeros(n);
        let g = data
            .rnea(&model, &s, &zero, &zero, &GRAVITY)
            .unwrap()
            .clone();
        assert_close(
            &format!("{name} g vs energy"),
            &DMatrix::from_column_slice(n, 1, g.as_slice()),
            &DMatrix::from_column_slice(n, 1, gradient.as_slice()),
            1e-12,
        );
    }
}

#[test]
fn frame_and_com_jacobians_match_finite_differences() {
    let mut random = Random(13);
    for (name, model) in models() {
        let mut data = RigidBodyData::new(&model);
        let n = model.dof();
        let last = model.links().len() - 1;
        let frame = model
            .frame(&model.links()[last].name, offset(0.01, -0.02, 0.03, 0.4))
            .unwrap();
        let s = state(&model, &mut random);
        let qdot = random.vector(n, 1.0);
        data.forward_kinematics(&model, &s).unwrap();
        let aligned = DMatrix::from_iterator(
            6,
            n,
            data.frame_jacobian(&model, &frame, JacobianFrame::Aligned)
                .unwrap()
                .iter()
                .copied(),
        );
        let spatial = DMatrix::from_iterator(
            6,
            n,
            data.frame_jacobian(&model, &frame, JacobianFrame::Spatial)
                .unwrap()
                .iter()
                .copied(),
        );
        let local = DMatrix::from_iterator(
            6,
            n,
            data.frame_jacobian(&model, &frame, JacobianFrame::Local)
                .unwrap()
                .iter()
                .copied(),
        );
        let pose = data.frame_placement(&frame).unwrap();
        let mut placement = |q: &DVector<f64>| {
            data.forward_kinematics(&model, &State::new(&model, q.clone()).unwrap())
                .unwrap();
            data.frame_placement(&frame).unwrap()
        };
        // Velocity of the frame's origin and angular velocity, by central differences.
        let h = 1e-6;
        let (up, down) = (
            placement(&(&s.q + &qdot * h)),
            placement(&(&s.q - &qdot * h)),
        );
        let linear = (up.translation.vector - down.translation.vector) / (2.0 * h);
        let angular = (up.rotation * down.rotation.inverse()).scaled_axis() / (2.0 * h);
        let twist = DVector::from_iterator(6, linear.iter().chain(angular.iter()).copied());
        let tolerance = 1e-7 * twist.amax().max(1.0);
        assert!(
            (&aligned * &qdot - &twist).amax() < tolerance,
            "{name}: aligned Jacobian"
        );
        // Spatial: the body point at the world origin; local: the frame's axes.
        let o = pose.translation.vector;
        let at_origin = linear - angular.cross(&o);
        let expected = DVector::from_iterator(6, at_origin.iter().chain(angular.iter()).copied());
        assert!(
            (&spatial * &qdot - expected).amax() < tolerance,
            "{name}: spatial Jacobian"
        );
        let r = pose.rotation.inverse();
        let expected =
            DVector::from_iterator(6, (r * linear).iter().chain((r * angular).iter()).copied());
        assert!(
            (&local * &qdot - expected).amax() < tolerance,
            "{name}: local Jacobian"
        );
        // Centre of mass of the model and of a subtree.
        for root in [None, Some(model.link(&model.links()[1].name).unwrap())] {
            let jacobian = data.com_jacobian(&model, &s, root).unwrap().clone();
            let mut com = |q: &DVector<f64>| {
                data.center_of_mass(&model, &State::new(&model, q.clone()).unwrap(), root)
                    .unwrap()
            };
            let velocity = (com(&(&s.q + &qdot * h)) - com(&(&s.q - &qdot * h))) / (2.0 * h);
            assert!(
                (jacobian * &qdot - velocity).amax() < 1e-7 * velocity.amax().max(1.0),
                "{name}: COM Jacobian (root {root:?})"
            );
        }
    }
}

#[test]
fn bad_inputs_are_refused_with_typed_errors() {
    let model = tree();
    let mut data = RigidBodyData::new(&model);
    let n = model.dof();
    let s = State::zero(&model);
    let zero = DVector::zeros(n);
    let mut nan = zero.clone();
    nan[2] = f64::NAN;
    assert!(matches!(
        data.aba(&model, &s, &nan, &zero, &GRAVITY),
        Err(DynamicsError::NonFinite { index: 2, .. })
    ));
    assert!(matches!(
        data.rnea(&model, &s, &zero, &DVector::zeros(3), &GRAVITY),
        Err(DynamicsError::LengthMismatch { .. })
    ));
    assert!(matches!(
        data.rnea(
            &model,
            &s,
            &zero,
            &zero,
            &Vector3::new(0.0, f64::INFINITY, 0.0)
        ),
        Err(DynamicsError::NonFinite {
            what: "gravity",
            ..
        })
    ));
    let other = chain(2, 0.01).unwrap().model;
    assert!(matches!(
        data.crba(&other, &State::zero(&other)),
        Err(DynamicsError::LengthMismatch { .. })
    ));
    let frame = sdrs_dynamics::Frame::new(sdrs_dynamics::LinkId::new(99), Isometry3::identity());
    assert!(matches!(
        data.frame_placement(&frame),
        Err(DynamicsError::LinkIndex { index: 99, .. })
    ));
    // A massless link on a revolute joint: its DoF moves no inertia.
    let hull = ConvexHull::cuboid(Vector3::repeat(0.1)).unwrap();
    let massless = Model::new(vec![
        Link::new(
            "a",
            None,
            Isometry3::identity(),
            JointKind::Revolute { axis: Vector3::z() },
            vec![hull],
            MassModel::Lumped { mass: 1.0 },
        ),
        Link::new(
            "b",
            Some(0),
            Isometry3::identity(),
            JointKind::Revolute { axis: Vector3::x() },
            vec![],
            MassModel::SecondMoment(Matrix4::zeros()),
        ),
    ])
    .unwrap();
    let mut data = RigidBodyData::new(&massless);
    let zero = DVector::zeros(2);
    let err = data
        .aba(&massless, &State::zero(&massless), &zero, &zero, &GRAVITY)
        .unwrap_err();
    assert!(
        matches!(err, DynamicsError::SingularInertia { dof: 1, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("b joint"), "{err}");
    let err = data
        .center_of_mass(
            &massless,
            &State::zero(&massless),
            Some(massless.link("b").unwrap()),
        )
        .unwrap_err();
    assert!(err.to_string().contains("positive mass"), "{err}");
}

// ---- Pinocchio's numbers -------------------------------------------------------------------

#[derive(Deserialize)]
struct Reference {
    pinocchio: String,
    robots: std::collections::BTreeMap<String, RobotReference>,
}

#[derive(Deserialize)]
struct RobotReference {
    floating_base: bool,
    frame: String,
    gravity: Vec<f64>,
    dof_names: Vec<String>,
    com_subtree_of_joint: Option<String>,
    states: Vec<StateReference>,
}

#[derive(Deserialize)]
struct StateReference {
    q: Vec<f64>,
    v: Vec<f64>,
    a: Vec<f64>,
    tau: Vec<f64>,
    mass_matrix: Vec<Vec<f64>>,
    rnea: Vec<f64>,
    aba: Vec<f64>,
    dtau_dq: Vec<Vec<f64>>,
    dtau_dv: Vec<Vec<f64>>,
    dddq_dq: Vec<Vec<f64>>,
    dddq_dv: Vec<Vec<f64>>,
    minv: Vec<Vec<f64>>,
    frame_placement: Vec<Vec<f64>>,
    frame_jacobian: Vec<Vec<f64>>,
    com: Vec<f64>,
    com_jacobian: Vec<Vec<f64>>,
}

fn matrix(rows: &[Vec<f64>]) -> DMatrix<f64> {
    DMatrix::from_fn(rows.len(), rows[0].len(), |i, j| rows[i][j])
}

fn column(x: &[f64]) -> DMatrix<f64> {
    DMatrix::from_column_slice(x.len(), 1, x)
}

/// Pinocchio's DoF order mapped to sdrs's: `perm[pinocchio] = sdrs`.
fn permutation(model: &Model, names: &[String]) -> Vec<usize> {
    let ours: Vec<String> = (0..model.dof()).map(|k| model.dof_name(k)).collect();
    names
        .iter()
        .map(|name| {
            ours.iter()
                .position(|o| o == name)
                .unwrap_or_else(|| panic!("no DoF named {name} in {ours:?}"))
        })
        .collect()
}

/// `x` (Pinocchio's order) in sdrs's order.
fn reorder(x: &[f64], perm: &[usize]) -> DVector<f64> {
    let mut out = DVector::zeros(x.len());
    for (i, &k) in perm.iter().enumerate() {
        out[k] = x[i];
    }
    out
}

/// Rows and/or columns of a Pinocchio matrix in sdrs's order.
fn reorder_matrix(
    m: &DMatrix<f64>,
    rows: Option<&[usize]>,
    columns: Option<&[usize]>,
) -> DMatrix<f64> {
    let mut out = DMatrix::zeros(m.nrows(), m.ncols());
    for i in 0..m.nrows() {
        for j in 0..m.ncols() {
            out[(rows.map_or(i, |p| p[i]), columns.map_or(j, |p| p[j]))] = m[(i, j)];
        }
    }
    out
}

#[test]
fn algorithms_match_pinocchio_on_ur5_solo12_and_talos() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/pinocchio/reference.json");
    let reference: Reference =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(
        reference.pinocchio.starts_with('4'),
        "generated with Pinocchio {}",
        reference.pinocchio
    );
    assert_eq!(reference.robots.len(), 3);
    for (name, robot) in &reference.robots {
        let spec = sdrs_robot_data::robot(name).unwrap_or_else(|| panic!("no robot {name}"));
        assert_eq!(spec.floating_base, robot.floating_base);
        let options = UrdfOptions {
            package_paths: vec![sdrs_robot_data::package_path().unwrap()],
            floating_base: robot.floating_base,
            ..UrdfOptions::default()
        };
        let model = load_urdf(spec.urdf_path().unwrap(), &options).unwrap();
        let perm = permutation(&model, &robot.dof_names);
        let p = Some(perm.as_slice());
        let gravity = Vector3::from_column_slice(&robot.gravity);
        let frame = model.frame(&robot.frame, Isometry3::identity()).unwrap();
        let com_root = robot.com_subtree_of_joint.as_ref().map(|j| {
            model
                .link(&model.links()[model.joint_link(j).unwrap()].name)
                .unwrap()
        });
        let mut data = RigidBodyData::new(&model);
        for (at, s) in robot.states.iter().enumerate() {
            let what = |q: &str| format!("{name} state {at}: {q}");
            let state = State::new(&model, reorder(&s.q, &perm)).unwrap();
            let (v, a, tau) = (
                reorder(&s.v, &perm),
                reorder(&s.a, &perm),
                reorder(&s.tau, &perm),
            );
            let square = |m: &[Vec<f64>]| reorder_matrix(&matrix(m), p, p);
            let vector = |x: &[f64]| column(reorder(x, &perm).as_slice());
            let tolerance = 1e-10;
            assert_close(
                &what("M"),
                data.crba(&model, &state).unwrap(),
                &square(&s.mass_matrix),
                tolerance,
            );
            assert_close(
                &what("rnea"),
                &column(
                    data.rnea(&model, &state, &v, &a, &gravity)
                        .unwrap()
                        .as_slice(),
                ),
                &vector(&s.rnea),
                tolerance,
            );
            assert_close(
                &what("aba"),
                &column(
                    data.aba(&model, &state, &v, &tau, &gravity)
                        .unwrap()
                        .as_slice(),
                ),
                &vector(&s.aba),
                tolerance,
            );
            let d = data
                .rnea_derivatives(&model, &state, &v, &a, &gravity)
                .unwrap();
            assert_close(&what("dtau/dq"), d.dtau_dq, &square(&s.dtau_dq), tolerance);
            assert_close(&what("dtau/dv"), d.dtau_dv, &square(&s.dtau_dv), tolerance);
            assert_close(
                &what("dtau/da"),
                d.dtau_da,
                &square(&s.mass_matrix),
                tolerance,
            );
            let d = data
                .aba_derivatives(&model, &state, &v, &tau, &gravity)
                .unwrap();
            assert_close(&what("dddq/dq"), d.dddq_dq, &square(&s.dddq_dq), tolerance);
            assert_close(&what("dddq/dv"), d.dddq_dv, &square(&s.dddq_dv), tolerance);
            assert_close(&what("M⁻¹"), d.dddq_dtau, &square(&s.minv), tolerance);
            data.forward_kinematics(&model, &state).unwrap();
            let placement = data.frame_placement(&frame).unwrap().to_homogeneous();
            assert_close(
                &what("frame placement"),
                &DMatrix::from_iterator(4, 4, placement.iter().copied()),
                &matrix(&s.frame_placement),
                tolerance,
            );
            let jacobian = data
                .frame_jacobian(&model, &frame, JacobianFrame::Aligned)
                .unwrap();
            let jacobian = DMatrix::from_iterator(6, model.dof(), jacobian.iter().copied());
            assert_close(
                &what("frame Jacobian"),
                &jacobian,
                &reorder_matrix(&matrix(&s.frame_jacobian), None, p),
                tolerance,
            );
            let com = data.center_of_mass(&model, &state, com_root).unwrap();
            assert_close(
                &what("COM"),
                &column(com.as_slice()),
                &column(&s.com),
                tolerance,
            );
            let jacobian = data.com_jacobian(&model, &state, com_root).unwrap();
            let jacobian = DMatrix::from_iterator(3, model.dof(), jacobian.iter().copied());
            assert_close(
                &what("COM Jacobian"),
                &jacobian,
                &reorder_matrix(&matrix(&s.com_jacobian), None, p),
                tolerance,
            );
        }
    }
}
