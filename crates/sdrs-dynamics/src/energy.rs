//! The smooth energies of the time-stepping objective (SDRS eq. 2-5).
//!
//! **Inertia and gravity** (eq. 2-4) of a link with second moment `S = Σ m x̄ x̄ᵀ`: with the
//! step-(t+1) pose rows `T = [R | t]` and the predicted rows `Q = 2T^t − T^{t−1}`, every mass
//! point's displacement from its inertial prediction is `d = (T − Q) x̄`, so
//!
//! ```text
//! E = Σ m |d|² / (2Δt²) + g Σ m z = tr(A S Aᵀ) / (2Δt²) + g (R s + m t)_z,   A = T − Q
//! ```
//!
//! (`s` the first moment, `m` the mass), a few 3x4 products per link whatever its vertex count.
//! Its twist gradient is `(Σ m d, Σ m r × d) / Δt²` plus gravity's force and torque, with
//! `Σ m d = A S e₄` and `Σ m r dᵀ = [R|0] S Aᵀ`.
//!
//! **Stable PD** (eq. 5): `Σ_j k_p (θ*_j − θ_j)² + k_d (θ̇*_j − (θ_j − θ_j^t)/Δt)²`, exactly as
//! the paper writes it (no factor ½), evaluated by the stepper with `k_p = k/2` and
//! `k_d = c Δt/2` of the control's SI stiffness `k` and damping `c` ([`crate::Control`]), so
//! that the spring force is `k (θ* − θ)`.

use nalgebra::{Isometry3, Matrix3, Matrix4, SMatrix, Vector3};
use sdrs_geometry::twist::Twist;

/// The top three rows `[R | t]` of a pose.
pub fn rows(pose: &Isometry3<f64>) -> SMatrix<f64, 3, 4> {
    let mut m = SMatrix::<f64, 3, 4>::zeros();
    m.fixed_view_mut::<3, 3>(0, 0)
        .copy_from(pose.rotation.to_rotation_matrix().matrix());
    m.fixed_view_mut::<3, 1>(0, 3)
        .copy_from(&pose.translation.vector);
    m
}

/// Inertia plus gravity of one link, with its twist gradient and Hessian.
///
/// `predicted` is `2T^t − T^{t−1}` (rows), `gravity` the acceleration magnitude along −z.
pub fn link_energy(
    second_moment: &Matrix4<f64>,
    pose: &Isometry3<f64>,
    predicted: &SMatrix<f64, 3, 4>,
    dt: f64,
    gravity: f64,
) -> (f64, Twist, SMatrix<f64, 6, 6>) {
    let s = second_moment;
    let t = rows(pose);
    let a = t - predicted;
    let r = t.fixed_view::<3, 3>(0, 0).into_owned();
    let inv = 1.0 / (dt * dt);
    let a_s = a * s; // 3x4: columns Σ m d x̄ᵀ
    let mass = s[(3, 3)];
    let first = r * s.fixed_view::<3, 1>(0, 3); // Σ m r
    let value = 0.5 * inv * (a_s * a.transpose()).trace()
        + gravity * (first.z + mass * pose.translation.vector.z);
    let sum_d: Vector3<f64> = a_s.column(3).into_owned();
    // Σ m r dᵀ = [R|0] S Aᵀ: its transpose N = Σ m d rᵀ = A S [R|0]ᵀ.
    let n: Matrix3<f64> = a_s.fixed_view::<3, 3>(0, 0) * r.transpose();
    let torque = Vector3::new(
        n[(2, 1)] - n[(1, 2)],
        n[(0, 2)] - n[(2, 0)],
        n[(1, 0)] - n[(0, 1)],
    );
    let up = Vector3::z() * gravity;
    let mut g = Twist::zeros();
    g.fixed_rows_mut::<3>(0)
        .copy_from(&(sum_d * inv + up * mass));
    g.fixed_rows_mut::<3>(3)
        .copy_from(&(torque * inv + first.cross(&up)));
    let mut h = SMatrix::<f64, 6, 6>::zeros();
    h.fixed_view_mut::<3, 3>(0, 0)
        .copy_from(&(Matrix3::identity() * mass * inv));
    let coupling = -first.cross_matrix() * inv;
    h.fixed_view_mut::<3, 3>(0, 3).copy_from(&coupling);
    h.fixed_view_mut::<3, 3>(3, 0)
        .copy_from(&coupling.transpose());
    // Σ m (sym(r dᵀ) − (d·r) I − [r]×[r]×) / Δt², plus gravity's second-order rotation term.
    let rr = r * s.fixed_view::<3, 3>(0, 0) * r.transpose(); // Σ m r rᵀ
    let sym = (n + n.transpose()) * 0.5;
    let ww = (sym - Matrix3::identity() * n.trace() - rr + Matrix3::identity() * rr.trace()) * inv
        + (first * up.transpose() + up * first.transpose()) * 0.5
        - Matrix3::identity() * up.dot(&first);
    h.fixed_view_mut::<3, 3>(3, 3).copy_from(&ww);
    (value, g, h)
}

