//! Bodies, not links: links joined by fixed joints move as one rigid body.
//!
//! Robot descriptions split a rigid part into many links (ANYmal C imports as 78 links for 18
//! DoFs: feet, sensor frames, covers and mounts hang on fixed joints). The model keeps every
//! link, with its name, frame, hulls and mass, for users and for contact; for the dynamics it
//! also groups them, once when it is built, into **bodies**: a body is a link whose joint has
//! DoFs, or a root, with every link hung on it by a chain of fixed joints. Each link has a
//! constant **offset** `O_i`, its frame in its body's frame (the product of the fixed
//! attachments from the body's first link down to it), so its world pose is `T_b O_i`.
//!
//! A body's mass model is the merged second moment of its links,
//! `S_b = Σ_i H(O_i) S_i H(O_i)ᵀ` (`H` the 4x4 homogeneous matrix), which is exact: every mass
//! point `x̄` of link `i` sits at `H(O_i) x̄` in the body frame, and the inertia and gravity
//! energies of [`crate::energy`] depend on the mass only through `S`. The step's inertia,
//! gravity and their composite-body assembly therefore cost what the moving bodies cost, not
//! what the links cost; link poses and Jacobians are still computed for every link (contact
//! hulls stay on their links).
//!
//! The body of a link is the nearest ancestor-or-self whose joint moves, or the tree's root
//! when only fixed joints lead to it; a body is named by that link's index ([`Model::body`],
//! [`crate::BodyId`]).

use crate::model::{Link, Model};
use nalgebra::{Isometry3, Matrix4};

/// The rigid bodies of a model, derived from its tree when the model is built.
#[derive(Debug, Clone)]
pub(crate) struct Bodies {
    /// Per link, its body (the index of the body's first link).
    body: Vec<usize>,
    /// Per link, its frame in its body's frame.
    offsets: Vec<Isometry3<f64>>,
    /// Per link, the number of its body (its position in `roots`).
    number: Vec<usize>,
    /// The first link of every body, ascending (so parents come first).
    roots: Vec<usize>,
    /// Per body, the number of the body it hangs from.
    parents: Vec<Option<usize>>,
    /// Per body, the merged second moment of its links in the body frame.
    second_moments: Vec<Matrix4<f64>>,
}

impl Bodies {
    /// Groups `links` (parents first) with their second moments `moments` into bodies.
    pub(crate) fn new(links: &[Link], moments: &[Matrix4<f64>]) -> Self {
        let mut out = Self {
            body: Vec::with_capacity(links.len()),
            offsets: Vec::with_capacity(links.len()),
            number: Vec::with_capacity(links.len()),
            roots: Vec::new(),
            parents: Vec::new(),
            second_moments: Vec::new(),
        };
        for (i, (link, moment)) in links.iter().zip(moments).enumerate() {
            let (body, offset) = match (link.parent, link.joint.dof()) {
                (Some(p), 0) => (out.body[p], out.offsets[p] * link.attachment),
                _ => (i, Isometry3::identity()),
            };
            if body == i {
                out.parents.push(link.parent.map(|p| out.number[p]));
                out.roots.push(i);
                out.second_moments.push(*moment);
                out.number.push(out.roots.len() - 1);
            } else {
                let b = out.number[body];
                let h = offset.to_homogeneous();
                out.second_moments[b] += h * moment * h.transpose();
                out.number.push(b);
            }
            out.body.push(body);
            out.offsets.push(offset);
        }
        out
    }

    /// The first link of every body, ascending.
    pub(crate) fn roots(&self) -> &[usize] {
        &self.roots
    }

    /// The number of the body link `i` belongs to (its position in [`Bodies::roots`]).
    pub(crate) fn number(&self, i: usize) -> usize {
        self.number[i]
    }

    /// The number of the body that body `b` hangs from.
    pub(crate) fn parent(&self, b: usize) -> Option<usize> {
        self.parents[b]
    }

    /// The merged second moment of body `b` (a body number) in its frame.
    pub(crate) fn second_moment(&self, b: usize) -> &Matrix4<f64> {
        &self.second_moments[b]
    }
}

impl Model {
    /// The rigid body link `i` belongs to: the nearest ancestor-or-self whose joint moves, or
    /// the tree's root when only fixed joints lead to it (the [module docs](crate::bodies)).
    /// Links of one body never touch.
    pub fn body(&self, i: usize) -> usize {
        self.bodies().body[i]
    }

    /// The body that link `i`'s body hangs from (`None` for a root body).
    pub fn parent_body(&self, i: usize) -> Option<usize> {
        let root = self.body(i);
        self.links()[root].parent.map(|p| self.body(p))
    }

    /// Link `i`'s frame in the frame of its body ([`Model::body`]): constant, the product of
    /// the fixed joints' attachments from the body's first link down to it (the identity for
    /// that link itself). Link `i`'s world pose is its body's pose times this offset.
    ///
    /// ```
    /// use sdrs_dynamics::{JointKind, Kinematics, Link, MassModel, Model, State};
    /// use sdrs_geometry::ConvexHull;
    /// use nalgebra::{Isometry3, Vector3};
    /// let cube = || vec![ConvexHull::cuboid(Vector3::repeat(0.1)).unwrap()];
    /// let links = vec![
    ///     Link::new("base", None, Isometry3::identity(), JointKind::Free, cube(), MassModel::Lumped { mass: 1.0 }),
    ///     Link::new("mount", Some(0), Isometry3::translation(0.2, 0.0, 0.0), JointKind::Fixed, cube(), MassModel::Lumped { mass: 0.1 }),
    ///     Link::new("sensor", Some(1), Isometry3::translation(0.0, 0.1, 0.0), JointKind::Fixed, cube(), MassModel::Lumped { mass: 0.1 }),
    /// ];
    /// let model = Model::new(links)?;
    /// assert_eq!(model.body(2), 0);
    /// assert_eq!(model.body_offset(2).translation.vector, Vector3::new(0.2, 0.1, 0.0));
    /// let kin = Kinematics::new(&model, &State::zero(&model));
    /// let through_body = kin.poses()[0] * model.body_offset(2);
    /// assert!((kin.poses()[2].translation.vector - through_body.translation.vector).norm() < 1e-12);
    /// // The body's mass is its links' mass.
    /// assert!((model.body_second_moment(2)[(3, 3)] - 1.2).abs() < 1e-12);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn body_offset(&self, i: usize) -> &Isometry3<f64> {
        &self.bodies().offsets[i]
    }

    /// The second moment `Σ m x̄ x̄ᵀ` of the body link `i` belongs to, in the body's frame: its
    /// links' second moments ([`Model::second_moment`]) moved by their offsets
    /// ([`Model::body_offset`]) and summed.
    pub fn body_second_moment(&self, i: usize) -> &Matrix4<f64> {
        let bodies = self.bodies();
        bodies.second_moment(bodies.number(i))
    }
}
