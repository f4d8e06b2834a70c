//! [`StepJacobian`]: the derivatives of one step of [`NcpSimulator`] with respect to the start
//! configuration, velocity and control forces (NCP paper, sec. III-D and appendix D).
//!
//! The step is `v⁺ = v_f + M⁻¹ J_cᵀ λ` and `q⁺ = q ⊕ Δt v⁺`, with `λ` solving eq. 1 for
//! `G = J_c M⁻¹ J_cᵀ` and `g = J_c v_f + c/Δt`. At fixed impulses `v⁺` is the free dynamics
//! under the joint forces `τ + J_cᵀ λ/Δt`, `v⁺ = v + Δt ABA(q, v, τ + J_cᵀ λ/Δt)`, so one call
//! of the ABA derivatives gives `∂v⁺/∂(q, v, τ)|_λ` (with `∂J_cᵀ/∂q λ` from
//! `contact_terms`); the contact velocity `σ = J_c v⁺ + c/Δt = G λ + g` then changes at
//! fixed impulses by `r = ∂J_c/∂θ v⁺ + J_c ∂v⁺/∂θ|_λ + ∂(c/Δt)/∂θ`, which is `dG λ + dg` of
//! eq. 11: [`ImplicitGradient::forward_residuals`] turns it into `dλ` (the mode-aware reduced
//! system), and `dv⁺ = ∂v⁺/∂θ|_λ + M⁻¹ J_cᵀ dλ`.
//!
//! **Conventions.** `θ = (q, v, u)` with `u` the control's generalized force
//! ([`sdrs_dynamics::Control::force`], one per DoF). The PD terms of the control are explicit
//! in `q` and `v` and are part of the chain (`∂τ/∂q = −kp`, `∂τ/∂v = −kd`; the rotation
//! coordinates of a re-centred free or spherical joint are zero whatever the configuration, so
//! their PD error does not change). Configurations are perturbed in tangent coordinates:
//! `q ⊕ δ` is [`sdrs_dynamics::Model::integrate`] (additive coordinates, and the rotation
//! vector `δ` in the joint's moving frame for spherical and free joints, `R ↦ R Exp(δ)`), so
//! the `q⁺` rows are `dq⁺ = difference(q⁺, q⁺ + d)`. Velocities are the stepper's (see
//! [`crate::stepper`]). Because the stepper re-centres its chart, a rotation perturbation
//! also re-expresses `v` and the joint forces in the turned chart (module `chart`); and
//! `q⁺ = q Exp(Δt v⁺)` on a rotation block gives `dq⁺ = Exp(−Δt v⁺) δ + J_r(Δt v⁺) Δt dv⁺`.
//!
//! Away from mode boundaries and feature switches of collision detection these are the
//! derivatives of [`NcpSimulator::step`] (the contact set is held fixed: a perturbation that
//! creates or removes a contact is a boundary).

mod chart;
mod contact_terms;

use crate::error::NcpError;
use crate::implicit::ImplicitGradient;
use crate::solver::ContactMode;
use crate::stepper::NcpSimulator;
use crate::stepper::record::StepRecord;
use contact_terms::contact_terms;
use nalgebra::{DMatrix, DVector, Matrix3, UnitQuaternion, Vector3};

/// The Jacobian of one step: `(q⁺, v⁺)` with respect to `(q, v, u)` (see the [module
/// docs](self) for the coordinates), each block n x n.
///
/// ```
/// use sdrs_dynamics::{Control, JointKind, Link, MassModel, Model, State};
/// use sdrs_geometry::ConvexHull;
/// use sdrs_ncp::{NcpSettings, NcpSimulator};
/// use nalgebra::{DVector, Isometry3, Vector3};
/// // A 1 kg cube sliding on the ground at 1 m/s along x.
/// let cube = ConvexHull::cuboid(Vector3::repeat(0.1))?;
/// let link = Link::new("box", None, Isometry3::identity(), JointKind::Free, vec![cube], MassModel::Lumped { mass: 1.0 });
/// let model = Model::new(vec![link])?;
/// let settings = NcpSettings::new(1e-3)?.with_ground(Vector3::z(), 0.0)?.with_friction(0.3)?;
/// let mut sim = NcpSimulator::new(model.clone(), settings);
/// let mut state = State::new(&model, DVector::from_vec(vec![0.0, 0.0, 0.09995, 0.0, 0.0, 0.0]))?;
/// let mut v = DVector::from_vec(vec![1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
/// let (_, record) = sim.step_recorded(&mut state, &mut v, &Control::passive(&model))?;
/// let jacobian = sim.step_jacobian(&record)?;
/// // Kinetic friction: pushing the cube faster along x leaves the deceleration unchanged.
/// assert!((jacobian.dv_dv[(0, 0)] - 1.0).abs() < 1e-9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct StepJacobian {
    /// `∂q⁺/∂q`.
    pub dq_dq: DMatrix<f64>,
    /// `∂q⁺/∂v`.
    pub dq_dv: DMatrix<f64>,
    /// `∂q⁺/∂u`.
    pub dq_du: DMatrix<f64>,
    /// `∂v⁺/∂q`.
    pub dv_dq: DMatrix<f64>,
    /// `∂v⁺/∂v`.
    pub dv_dv: DMatrix<f64>,
    /// `∂v⁺/∂u`.
    pub dv_du: DMatrix<f64>,
    /// The contact modes the implicit differentiation used (one per contact).
    pub modes: Vec<ContactMode>,
    /// Whether eq. 11's reduced matrix was singular and solved by its pseudo-inverse (see
    /// [`crate::implicit`]).
    pub rank_deficient: bool,
}

