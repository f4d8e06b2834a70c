//! [`RigidBodyData`]: the model's DoF tree and every per-DoF buffer the algorithms fill.

use crate::error::{DynamicsError, Result, check_vector};
use crate::kinematics::State;
use crate::model::{Elementary, Model};
use nalgebra::{
    DMatrix, DVector, Isometry3, Matrix3xX, Matrix4, Matrix6, Matrix6xX, Vector3, Vector6,
};

/// The workspace of the rigid-body algorithms for one [`Model`] (Pinocchio's `Data`): the tree
/// of elementary DoFs read from the model once, and every buffer the algorithms fill, so
/// repeated calls do not allocate.
///
/// It holds, after the algorithm that fills them:
/// - link placements ([`RigidBodyData::link_placement`]) and, per DoF `k`, its world screw
///   `S_k`, velocity `v_k`, acceleration `a_k` and the world spatial inertia of the body it
///   carries (the links it moves last, merged across fixed joints; zero for the massless
///   intermediate DoFs of multi-DoF joints);
/// - per DoF, the composite (CRBA, RNEA derivatives) and articulated (ABA) inertias, ABA's
///   `U_k = I^A_k S_k` and `D_k = S_kᵀ U_k`, and RNEA's subtree forces;
/// - the outputs: `τ` ([`RigidBodyData::rnea`]), `q̈` ([`RigidBodyData::aba`]), `M`
///   ([`RigidBodyData::crba`]), `M⁻¹` ([`RigidBodyData::minverse`]), the RNEA and ABA
///   derivatives, a 6 x n frame Jacobian and the 3 x n centre-of-mass Jacobian.
///
/// A `RigidBodyData` belongs to the model it was made for: the algorithms refuse a model with
/// another number of links or DoFs.
#[derive(Debug, Clone)]
pub struct RigidBodyData {
    pub(super) links: usize,
    /// Per DoF: its parent DoF (the previous DoF on its path), if any.
    pub(super) parent: Vec<Option<usize>>,
    /// Per DoF: its elementary motion, and whether the joint's reference rotation comes
    /// right before it.
    pub(super) motion: Vec<(Elementary, bool)>,
    /// Per DoF: the link whose joint it belongs to.
    pub(super) link_of: Vec<usize>,
    /// Per DoF: the second moment it carries, in the frame of `link_of` (`None`: massless).
    pub(super) body: Vec<Option<Matrix4<f64>>>,
    /// Per link: its last DoF (the DoF that carries its mass), if any.
    pub(super) carrier: Vec<Option<usize>>,
    /// Per DoF `k`, its subtree's DoFs ascending: `subtree[subtree_starts[k]..subtree_starts[k + 1]]`.
    pub(super) subtree: Vec<usize>,
    pub(super) subtree_starts: Vec<usize>,

    pub(super) placements: Vec<Isometry3<f64>>,
    pub(super) screw: Vec<Vector6<f64>>,
    pub(super) inertia: Vec<Matrix6<f64>>,
    pub(super) velocity: Vec<Vector6<f64>>,
    pub(super) acceleration: Vec<Vector6<f64>>,
    pub(super) force: Vec<Vector6<f64>>,
    pub(super) composite: Vec<Matrix6<f64>>,
    pub(super) articulated: Vec<Matrix6<f64>>,
    pub(super) bias: Vec<Vector6<f64>>,
    pub(super) u: Vec<Vector6<f64>>,
    pub(super) d: Vec<f64>,
    pub(super) coriolis: Vec<Matrix6<f64>>,
    pub(super) dv: Vec<Vector6<f64>>,
    pub(super) da: Vec<Vector6<f64>>,
    /// Per DoF, a 6 x n block of spatial vectors (`M⁻¹`'s recursion).
    pub(super) blocks: Vec<f64>,
    pub(super) com_mass: Vec<f64>,
    pub(super) com_moment: Vec<Vector3<f64>>,
    pub(super) in_subtree: Vec<bool>,

    pub(super) tau: DVector<f64>,
    pub(super) ddq: DVector<f64>,
    pub(super) mass_matrix: DMatrix<f64>,
    pub(super) minv: DMatrix<f64>,
    pub(super) dtau_dq: DMatrix<f64>,
    pub(super) dtau_dv: DMatrix<f64>,
    pub(super) dddq_dq: DMatrix<f64>,
    pub(super) dddq_dv: DMatrix<f64>,
    pub(super) jacobian: Matrix6xX<f64>,
    pub(super) com_jacobian: Matrix3xX<f64>,
}

