//! Analytical derivatives of inverse dynamics, `∂τ/∂q`, `∂τ/∂q̇` and `∂τ/∂q̈ = M`, in
//! O(n·d) by one forward and one backward pass (Carpentier & Mansard, "Analytical derivatives
//! of rigid body dynamics algorithms", RSS 2018, sec. IV, in world coordinates as there).
//!
//! With the RNEA quantities of [`RigidBodyData::rnea`], let `Ṡ_j = v_j × S_j` and
//! `X_j = a_j × S_j − Ṡ_j × v_j`. Moving `q_j` moves `j`'s subtree rigidly by the screw
//! `S_j`, which leaves `S_kᵀ F_k` unchanged for `k ⪰ j` except through the velocities and
//! accelerations of `j` itself, which do not move: body `i ⪰ j` sees its velocity change by
//! `Ṡ_j` and its acceleration by `X_j + Ṡ_j × v_i`. A body's force then changes by
//! `I_i X + B_i Δ` for a velocity change `Δ`, with
//!
//! ```text
//! B_i Δ = I_i (Δ × v_i) + Δ ×* (I_i v_i) + v_i ×* (I_i Δ)        (linear in Δ)
//! ```
//!
//! and, summing over subtrees (composite `I^c_k`, `B^c_k`), for `j ⪯ k`:
//!
//! ```text
//! ∂τ_k/∂q_j = S_kᵀ (I^c_k X_j + B^c_k Ṡ_j)          ∂τ_j/∂q_k = S_jᵀ (S_k ×* F_k + I^c_k X_k + B^c_k Ṡ_k)   (j ≺ k)
//! ∂τ_k/∂q̇_j = S_kᵀ (2 I^c_k Ṡ_j + B^c_k S_j)        ∂τ_j/∂q̇_k = S_jᵀ (2 I^c_k Ṡ_k + B^c_k S_k)            (j ≺ k)
//! ```
//!
//! (the q̇ terms from `∂v_i/∂q̇_j = S_j` and `∂a_i/∂q̇_j = S_j × v_i + 2 Ṡ_j`); DoFs on
//! different branches do not couple.

use super::data::{RigidBodyData, ancestors};
use super::spatial::{cross_force, cross_motion, force_cross_bar_matrix, motion_cross_matrix};
use crate::error::Result;
use crate::kinematics::State;
use crate::model::Model;
use nalgebra::{DMatrix, DVector, Matrix6, Vector3};

/// The derivatives of inverse dynamics at one state, borrowed from a [`RigidBodyData`].
#[derive(Debug, Clone, Copy)]
pub struct RneaDerivatives<'a> {
    /// `τ` itself (RNEA).
    pub tau: &'a DVector<f64>,
    /// `∂τ/∂q` (n x n).
    pub dtau_dq: &'a DMatrix<f64>,
    /// `∂τ/∂q̇` (n x n).
    pub dtau_dv: &'a DMatrix<f64>,
    /// `∂τ/∂q̈`: the joint-space inertia `M` (n x n, symmetric).
    pub dtau_da: &'a DMatrix<f64>,
}

impl RigidBodyData {
    /// `τ` and its derivatives with respect to `q`, `q̇` and `q̈` at `state`, velocity `v`,
    /// acceleration `a` and `gravity` (see [`RigidBodyData::rnea`]).
    ///
    /// ```
    /// use sdrs_dynamics::{RigidBodyData, State, scenes::chain};
    /// use nalgebra::{DVector, Vector3};
    /// let model = chain(3, 0.01)?.model;
    /// let mut data = RigidBodyData::new(&model);
    /// let state = State::new(&model, DVector::from_vec(vec![0.3, -0.2, 0.8]))?;
    /// let (v, a) = (DVector::from_element(3, 1.0), DVector::zeros(3));
    /// let g = Vector3::new(0.0, 0.0, -9.81);
    /// let d = data.rnea_derivatives(&model, &state, &v, &a, &g)?;
    /// let (dq, tau) = (d.dtau_dq.clone(), d.tau.clone());
    /// // Central difference along the first coordinate.
    /// let h = 1e-6;
    /// let mut plus = state.clone();
    /// plus.q[0] += h;
    /// let up = data.rnea(&model, &plus, &v, &a, &g)?.clone();
    /// plus.q[0] -= 2.0 * h;
    /// let down = data.rnea(&model, &plus, &v, &a, &g)?.clone();
    /// assert!(((up - down) / (2.0 * h) - dq.column(0)).norm() < 1e-6 * (1.0 + tau.norm()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn rnea_derivatives(
        &mut self,
        model: &Model,
        state: &State,
        v: &DVector<f64>,
        a: &DVector<f64>,
        gravity: &Vector3<f64>,
    ) -> Result<RneaDerivatives<'_>> {
        self.forward_kinematics(model, state)?;
        self.check_input("generalized velocity", v)?;
        self.check_input("generalized acceleration", a)?;
        let root = Self::root_acceleration(gravity)?;
        self.motion_pass(v, a, root);
        self.derivative_passes();
        Ok(RneaDerivatives {
            tau: &self.tau,
            dtau_dq: &self.dtau_dq,
            dtau_dv: &self.dtau_dv,
            dtau_da: &self.mass_matrix,
        })
    }

    /// The body forces and the backward pass of the derivatives, after
    /// [`RigidBodyData::motion_pass`].
    pub(super) fn derivative_passes(&mut self) {
        let n = self.dof();
        for k in 0..n {
            let (vk, ak, s) = (self.velocity[k], self.acceleration[k], self.screw[k]);
            let inertia = self.inertia[k];
            if self.body[k].is_some() {
                let h = inertia * vk;
                self.force[k] = inertia * ak + cross_force(&vk, &h);
                let iv = inertia * motion_cross_matrix(&vk);
                self.coriolis[k] = force_cross_bar_matrix(&h) - iv - iv.transpose();
            } else {
                self.force[k].fill(0.0);
                self.coriolis[k] = Matrix6::zeros();
            }
            self.composite[k] = inertia;
            let sdot = cross_motion(&vk, &s);
            self.dv[k] = sdot;
            self.da[k] = cross_motion(&ak, &s) - cross_motion(&sdot, &vk);
        }
        for k in (0..n).rev() {
            let (s, f) = (self.screw[k], self.force[k]);
            let (ic, bc) = (self.composite[k], self.coriolis[k]);
            self.tau[k] = s.dot(&f);
            let p = ic * s;
            let r = bc.tr_mul(&s);
            for j in ancestors(&self.parent, k) {
                let (sj, dvj, daj) = (self.screw[j], self.dv[j], self.da[j]);
                self.dtau_dq[(k, j)] = p.dot(&daj) + r.dot(&dvj);
                self.dtau_dv[(k, j)] = 2.0 * p.dot(&dvj) + r.dot(&sj);
                let m = p.dot(&sj);
                self.mass_matrix[(k, j)] = m;
                self.mass_matrix[(j, k)] = m;
            }
            let (dvk, dak) = (self.dv[k], self.da[k]);
            let y = cross_force(&s, &f) + ic * dak + bc * dvk;
            let z = ic * dvk * 2.0 + bc * s;
            let mut up = self.parent[k];
            while let Some(j) = up {
                self.dtau_dq[(j, k)] = self.screw[j].dot(&y);
                self.dtau_dv[(j, k)] = self.screw[j].dot(&z);
                up = self.parent[j];
            }
            if let Some(p) = self.parent[k] {
                self.force[p] += f;
                self.composite[p] += ic;
                self.coriolis[p] += bc;
            }
        }
    }
}
