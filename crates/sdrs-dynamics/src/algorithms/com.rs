//! The centre of mass of a model or of a link's subtree, and its 3 x n Jacobian (Pinocchio's
//! `centerOfMass` and `jacobianCenterOfMass`).
//!
//! With link masses `m_i` and world first moments `h_i = R_i s_i + m_i t_i` (from the second
//! moments the step's energy uses), the centre is `c = Σ h_i / Σ m_i`. DoF `k`'s screw
//! `S_k = (v_k, ω_k)` moves a point `x` at `v_k + ω_k × x`, so the Jacobian's column `k` is
//! `(m_k v_k + ω_k × h_k) / Σ m_i` with `m_k`, `h_k` summed over the links `k` moves: one
//! backward pass.

use super::data::RigidBodyData;
use super::spatial::parts;
use crate::error::{DynamicsError, Result};
use crate::handles::LinkId;
use crate::kinematics::State;
use crate::model::Model;
use nalgebra::{Matrix3xX, Vector3};

impl RigidBodyData {
    /// The centre of mass at `state` of the whole model (every link, including those fixed
    /// to the world) or of the subtree of `root` (the link and its descendants).
    ///
    /// ```
    /// use sdrs_dynamics::{RigidBodyData, State, scenes::chain};
    /// let model = chain(3, 0.01)?.model;
    /// let mut data = RigidBodyData::new(&model);
    /// let state = State::zero(&model);
    /// let whole = data.center_of_mass(&model, &state, None)?;
    /// let tip = data.center_of_mass(&model, &state, Some(model.link("link2")?))?;
    /// assert!((whole - tip).norm() > 0.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn center_of_mass(
        &mut self,
        model: &Model,
        state: &State,
        root: Option<LinkId>,
    ) -> Result<Vector3<f64>> {
        self.forward_kinematics(model, state)?;
        let (mass, moment) = self.mass_pass(model, root)?;
        Ok(moment / mass)
    }

    /// The 3 x n Jacobian of [`RigidBodyData::center_of_mass`] (its velocity is `J q̇`).
    pub fn com_jacobian(
        &mut self,
        model: &Model,
        state: &State,
        root: Option<LinkId>,
    ) -> Result<&Matrix3xX<f64>> {
        self.forward_kinematics(model, state)?;
        let (mass, _) = self.mass_pass(model, root)?;
        for k in (0..self.dof()).rev() {
            let (m, h) = (self.com_mass[k], self.com_moment[k]);
            let (v, w) = parts(&self.screw[k]);
            self.com_jacobian
                .set_column(k, &((v * m + w.cross(&h)) / mass));
            if let Some(p) = self.parent[k] {
                self.com_mass[p] += m;
                self.com_moment[p] += h;
            }
        }
        Ok(&self.com_jacobian)
    }

    /// Marks the links counted, sums their mass and first moment, and leaves each link's
    /// share on the DoF that carries it (`com_mass`, `com_moment`).
    fn mass_pass(&mut self, model: &Model, root: Option<LinkId>) -> Result<(f64, Vector3<f64>)> {
        if let Some(r) = root
            && r.index() >= self.links
        {
            return Err(DynamicsError::LinkIndex {
                index: r.index(),
                links: self.links,
            });
        }
        self.com_mass.fill(0.0);
        self.com_moment.fill(Vector3::zeros());
        let (mut mass, mut moment) = (0.0, Vector3::zeros());
        for (i, link) in model.links().iter().enumerate() {
            self.in_subtree[i] = match root {
                None => true,
                Some(r) => i == r.index() || link.parent.is_some_and(|p| self.in_subtree[p]),
            };
            if !self.in_subtree[i] {
                continue;
            }
            let s = model.second_moment(i);
            let pose = &self.placements[i];
            let m = s[(3, 3)];
            let h = pose.rotation * s.fixed_view::<3, 1>(0, 3) + pose.translation.vector * m;
            mass += m;
            moment += h;
            if let Some(k) = self.carrier[i] {
                self.com_mass[k] += m;
                self.com_moment[k] += h;
            }
        }
        if !(mass > 0.0) {
            return Err(DynamicsError::InvalidSetting {
                name: "centre-of-mass root",
                value: mass,
                allowed: "a subtree with positive mass",
            });
        }
        Ok((mass, moment))
    }
}
