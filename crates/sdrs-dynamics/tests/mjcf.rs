//! MJCF import: MuJoCo's mass matrix and bias forces (from `tests/data/mjcf/reference.json`,
//! made by `benches/reference/mjcf_reference.py`), sizes and names, error messages, default
//! classes, angle units, controls and a short drop on the floor.

use nalgebra::{
    DMatrix, DVector, Isometry3, Matrix4, RealField, SMatrix, Translation3, Unit, UnitQuaternion,
    Vector3,
};
use num_dual::HyperDual64;
use sdrs_dynamics::{
    ActuatorKind, Control, DynamicsError, JointForces, JointKind, MjcfJointKind, MjcfModel,
    MjcfOptions, Model, Motion, Simulator, StepSettings, forward_kinematics, load_mjcf,
    mjcf_from_str,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub(crate) fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/mjcf")
        .join(name)
}

/// The gymnasium models, `features.xml`, and the dm_control suite models that load (their
/// `common/` files come in by `<include>`).
pub(crate) const MODELS: [&str; 21] = [
    "ant",
    "half_cheetah",
    "hopper",
    "humanoid",
    "walker2d",
    "inverted_pendulum",
    "inverted_double_pendulum",
    "features",
    "dm_control/acrobot",
    "dm_control/cartpole",
    "dm_control/cheetah",
    "dm_control/finger",
    "dm_control/hopper",
    "dm_control/humanoid",
    "dm_control/humanoid_CMU",
    "dm_control/manipulator",
    "dm_control/pendulum",
    "dm_control/point_mass",
    "dm_control/reacher",
    "dm_control/stacker",
    "dm_control/walker",
];

// ---------------------------------------------------------------- a minimal JSON reader

#[derive(Debug, Clone)]
pub(crate) enum Json {
    Number(f64),
    Text(String),
    List(Vec<Json>),
    Object(BTreeMap<String, Json>),
}

impl Json {
    pub(crate) fn parse(text: &str) -> Json {
        let bytes = text.as_bytes();
        let mut at = 0;
        Self::value(bytes, &mut at)
    }

    fn skip(b: &[u8], at: &mut usize) {
        while *at < b.len() && b[*at].is_ascii_whitespace() {
            *at += 1;
        }
    }

    fn value(b: &[u8], at: &mut usize) -> Json {
        Self::skip(b, at);
        match b[*at] {
            b'{' => {
                *at += 1;
                let mut map = BTreeMap::new();
                loop {
                    Self::skip(b, at);
                    if b[*at] == b'}' {
                        *at += 1;
                        return Json::Object(map);
                    }
                    let Json::Text(key) = Self::value(b, at) else {
                        panic!("object key at {at}")
                    };
                    Self::skip(b, at);
                    assert_eq!(b[*at], b':');
                    *at += 1;
                    map.insert(key, Self::value(b, at));
                    Self::skip(b, at);
                    if b[*at] == b',' {
                        *at += 1;
                    }
                }
            }
            b'[' => {
                *at += 1;
                let mut list = Vec::new();
                loop {
                    Self::skip(b, at);
                    if b[*at] == b']' {
                        *at += 1;
                        return Json::List(list);
                    }
                    list.push(Self::value(b, at));
                    Self::skip(b, at);
                    if b[*at] == b',' {
                        *at += 1;
                    }
                }
            }
            b'"' => {
                let start = *at + 1;
                *at = start;
                while b[*at] != b'"' {
                    *at += if b[*at] == b'\\' { 2 } else { 1 };
                }
                *at += 1;
                Json::Text(String::from_utf8_lossy(&b[start..*at - 1]).into_owned())
            }
            _ => {
                let start = *at;
                while *at < b.len() && b"+-.eE0123456789".contains(&b[*at]) {
                    *at += 1;
                }
                let s = std::str::from_utf8(&b[start..*at]).unwrap();
                Json::Number(s.parse().unwrap_or_else(|_| panic!("number '{s}'")))
            }
        }
    }

    pub(crate) fn get(&self, key: &str) -> &Json {
        match self {
            Json::Object(m) => m.get(key).unwrap_or_else(|| panic!("no key {key}")),
            _ => panic!("not an object"),
        }
    }

    pub(crate) fn list(&self) -> &[Json] {
        match self {
            Json::List(l) => l,
            _ => panic!("not a list"),
        }
    }

    pub(crate) fn number(&self) -> f64 {
        match self {
            Json::Number(x) => *x,
            other => panic!("not a number: {other:?}"),
        }
    }

    pub(crate) fn numbers(&self) -> Vec<f64> {
        self.list().iter().map(Json::number).collect()
    }
}

pub(crate) fn reference() -> Json {
    let text = std::fs::read_to_string(data("reference.json")).expect("reference.json");
    Json::parse(&text)
}

