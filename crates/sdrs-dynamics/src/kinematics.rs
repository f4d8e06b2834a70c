//! Forward kinematics (SDRS eq. 1) and its first and second derivatives.
//!
//! Each degree of freedom `k` moves its subtree by a world-frame screw `S_k = (ω_k, v_k)`: a
//! point `x` of the subtree moves with velocity `ω_k × x + v_k` (`ω_k` the world axis of a
//! rotation, `v_k = p_k × ω_k` for an axis through `p_k`; `ω_k = 0` and `v_k` the world
//! direction of a translation). With the twist convention of `sdrs_geometry::twist` (body
//! origin `o_i` moved by `v`, rotation `Exp(ω)` applied on the left), link `i`'s Jacobian column
//! for an ancestor DoF `k` is `(ω_k × o_i + v_k, ω_k)`.
//!
//! Second order: the product of exponentials `exp(δ_1 S_1) exp(δ_2 S_2) ⋯` (root first)
//! moves the origin by `∂²o/∂δ_k∂δ_l = ω_k × (ω_l × o + v_l)` for `k ≤ l`, and by the
//! Baker-Campbell-Hausdorff formula rotates by `ω(δ) = Σ ω_k δ_k + ½ Σ_{k<l} δ_k δ_l ω_k × ω_l`.
//! A link-level gradient `g = (g_v, g_ω)` therefore adds
//! `g_v · ω_k × (ω_l × o + v_l) + [k < l] ½ g_ω · (ω_k × ω_l)` to the `(k, l)` entry of the
//! generalized Hessian, on top of `Jᵀ H J`.

use crate::error::{Result, check_vector};
use crate::model::{Elementary, Model};
use nalgebra::{
    DMatrix, DVector, Isometry3, RealField, SMatrix, SVector, Translation3, UnitQuaternion, Vector3,
};
use sdrs_geometry::twist::Twist;

/// Generalized coordinates and the reference rotations of spherical and free joints.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct State {
    /// Generalized coordinates, `model.dof()` of them.
    pub q: DVector<f64>,
    /// Per link, the reference rotation of its spherical or free joint (identity otherwise).
    pub references: Vec<UnitQuaternion<f64>>,
}

impl State {
    /// Coordinates `q` with identity references.
    pub fn new(model: &Model, q: DVector<f64>) -> Result<Self> {
        check_vector("generalized coordinates", &q, model.dof())?;
        Ok(Self {
            q,
            references: vec![UnitQuaternion::identity(); model.links().len()],
        })
    }

    /// Checks that the state fits `model`: `model.dof()` finite coordinates and one unit
    /// reference rotation per link.
    pub fn check(&self, model: &Model) -> Result<()> {
        check_vector("generalized coordinates", &self.q, model.dof())?;
        if self.references.len() != model.links().len() {
            return Err(crate::DynamicsError::LengthMismatch {
                what: "reference rotations",
                actual: self.references.len(),
                expected: model.links().len(),
            });
        }
        match self.references.iter().position(|r| {
            !(r.coords.iter().all(|c| c.is_finite()) && (r.norm() - 1.0).abs() < 1e-9)
        }) {
            Some(index) => Err(crate::DynamicsError::NonFinite {
                what: "reference rotations (finite unit quaternions)",
                index,
            }),
            None => Ok(()),
        }
    }

    /// The zero configuration: every coordinate zero, which may be at or outside a joint's
    /// limits (the step then refuses it); [`State::neutral`] is the start to reach for.
    pub fn zero(model: &Model) -> Self {
        Self::new(model, DVector::zeros(model.dof())).expect("zeros have the right length")
    }

