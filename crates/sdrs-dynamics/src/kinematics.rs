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
//! generalized Hessian, on top of `Jᵀ H J`. [`Kinematics::add_term`] does exactly this for terms
//! of a few links (contact pairs, user energies); the link energies, one per link, are
//! assembled by the composite-body recursion of `stepper::assembly` instead, which rewrites the
//! same sum over subtrees.

use crate::error::{Result, check_vector};
use crate::model::{Elementary, Model};
use nalgebra::{
    DMatrix, DVector, Isometry3, Matrix6, RealField, SMatrix, SVector, Translation3,
    UnitQuaternion, Vector3,
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
    /// This state moved by `fraction` of `direction` in its coordinates (the same chart).
    pub(crate) fn moved(&self, direction: &DVector<f64>, fraction: f64) -> Self {
        let mut moved = self.clone();
        moved.q.axpy(fraction, direction, 1.0);
        moved
    }

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
        out.recentre(model);
        out
    }

    /// [`State::recentred`] in place.
    pub fn recentre(&mut self, model: &Model) {
        for (i, link) in model.links().iter().enumerate() {
            if !link.joint.has_reference() {
                continue;
            }
            let first = model.dof_offset(i) + link.joint.dof() - 3;
            let turn = chart_rotation(&self.q.as_slice()[first..first + 3]);
            self.references[i] *= turn;
            self.q.rows_mut(first, 3).fill(0.0);
        }
    }
}

/// `(ω, v)` of a screw stored as the twist `(v, ω)`.
fn split(screw: &Twist) -> (Vector3<f64>, Vector3<f64>) {
    (
        screw.fixed_rows::<3>(3).into_owned(),
        screw.fixed_rows::<3>(0).into_owned(),
    )
}

/// The rotation `Rx(q₀) Ry(q₁) Rz(q₂)` of the three rotation coordinates of a spherical or free
/// joint, applied after its reference rotation.
pub(crate) fn chart_rotation(q: &[f64]) -> UnitQuaternion<f64> {
    (0..3).fold(UnitQuaternion::identity(), |r, k| {
        r * UnitQuaternion::from_scaled_axis(Vector3::ith(k, q[k]))
    })
}

/// The link poses of a state moved along a Newton direction, in buffers kept from one call to
/// the next (no allocation once they have the model's size).
#[derive(Debug, Clone, Default)]
pub(crate) struct MovedPoses {
    q: DVector<f64>,
    poses: Vec<Isometry3<f64>>,
    frames: Vec<Isometry3<f64>>,
}

impl MovedPoses {
    /// The poses of `state` moved by `fraction` of `direction` ([`State::moved`]).
    pub(crate) fn at(
        &mut self,
        model: &Model,
        state: &State,
        direction: &DVector<f64>,
        fraction: f64,
    ) -> &[Isometry3<f64>] {
        if self.q.len() == state.q.len() {
            self.q.copy_from(&state.q);
        } else {
            self.q.clone_from(&state.q);
        }
        self.q.axpy(fraction, direction, 1.0);
        forward_kinematics_into(
            model,
            self.q.as_slice(),
            &state.references,
            &mut self.poses,
            &mut self.frames,
        );
        &self.poses
    }
}

/// Forward kinematics (eq. 1) for any real scalar (`f64`, or dual numbers to check
/// derivatives): every link's world pose, and for every DoF the world frame its elementary
/// motion acts in (after the joint's reference rotation, before the motion itself).
pub fn forward_kinematics<T: RealField + Copy>(
    model: &Model,
    q: &[T],
    references: &[UnitQuaternion<f64>],
) -> (Vec<Isometry3<T>>, Vec<Isometry3<T>>) {
    let mut poses = Vec::with_capacity(model.links().len());
    let mut frames = Vec::with_capacity(model.dof());
    forward_kinematics_into(model, q, references, &mut poses, &mut frames);
    (poses, frames)
}

