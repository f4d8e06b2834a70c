//! Broad phase: which hulls might be within contact range of each other.
//!
//! Every hull's world AABB is inflated by a caller-given margin (the contact potential's
//! support distance: beyond it the potential and all its derivatives are exactly zero), and the
//! broad phase returns the pairs whose inflated boxes overlap, restricted to hulls on different
//! bodies and filtered by a caller predicate (e.g. to skip adjacent links). Boxes are refitted
//! every step; trees are rebuilt only when the proxy count changes or the tree degrades.
//!
//! Several pair finders sit behind the [`PairFinder`] trait so they can be benchmarked against
//! each other (suite `geometry`, group `broad_phase`):
//! - [`OwnBvh`] (the default): a binary AABB tree built for self-overlap queries, refitted in
//!   place, traversed tree-against-itself;
//! - `BvhCrate` (feature `bvh-crate`, for the benchmarks only): the `bvh` crate, which is ray-tracing oriented (no tree-versus-tree query and
//!   no in-place refit), so it is rebuilt each step and queried once per box;
//! - [`ParryBvh`]: parry's incremental `Bvh` with refit and its self-traversal;
//! - [`AllPairs`]: the O(n²) reference the tests hold the others to.
//!
//! [`BodyBvh`] is a different query: a tree over one rigid body's primitives (mesh vertices,
//! edges, faces) in the body frame, built once and queried against another body's tree at
//! their poses, for mesh contact models (IPC) whose candidates are primitive pairs.
//!
//! Output order is canonical (sorted), so results do not depend on the finder.

mod aabb_tree;
mod all_pairs;
mod body_bvh;
#[cfg(feature = "bvh-crate")]
mod bvh_crate;
mod own_bvh;
mod parry_bvh;

pub use all_pairs::AllPairs;
pub use body_bvh::BodyBvh;
#[cfg(feature = "bvh-crate")]
pub use bvh_crate::BvhCrate;
pub use own_bvh::OwnBvh;
pub use parry_bvh::ParryBvh;

use crate::aabb::Aabb;
use crate::error::{GeometryError, Result};

/// Something that finds all overlapping pairs in a set of boxes.
pub trait PairFinder: Send + Sync {
    /// A short name for reports.
    fn name(&self) -> &'static str;

    /// Appends to `out` every pair of overlapping boxes once, as `(i, j)` in either
    /// orientation and in any order. Called once per step with the current boxes; a finder may keep state
    /// (trees) between calls and must handle a change in the number of boxes.
    fn find_overlaps(&mut self, boxes: &[Aabb], out: &mut Vec<(u32, u32)>);

    /// A copy of this finder (its trees included), so that a broad phase can be cloned.
    fn boxed_clone(&self) -> Box<dyn PairFinder>;
}

/// One hull in the broad phase: the body it belongs to and its tight world AABB.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Proxy {
    /// Body (link or free object) that carries the hull; pairs on one body are never reported.
    pub body: usize,
    /// Tight world-space AABB of the hull (the broad phase inflates it).
    pub aabb: Aabb,
}

/// Candidate-pair search over inflated hull boxes.
///
/// ```
/// use sdrs_geometry::{Aabb, broad_phase::{BroadPhase, Proxy}};
/// use nalgebra::Point3;
/// let unit = |x: f64| Aabb::new(Point3::new(x, 0.0, 0.0), Point3::new(x + 1.0, 1.0, 1.0));
/// let proxies = [
///     Proxy { body: 0, aabb: unit(0.0) },
///     Proxy { body: 1, aabb: unit(1.05) }, // 5 cm from the first
///     Proxy { body: 1, aabb: unit(2.1) },  // same body as the second
/// ];
/// let mut bp = BroadPhase::new(0.03).unwrap(); // 3 cm margin on each box
/// let mut pairs = Vec::new();
/// bp.candidate_pairs(&proxies, |_, _| false, &mut pairs);
/// assert_eq!(pairs, vec![(0, 1)]);
/// ```
pub struct BroadPhase {
    margin: f64,
    finder: Box<dyn PairFinder>,
    boxes: Vec<Aabb>,
    raw: Vec<(u32, u32)>,
}