    /// The neutral configuration, strictly inside every joint limit: [`Model::neutral`] with
    /// the default limit barrier support of [`crate::StepSettings`] as the margin, so the limit
    /// barrier is zero there.
    ///
    /// ```
    /// use sdrs_dynamics::{JointKind, Link, MassModel, Model, State};
    /// use sdrs_geometry::ConvexHull;
    /// use nalgebra::{Isometry3, Vector3};
    /// let hull = ConvexHull::cuboid(Vector3::repeat(0.1))?;
    /// let knee = Link::new("shin", None, Isometry3::identity(), JointKind::Revolute { axis: Vector3::y() }, vec![hull], MassModel::Lumped { mass: 1.0 })
    ///     .with_limits(0.1, 2.0); // a knee that never straightens fully
    /// let model = Model::new(vec![knee])?;
    /// assert!(model.check_limits(&State::zero(&model)).is_err());
    /// model.check_limits(&State::neutral(&model))?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn neutral(model: &Model) -> Self {
        model.neutral(crate::StepSettings::DEFAULT_LIMIT_SUPPORT)
    }

    /// Folds the rotation coordinates of spherical and free joints into their references and
    /// zeroes them: the same configuration, with the coordinates back at the centre of their
    /// chart.
    pub fn recentred(&self, model: &Model) -> Self {
        let mut out = self.clone();
        for (i, link) in model.links().iter().enumerate() {
            if !link.joint.has_reference() {
                continue;
            }
            let first = model.dof_offset(i) + link.joint.dof() - 3;
            let turn = chart_rotation(&self.q.as_slice()[first..first + 3]);
            out.references[i] = self.references[i] * turn;
            for k in 0..3 {
                out.q[first + k] = 0.0;
            }
        }
        out
    }
}

/// The rotation `Rx(q₀) Ry(q₁) Rz(q₂)` of the three rotation coordinates of a spherical or free
/// joint, applied after its reference rotation.
pub(crate) fn chart_rotation(q: &[f64]) -> UnitQuaternion<f64> {
    (0..3).fold(UnitQuaternion::identity(), |r, k| {
        r * UnitQuaternion::from_scaled_axis(Vector3::ith(k, q[k]))
    })
}

/// Forward kinematics (eq. 1) for any real scalar (`f64`, or dual numbers to check
/// derivatives): every link's world pose, and for every DoF the world frame its elementary
/// motion acts in (after the joint's reference rotation, before the motion itself).
pub fn forward_kinematics<T: RealField + Copy>(
    model: &Model,
    q: &[T],
    references: &[UnitQuaternion<f64>],
) -> (Vec<Isometry3<T>>, Vec<Isometry3<T>>) {
    let mut poses: Vec<Isometry3<T>> = Vec::with_capacity(model.links().len());
    let mut frames = Vec::with_capacity(model.dof());
    for (i, link) in model.links().iter().enumerate() {
        let parent = link
            .parent
            .map(|p| poses[p])
            .unwrap_or_else(Isometry3::identity);
        let mut frame = parent * link.attachment.cast::<T>();
        let mut referenced = !link.joint.has_reference();
        for (dof, e) in (model.dof_offset(i)..).zip(link.joint.elementary()) {
            match e {
                Elementary::Rotation(axis) => {
                    if !referenced {
                        frame.rotation *= references[i].cast::<T>();
                        referenced = true;
                    }
                    frames.push(frame);
                    // Not `from_scaled_axis`: it returns the identity at an angle of exactly zero,
                    // which drops dual-number derivatives there (where free and spherical joints
                    // always sit after re-centring). Joint axes are unit vectors.
                    let axis = nalgebra::Unit::new_unchecked(axis.cast::<T>());
                    frame.rotation *= UnitQuaternion::from_axis_angle(&axis, q[dof]);
                }
                Elementary::Translation(axis) => {
                    frames.push(frame);
                    frame *= Translation3::from(axis.cast::<T>() * q[dof]);
                }
            }
        }
        poses.push(frame);
    }
    (poses, frames)
}

/// Link poses and DoF screws at one configuration.
#[derive(Debug, Clone)]
pub struct Kinematics {
    poses: Vec<Isometry3<f64>>,
    /// Per DoF, `(ω_k, v_k)`.
    screws: Vec<(Vector3<f64>, Vector3<f64>)>,
    /// Every link's Jacobian columns `(k, ∂ξ/∂q_k)` along its path, links one after another
    /// (one allocation instead of one per link).
    columns: Vec<(usize, Twist)>,
    /// Where link `i`'s columns start in `columns` (`links + 1` entries).
    starts: Vec<usize>,
}

