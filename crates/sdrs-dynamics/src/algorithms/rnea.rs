//! Inverse dynamics by the recursive Newton-Euler algorithm (Featherstone, *Rigid Body
//! Dynamics Algorithms*, sec. 5.3, in world coordinates): `τ = M(q) q̈ + C(q, q̇) q̇ + g(q)`.
//!
//! Forward over the DoF tree, `v_k = v_λ + S_k q̇_k` and
//! `a_k = a_λ + S_k q̈_k + v_k × S_k q̇_k` from the root's `a_0 = (−g, 0)` (gravity as an
//! upward acceleration of the world), with each body's force `f_k = I_k a_k + v_k ×* I_k v_k`;
//! backward, `τ_k = S_kᵀ F_k` with `F_k` the sum of `f` over `k`'s subtree.

use super::data::RigidBodyData;
use super::spatial::{cross_force, cross_motion};
use crate::error::Result;
use crate::kinematics::State;
use crate::model::Model;
use nalgebra::{DVector, Vector3, Vector6};

impl RigidBodyData {
    /// The joint forces `τ` that give accelerations `a` at `state` moving with generalized
    /// velocity `v` (q̇ of sdrs's coordinates) under `gravity` (a world acceleration, such as
    /// `(0, 0, −9.81)`).
    ///
    /// ```
    /// use sdrs_dynamics::{RigidBodyData, State, scenes::chain};
    /// use nalgebra::{DVector, Vector3};
    /// let model = chain(3, 0.01)?.model;
    /// let mut data = RigidBodyData::new(&model);
    /// let state = State::new(&model, DVector::from_vec(vec![0.2, -0.4, 0.9]))?;
    /// let (v, a) = (DVector::from_element(3, 0.5), DVector::from_element(3, -1.0));
    /// let gravity = Vector3::new(0.0, 0.0, -9.81);
    /// let tau = data.rnea(&model, &state, &v, &a, &gravity)?.clone();
    /// // Forward dynamics under those forces gives the accelerations back.
    /// let ddq = data.aba(&model, &state, &v, &tau, &gravity)?;
    /// assert!((ddq - a).norm() < 1e-9);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn rnea(
        &mut self,
        model: &Model,
        state: &State,
        v: &DVector<f64>,
        a: &DVector<f64>,
        gravity: &Vector3<f64>,
    ) -> Result<&DVector<f64>> {
        self.forward_kinematics(model, state)?;
        self.check_input("generalized velocity", v)?;
        self.check_input("generalized acceleration", a)?;
        let root = Self::root_acceleration(gravity)?;
        self.motion_pass(v, a, root);
        for k in 0..self.dof() {
            let (vk, ak, inertia) = (&self.velocity[k], &self.acceleration[k], &self.inertia[k]);
            self.force[k] = inertia * ak + cross_force(vk, &(inertia * vk));
        }
        for k in (0..self.dof()).rev() {
            let f = self.force[k];
            self.tau[k] = self.screw[k].dot(&f);
            if let Some(p) = self.parent[k] {
                self.force[p] += f;
            }
        }
        Ok(&self.tau)
    }

    /// The forward pass of velocities and accelerations shared by RNEA and its derivatives.
    pub(super) fn motion_pass(&mut self, v: &DVector<f64>, a: &DVector<f64>, root: Vector6<f64>) {
        for k in 0..self.dof() {
            let s = self.screw[k];
            let (vp, ap) = match self.parent[k] {
                Some(p) => (self.velocity[p], self.acceleration[p]),
                None => (Vector6::zeros(), root),
            };
            let vk = vp + s * v[k];
            self.velocity[k] = vk;
            self.acceleration[k] = ap + s * a[k] + cross_motion(&vk, &(s * v[k]));
        }
    }
}
