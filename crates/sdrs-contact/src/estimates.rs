//! The committed and proposed estimates a force-anchored Newton model keeps per pair
//! ([`crate::plane::Anchors`] for the barrier's forces, [`crate::friction::FrictionAnchors`]
//! for the friction's ratios).

/// Estimates of the solver's accepted iterate (`committed`) and those the last evaluation
/// proposes for its configuration (`proposed`), which become the committed ones when that
/// configuration is accepted.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Estimates<T> {
    pub committed: Vec<T>,
    pub proposed: Vec<T>,
}

impl<T> Default for Estimates<T> {
    fn default() -> Self {
        Self {
            committed: Vec::new(),
            proposed: Vec::new(),
        }
    }
}

impl<T> Estimates<T> {
    /// Makes the last proposed estimates the committed ones.
    pub fn commit(&mut self) {
        std::mem::swap(&mut self.committed, &mut self.proposed);
        self.proposed.clear();
    }

    /// Forgets every estimate.
    pub fn clear(&mut self) {
        self.committed.clear();
        self.proposed.clear();
    }

    /// Starts a proposal: the committed estimates to read and the emptied proposal to fill.
    pub fn start(&mut self) -> (&[T], &mut Vec<T>) {
        self.proposed.clear();
        (&self.committed, &mut self.proposed)
    }
}
