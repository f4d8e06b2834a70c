//! Typed handles for links, joints and rigid bodies, named frames, and lookup by name.
//!
//! Every handle is a model index with a type: a [`LinkId`] indexes [`Model::links`], a
//! [`JointId`] names the joint between a link and its parent (one per link, so it carries the
//! link's index), a [`BodyId`] the rigid body a link belongs to (links joined by fixed joints
//! are one body, [`Model::body`]). The `usize` APIs keep working: `.index()` and `From`
//! convert both ways. A handle indexes the model it was looked up in; with another model, the
//! methods taking it behave like slice indexing with its index.
//!
//! ```
//! use sdrs_dynamics::scenes::chain;
//! let model = chain(3, 0.01)?.model;
//! let tip = model.link("link2")?;
//! let elbow = model.joint("link1 joint")?;
//! assert_eq!((tip.index(), model.dofs(elbow)), (2, 1..2));
//! let err = model.link("link7").unwrap_err().to_string();
//! assert!(err.contains("no link named 'link7'") && err.contains("link2"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::{DynamicsError, Result};
use crate::kinematics::Kinematics;
use crate::model::Model;
use nalgebra::Isometry3;
use std::fmt;
use std::ops::Range;

/// Defines a `usize` newtype handle with its conversions.
macro_rules! handle {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(usize);

        impl $name {
            #[doc = concat!("The handle of ", $what, " `index` of a model (unchecked: the model's lookups give checked handles).")]
            pub const fn new(index: usize) -> Self {
                Self(index)
            }

            #[doc = concat!("The index of ", $what, " in its model.")]
            pub const fn index(self) -> usize {
                self.0
            }
        }

        impl From<usize> for $name {
            fn from(index: usize) -> Self {
                Self(index)
            }
        }

        impl From<$name> for usize {
            fn from(handle: $name) -> usize {
                handle.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{} {}", $what, self.0)
            }
        }
    };
}

handle!(
    /// A link of a model (an index into [`Model::links`]).
    LinkId,
    "link"
);
handle!(
    /// The joint between a link and its parent (or the world); its index is the link's.
    JointId,
    "joint"
);
handle!(
    /// A rigid body: links joined by fixed joints; its index is the body's first link
    /// ([`Model::body`]).
    BodyId,
    "body"
);

impl LinkId {
    /// The joint that attaches this link to its parent.
    pub const fn joint(self) -> JointId {
        JointId(self.0)
    }
}

impl JointId {
    /// The link this joint moves.
    pub const fn link(self) -> LinkId {
        LinkId(self.0)
    }
}

/// A named place on a link: the link's frame moved by a fixed offset (a tool centre point, a
/// sensor). URDF links hung on fixed joints are already frames of this kind, with their own
/// [`LinkId`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    /// The link it is fixed to.
    pub link: LinkId,
    /// Its pose in the link's frame.
    pub offset: Isometry3<f64>,
}

impl Frame {
    /// The frame at `offset` on `link`.
    pub fn new(link: LinkId, offset: Isometry3<f64>) -> Self {
        Self { link, offset }
    }

    /// Its world pose at the configuration of `kinematics`.
    pub fn pose(&self, kinematics: &Kinematics) -> Isometry3<f64> {
        kinematics.poses()[self.link.index()] * self.offset
    }
}

impl Model {
    /// The link named `name`; an unknown name lists the model's closest names.
    pub fn link(&self, name: &str) -> Result<LinkId> {
        self.link_index(name).map(LinkId)
    }

    /// The joint named `name`: a URDF or MJCF joint name ([`crate::Link::joint_name`]), or
    /// `LINK joint` for a link whose joint has no name ([`crate::Link::joint_label`]); an
    /// unknown name lists the model's closest joint names.
    pub fn joint(&self, name: &str) -> Result<JointId> {
        self.joint_link(name).map(JointId)
    }

    /// The link's frame moved by `offset`, for the link named `link`.
    ///
    /// ```
    /// use sdrs_dynamics::scenes::chain;
    /// use sdrs_dynamics::{Kinematics, State};
    /// use nalgebra::Isometry3;
    /// let model = chain(2, 0.01)?.model;
    /// let tip = model.frame("link1", Isometry3::translation(0.0, 0.0, -0.5))?;
    /// let pose = tip.pose(&Kinematics::new(&model, &State::zero(&model)));
    /// assert!(pose.translation.vector.norm() > 0.5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn frame(&self, link: &str, offset: Isometry3<f64>) -> Result<Frame> {
        Ok(Frame::new(self.link(link)?, offset))
    }

    /// A checked handle of link `index`.
    pub fn link_id(&self, index: usize) -> Result<LinkId> {
        if index < self.links().len() {
            Ok(LinkId(index))
        } else {
            Err(DynamicsError::LinkIndex {
                index,
                links: self.links().len(),
            })
        }
    }

    /// The generalized coordinates of `joint` (empty for a fixed joint): one for a revolute or
    /// prismatic joint, two for a universal one, three rotations for a spherical one, and
    /// three translations then three rotations for a free one.
    pub fn dofs(&self, joint: JointId) -> Range<usize> {
        let start = self.dof_offset(joint.0);
        start..start + self.links()[joint.0].joint.dof()
    }

    /// The rigid body `link` belongs to ([`Model::body`]).
    pub fn body_of(&self, link: LinkId) -> BodyId {
        BodyId(self.body(link.0))
    }

    /// The links of `body`, in model order (its first link, then those hung on it by fixed
    /// joints).
    pub fn body_links(&self, body: BodyId) -> impl Iterator<Item = LinkId> + '_ {
        (body.0..self.links().len())
            .filter(move |&i| self.body(i) == body.0)
            .map(LinkId)
    }
}

/// The error for an unknown `kind` name `name`, listing up to 12 of `names`, closest first.
pub(crate) fn unknown_name<'a>(
    kind: &'static str,
    name: &str,
    names: impl Iterator<Item = &'a str>,
) -> DynamicsError {
    let wanted = name.to_lowercase();
    let mut ranked: Vec<(usize, &str)> = names
        .map(|n| (edit_distance(&wanted, &n.to_lowercase()), n))
        .collect();
    ranked.sort_by_key(|&(d, _)| d);
    let shown = ranked
        .iter()
        .take(12)
        .map(|&(_, n)| n)
        .collect::<Vec<_>>()
        .join(", ");
    let known = if ranked.len() > 12 {
        format!("{shown}, … ({} in all)", ranked.len())
    } else {
        shown
    };
    DynamicsError::UnknownName {
        kind,
        name: name.to_string(),
        known,
    }
}

/// The Levenshtein distance between `a` and `b` (in characters).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::edit_distance;

    #[test]
    fn edit_distance_counts_insertions_deletions_and_substitutions() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("elbow", "elbow"), 0);
        assert_eq!(edit_distance("panda_link7", "panda_link8"), 1);
    }
}
