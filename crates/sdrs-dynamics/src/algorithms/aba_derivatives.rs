//! Analytical derivatives of forward dynamics (Carpentier & Mansard, "Analytical derivatives
//! of rigid body dynamics algorithms", RSS 2018, sec. V): differentiating
//! `τ = RNEA(q, q̇, ABA(q, q̇, τ))` gives
//!
//! ```text
//! ∂q̈/∂q = −M⁻¹ ∂RNEA/∂q,    ∂q̈/∂q̇ = −M⁻¹ ∂RNEA/∂q̇,    ∂q̈/∂τ = M⁻¹,
//! ```
//!
//! with the RNEA derivatives taken at `q̈ = ABA(q, q̇, τ)` ([`crate::algorithms::rnea_derivatives`])
//! and `M⁻¹` from the articulated inertias the ABA pass leaves behind
//! ([`crate::algorithms::minverse`]): O(n²) recursions plus two n x n products.

use super::data::RigidBodyData;
use crate::error::Result;
use crate::kinematics::State;
use crate::model::Model;
use nalgebra::{DMatrix, DVector, Vector3};

/// The derivatives of forward dynamics at one state, borrowed from a [`RigidBodyData`].
#[derive(Debug, Clone, Copy)]
pub struct AbaDerivatives<'a> {
    /// `q̈` itself (ABA).
    pub ddq: &'a DVector<f64>,
    /// `∂q̈/∂q` (n x n).
    pub dddq_dq: &'a DMatrix<f64>,
    /// `∂q̈/∂q̇` (n x n).
    pub dddq_dv: &'a DMatrix<f64>,
    /// `∂q̈/∂τ = M⁻¹` (n x n, symmetric).
    pub dddq_dtau: &'a DMatrix<f64>,
}

impl RigidBodyData {
    /// `q̈` and its derivatives with respect to `q`, `q̇` and `τ` at `state`, velocity `v`,
    /// joint forces `tau` and `gravity` (see [`RigidBodyData::aba`]).
    ///
    /// ```
    /// use sdrs_dynamics::{RigidBodyData, State, scenes::chain};
    /// use nalgebra::{DVector, Vector3};
    /// let model = chain(3, 0.01)?.model;
    /// let mut data = RigidBodyData::new(&model);
    /// let state = State::new(&model, DVector::from_vec(vec![0.3, -0.2, 0.8]))?;
    /// let (v, tau) = (DVector::from_element(3, 1.0), DVector::zeros(3));
    /// let g = Vector3::new(0.0, 0.0, -9.81);
    /// let d = data.aba_derivatives(&model, &state, &v, &tau, &g)?;
    /// let dv = d.dddq_dv.clone();
    /// // Central difference along the second velocity.
    /// let h = 1e-6;
    /// let mut w = v.clone();
    /// w[1] += h;
    /// let up = data.aba(&model, &state, &w, &tau, &g)?.clone();
    /// w[1] -= 2.0 * h;
    /// let down = data.aba(&model, &state, &w, &tau, &g)?.clone();
    /// assert!(((up - down) / (2.0 * h) - dv.column(1)).norm() < 1e-5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn aba_derivatives(
        &mut self,
        model: &Model,
        state: &State,
        v: &DVector<f64>,
        tau: &DVector<f64>,
        gravity: &Vector3<f64>,
    ) -> Result<AbaDerivatives<'_>> {
        self.aba(model, state, v, tau, gravity)?;
        let root = Self::root_acceleration(gravity)?;
        let ddq = std::mem::replace(&mut self.ddq, DVector::zeros(0));
        self.motion_pass(v, &ddq, root);
        self.ddq = ddq;
        self.derivative_passes();
        self.minverse_from_pivots();
        self.dddq_dq.gemm(-1.0, &self.minv, &self.dtau_dq, 0.0);
        self.dddq_dv.gemm(-1.0, &self.minv, &self.dtau_dv, 0.0);
        Ok(AbaDerivatives {
            ddq: &self.ddq,
            dddq_dq: &self.dddq_dq,
            dddq_dv: &self.dddq_dv,
            dddq_dtau: &self.minv,
        })
    }
}
