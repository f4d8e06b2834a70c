//! The `bvh` crate as a pair finder (the user's requested crate, kept as a baseline).

use super::PairFinder;
use crate::aabb::Aabb;
use bvh::aabb::{Aabb as BvhAabb, Bounded};
use bvh::bounding_hierarchy::BHShape;
use bvh::bvh::Bvh;

#[derive(Clone)]
struct Leaf {
    aabb: BvhAabb<f64, 3>,
    index: u32,
    node: usize,
}

impl Bounded<f64, 3> for Leaf {
    fn aabb(&self) -> BvhAabb<f64, 3> {
        self.aabb
    }
}

impl BHShape<f64, 3> for Leaf {
    fn set_bh_node_index(&mut self, index: usize) {
        self.node = index;
    }

    fn bh_node_index(&self) -> usize {
        self.node
    }
}

/// The `bvh` crate's SAH tree. It has no tree-versus-tree query and no in-place refit, so each
/// step rebuilds it and queries it once per box (keeping pairs `i < j`).
#[derive(Default, Clone)]
pub struct BvhCrate {
    leaves: Vec<Leaf>,
}

impl PairFinder for BvhCrate {
    fn name(&self) -> &'static str {
        "bvh-crate"
    }

    fn boxed_clone(&self) -> Box<dyn PairFinder> {
        Box::new(self.clone())
    }

    fn find_overlaps(&mut self, boxes: &[Aabb], out: &mut Vec<(u32, u32)>) {
        if boxes.len() < 2 {
            return;
        }
        self.leaves.clear();
        self.leaves
            .extend(boxes.iter().enumerate().map(|(i, b)| Leaf {
                aabb: BvhAabb::with_bounds(b.mins, b.maxs),
                index: i as u32,
                node: 0,
            }));
        let tree = Bvh::build(&mut self.leaves);
        for (i, leaf) in self.leaves.iter().enumerate() {
            for other in tree.traverse_iterator(&leaf.aabb, &self.leaves) {
                if other.index > i as u32 {
                    out.push((i as u32, other.index));
                }
            }
        }
    }
}