/// The cotangents `(q̄, v̄, ū)` of a step's inputs.
pub type InputCotangents = (DVector<f64>, DVector<f64>, DVector<f64>);

impl StepJacobian {
    /// The number of DoFs.
    pub fn dof(&self) -> usize {
        self.dq_dq.nrows()
    }

    /// Forward mode: `(dq⁺, dv⁺)` for the perturbation `(dq, dv, du)`.
    pub fn jvp(
        &self,
        dq: &DVector<f64>,
        dv: &DVector<f64>,
        du: &DVector<f64>,
    ) -> Result<(DVector<f64>, DVector<f64>), NcpError> {
        for (what, x) in [("dq", dq), ("dv", dv), ("du", du)] {
            check_len(what, x, self.dof())?;
        }
        Ok((
            &self.dq_dq * dq + &self.dq_dv * dv + &self.dq_du * du,
            &self.dv_dq * dq + &self.dv_dv * dv + &self.dv_du * du,
        ))
    }

    /// Reverse mode: for the cotangents `(q̄⁺, v̄⁺)` of the step's outputs, those of its
    /// inputs `(q̄, v̄, ū)`.
    pub fn vjp(
        &self,
        q_bar: &DVector<f64>,
        v_bar: &DVector<f64>,
    ) -> Result<InputCotangents, NcpError> {
        check_len("q cotangent", q_bar, self.dof())?;
        check_len("v cotangent", v_bar, self.dof())?;
        Ok((
            self.dq_dq.tr_mul(q_bar) + self.dv_dq.tr_mul(v_bar),
            self.dq_dv.tr_mul(q_bar) + self.dv_dv.tr_mul(v_bar),
            self.dq_du.tr_mul(q_bar) + self.dv_du.tr_mul(v_bar),
        ))
    }
}

fn check_len(what: &'static str, x: &DVector<f64>, n: usize) -> Result<(), NcpError> {
    crate::solver::problem::check_size(what, x.len(), n)?;
    crate::solver::problem::check_finite(what, x.as_slice())
}

fn block(x: &DVector<f64>, start: usize) -> Vector3<f64> {
    x.fixed_rows::<3>(start).into_owned()
}

