//! What [`crate::World`] hands back for a robot or an object: its links and coordinates in the
//! world's model.

use sdrs_dynamics::{JointId, LinkId, Model, Result};
use std::ops::Range;

/// A robot in a [`crate::World`]: its links (consecutive, parents first) and its generalized
/// coordinates in the world's model, and the prefix its names were given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RobotHandle {
    pub(crate) prefix: String,
    pub(crate) links: Range<usize>,
    pub(crate) dofs: Range<usize>,
}

impl RobotHandle {
    /// Its links, as handles into the world's model.
    pub fn links(&self) -> impl Iterator<Item = LinkId> + '_ {
        self.links.clone().map(LinkId::new)
    }

    /// Its links, as a range of the world's link indices.
    pub fn link_range(&self) -> Range<usize> {
        self.links.clone()
    }

    /// Its first link, a root of the world's kinematic forest (the one placed at the base).
    pub fn root(&self) -> LinkId {
        LinkId::new(self.links.start)
    }

    /// Its generalized coordinates in the world's state.
    pub fn dofs(&self) -> Range<usize> {
        self.dofs.clone()
    }

    /// Whether `link` belongs to this robot.
    pub fn contains(&self, link: LinkId) -> bool {
        self.links.contains(&link.index())
    }

    /// The prefix its link and joint names were given (empty for none).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// Its link named `name` in `model` (the world's model), by the name the robot gave it,
    /// without the prefix.
    pub fn link(&self, model: &Model, name: &str) -> Result<LinkId> {
        model.link(&format!("{}{name}", self.prefix))
    }

    /// Its joint named `name` in `model` (the world's model), by the name the robot gave it,
    /// without the prefix.
    pub fn joint(&self, model: &Model, name: &str) -> Result<JointId> {
        model.joint(&format!("{}{name}", self.prefix))
    }
}

/// A free object in a [`crate::World`]: its link and its six coordinates (translation along
/// the axes of its starting pose, then rotation; [`sdrs_dynamics::Motion::with_body_velocity`]
/// sets its velocity in world axes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectHandle {
    pub(crate) link: LinkId,
    pub(crate) dofs: Range<usize>,
}

impl ObjectHandle {
    /// Its link.
    pub fn link(&self) -> LinkId {
        self.link
    }

    /// Its six generalized coordinates in the world's state.
    pub fn dofs(&self) -> Range<usize> {
        self.dofs.clone()
    }
}
