//! Our own AABB tree, built for self-overlap queries on moving boxes.
//!
//! An [`AabbTree`] over the boxes (binned SAH build, see [`super::aabb_tree`]).
//! Each step refits the node boxes in place; the tree is rebuilt when the box count changes or
//! when its quality (sum of internal surface areas relative to the root's) has degraded by a
//! factor [`REBUILD_RATIO`] since the last build. Overlaps are found by traversing the tree
//! against itself with an explicit stack: every node is tested against its sibling, never
//! against itself, so each pair is met once.

use super::PairFinder;
use super::aabb_tree::AabbTree;
use crate::aabb::Aabb;

/// Rebuild once the refitted tree's relative surface-area cost exceeds this multiple of the
/// cost right after the last build.
pub const REBUILD_RATIO: f64 = 1.5;

/// The default pair finder; see the module docs.
#[derive(Debug, Default, Clone)]
pub struct OwnBvh {
    tree: AabbTree,
    built_cost: f64,
    leaf_count: usize,
    stack: Vec<(u32, u32)>,
    rebuilds: usize,
}

impl OwnBvh {
    /// How many times the tree has been (re)built so far.
    pub fn rebuilds(&self) -> usize {
        self.rebuilds
    }

    fn build(&mut self, boxes: &[Aabb]) {
        self.tree.build(boxes);
        self.leaf_count = boxes.len();
        self.built_cost = self.tree.relative_cost();
        self.rebuilds += 1;
    }

    fn traverse(&mut self, out: &mut Vec<(u32, u32)>) {
        let nodes = &self.tree.nodes;
        let stack = &mut self.stack;
        stack.clear();
        // Self pairs of each internal node become a sibling pair plus the children's own.
        for node in nodes.iter().filter(|n| !n.is_leaf()) {
            stack.push((node.left, node.right_or_leaf));
            while let Some((a, b)) = stack.pop() {
                let (na, nb) = (&nodes[a as usize], &nodes[b as usize]);
                if !na.aabb.intersects(&nb.aabb) {
                    continue;
                }
                match (na.is_leaf(), nb.is_leaf()) {
                    (true, true) => out.push((na.right_or_leaf, nb.right_or_leaf)),
                    (true, false) => {
                        stack.push((a, nb.left));
                        stack.push((a, nb.right_or_leaf));
                    }
                    (false, true) => {
                        stack.push((na.left, b));
                        stack.push((na.right_or_leaf, b));
                    }
                    (false, false) => {
                        // Descend both at once: four child pairs.
                        for ca in [na.left, na.right_or_leaf] {
                            for cb in [nb.left, nb.right_or_leaf] {
                                stack.push((ca, cb));
                            }
                        }
                    }
                }
            }
        }
    }
}

impl PairFinder for OwnBvh {
    fn name(&self) -> &'static str {
        "own-bvh"
    }

    fn boxed_clone(&self) -> Box<dyn PairFinder> {
        Box::new(self.clone())
    }

    fn find_overlaps(&mut self, boxes: &[Aabb], out: &mut Vec<(u32, u32)>) {
        if boxes.len() < 2 {
            return;
        }
        if self.leaf_count != boxes.len() || self.tree.nodes.is_empty() {
            self.build(boxes);
        } else {
            self.tree.refit(boxes);
            if self.tree.relative_cost() > REBUILD_RATIO * self.built_cost {
                self.build(boxes);
            }
        }
        self.traverse(out);
    }
}