impl Kinematics {
    /// Forward kinematics of `model` at `state`.
    pub fn new(model: &Model, state: &State) -> Self {
        let (poses, frames) = forward_kinematics(model, state.q.as_slice(), &state.references);
        let screws = frames
            .iter()
            .zip(model.elementary_motions())
            .map(|(frame, e)| match e {
                Elementary::Rotation(axis) => {
                    let w = frame.rotation * axis;
                    (w, frame.translation.vector.cross(&w))
                }
                Elementary::Translation(axis) => (Vector3::zeros(), frame.rotation * axis),
            })
            .collect::<Vec<_>>();
        let mut starts = Vec::with_capacity(poses.len() + 1);
        let mut columns = Vec::new();
        for (i, pose) in poses.iter().enumerate() {
            starts.push(columns.len());
            let o = pose.translation.vector;
            columns.extend(model.path(i).iter().map(|&k| {
                let (w, v) = screws[k];
                let lin = w.cross(&o) + v;
                (k, Twist::new(lin.x, lin.y, lin.z, w.x, w.y, w.z))
            }));
        }
        starts.push(columns.len());
        Self {
            poses,
            screws,
            columns,
            starts,
        }
    }

    /// World pose of every link.
    pub fn poses(&self) -> &[Isometry3<f64>] {
        &self.poses
    }

    /// `(ω_k, v_k)` of DoF `k`.
    pub fn screw(&self, k: usize) -> (Vector3<f64>, Vector3<f64>) {
        self.screws[k]
    }

    /// Link `i`'s Jacobian columns `(k, ∂ξ/∂q_k)` for the DoFs on its path.
    pub fn jacobian(&self, i: usize) -> &[(usize, Twist)] {
        &self.columns[self.starts[i]..self.starts[i + 1]]
    }

    /// Adds `Σ J_bᵀ(self) block_bc J_c(other)` to `out`: a mixed second derivative between the
    /// generalized coordinates of this configuration (rows) and those of `other` (columns),
    /// given the block between the `N` links' twists at the two configurations.
    pub fn add_cross<R, C, S>(
        &self,
        other: &Kinematics,
        links: &[usize],
        block: &nalgebra::Matrix<f64, R, C, S>,
        out: &mut DMatrix<f64>,
    ) where
        R: nalgebra::Dim,
        C: nalgebra::Dim,
        S: nalgebra::storage::Storage<f64, R, C>,
    {
        for (b, &lb) in links.iter().enumerate() {
            for (c, &lc) in links.iter().enumerate() {
                let sub = block.fixed_view::<6, 6>(6 * b, 6 * c);
                for (k, col_k) in self.jacobian(lb) {
                    let row = col_k.transpose() * sub;
                    for (l, col_l) in other.jacobian(lc) {
                        out[(*k, *l)] += (row * col_l)[0];
                    }
                }
            }
        }
    }

    /// Adds the generalized gradient and Hessian of a term that depends on the poses of
    /// `N` links, given its gradient `g` (6N) and Hessian `h` (6N x 6N) with respect to those
    /// links' twists: `Σ Jᵀg` and `Σ Jᵀ h J` plus the second-order kinematic term.
    pub fn add_term<const N: usize, const M: usize>(
        &self,
        model: &Model,
        links: [usize; N],
        g: &SVector<f64, M>,
        h: Option<&SMatrix<f64, M, M>>,
        gradient: &mut DVector<f64>,
        hessian: Option<&mut DMatrix<f64>>,
    ) {
        let jacobians: [&[(usize, Twist)]; N] = links.map(|i| self.jacobian(i));
        for (b, jac) in jacobians.iter().enumerate() {
            let gb = g.fixed_rows::<6>(6 * b);
            for (k, col) in jac.iter() {
                gradient[*k] += col.dot(&gb);
            }
        }
        let (Some(hessian), Some(h)) = (hessian, h) else {
            return;
        };
        self.add_cross(self, &links, h, hessian);
        for b in 0..N {
            // Second-order kinematic term of link b.
            let gv = g.fixed_rows::<3>(6 * b).into_owned();
            let gw = g.fixed_rows::<3>(6 * b + 3).into_owned();
            let o = self.poses[links[b]].translation.vector;
            let path = model.path(links[b]);
            for (a, &k) in path.iter().enumerate() {
                let wk = self.screws[k].0;
                for &l in &path[a..] {
                    let (wl, vl) = self.screws[l];
                    let mut s = gv.dot(&wk.cross(&(wl.cross(&o) + vl)));
                    if l != k {
                        s += 0.5 * gw.dot(&wk.cross(&wl));
                        hessian[(l, k)] += s;
                    }
                    hessian[(k, l)] += s;
                }
            }
        }
    }
}
