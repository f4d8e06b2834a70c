//! The joint-space inertia `M(q)` by the composite-rigid-body algorithm (Featherstone, *Rigid
//! Body Dynamics Algorithms*, sec. 6.2, in world coordinates).
//!
//! Backward over the DoF tree, the composite inertia `I^c_k` of `k`'s subtree is `I_k` plus its
//! children's; then `M_jk = S_jᵀ I^c_k S_k` for every ancestor `j ⪯ k`, and `M` is symmetric.
//! O(n·d) for n DoFs at depth at most d.

use super::data::{RigidBodyData, ancestors};
use crate::error::Result;
use crate::kinematics::State;
use crate::model::Model;
use nalgebra::DMatrix;

impl RigidBodyData {
    /// The joint-space inertia `M(q)` at `state` (symmetric, both triangles filled), for
    /// sdrs's coordinates: the kinetic energy is `½ q̇ᵀ M q̇`.
    ///
    /// ```
    /// use sdrs_dynamics::{RigidBodyData, State, scenes::chain};
    /// let model = chain(3, 0.01)?.model;
    /// let mut data = RigidBodyData::new(&model);
    /// let m = data.crba(&model, &State::zero(&model))?;
    /// assert!((m - m.transpose()).norm() < 1e-12);
    /// assert!(m.clone().cholesky().is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn crba(&mut self, model: &Model, state: &State) -> Result<&DMatrix<f64>> {
        self.forward_kinematics(model, state)?;
        self.composite_pass();
        for k in (0..self.dof()).rev() {
            let f = self.composite[k] * self.screw[k];
            for j in ancestors(&self.parent, k) {
                let m = self.screw[j].dot(&f);
                self.mass_matrix[(j, k)] = m;
                self.mass_matrix[(k, j)] = m;
            }
        }
        Ok(&self.mass_matrix)
    }

    /// Composite inertias of every DoF's subtree.
    pub(super) fn composite_pass(&mut self) {
        self.composite.copy_from_slice(&self.inertia);
        for k in (0..self.dof()).rev() {
            if let Some(p) = self.parent[k] {
                let c = self.composite[k];
                self.composite[p] += c;
            }
        }
    }
}