pub(crate) fn load(name: &str) -> MjcfModel {
    load_mjcf(data(&format!("{name}.xml")), &MjcfOptions::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

// ------------------------------------------------- mass matrix and bias from the energies

/// sdrs's forward kinematics (the semantics of [`forward_kinematics`]: attachment, then each
/// elementary motion in the joint frame, the reference rotation before a spherical or free
/// joint's first rotation), with rotations built by `from_axis_angle`. nalgebra's
/// `from_scaled_axis`, which `forward_kinematics` uses, returns the identity for an angle of
/// exactly zero and so drops the dual parts there, and free and ball joints sit at zero
/// rotation coordinates here. [`pose_rows`] checks the real parts against
/// [`forward_kinematics`].
fn kinematics<T: RealField + Copy>(
    model: &Model,
    q: &[T],
    references: &[UnitQuaternion<f64>],
) -> Vec<Isometry3<T>> {
    let mut poses: Vec<Isometry3<T>> = Vec::with_capacity(model.links().len());
    for (i, link) in model.links().iter().enumerate() {
        let mut frame = link.parent.map_or_else(Isometry3::identity, |p| poses[p])
            * link.attachment.cast::<T>();
        let mut dof = model.dof_offset(i);
        let mut next = || {
            dof += 1;
            q[dof - 1]
        };
        let turn = |frame: &mut Isometry3<T>, axis: Vector3<f64>, angle: T| {
            frame.rotation *=
                UnitQuaternion::from_axis_angle(&Unit::new_unchecked(axis.cast::<T>()), angle);
        };
        let shift = |frame: &mut Isometry3<T>, axis: Vector3<f64>, d: T| {
            *frame *= Translation3::from(axis.cast::<T>() * d);
        };
        match &link.joint {
            JointKind::Fixed => {}
            JointKind::Revolute { axis } => turn(&mut frame, *axis, next()),
            JointKind::Prismatic { axis } => shift(&mut frame, *axis, next()),
            JointKind::Universal { first, second } => {
                turn(&mut frame, *first, next());
                turn(&mut frame, *second, next());
            }
            JointKind::Spherical | JointKind::Free => {
                if matches!(link.joint, JointKind::Free) {
                    for k in 0..3 {
                        shift(&mut frame, Vector3::ith(k, 1.0), next());
                    }
                }
                frame.rotation *= references[i].cast::<T>();
                for k in 0..3 {
                    turn(&mut frame, Vector3::ith(k, 1.0), next());
                }
            }
        }
        poses.push(frame);
    }
    poses
}

/// The 3x4 rows `[R | t]` of every link's pose: first and second (hyper-dual) derivative parts.
fn pose_rows(
    mj: &MjcfModel,
    q: &[HyperDual64],
    state: &sdrs_dynamics::State,
) -> Vec<[SMatrix<f64, 3, 4>; 2]> {
    let poses = kinematics(&mj.model, q, &state.references);
    let (check, _) = forward_kinematics(&mj.model, state.q.as_slice(), &state.references);
    poses
        .iter()
        .zip(&check)
        .map(|(p, c)| {
            let r = p.rotation.to_rotation_matrix().into_inner();
            let t = p.translation.vector;
            let mut first = SMatrix::<f64, 3, 4>::zeros();
            let mut second = SMatrix::<f64, 3, 4>::zeros();
            let mut real = SMatrix::<f64, 3, 4>::zeros();
            for i in 0..3 {
                for j in 0..3 {
                    real[(i, j)] = r[(i, j)].re;
                    first[(i, j)] = r[(i, j)].eps1;
                    second[(i, j)] = r[(i, j)].eps1eps2;
                }
                real[(i, 3)] = t[i].re;
                first[(i, 3)] = t[i].eps1;
                second[(i, 3)] = t[i].eps1eps2;
            }
            let expected = sdrs_dynamics::energy::rows(c);
            assert!(
                (real - expected).norm() < 1e-13,
                "poses differ from forward_kinematics"
            );
            [first, second]
        })
        .collect()
}

/// sdrs's mass matrix and MuJoCo-convention bias forces at `qpos`, `qvel`, from the kinetic
/// energy `½ Σ tr(Ṫ S Ṫᵀ)` and the potential `−Σ g·(T S e₄)`:
/// `M_ij = Σ tr(J_i S J_jᵀ)` (`J_i = ∂T/∂q_i`), and the Lagrangian bias
/// `c_i = Σ tr(J_i S Äᵀ) − g·(J_i S e₄)` with `Ä = D²_q̇ T` (the pose's acceleration at
/// `q̈ = 0`; the terms `d/dt ∂T/∂q̇ − ∂T/∂q` that involve `∂J/∂q` cancel). MuJoCo's bias uses
/// `v̇` of body-frame angular velocities, and sdrs's chart `Rx(a)Ry(b)Rz(c)` at zero
/// coordinates has `ω̇ = q̈ + γ`, `γ = (ḃċ, −ȧċ, ȧḃ)`: so `c_MuJoCo = c − M γ`.
fn sdrs_dynamics_terms(mj: &MjcfModel, qpos: &[f64], qvel: &[f64]) -> (DMatrix<f64>, DVector<f64>) {
    let state = mj.state_from_qpos(qpos).expect("qpos maps");
    let n = mj.model.dof();
    let links = mj.model.links().len();
    let hyper = |d1: &dyn Fn(usize) -> f64, d2: &dyn Fn(usize) -> f64| -> Vec<HyperDual64> {
        (0..n)
            .map(|k| HyperDual64::new(state.q[k], d1(k), d2(k), 0.0))
            .collect()
    };
    let jac: Vec<Vec<SMatrix<f64, 3, 4>>> = (0..n)
        .map(|i| {
            let e = |k: usize| if k == i { 1.0 } else { 0.0 };
            pose_rows(mj, &hyper(&e, &|_| 0.0), &state)
                .into_iter()
                .map(|[first, _]| first)
                .collect()
        })
        .collect();
    let v = |k: usize| qvel[k];
    let accel: Vec<SMatrix<f64, 3, 4>> = pose_rows(mj, &hyper(&v, &v), &state)
        .into_iter()
        .map(|[_, second]| second)
        .collect();
    let mut m = DMatrix::zeros(n, n);
    let mut c = DVector::zeros(n);
    for l in 0..links {
        let s: &Matrix4<f64> = mj.model.second_moment(l);
        let path = mj.model.path(l);
        for &i in path {
            let js = jac[i][l] * s;
            for &j in path {
                m[(i, j)] += (js * jac[j][l].transpose()).trace();
            }
            c[i] += (js * accel[l].transpose()).trace() - mj.gravity.dot(&js.column(3));
        }
    }
    let mut gamma = DVector::zeros(n);
    for j in &mj.joints {
        let r = match j.kind {
            MjcfJointKind::Free => j.dof + 3,
            MjcfJointKind::Ball => j.dof,
            _ => continue,
        };
        let (a, b, cc) = (qvel[r], qvel[r + 1], qvel[r + 2]);
        gamma[r] = b * cc;
        gamma[r + 1] = -a * cc;
        gamma[r + 2] = a * b;
    }
    let bias = c - &m * gamma;
    (m, bias)
}

/// MuJoCo's full mass matrix `M` (armature included) of a reference case.
fn mujoco_mass_matrix(case: &Json) -> DMatrix<f64> {
    let rows: Vec<Vec<f64>> = case.get("M").list().iter().map(Json::numbers).collect();
    DMatrix::from_row_slice(rows.len(), rows.len(), &rows.concat())
}

fn max_abs(v: impl Iterator<Item = f64>) -> f64 {
    v.fold(0.0, |a, x| a.max(x.abs()))
}

/// The imported models' mass matrices (plus MuJoCo's armature, which sdrs does not model) and
/// bias forces agree with MuJoCo's to 1e-8 relative to the largest entry, at `qpos0` and at
/// random configurations and velocities.
#[test]
fn mjcf_mass_matrix_and_bias_match_mujoco() {
    let reference = reference();
    let mut failures = Vec::new();
    for name in MODELS {
        let mj = load(name);
        let r = reference.get("models").get(name);
        assert_eq!(mj.model.dof(), r.get("nv").number() as usize, "{name} nv");
        assert_eq!(mj.nq(), r.get("nq").number() as usize, "{name} nq");
        let qpos0 = r.get("qpos0").numbers();
        let worst_q0 = max_abs(mj.qpos0.iter().zip(&qpos0).map(|(a, b)| a - b));
        assert!(worst_q0 < 1e-12, "{name}: qpos0 differs by {worst_q0}");
        // Armature per DoF, as MuJoCo adds it.
        let armature = r.get("armature").numbers();
        let mut ours = vec![0.0; mj.model.dof()];
        for j in &mj.joints {
            for k in 0..j.kind.nv() {
                ours[j.dof + k] = j.armature;
            }
        }
        let worst_arm = max_abs(ours.iter().zip(&armature).map(|(a, b)| a - b));
        assert!(worst_arm < 1e-15, "{name}: armature differs by {worst_arm}");
        let total: f64 = r.get("body_mass").numbers().iter().sum();
        let ours_total: f64 = (0..mj.model.links().len()).map(|l| mj.model.mass(l)).sum();
        assert!(
            (total - ours_total).abs() < 1e-10 * total,
            "{name}: total mass {ours_total} vs MuJoCo {total}"
        );
        let (mut err_m, mut err_c) = (0.0f64, 0.0f64);
        for case in r.get("cases").list() {
            let qpos = case.get("qpos").numbers();
            let qvel = case.get("qvel").numbers();
            let m_ref = mujoco_mass_matrix(case)
                - DMatrix::from_diagonal(&DVector::from_vec(armature.clone()));
            let c_ref = DVector::from_vec(case.get("bias").numbers());
            let (m, c) = sdrs_dynamics_terms(&mj, &qpos, &qvel);
            let scale_m = max_abs(m_ref.iter().copied());
            let scale_c = max_abs(c_ref.iter().copied());
            err_m = err_m.max(max_abs((&m - &m_ref).iter().copied()) / scale_m);
            err_c = err_c.max(max_abs((&c - &c_ref).iter().copied()) / scale_c);
        }
        eprintln!("{name:>26}: max relative error M {err_m:.2e}, bias {err_c:.2e}");
        if !(err_m < 1e-8 && err_c < 1e-8) {
            failures.push(format!("{name}: M {err_m:e}, bias {err_c:e}"));
        }
    }
    assert!(failures.is_empty(), "beyond 1e-8: {failures:?}");
}

/// The step's inertia is MuJoCo's mass matrix with the armature: at rest (θ^{t+1} = θ^t = θ^{t−1},
/// no gravity, contact or control), the objective's Hessian times Δt² is `M + diag(armature)`
/// of hinge and slide joints (armature on ball and free joints is not modelled), to 1e-8 of its
/// largest entry, at MuJoCo's configurations.
#[test]
fn mjcf_step_inertia_with_armature_is_mujocos_mass_matrix() {
    let reference = reference();
    let mut checked = 0;
    for name in MODELS {
        let mj = load(name);
        let r = reference.get("models").get(name);
        let dt = 0.01;
        let mut settings = StepSettings::new(dt).unwrap();
        settings.gravity = 0.0;
        // The joints' dry friction (finger) has curvature f/(ε Δt) at rest, and a limit's
        // barrier within its support of the limit: flatten the one, shrink the other.
        settings.joint_friction_velocity = 1e12;
        settings.limit_support = 1e-12;
        // Tendons' springs and dampers (the manipulator's equality constraint) are not inertia.
        let model = mj.model.clone().with_tendons(Vec::new()).unwrap();
        let mut sim = Simulator::new(model, settings).unwrap();
        let control = Control::passive(&mj.model);
        let mut worst = 0.0f64;
        for case in r.get("cases").list() {
            let state = mj.state_from_qpos(&case.get("qpos").numbers()).unwrap();
            // A case on or beyond a joint limit (the ant's qpos0) is left out: the limit
            // barrier is infinite there.
            if mj.model.check_limits(&state).is_err() {
                continue;
            }
            let poses = forward_kinematics(&mj.model, state.q.as_slice(), &state.references).0;
            let Some(objective) = sim.objective(&state, &state, &poses, &control).unwrap() else {
                continue;
            };
            let mut m_ref = mujoco_mass_matrix(case);
            // Armature on ball and free joints is not modelled.
            for j in mj.joints.iter().filter(|j| j.kind.nv() > 1) {
                for k in j.dof..j.dof + j.kind.nv() {
                    m_ref[(k, k)] -= j.armature;
                }
            }
            let scale = max_abs(m_ref.iter().copied());
            let ours = objective.hessian * (dt * dt);
            worst = worst.max(max_abs((&ours - &m_ref).iter().copied()) / scale);
            checked += 1;
        }
        assert!(
            worst < 1e-8,
            "{name}: step inertia differs from MuJoCo's M by {worst:e}"
        );
    }
    assert!(checked > 40, "only {checked} configurations checked");
}

/// Each model's DoF, link and actuator counts and some names.
#[test]
fn mjcf_model_sizes_and_names() {
    // (model, DoF, links, actuators): a body with k > 1 joints is k links; worldbody geoms
    // make one static `world` link.
    let expected = [
        ("ant", 14, 14, 8),
        ("half_cheetah", 9, 10, 6),
        ("hopper", 6, 7, 3),
        ("humanoid", 23, 21, 17),
        ("walker2d", 9, 10, 6),
        ("inverted_pendulum", 2, 3, 1),
        ("inverted_double_pendulum", 3, 4, 1),
        ("features", 17, 9, 3),
    ];
    for (name, dof, links, actuators) in expected {
        let mj = load(name);
        assert_eq!(mj.model.dof(), dof, "{name} DoF");
        assert_eq!(mj.model.links().len(), links, "{name} links");
        assert_eq!(mj.actuators.len(), actuators, "{name} actuators");
        assert!(
            mj.model
                .links()
                .iter()
                .all(|l| l.mesh.is_some() != l.hulls.is_empty())
        );
    }
    let hopper = load("hopper");
    let names: Vec<&str> = hopper
        .model
        .links()
        .iter()
        .map(|l| l.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "world",
            "torso/rootx",
            "torso/rootz",
            "torso",
            "thigh",
            "leg",
            "foot"
        ]
    );
    assert_eq!(hopper.model.dof_name(1), "rootz");
    assert_eq!(hopper.model.joint_link("foot_joint").unwrap(), 6);
    // Only the last link of a multi-joint body carries mass and geoms.
    assert_eq!(hopper.model.mass(1), 0.0);
    assert!(hopper.model.links()[1].hulls.is_empty());
    assert_eq!(hopper.model.links()[3].hulls.len(), 1);
    // rootz's ref 1.25 is sdrs's zero; limits are range − ref, in radians.
    assert_eq!(hopper.joints[1].reference, 1.25);
    let (lo, hi) = hopper.model.links()[4].limits.unwrap();
    assert!((lo + 150f64.to_radians()).abs() < 1e-12 && hi == 0.0);
    let ant = load("ant");
    assert_eq!(ant.model.links()[1].joint_label(), "root");
    assert_eq!(ant.model.dof_name(2), "root[2]");
    // Unnamed bodies are named after their MuJoCo body id.
    assert!(ant.model.link_index("body4").is_ok());
    let ant_geom = ant
        .geoms
        .iter()
        .find(|g| g.name.as_deref() == Some("torso_geom"))
        .unwrap();
    assert_eq!((ant_geom.contype, ant_geom.conaffinity), (1, 0));
    assert_eq!(ant.model.links()[1].contact.mask, 0);
    let humanoid = load("humanoid");
    assert_eq!(humanoid.model.links()[2].name, "lwaist/abdomen_z");
    let (link, offset) = humanoid.body("lwaist").unwrap();
    assert_eq!(humanoid.model.links()[link].name, "lwaist");
    assert!((offset.translation.vector - Vector3::new(0.0, 0.0, -0.065)).norm() < 1e-15);
}

/// `qpos → state → qpos` is the identity (quaternions up to sign).
#[test]
fn mjcf_qpos_round_trip() {
    let reference = reference();
    for name in ["ant", "humanoid", "features"] {
        let mj = load(name);
        for case in reference.get("models").get(name).get("cases").list() {
            let qpos = case.get("qpos").numbers();
            let state = mj.state_from_qpos(&qpos).unwrap();
            let back = mj.qpos(&state).unwrap();
            for j in &mj.joints {
                let (at, len) = match j.kind {
                    MjcfJointKind::Free => (j.qpos_address + 3, 4),
                    MjcfJointKind::Ball => (j.qpos_address, 4),
                    _ => (j.qpos_address, 1),
                };
                let sign = if len == 4 && back[at] * qpos[at] + back[at + 1] * qpos[at + 1] < 0.0 {
                    -1.0
                } else {
                    1.0
                };
                for k in 0..len {
                    let norm = if len == 4 {
                        (qpos[at..at + 4].iter().map(|x| x * x).sum::<f64>()).sqrt()
                    } else {
                        1.0
                    };
                    assert!(
                        (sign * back[at + k] - qpos[at + k] / norm).abs() < 1e-12,
                        "{name} qpos[{}]",
                        at + k
                    );
                }
                if j.kind == MjcfJointKind::Free {
                    for k in 0..3 {
                        assert!(
                            (back[j.qpos_address + k] - qpos[j.qpos_address + k]).abs() < 1e-12
                        );
                    }
                }
            }
        }
        assert!(mj.state_from_qpos(&[0.0]).is_err());
    }
}

fn import(xml: &str) -> Result<MjcfModel, DynamicsError> {
    mjcf_from_str(xml, Path::new("."), &MjcfOptions::default())
}

fn message(xml: &str) -> String {
    match import(xml) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

/// `<include>` splices what the included file's top element holds in place of the include
/// (here a default class and a body, from a subfolder, one include nested in another); an
/// error in an included element names that file and its line.
#[test]
fn mjcf_includes_are_assembled_and_errors_point_into_them() {
    let dir = std::env::temp_dir().join(format!("sdrs-mjcf-include-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("parts")).unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
    write(
        "parts/defaults.xml",
        "<mujoco>\n  <default>\n    <joint damping='0.5'/>\n  </default>\n</mujoco>",
    );
    write(
        "parts/arm.xml",
        "<mujoco>\n  <include file='parts/defaults.xml'/>\n</mujoco>",
    );
    write(
        "parts/body.xml",
        "<mujoco>\n<body name='arm' pos='0 0 1'>\n  <joint name='swing' axis='0 1 0'/>\n  <geom size='0.1'/>\n</body>\n</mujoco>",
    );
    write(
        "model.xml",
        "<mujoco>\n  <include file='parts/arm.xml'/>\n  <worldbody>\n    <include file='parts/body.xml'/>\n  </worldbody>\n</mujoco>",
    );
    let mj = load_mjcf(dir.join("model.xml"), &MjcfOptions::default()).unwrap();
    assert_eq!(mj.model.dof(), 1);
    assert_eq!(mj.joints[0].name.as_deref(), Some("swing"));
    assert_eq!(
        mj.joints[0].damping, 0.5,
        "the included default class applies"
    );
    write(
        "parts/body.xml",
        "<mujoco>\n<body name='arm'>\n  <geom size='0.1'/>\n  <joint name='swing' type='screw'/>\n</body>\n</mujoco>",
    );
    let e = load_mjcf(dir.join("model.xml"), &MjcfOptions::default()).unwrap_err();
    let path = dir.join("parts/body.xml").display().to_string();
    assert!(
        e.to_string().starts_with(&format!(
            "MJCF {path}:4: <joint name='swing'>: joint type 'screw'"
        )),
        "{e}"
    );
    // Text resolves its includes against the base directory it is given.
    let text = "<mujoco><worldbody><include file='parts/body.xml'/></worldbody></mujoco>";
    let e = mjcf_from_str(text, Path::new("/nonexistent"), &MjcfOptions::default()).unwrap_err();
    assert!(
        e.to_string()
            .contains("cannot read '/nonexistent/parts/body.xml'"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Errors name the file, line and element, say what is wrong and what is allowed.
#[test]
fn mjcf_errors_name_element_and_line() {
    let m = message(
        "<mujoco>\n<worldbody>\n<body name='b'>\n<joint name='j' type='screw'/>\n<geom size='0.1'/>\n</body>\n</worldbody>\n</mujoco>",
    );
    assert!(
        m.starts_with("MJCF <string>:4: <joint name='j'>: joint type 'screw'"),
        "{m}"
    );
    assert!(m.contains("allowed: hinge, slide, ball, free"), "{m}");
    let m = message(
        "<mujoco>\n<worldbody>\n<body>\n<geom size='0.1 abc'/>\n</body>\n</worldbody>\n</mujoco>",
    );
    assert!(
        m.starts_with("MJCF <string>:4: <geom>: attribute size=\"0.1 abc\" is invalid"),
        "{m}"
    );
    let m = message(
        "<mujoco><worldbody><body><geom size='0.1' colour='red'/></body></worldbody></mujoco>",
    );
    assert!(m.contains("attribute 'colour' is not supported"), "{m}");
    let m = message(
        "<mujoco><worldbody><body><geom class='nope' size='0.1'/></body></worldbody></mujoco>",
    );
    assert!(m.contains("default class 'nope' is not defined"), "{m}");
    let m = message(
        "<mujoco>\n<worldbody><geom size='1'/></worldbody>\n<equality><flex flex='a'/></equality></mujoco>",
    );
    assert!(
        m.starts_with(
            "MJCF <string>:3: <flex>: flex equality constraints are not supported (allowed: \
             joint, tendon, connect, weld)"
        ),
        "{m}"
    );
    let m = message(
        "<mujoco><worldbody><body><geom type='hfield' size='1'/></body></worldbody></mujoco>",
    );
    assert!(m.contains("geom type 'hfield' is not supported"), "{m}");
    let m = message(
        "<mujoco><worldbody><body><body><freejoint/><geom size='1'/></body></body></worldbody></mujoco>",
    );
    assert!(
        m.contains("free joints are supported only in bodies directly in <worldbody>"),
        "{m}"
    );
    let m = message(
        "<mujoco><worldbody><body><joint range='1 0' limited='true'/><geom size='1'/></body></worldbody></mujoco>",
    );
    assert!(m.contains("lower < upper"), "{m}");
    let m = message(
        "<mujoco><worldbody><body><geom size='1'/></body></worldbody><actuator><motor joint='x'/></actuator></mujoco>",
    );
    assert!(m.contains("joint 'x' is not defined"), "{m}");
    let m = message(
        "<mujoco><worldbody><body><geom size='1' quat='1 0 0 0' euler='0 0 1'/></body></worldbody></mujoco>",
    );
    assert!(m.contains("at most one orientation"), "{m}");
    let m = message("<mujoco><compiler coordinate='global'/></mujoco>");
    assert!(m.contains("coordinate=\"global\" is invalid"), "{m}");
    let m = message("<mujoco><worldbody><body><geom size='1'/></body>");
    assert!(
        m.starts_with("MJCF <string>:1: document: not well-formed XML"),
        "{m}"
    );
    let m = message("<robot/>");
    assert!(m.contains("the root element must be <mujoco>"), "{m}");
    let e = load_mjcf("/nonexistent/model.xml", &MjcfOptions::default()).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("MJCF /nonexistent/model.xml: file:"),
        "{e}"
    );
}

/// Nested default classes, `childclass` and `class=`: the nearest class wins, attributes
/// fall back through the parents.
#[test]
fn mjcf_default_classes() {
    let xml = "<mujoco>
      <compiler angle='radian'/>
      <default>
        <joint axis='1 0 0' range='-1 1'/>
        <geom type='sphere' size='0.1' density='100'/>
        <default class='leg'>
          <joint axis='0 1 0'/>
          <default class='foot'><geom size='0.2'/></default>
        </default>
      </default>
      <worldbody>
        <body name='a'>
          <joint name='ja'/>
          <geom/>
          <body name='b' childclass='leg'>
            <joint name='jb'/>
            <geom/>
            <geom class='foot' pos='0 0 1'/>
            <geom class='main' pos='0 0 2'/>
          </body>
        </body>
      </worldbody>
    </mujoco>";
    let mj = import(xml).unwrap();
    let links = mj.model.links();
    let axis = |i: usize| match &links[i].joint {
        JointKind::Revolute { axis } => *axis,
        other => panic!("{other:?}"),
    };
    assert_eq!(axis(0), Vector3::x());
    assert_eq!(axis(1), Vector3::y());
    assert_eq!(links[1].limits, Some((-1.0, 1.0)));
    let sphere = |r: f64| 100.0 * 4.0 / 3.0 * std::f64::consts::PI * r * r * r;
    assert!((mj.model.mass(0) - sphere(0.1)).abs() < 1e-12);
    assert!((mj.model.mass(1) - (2.0 * sphere(0.1) + sphere(0.2))).abs() < 1e-12);
}

/// Degrees and radians give the same model; `eulerseq` upper case means fixed axes.
#[test]
fn mjcf_angle_units_and_euler_sequences() {
    let body = |angle: &str, seq: &str, range: &str, euler: &str| {
        format!(
            "<mujoco><compiler angle='{angle}' eulerseq='{seq}'/><worldbody>
               <body pos='0 0 1' euler='{euler}'><joint range='{range}'/><geom size='0.1'/></body>
             </worldbody></mujoco>"
        )
    };
    let deg = import(&body("degree", "xyz", "-90 45", "30 -20 10")).unwrap();
    let f = std::f64::consts::PI / 180.0;
    let rad = import(&body(
        "radian",
        "xyz",
        &format!("{} {}", -90.0 * f, 45.0 * f),
        &format!("{} {} {}", 30.0 * f, -20.0 * f, 10.0 * f),
    ))
    .unwrap();
    let (a, b) = (&deg.model.links()[0], &rad.model.links()[0]);
    let (la, lb) = (a.limits.unwrap(), b.limits.unwrap());
    assert!((la.0 - lb.0).abs() < 1e-15 && (la.1 - lb.1).abs() < 1e-15);
    assert!((la.0 + std::f64::consts::FRAC_PI_2).abs() < 1e-15);
    assert!(a.attachment.rotation.angle_to(&b.attachment.rotation) < 1e-14);
    // Moving axes x-y-z equal fixed axes Z-Y-X.
    let fixed = import(&body("degree", "ZYX", "-90 45", "10 -20 30")).unwrap();
    assert!(
        a.attachment
            .rotation
            .angle_to(&fixed.model.links()[0].attachment.rotation)
            < 1e-14
    );
    let r = a.attachment.rotation;
    let expected = nalgebra::UnitQuaternion::from_axis_angle(&Vector3::x_axis(), 30.0 * f)
        * nalgebra::UnitQuaternion::from_axis_angle(&Vector3::y_axis(), -20.0 * f)
        * nalgebra::UnitQuaternion::from_axis_angle(&Vector3::z_axis(), 10.0 * f);
    assert!(r.angle_to(&expected) < 1e-14);
}

/// Position servos, velocity servos, joint springs and dampers as stable-PD gains; motors as
/// joint forces.
#[test]
fn mjcf_actuators_as_controls() {
    let mj = load("features");
    let (a, b, s) = (
        mj.model
            .joint_link("shoulder_a")
            .map(|l| mj.model.dof_offset(l))
            .unwrap(),
        mj.model
            .joint_link("shoulder_b")
            .map(|l| mj.model.dof_offset(l))
            .unwrap(),
        mj.model
            .joint_link("swing")
            .map(|l| mj.model.dof_offset(l))
            .unwrap(),
    );
    assert!(
        matches!(mj.actuators[1].kind, ActuatorKind::Position { kp, kv } if kp == 50.0 && kv == 2.0)
    );
    let ctrl = [5.0, 0.8, 0.4];
    let only = mj.actuator_control(&ctrl).unwrap();
    // Position servo, gear 2: force 2·(50 (0.8 − 2 q_mj) − 2·2 q̇), q_mj = q + ref (0.3):
    // 200 N·m/rad towards 0.1 rad, 8 N·m·s/rad.
    assert_eq!(only.kp[b], 200.0);
    assert!((only.position[b] - (0.4 - 0.3)).abs() < 1e-12);
    assert_eq!(only.kd[b], 8.0);
    // Velocity servo kv 3 toward 0.4 rad/s.
    assert!(only.kd[s] == 3.0 && (only.velocity[s] - 0.4).abs() < 1e-12);
    assert_eq!(only.kp[a], 0.0);
    // With the joints' springs and dampers: swing's stiffness 3 about springref 0.2.
    let all: Control = mj.control(&ctrl).unwrap();
    assert!(all.kp[s] == 3.0 && (all.position[s] - 0.2).abs() < 1e-12);
    assert_eq!(all.kd[s], 3.0 + 0.5);
    assert!((all.velocity[s] - 3.0 * 0.4 / 3.5).abs() < 1e-12);
    // The motor: ctrl clamped to 1, gear 20.
    let tau = mj.motor_forces(&ctrl).unwrap();
    assert_eq!(tau[a], 20.0);
    assert_eq!(tau.iter().filter(|&&t| t != 0.0).count(), 1);
    assert!(JointForces::new(&mj.model, tau).is_ok());
    assert!(mj.control(&[1.0]).is_err());
}

/// Hopper and ant dropped on their floor: no error, no NaN, and the floor stops them (the
/// imported hulls, the floor slab and the contype/conaffinity groups work with contact).
#[test]
fn mjcf_hopper_and_ant_drop_on_the_floor() {
    for (name, lift) in [("hopper", 0.1), ("ant", 0.0)] {
        let mj = load(name);
        // The XML pose moved strictly inside every joint limit (MuJoCo's qpos0 may sit on or
        // outside one): the hopper stands, the ant's legs point down.
        let mut state = mj.initial_state();
        for (i, link) in mj.model.links().iter().enumerate() {
            if let Some((lo, hi)) = link.limits {
                let margin = 0.05 * (hi - lo);
                state.q[mj.model.dof_offset(i)] = 0f64.clamp(lo + margin, hi - margin);
            }
        }
        // The vertical DoF: hopper's rootz, the ant's free z.
        let up = if name == "ant" { 2 } else { 1 };
        state.q[up] += lift;
        let dt = 0.01;
        let mut settings = StepSettings::new(dt).unwrap();
        settings.contact = Some(sdrs_dynamics::scenes::sdrs_contact(None).unwrap());
        let mut sim = Simulator::new(mj.model.clone(), settings).unwrap();
        let mut motion = Motion::at_rest(&mj.model, state.clone());
        let control = mj.control(&vec![0.0; mj.actuators.len()]).unwrap();
        let start = state.q[up];
        let steps = 60;
        for step in 0..steps {
            sim.advance(&mut motion, &control)
                .unwrap_or_else(|e| panic!("{name} step {step}: {e}"));
            assert!(
                motion.state.q.iter().all(|x| x.is_finite()),
                "{name} step {step}"
            );
        }
        let drop = start - motion.state.q[up];
        let free_fall = 0.5 * 9.81 * (steps as f64 * dt).powi(2);
        eprintln!("{name}: fell {drop:.3} m in {steps} steps (free fall {free_fall:.3} m)");
        assert!(drop > 0.02, "{name} did not fall: {drop}");
        assert!(
            drop < 0.5 * free_fall,
            "{name} fell {drop} m, the floor did not stop it"
        );
    }
}

/// A mesh geom: its hull, and its mass from the mesh volume (a scaled unit cube in OBJ).
#[test]
fn mjcf_mesh_geoms() {
    let dir = std::env::temp_dir().join(format!("sdrs-mjcf-mesh-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("meshes")).unwrap();
    let mut obj = String::new();
    for k in 0..8 {
        let c = |bit: u32| if k & (1 << bit) != 0 { 0.5 } else { -0.5 };
        obj += &format!("v {} {} {}\n", c(0), c(1), c(2));
    }
    for f in [
        [1, 3, 4, 2],
        [5, 6, 8, 7],
        [1, 2, 6, 5],
        [3, 7, 8, 4],
        [1, 5, 7, 3],
        [2, 4, 8, 6],
    ] {
        obj += &format!(
            "f {} {} {}\nf {} {} {}\n",
            f[0], f[1], f[2], f[0], f[2], f[3]
        );
    }
    std::fs::write(dir.join("meshes/cube.obj"), obj).unwrap();
    let xml = "<mujoco><compiler meshdir='meshes'/>
      <asset><mesh file='cube.obj' scale='0.2 0.4 0.6'/></asset>
      <worldbody><body pos='0 0 1'><freejoint/>
        <geom type='mesh' mesh='cube' pos='0.1 0 0' density='500'/>
      </body></worldbody></mujoco>";
    let mj = mjcf_from_str(xml, &dir, &MjcfOptions::default()).unwrap();
    let link = &mj.model.links()[0];
    assert_eq!(link.hulls.len(), 1);
    assert_eq!(link.hulls[0].vertices().len(), 8);
    assert!((mj.model.mass(0) - 500.0 * 0.2 * 0.4 * 0.6).abs() < 1e-9);
    let s = mj.model.second_moment(0);
    assert!(
        (s[(0, 3)] / s[(3, 3)] - 0.1).abs() < 1e-12,
        "centre of mass x"
    );
    let missing =
        "<mujoco><worldbody><body><geom type='mesh' mesh='none'/></body></worldbody></mujoco>";
    assert!(message(missing).contains("mesh 'none' is not defined"));
    std::fs::remove_dir_all(&dir).ok();
}

/// A body frame sits at the last joint's anchor in its link: the body's world pose is the
/// link's pose times the offset, as MuJoCo places it (hopper foot at qpos0).
#[test]
fn mjcf_body_offsets_place_bodies() {
    let hopper = load("hopper");
    let state = hopper.initial_state();
    let (poses, _) = forward_kinematics(&hopper.model, state.q.as_slice(), &state.references);
    let (link, offset): (usize, Isometry3<f64>) = hopper.body("foot").unwrap();
    let foot = poses[link] * offset;
    assert!(
        (foot.translation.vector - Vector3::new(0.13, 0.0, 0.0)).norm() < 1e-12,
        "{foot}"
    );
}

/// MuJoCo's `filterparent`: a body never touches its parent body, also when one MJCF body
/// becomes several links (the humanoid's thigh has three hinges: its last link's parent link
/// is a joint link, not the pelvis, so the parent-child rule of the contact settings alone
/// would let the overlapping capsules collide); `<flag filterparent="disable"/>` keeps them.
#[test]
fn mjcf_parent_and_child_bodies_never_touch() {
    let humanoid = load("humanoid");
    let link = |name: &str| humanoid.body(name).unwrap().0;
    let (pelvis, thigh, shin) = (link("pelvis"), link("right_thigh"), link("right_shin"));
    assert!(!humanoid.model.may_touch(pelvis, thigh, false));
    assert!(!humanoid.model.may_touch(thigh, shin, false));
    // Not parent and child: still collide (group 1, mask 1).
    assert!(humanoid.model.may_touch(pelvis, shin, true));
    assert!(
        humanoid
            .model
            .may_touch(link("right_foot"), link("left_foot"), true)
    );
    let xml = |flag: &str| {
        format!(
            r#"<mujoco><option>{flag}</option><worldbody><geom type="plane" size="1 1 0.1"/>
            <body name="a"><freejoint/><geom type="sphere" size="0.1"/>
            <body name="b"><joint type="hinge"/><joint type="hinge" axis="1 0 0"/>
            <geom type="sphere" size="0.1"/></body></body></worldbody></mujoco>"#
        )
    };
    let filtered = import(&xml("")).unwrap();
    let (a, b) = (filtered.body("a").unwrap().0, filtered.body("b").unwrap().0);
    assert!(!filtered.model.may_touch(a, b, false));
    // The world's plane and a top-level body: not parent and child for MuJoCo.
    assert!(filtered.model.may_touch(0, a, true));
    let kept = import(&xml(r#"<flag filterparent="disable"/>"#)).unwrap();
    assert!(kept.model.may_touch(a, b, false));
    let bad = message(&xml(r#"<flag filterparent="maybe"/>"#));
    assert!(
        bad.contains("filterparent") && bad.contains("enable, disable"),
        "{bad}"
    );
}