impl RigidBodyData {
    /// The DoF tree of `model` and buffers for it.
    ///
    /// ```
    /// use sdrs_dynamics::{RigidBodyData, scenes::chain};
    /// let model = chain(3, 0.01)?.model;
    /// let data = RigidBodyData::new(&model);
    /// assert_eq!(data.dof(), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(model: &Model) -> Self {
        let n = model.dof();
        let links = model.links();
        let mut parent = Vec::with_capacity(n);
        let mut motion = Vec::with_capacity(n);
        let mut link_of = Vec::with_capacity(n);
        let mut body: Vec<Option<Matrix4<f64>>> = vec![None; n];
        let mut carrier = Vec::with_capacity(links.len());
        for (i, link) in links.iter().enumerate() {
            let inherited = link.parent.and_then(|p| carrier[p]);
            let mut previous = inherited;
            let mut first_rotation = link.joint.has_reference();
            for e in link.joint.elementary() {
                let reference = first_rotation && matches!(e, Elementary::Rotation(_));
                first_rotation &= !reference;
                parent.push(previous);
                previous = Some(motion.len());
                motion.push((e, reference));
                link_of.push(i);
            }
            carrier.push(previous);
            // The carrier moves the link's rigid body, whose first link is this one (the
            // others inherit the carrier): it carries the body's merged second moment.
            if let Some(k) = previous
                && model.body(i) == i
            {
                let moment = model.body_second_moment(i);
                if moment.iter().any(|x| *x != 0.0) {
                    body[k] = Some(*moment);
                }
            }
        }
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); n];
        for j in 0..n {
            for k in ancestors(&parent, j) {
                members[k].push(j);
            }
        }
        let mut subtree_starts = vec![0];
        for m in &mut members {
            m.sort_unstable();
            subtree_starts.push(subtree_starts.last().copied().unwrap_or(0) + m.len());
        }
        let subtree = members.concat();
        let six = || vec![Vector6::zeros(); n];
        let matrices = || vec![Matrix6::zeros(); n];
        Self {
            links: links.len(),
            parent,
            motion,
            link_of,
            body,
            carrier,
            subtree,
            subtree_starts,
            placements: vec![Isometry3::identity(); links.len()],
            screw: six(),
            inertia: matrices(),
            velocity: six(),
            acceleration: six(),
            force: six(),
            composite: matrices(),
            articulated: matrices(),
            bias: six(),
            u: six(),
            d: vec![0.0; n],
            coriolis: matrices(),
            dv: six(),
            da: six(),
            blocks: vec![0.0; 6 * n * n],
            com_mass: vec![0.0; n],
            com_moment: vec![Vector3::zeros(); n],
            in_subtree: vec![false; links.len()],
            tau: DVector::zeros(n),
            ddq: DVector::zeros(n),
            mass_matrix: DMatrix::zeros(n, n),
            minv: DMatrix::zeros(n, n),
            dtau_dq: DMatrix::zeros(n, n),
            dtau_dv: DMatrix::zeros(n, n),
            dddq_dq: DMatrix::zeros(n, n),
            dddq_dv: DMatrix::zeros(n, n),
            jacobian: Matrix6xX::zeros(n),
            com_jacobian: Matrix3xX::zeros(n),
        }
    }

    /// Number of DoFs of the model it was made for.
    pub fn dof(&self) -> usize {
        self.parent.len()
    }

    /// Checks that `model` is the one this data was made for (same links and DoFs) and that
    /// `state` fits it.
    pub(super) fn check(&self, model: &Model, state: &State) -> Result<()> {
        if model.links().len() != self.links {
            return Err(DynamicsError::LengthMismatch {
                what: "model links (RigidBodyData is made for one model)",
                actual: model.links().len(),
                expected: self.links,
            });
        }
        if model.dof() != self.dof() {
            return Err(DynamicsError::LengthMismatch {
                what: "model DoFs (RigidBodyData is made for one model)",
                actual: model.dof(),
                expected: self.dof(),
            });
        }
        state.check(model)
    }

    /// Checks a per-DoF input vector (a velocity, acceleration or force).
    pub(super) fn check_input(&self, what: &'static str, x: &DVector<f64>) -> Result<()> {
        check_vector(what, x, self.dof())
    }

    /// The root's spatial acceleration that stands for `gravity` (Featherstone's trick: the
    /// world accelerates upwards), after checking it is finite.
    pub(super) fn root_acceleration(gravity: &Vector3<f64>) -> Result<Vector6<f64>> {
        match gravity.iter().position(|g| !g.is_finite()) {
            Some(index) => Err(DynamicsError::NonFinite {
                what: "gravity",
                index,
            }),
            None => Ok(Vector6::new(
                -gravity.x, -gravity.y, -gravity.z, 0.0, 0.0, 0.0,
            )),
        }
    }
}

/// The DoFs from `k` up to the root (`k`, its parent, …) in the DoF tree `parent`.
pub(super) fn ancestors(parent: &[Option<usize>], k: usize) -> impl Iterator<Item = usize> + '_ {
    std::iter::successors(Some(k), move |&j| parent[j])
}