impl NcpSimulator {
    /// The [`StepJacobian`] of the step that produced `record` (from
    /// [`NcpSimulator::step_recorded`] of this simulator).
    ///
    /// Errors: a record of another model ([`NcpError::SizeMismatch`]), a contact feature
    /// collision detection cannot differentiate ([`NcpError::Geometry`]), or eq. 11 without
    /// a least-squares solution ([`NcpError::Implicit`]).
    pub fn step_jacobian(&mut self, record: &StepRecord) -> Result<StepJacobian, NcpError> {
        let (model, settings) = (&self.model, &self.settings);
        let n = model.dof();
        let dt = settings.dt();
        for (what, x) in [
            ("recorded velocity", &record.velocity),
            ("recorded joint forces", &record.tau),
            ("recorded kp", &record.kp),
            ("recorded kd", &record.kd),
            ("recorded next velocity", &record.next_velocity),
        ] {
            check_len(what, x, n)?;
        }
        let (jacobian, impulses) = match &record.solved {
            Some(s) => (s.jacobian.clone(), s.solution.impulses.clone()),
            None => (DMatrix::zeros(0, n), DVector::zeros(0)),
        };
        let m = impulses.len();
        if jacobian.shape() != (m, n) || m != 3 * record.contacts.len() {
            return Err(NcpError::SizeMismatch {
                what: "recorded contact Jacobian rows",
                actual: jacobian.nrows(),
                expected: 3 * record.contacts.len(),
            });
        }
        let tau_total = &record.tau + jacobian.tr_mul(&impulses) / dt;
        let d = self.data.aba_derivatives(
            model,
            &record.state,
            &record.velocity,
            &tau_total,
            &settings.gravity(),
        )?;
        let (aq, av, minv) = (d.dddq_dq.clone(), d.dddq_dv.clone(), d.dddq_dtau.clone());
        let v_next = &record.next_velocity;
        let terms = contact_terms(
            model,
            &self.data,
            settings,
            &record.contacts,
            v_next,
            &impulses,
        )?;
        let rotations: Vec<usize> = model.rotation_blocks().collect();

        // ∂v⁺/∂(q, v, u) at fixed impulses, in the old chart (module docs of `chart`).
        let mut kp = record.kp.clone();
        for &r in &rotations {
            kp.rows_mut(r, 3).fill(0.0);
        }
        let mut fixed = DMatrix::zeros(n, 3 * n);
        {
            let mut q_cols = fixed.columns_mut(0, n);
            q_cols.copy_from(&(&aq * dt + &minv * &terms.transpose_times_impulse));
            q_cols -= &minv * DMatrix::from_diagonal(&kp) * dt;
        }
        for &r in &rotations {
            let v = block(&record.velocity, r);
            let tau = block(&record.tau, r);
            for a in 0..3 {
                let delta = Vector3::ith(a, 1.0);
                let w = chart::t1(&delta, &v);
                let mut wn = DVector::zeros(n);
                wn.rows_mut(r, 3).copy_from(&w);
                let mut force = DVector::zeros(n);
                force
                    .rows_mut(r, 3)
                    .copy_from(&-chart::t1_transposed(&delta, &tau));
                let bias = chart::bias_chart_derivative(&delta, &v)
                    + chart::bias_velocity_derivative(&v, &w)
                    - chart::t1(&delta, &chart::bias(&v));
                let mut column = &wn + (&av * &wn + &minv * force) * dt;
                let mut rows = column.rows_mut(r, 3);
                rows += bias * dt;
                let mut target = fixed.column_mut(r + a);
                target += column;
            }
        }
        {
            let mut v_cols = fixed.columns_mut(n, n);
            v_cols.copy_from(&(DMatrix::identity(n, n) + &av * dt));
            v_cols -= &minv * DMatrix::from_diagonal(&record.kd) * dt;
        }
        fixed.columns_mut(2 * n, n).copy_from(&(&minv * dt));

        // Eq. 11: dλ from the change of the contact velocity at fixed impulses.
        let (mut dv, modes, rank_deficient) = match &record.solved {
            None => (fixed, Vec::new(), false),
            Some(solved) => {
                let gradient = ImplicitGradient::new(
                    &solved.problem,
                    &solved.solution,
                    settings.mode_tolerance(),
                )?;
                let mut residuals = &jacobian * &fixed;
                {
                    let mut q_cols = residuals.columns_mut(0, n);
                    q_cols += &terms.jacobian_times_velocity + &terms.drift;
                }
                let dlambda = gradient.forward_residuals(&residuals)?;
                let dv = fixed + &minv * jacobian.tr_mul(&dlambda);
                (dv, gradient.modes().to_vec(), gradient.is_rank_deficient())
            }
        };
        // Back to the turned chart: v⁺_new = T⁻¹ v⁺_old.
        for &r in &rotations {
            let v = block(v_next, r);
            for a in 0..3 {
                let w = chart::t1(&Vector3::ith(a, 1.0), &v);
                let mut rows = dv.view_mut((r, r + a), (3, 1));
                rows -= w;
            }
        }

        // q⁺ = q ⊕ Δt v⁺.
        let mut dq = &dv * dt;
        for k in 0..n {
            dq[(k, k)] += 1.0;
        }
        for &r in &rotations {
            let phi = block(v_next, r) * dt;
            let jr = chart::right_jacobian(&phi) * dt;
            let transport: Matrix3<f64> = UnitQuaternion::from_scaled_axis(-phi)
                .to_rotation_matrix()
                .into_inner();
            let rows = jr * dv.rows(r, 3);
            dq.rows_mut(r, 3).copy_from(&rows);
            let mut own = dq.view_mut((r, r), (3, 3));
            own += transport;
        }
        Ok(StepJacobian {
            dq_dq: dq.columns(0, n).into_owned(),
            dq_dv: dq.columns(n, n).into_owned(),
            dq_du: dq.columns(2 * n, n).into_owned(),
            dv_dq: dv.columns(0, n).into_owned(),
            dv_dv: dv.columns(n, n).into_owned(),
            dv_du: dv.columns(2 * n, n).into_owned(),
            modes,
            rank_deficient,
        })
    }
}
