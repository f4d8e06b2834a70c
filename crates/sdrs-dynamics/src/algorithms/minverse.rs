//! The inverse joint-space inertia `M⁻¹(q)` in O(n²) by the articulated-body recursion
//! (Carpentier, "Analytical inverse of the joint space inertia matrix", 2018; Pinocchio's
//! `computeMinverse`), without forming or factorising `M`.
//!
//! `M⁻¹ τ` is ABA at rest without gravity, which is linear in `τ`; the recursion carries the
//! 6 x n matrices of that linear map (their non-zero columns only). Backward, `P_k = ∂p^A_k/∂τ` (non-zero on `k`'s subtree
//! only) gives row `k` of the backward part, `r_k = (e_kᵀ − S_kᵀ P_k) / D_k`, and the parent
//! receives `P_k + U_k r_k`. Forward, with `A_k = ∂a_k/∂τ`,
//! `(M⁻¹)_k = r_k − U_kᵀ A_λ / D_k` and `A_k = A_λ + S_k (M⁻¹)_k`; only the columns `j ≥ k`
//! are formed, the rest by symmetry.

use super::data::RigidBodyData;
use crate::error::Result;
use crate::kinematics::State;
use crate::model::Model;
use nalgebra::{DMatrix, Vector6};

impl RigidBodyData {
    /// The inverse joint-space inertia `M⁻¹(q)` at `state` (symmetric, both triangles filled).
    ///
    /// ```
    /// use sdrs_dynamics::{RigidBodyData, State, scenes::chain};
    /// use nalgebra::{DMatrix, DVector};
    /// let model = chain(4, 0.01)?.model;
    /// let mut data = RigidBodyData::new(&model);
    /// let state = State::new(&model, DVector::from_vec(vec![0.1, 0.7, -0.3, 1.2]))?;
    /// let m = data.crba(&model, &state)?.clone();
    /// let minv = data.minverse(&model, &state)?;
    /// assert!((minv * m - DMatrix::identity(4, 4)).norm() < 1e-9);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn minverse(&mut self, model: &Model, state: &State) -> Result<&DMatrix<f64>> {
        self.forward_kinematics(model, state)?;
        self.articulated.copy_from_slice(&self.inertia);
        for k in (0..self.dof()).rev() {
            self.articulated_step(model, k)?;
            if let Some(p) = self.parent[k] {
                let u = self.u[k];
                let ia = self.articulated[k] - u * u.transpose() / self.d[k];
                self.articulated[p] += ia;
            }
        }
        self.minverse_from_pivots();
        Ok(&self.minv)
    }

    /// `M⁻¹` from the `U_k`, `D_k` of an articulated pass at the current configuration.
    pub(super) fn minverse_from_pivots(&mut self) {
        let n = self.dof();
        let block = |k: usize, j: usize| 6 * (n * k + j);
        // Only subtree columns of P_k are ever non-zero.
        for k in 0..n {
            for &j in &self.subtree[self.subtree_starts[k]..self.subtree_starts[k + 1]] {
                let at = block(k, j);
                self.blocks[at..at + 6].fill(0.0);
            }
        }
        for k in (0..n).rev() {
            let (s, u, d) = (self.screw[k], self.u[k], self.d[k]);
            for j in k..n {
                self.minv[(k, j)] = 0.0;
            }
            for &j in &self.subtree[self.subtree_starts[k]..self.subtree_starts[k + 1]] {
                let at = block(k, j);
                let pk = Vector6::from_column_slice(&self.blocks[at..at + 6]);
                let r = (f64::from(j == k) - s.dot(&pk)) / d;
                self.minv[(k, j)] = r;
                if let Some(p) = self.parent[k] {
                    let to = block(p, j);
                    let sum = pk + u * r;
                    for (x, y) in self.blocks[to..to + 6].iter_mut().zip(sum.iter()) {
                        *x += y;
                    }
                }
            }
        }
        for k in 0..n {
            let (s, u, d) = (self.screw[k], self.u[k], self.d[k]);
            for j in k..n {
                let ap = self.parent[k].map(|p| {
                    let at = block(p, j);
                    Vector6::from_column_slice(&self.blocks[at..at + 6])
                });
                let mut value = self.minv[(k, j)];
                if let Some(ap) = &ap {
                    value -= u.dot(ap) / d;
                }
                self.minv[(k, j)] = value;
                let ak = ap.unwrap_or_else(Vector6::zeros) + s * value;
                let at = block(k, j);
                self.blocks[at..at + 6].copy_from_slice(ak.as_slice());
                self.minv[(j, k)] = value;
            }
        }
    }
}