impl Clone for BroadPhase {
    fn clone(&self) -> Self {
        Self {
            margin: self.margin,
            finder: self.finder.boxed_clone(),
            boxes: self.boxes.clone(),
            raw: self.raw.clone(),
        }
    }
}

impl std::fmt::Debug for BroadPhase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BroadPhase")
            .field("margin", &self.margin)
            .field("finder", &self.finder.name())
            .finish_non_exhaustive()
    }
}

impl BroadPhase {
    /// A broad phase with the default finder ([`OwnBvh`]) and the given margin (finite, ≥ 0).
    pub fn new(margin: f64) -> Result<Self> {
        Self::with_finder(margin, Box::new(OwnBvh::default()))
    }

    /// A broad phase with a chosen finder.
    pub fn with_finder(margin: f64, finder: Box<dyn PairFinder>) -> Result<Self> {
        if !(margin >= 0.0 && margin.is_finite()) {
            return Err(GeometryError::InvalidParameter {
                name: "margin",
                value: margin,
                allowed: "finite and non-negative (the contact potential's support distance)",
            });
        }
        Ok(Self {
            margin,
            finder,
            boxes: Vec::new(),
            raw: Vec::new(),
        })
    }

    /// The inflation margin.
    pub fn margin(&self) -> f64 {
        self.margin
    }

    /// The name of the pair finder in use.
    pub fn finder_name(&self) -> &'static str {
        self.finder.name()
    }

    /// Fills `out` (cleared first) with the sorted pairs `(i, j)`, `i < j`, of proxy indices
    /// whose inflated boxes overlap, whose bodies differ and for which
    /// `exclude(body_i, body_j)` is false.
    ///
    /// A proxy whose box is not finite (a NaN pose upstream) cannot be placed, so it is paired
    /// with every proxy it may meet: the narrow phase then sees the bad pose and reports it.
    /// [`BroadPhase::try_candidate_pairs`] reports it here instead.
    pub fn candidate_pairs(
        &mut self,
        proxies: &[Proxy],
        exclude: impl Fn(usize, usize) -> bool,
        out: &mut Vec<(usize, usize)>,
    ) {
        // Finders only see finite boxes (tree builders may panic or loop on NaN); `finite`
        // maps their indices back to proxies.
        let (finite, unplaced): (Vec<usize>, Vec<usize>) =
            (0..proxies.len()).partition(|&i| is_finite(&proxies[i].aabb));
        self.boxes.clear();
        self.boxes.extend(
            finite
                .iter()
                .map(|&i| proxies[i].aabb.inflated(self.margin)),
        );
        self.raw.clear();
        self.finder.find_overlaps(&self.boxes, &mut self.raw);
        let found = self
            .raw
            .iter()
            .map(|&(i, j)| (finite[i as usize], finite[j as usize]));
        let everything = unplaced.iter().flat_map(|&i| {
            (0..proxies.len())
                .filter(move |&j| j != i)
                .map(move |j| (i, j))
        });
        out.clear();
        out.extend(found.chain(everything).filter_map(|(i, j)| {
            let (i, j) = (i.min(j), i.max(j));
            let (bi, bj) = (proxies[i].body, proxies[j].body);
            (bi != bj && !exclude(bi, bj)).then_some((i, j))
        }));
        out.sort_unstable();
        // Two unplaced proxies meet each other twice.
        out.dedup();
    }

    /// [`BroadPhase::candidate_pairs`], or [`GeometryError::NonFiniteBox`] naming the first
    /// proxy whose box is not finite.
    pub fn try_candidate_pairs(
        &mut self,
        proxies: &[Proxy],
        exclude: impl Fn(usize, usize) -> bool,
        out: &mut Vec<(usize, usize)>,
    ) -> Result<()> {
        if let Some(index) = proxies.iter().position(|p| !is_finite(&p.aabb)) {
            let b = proxies[index].aabb;
            return Err(GeometryError::NonFiniteBox {
                index,
                mins: b.mins.coords.into(),
                maxs: b.maxs.coords.into(),
            });
        }
        self.candidate_pairs(proxies, exclude, out);
        Ok(())
    }
}

fn is_finite(b: &Aabb) -> bool {
    b.mins.iter().chain(b.maxs.iter()).all(|c| c.is_finite())
}