/// [`forward_kinematics`] into given buffers (cleared first; no allocation once they have the
/// capacity).
fn forward_kinematics_into<T: RealField + Copy>(
    model: &Model,
    q: &[T],
    references: &[UnitQuaternion<f64>],
    poses: &mut Vec<Isometry3<T>>,
    frames: &mut Vec<Isometry3<T>>,
) {
    poses.clear();
    frames.clear();
    poses.reserve(model.links().len());
    frames.reserve(model.dof());
    let motions = model.elementary_motions();
    for (i, link) in model.links().iter().enumerate() {
        let parent = link
            .parent
            .map(|p| poses[p])
            .unwrap_or_else(Isometry3::identity);
        let mut frame = parent * link.attachment.cast::<T>();
        let mut referenced = !link.joint.has_reference();
        let first = model.dof_offset(i);
        for (dof, e) in (first..).zip(&motions[first..first + link.joint.dof()]) {
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
}

/// Link poses and DoF screws at one configuration.
///
/// [`Kinematics::update`] recomputes them in place, reusing the buffers: the step keeps its
/// kinematics between evaluations and allocates nothing for them once they have the model's
/// size.
#[derive(Debug, Clone, Default)]
pub struct Kinematics {
    poses: Vec<Isometry3<f64>>,
    /// Per DoF, the frame its elementary motion acts in (scratch of the forward pass).
    frames: Vec<Isometry3<f64>>,
    /// Per DoF, the world screw `S_k = (v_k, ω_k)`.
    screws: Vec<Twist>,
    /// Every rigid body's Jacobian columns `(k, ∂ξ/∂q_k)` along its path, at the origin of
    /// its first link ([`crate::bodies`]), bodies one after another (one allocation instead of
    /// one per body; links fixed to a body share its columns).
    columns: Vec<(usize, Twist)>,
    /// Per link: where its body's columns start and end in `columns`, and the body's first
    /// link.
    spans: Vec<(usize, usize, usize)>,
}

impl Kinematics {
    /// Forward kinematics of `model` at `state`.
    pub fn new(model: &Model, state: &State) -> Self {
        let mut kin = Self::default();
        kin.update(model, state);
        kin
    }

    /// Recomputes the kinematics for `model` at `state` in place, reusing the buffers.
    ///
    /// ```
    /// use sdrs_dynamics::scenes::chain;
    /// use sdrs_dynamics::{Kinematics, State};
    /// use nalgebra::DVector;
    /// let model = chain(3, 0.01)?.model;
    /// let mut kin = Kinematics::new(&model, &State::zero(&model));
    /// let bent = State::new(&model, DVector::from_vec(vec![0.2, -0.1, 0.4]))?;
    /// kin.update(&model, &bent);
    /// assert_eq!(kin.poses(), Kinematics::new(&model, &bent).poses());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn update(&mut self, model: &Model, state: &State) {
        forward_kinematics_into(
            model,
            state.q.as_slice(),
            &state.references,
            &mut self.poses,
            &mut self.frames,
        );
        self.screws.clear();
        self.screws.extend(
            self.frames
                .iter()
                .zip(model.elementary_motions())
                .map(|(frame, e)| {
                    let (w, v) = match e {
                        Elementary::Rotation(axis) => {
                            let w = frame.rotation * axis;
                            (w, frame.translation.vector.cross(&w))
                        }
                        Elementary::Translation(axis) => (Vector3::zeros(), frame.rotation * axis),
                    };
                    Twist::new(v.x, v.y, v.z, w.x, w.y, w.z)
                }),
        );
        self.spans.clear();
        self.columns.clear();
        self.spans.reserve(self.poses.len());
        if self.columns.capacity() == 0 {
            // Fresh kinematics (every step's step-t kinematics): one allocation, not a doubling.
            let bodies = (0..self.poses.len()).filter(|&i| model.body(i) == i);
            self.columns
                .reserve(bodies.map(|i| model.path(i).len()).sum());
        }
        for (i, pose) in self.poses.iter().enumerate() {
            let body = model.body(i);
            if body != i {
                let span = self.spans[body];
                self.spans.push(span);
                continue;
            }
            let start = self.columns.len();
            let o = pose.translation.vector;
            let screws = &self.screws;
            self.columns.extend(model.path(i).iter().map(|&k| {
                let (w, v) = split(&screws[k]);
                let lin = w.cross(&o) + v;
                (k, Twist::new(lin.x, lin.y, lin.z, w.x, w.y, w.z))
            }));
            self.spans.push((start, self.columns.len(), i));
        }
    }

    /// World pose of every link.
    pub fn poses(&self) -> &[Isometry3<f64>] {
        &self.poses
    }

    /// `(ω_k, v_k)` of DoF `k`.
    pub fn screw(&self, k: usize) -> (Vector3<f64>, Vector3<f64>) {
        split(&self.screws[k])
    }

    /// DoF `k`'s world screw `S_k = (v_k, ω_k)` as a twist about the world origin.
    pub(crate) fn world_screw(&self, k: usize) -> &Twist {
        &self.screws[k]
    }

    /// Link `i`'s Jacobian columns `(k, ∂ξ/∂q_k)` for the DoFs on its path (ascending): its
    /// rigid body's columns moved to the link's origin, `(v + ω × (o_i − o_b), ω)` (`o_b` the
    /// origin of the body's first link; nothing moves for that link itself).
    pub fn jacobian(&self, i: usize) -> impl ExactSizeIterator<Item = (usize, Twist)> + Clone + '_ {
        let (columns, d) = self.body_columns(i);
        columns.iter().map(move |(k, col)| {
            let w: Vector3<f64> = col.fixed_rows::<3>(3).into_owned();
            let v = col.fixed_rows::<3>(0) + w.cross(&d);
            (*k, Twist::new(v.x, v.y, v.z, w.x, w.y, w.z))
        })
    }

    /// Link `i`'s rigid body's Jacobian columns (at the origin of the body's first link) and
    /// the offset `d = o_i − o_b` that moves them to link `i`'s origin: `J_i = X(d) J_b` with
    /// `X(d) = [I, −[d]×; 0, I]` (see [`moved_to`] for blocks acting on them).
    fn body_columns(&self, i: usize) -> (&[(usize, Twist)], Vector3<f64>) {
        let (start, end, body) = self.spans[i];
        let d = self.poses[i].translation.vector - self.poses[body].translation.vector;
        (&self.columns[start..end], d)
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
                let sub = block.fixed_view::<6, 6>(6 * b, 6 * c).into_owned();
                self.add_link_block(other, lb, lc, &sub, false, out);
            }
        }
    }

    /// Adds `J_bᵀ(self) m J_c(other)` for the 6x6 block `m` between link `lb`'s twist at this
    /// configuration and link `lc`'s at `other`; with `mirror`, also its transpose at the
    /// transposed entries (the `(c, b)` block of a symmetric Hessian, `b ≠ c`).
    pub(crate) fn add_link_block(
        &self,
        other: &Kinematics,
        lb: usize,
        lc: usize,
        m: &Matrix6<f64>,
        mirror: bool,
        out: &mut DMatrix<f64>,
    ) {
        let (columns_b, d_b) = self.body_columns(lb);
        let (columns_c, d_c) = other.body_columns(lc);
        // A fixed link (the ground) has no columns: its blocks add nothing.
        if columns_b.is_empty() || columns_c.is_empty() {
            return;
        }
        // `J_bᵀ M J_c = J_body_bᵀ (X_bᵀ M X_c) J_body_c`: the block is moved once instead of
        // every column pair.
        let sub = moved_to(m, &d_b, &d_c);
        let n = out.nrows();
        let data = out.as_mut_slice();
        for (k, col_k) in columns_b {
            let row = col_k.transpose() * sub;
            for (l, col_l) in columns_c {
                let value = (row * col_l)[0];
                data[k + l * n] += value;
                if mirror {
                    data[l + k * n] += value;
                }
            }
        }
    }

    /// Adds `J_iᵀ g` for link `i`'s twist gradient `g = (g_v, g_ω)`.
    pub(crate) fn add_link_gradient(&self, i: usize, g: &Twist, gradient: &mut DVector<f64>) {
        // `J_iᵀ g = J_bodyᵀ X(d)ᵀ g`, `X(d)ᵀ (g_v, g_ω) = (g_v, g_ω + d × g_v)`.
        let (columns, d) = self.body_columns(i);
        let gv: Vector3<f64> = g.fixed_rows::<3>(0).into_owned();
        let gw = g.fixed_rows::<3>(3) + d.cross(&gv);
        let gb = Twist::new(gv.x, gv.y, gv.z, gw.x, gw.y, gw.z);
        for (k, col) in columns {
            gradient[*k] += col.dot(&gb);
        }
    }

    /// Adds the second-order kinematic term of link `i` under its twist gradient `g` (module
    /// docs): `g_v · ω_k × (ω_l × o + v_l) + [k < l] ½ g_ω · (ω_k × ω_l)` at `(k, l)`, `k ≤ l` on
    /// the link's path, and symmetrically.
    pub(crate) fn add_second_order(
        &self,
        model: &Model,
        i: usize,
        g: &Twist,
        hessian: &mut DMatrix<f64>,
    ) {
        let gv = g.fixed_rows::<3>(0).into_owned();
        let gw = g.fixed_rows::<3>(3).into_owned();
        let o = self.poses[i].translation.vector;
        let path = model.path(i);
        for (a, &k) in path.iter().enumerate() {
            let wk = self.screw(k).0;
            for &l in &path[a..] {
                let (wl, vl) = self.screw(l);
                let mut s = gv.dot(&wk.cross(&(wl.cross(&o) + vl)));
                if l != k {
                    s += 0.5 * gw.dot(&wk.cross(&wl));
                    hessian[(l, k)] += s;
                }
                hessian[(k, l)] += s;
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
        let twist = |b: usize| -> Twist { g.fixed_rows::<6>(6 * b).into_owned() };
        for (b, &i) in links.iter().enumerate() {
            self.add_link_gradient(i, &twist(b), gradient);
        }
        let (Some(hessian), Some(h)) = (hessian, h) else {
            return;
        };
        self.add_cross(self, &links, h, hessian);
        for (b, &i) in links.iter().enumerate() {
            self.add_second_order(model, i, &twist(b), hessian);
        }
    }
}

/// `X(d_b)ᵀ M X(d_c)` with `X(d) = [I, −[d]×; 0, I]`: a 6x6 block between two links' twists
/// made a block between their bodies' twists (columns at the bodies' first links); `M` itself
/// when both offsets are zero (the links are their bodies' first links).
fn moved_to(m: &Matrix6<f64>, d_b: &Vector3<f64>, d_c: &Vector3<f64>) -> Matrix6<f64> {
    let shift = |d: &Vector3<f64>| {
        let mut x = Matrix6::identity();
        x.fixed_view_mut::<3, 3>(0, 3).copy_from(&-d.cross_matrix());
        x
    };
    let mut out = *m;
    if *d_b != Vector3::zeros() {
        out = shift(d_b).transpose() * out;
    }
    if *d_c != Vector3::zeros() {
        out *= shift(d_c);
    }
    out
}