/// Dry joint friction `f` (N·m or N) over a step of `dt` in which the DoF moves by `dq` (so at
/// velocity `v = dq/Δt`): the dissipation `f Δt (√(v² + ε²) − ε)`, with its first and second
/// derivatives in the DoF. Its force `−f v/√(v² + ε²)` opposes the motion with magnitude `f`
/// once `|v| ≫ ε` (MuJoCo's `frictionloss`, Coulomb friction in the joint), and is a viscous
/// `−f v/ε` below: `ε` (`velocity`, rad/s or m/s) smooths the kink at rest, so that a joint held
/// by less than `f` creeps at `ε τ/√(f² − τ²)` instead of sticking exactly.
///
/// ```
/// use sdrs_dynamics::energy::joint_friction;
/// // A joint sliding at 1 rad/s feels the full friction 2 N·m against it.
/// let (_, force, _) = joint_friction(2.0, 0.01, 0.01, 1e-4);
/// assert!((force - 2.0).abs() < 1e-6);
/// // At rest nothing acts, and the curvature is that of a viscous damper f/ε.
/// let (value, force, curvature) = joint_friction(2.0, 0.0, 0.01, 1e-4);
/// assert_eq!((value, force), (0.0, 0.0));
/// assert!((curvature - 2.0 / 1e-4 / 0.01).abs() < 1e-6);
/// ```
pub fn joint_friction(friction: f64, dq: f64, dt: f64, velocity: f64) -> (f64, f64, f64) {
    let v = dq / dt;
    let root = v.hypot(velocity);
    let value = friction * dt * (root - velocity);
    let first = friction * v / root;
    let second = friction * velocity * velocity / (root * root * root) / dt;
    (value, first, second)
}

/// How the inertial twist gradient of a link at step t+1 changes with the twists of its poses
/// at steps t and t−1 (the blocks the backward pass needs): `(∂g/∂ξ^t, ∂g/∂ξ^{t−1})`.
///
/// The displacement `d = (T − 2T^t + T^{t−1}) x̄` depends on a pose `P` with coefficient `c`
/// (−2 for `T^t`, +1 for `T^{t−1}`); with `r = R x`, `r_P = R_P x` and `S₃ = Σ m x xᵀ`:
/// `∂(Σ m d)/∂(v_P, ω_P) = c (m I, −[R_P s]×)` and
/// `∂(Σ m r × d)/∂(v_P, ω_P) = c ([R s]×, −(R_P S₃ Rᵀ − tr(R_P S₃ Rᵀ) I))`, all over `Δt²`.
pub fn link_energy_cross(
    second_moment: &Matrix4<f64>,
    pose: &Isometry3<f64>,
    current: &Isometry3<f64>,
    previous: &Isometry3<f64>,
    dt: f64,
) -> (SMatrix<f64, 6, 6>, SMatrix<f64, 6, 6>) {
    let s3 = second_moment.fixed_view::<3, 3>(0, 0).into_owned();
    let s = second_moment.fixed_view::<3, 1>(0, 3).into_owned();
    let mass = second_moment[(3, 3)];
    let r: Matrix3<f64> = pose.rotation.into();
    let block = |other: &Isometry3<f64>, c: f64| {
        let rp: Matrix3<f64> = other.rotation.into();
        let cross = rp * s3 * r.transpose();
        let mut m = SMatrix::<f64, 6, 6>::zeros();
        m.fixed_view_mut::<3, 3>(0, 0)
            .copy_from(&(Matrix3::identity() * mass));
        m.fixed_view_mut::<3, 3>(0, 3)
            .copy_from(&(-(rp * s).cross_matrix()));
        m.fixed_view_mut::<3, 3>(3, 0)
            .copy_from(&(r * s).cross_matrix());
        m.fixed_view_mut::<3, 3>(3, 3)
            .copy_from(&(-(cross - Matrix3::identity() * cross.trace())));
        m * (c / (dt * dt))
    };
    (block(current, -2.0), block(previous, 1.0))
}

/// How the inertia + gravity twist gradient of a link with vertex-lumped mass (`m_v` per
/// vertex) changes with one local vertex `x` (6x3): with `A = T − Q`, `r = R x` and
/// `d = A x̄`, `∂(m_v d)/∂x = m_v A₃` and `∂(m_v r × d)/∂x = m_v ([r]× A₃ − [d]× R)`, over
/// `Δt²`, plus gravity's torque `m_v (−[g e_z]× R)`.
pub fn link_energy_vertex(
    vertex_mass: f64,
    vertex: &Vector3<f64>,
    pose: &Isometry3<f64>,
    predicted: &SMatrix<f64, 3, 4>,
    dt: f64,
    gravity: f64,
) -> SMatrix<f64, 6, 3> {
    let t = rows(pose);
    let a = t - predicted;
    let a3 = a.fixed_view::<3, 3>(0, 0).into_owned();
    let r_mat = t.fixed_view::<3, 3>(0, 0).into_owned();
    let r = r_mat * vertex;
    let d = a3 * vertex + a.column(3);
    let inv = 1.0 / (dt * dt);
    let up = Vector3::z() * gravity;
    let mut m = SMatrix::<f64, 6, 3>::zeros();
    m.fixed_view_mut::<3, 3>(0, 0).copy_from(&(a3 * inv));
    m.fixed_view_mut::<3, 3>(3, 0).copy_from(
        &((r.cross_matrix() * a3 - d.cross_matrix() * r_mat) * inv - up.cross_matrix() * r_mat),
    );
    m * vertex_mass
}
