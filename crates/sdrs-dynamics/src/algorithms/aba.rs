//! Forward dynamics `q̈ = M⁻¹(τ − C q̇ − g)` by the articulated-body algorithm in O(n)
//! (Featherstone, *Rigid Body Dynamics Algorithms*, sec. 7.3, in world coordinates).
//!
//! Pass 1 (forward): velocities `v_k`, velocity products `c_k = v_k × S_k q̇_k`, and
//! `I^A_k = I_k`, `p^A_k = v_k ×* I_k v_k`. Pass 2 (backward): `U_k = I^A_k S_k`,
//! `D_k = S_kᵀ U_k`, `u_k = τ_k − S_kᵀ p^A_k`; the parent receives
//! `I^a = I^A_k − U_k U_kᵀ / D_k` and `p^a = p^A_k + I^a c_k + U_k u_k / D_k`. Pass 3 (forward):
//! `q̈_k = (u_k − U_kᵀ (a_λ + c_k)) / D_k`, `a_k = a_λ + c_k + S_k q̈_k` from `a_0 = (−g, 0)`.

use super::data::RigidBodyData;
use super::spatial::{cross_force, cross_motion};
use crate::error::{DynamicsError, Result};
use crate::kinematics::State;
use crate::model::Model;
use nalgebra::{DVector, Vector3, Vector6};

/// Pivots `D_k` below this fraction of the articulated inertia's trace are singular.
const SINGULAR_PIVOT: f64 = 1e-12;

impl RigidBodyData {
    /// The accelerations `q̈` at `state` moving with generalized velocity `v` under joint
    /// forces `tau` and `gravity` (a world acceleration). Fails with
    /// [`DynamicsError::SingularInertia`] when a DoF moves no mass.
    ///
    /// ```
    /// use sdrs_dynamics::{RigidBodyData, State, scenes::chain};
    /// use nalgebra::{DVector, Vector3};
    /// let model = chain(2, 0.01)?.model;
    /// let mut data = RigidBodyData::new(&model);
    /// let state = State::zero(&model);
    /// let zero = DVector::zeros(2);
    /// // Without gravity and at rest, unforced joints do not accelerate.
    /// let ddq = data.aba(&model, &state, &zero, &zero, &Vector3::zeros())?;
    /// assert!(ddq.norm() < 1e-15);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn aba(
        &mut self,
        model: &Model,
        state: &State,
        v: &DVector<f64>,
        tau: &DVector<f64>,
        gravity: &Vector3<f64>,
    ) -> Result<&DVector<f64>> {
        self.forward_kinematics(model, state)?;
        self.check_input("generalized velocity", v)?;
        self.check_input("joint forces", tau)?;
        let root = Self::root_acceleration(gravity)?;
        let n = self.dof();
        for k in 0..n {
            let s = self.screw[k] * v[k];
            let vp = self.parent[k].map_or_else(Vector6::zeros, |p| self.velocity[p]);
            let vk = vp + s;
            self.velocity[k] = vk;
            // Velocity product term, kept in `acceleration` until pass 3.
            self.acceleration[k] = cross_motion(&vk, &s);
            let inertia = self.inertia[k];
            self.articulated[k] = inertia;
            self.bias[k] = cross_force(&vk, &(inertia * vk));
        }
        for k in (0..n).rev() {
            self.articulated_step(model, k)?;
            let s = self.screw[k];
            let (u, d) = (self.u[k], self.d[k]);
            let uk = tau[k] - s.dot(&self.bias[k]);
            self.ddq[k] = uk; // u_k, until pass 3
            if let Some(p) = self.parent[k] {
                let ia = self.articulated[k] - u * u.transpose() / d;
                let pa = self.bias[k] + ia * self.acceleration[k] + u * (uk / d);
                self.articulated[p] += ia;
                self.bias[p] += pa;
            }
        }
        for k in 0..n {
            let ap = self.parent[k].map_or(root, |p| self.acceleration[p]);
            let a = ap + self.acceleration[k];
            let ddq = (self.ddq[k] - self.u[k].dot(&a)) / self.d[k];
            self.ddq[k] = ddq;
            self.acceleration[k] = a + self.screw[k] * ddq;
        }
        Ok(&self.ddq)
    }

    /// `U_k = I^A_k S_k` and `D_k = S_kᵀ U_k` of a DoF whose articulated inertia is complete,
    /// refusing a singular pivot.
    pub(super) fn articulated_step(&mut self, model: &Model, k: usize) -> Result<()> {
        let ia = &self.articulated[k];
        let u = ia * self.screw[k];
        let d = self.screw[k].dot(&u);
        if !(d > SINGULAR_PIVOT * ia.trace()) {
            return Err(DynamicsError::SingularInertia {
                dof: k,
                name: model.dof_name(k),
                pivot: d,
            });
        }
        self.u[k] = u;
        self.d[k] = d;
        Ok(())
    }
}
