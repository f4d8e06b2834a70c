//! Our own AABB tree, built for self-overlap queries on moving boxes.
//!
//! A binary tree over the boxes, built top-down with a binned surface-area heuristic (Wald
//! 2007: [`BINS`] bins of box centres along the widest axis, the split minimising
//! `area(left)·count(left) + area(right)·count(right)`; O(n log n)), stored
//! parents-before-children so a refit is one reverse sweep.
//! Each step refits the node boxes in place; the tree is rebuilt when the box count changes or
//! when its quality (sum of internal surface areas relative to the root's) has degraded by a
//! factor [`REBUILD_RATIO`] since the last build. Overlaps are found by traversing the tree
//! against itself with an explicit stack: every node is tested against its sibling, never
//! against itself, so each pair is met once.

use super::PairFinder;
use crate::aabb::Aabb;

/// Rebuild once the refitted tree's relative surface-area cost exceeds this multiple of the
/// cost right after the last build.
pub const REBUILD_RATIO: f64 = 1.5;

const NO_CHILD: u32 = u32::MAX;

/// Bins of the surface-area-heuristic build.
pub const BINS: usize = 16;

#[derive(Debug, Clone, Copy)]
struct Node {
    aabb: Aabb,
    /// Left child, or `NO_CHILD` for a leaf.
    left: u32,
    /// Right child for internal nodes; the box index for leaves.
    right_or_leaf: u32,
}

impl Node {
    fn is_leaf(&self) -> bool {
        self.left == NO_CHILD
    }
}

/// The default pair finder; see the module docs.
#[derive(Debug, Default, Clone)]
pub struct OwnBvh {
    nodes: Vec<Node>,
    built_cost: f64,
    leaf_count: usize,
    order: Vec<u32>,
    stack: Vec<(u32, u32)>,
    rebuilds: usize,
}

impl OwnBvh {
    /// How many times the tree has been (re)built so far.
    pub fn rebuilds(&self) -> usize {
        self.rebuilds
    }

    fn build(&mut self, boxes: &[Aabb]) {
        self.nodes.clear();
        self.order.clear();
        self.order.extend(0..boxes.len() as u32);
        let centres: Vec<_> = boxes.iter().map(Aabb::center).collect();
        let mut order = std::mem::take(&mut self.order);
        self.build_node(boxes, &centres, &mut order);
        self.order = order;
        self.leaf_count = boxes.len();
        self.built_cost = self.relative_cost();
        self.rebuilds += 1;
    }

    /// Appends the subtree over `items` and returns its node index.
    fn build_node(
        &mut self,
        boxes: &[Aabb],
        centres: &[nalgebra::Point3<f64>],
        items: &mut [u32],
    ) -> u32 {
        let index = self.nodes.len() as u32;
        if let [single] = items {
            self.nodes.push(Node {
                aabb: boxes[*single as usize],
                left: NO_CHILD,
                right_or_leaf: *single,
            });
            return index;
        }
        let mid = sah_split(boxes, centres, items);
        self.nodes.push(Node {
            aabb: Aabb::empty(),
            left: 0,
            right_or_leaf: 0,
        });
        let (lo, hi) = items.split_at_mut(mid);
        let left = self.build_node(boxes, centres, lo);
        let right = self.build_node(boxes, centres, hi);
        let aabb = self.nodes[left as usize]
            .aabb
            .merged(&self.nodes[right as usize].aabb);
        self.nodes[index as usize] = Node {
            aabb,
            left,
            right_or_leaf: right,
        };
        index
    }

    /// Children follow parents in `nodes`, so one reverse sweep refits bottom-up.
    fn refit(&mut self, boxes: &[Aabb]) {
        for k in (0..self.nodes.len()).rev() {
            let node = self.nodes[k];
            self.nodes[k].aabb = if node.is_leaf() {
                boxes[node.right_or_leaf as usize]
            } else {
                self.nodes[node.left as usize]
                    .aabb
                    .merged(&self.nodes[node.right_or_leaf as usize].aabb)
            };
        }
    }

    fn relative_cost(&self) -> f64 {
        let root = self.nodes[0].aabb.surface_area();
        if !(root > 0.0) {
            return 1.0;
        }
        let internal: f64 = self
            .nodes
            .iter()
            .filter(|n| !n.is_leaf())
            .map(|n| n.aabb.surface_area())
            .sum();
        internal / root
    }

    fn traverse(&mut self, out: &mut Vec<(u32, u32)>) {
        let nodes = &self.nodes;
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

/// Reorders `items` so that `items[..k]` and `items[k..]` are the two sides of the best binned
/// SAH split and returns `k` (a median split when all centres fall into one bin).
fn sah_split(boxes: &[Aabb], centres: &[nalgebra::Point3<f64>], items: &mut [u32]) -> usize {
    let bounds = items
        .iter()
        .fold(Aabb::empty(), |b, &i| b.including(&centres[i as usize]));
    let axis = bounds.extents().imax();
    let (lo, extent) = (bounds.mins[axis], bounds.extents()[axis]);
    let median = |items: &mut [u32]| {
        let mid = items.len() / 2;
        items.select_nth_unstable_by(mid, |&a, &b| {
            centres[a as usize][axis].total_cmp(&centres[b as usize][axis])
        });
        mid
    };
    if !(extent > 0.0) {
        return median(items);
    }
    let bin_of =
        |i: u32| (((centres[i as usize][axis] - lo) / extent * BINS as f64) as usize).min(BINS - 1);
    let mut counts = [0usize; BINS];
    let mut bin_boxes = [Aabb::empty(); BINS];
    for &i in items.iter() {
        let b = bin_of(i);
        counts[b] += 1;
        bin_boxes[b] = bin_boxes[b].merged(&boxes[i as usize]);
    }
    // Sweep from the right for suffix areas, then from the left for the cost of each plane.
    let mut right_area = [0.0; BINS];
    let mut acc = Aabb::empty();
    for b in (1..BINS).rev() {
        acc = acc.merged(&bin_boxes[b]);
        right_area[b] = acc.surface_area();
    }
    let (mut best_cost, mut best_plane) = (f64::INFINITY, 0);
    let (mut left, mut left_count) = (Aabb::empty(), 0);
    for plane in 1..BINS {
        left = left.merged(&bin_boxes[plane - 1]);
        left_count += counts[plane - 1];
        let right_count = items.len() - left_count;
        if left_count == 0 || right_count == 0 {
            continue;
        }
        let cost = left.surface_area() * left_count as f64 + right_area[plane] * right_count as f64;
        if cost < best_cost {
            (best_cost, best_plane) = (cost, plane);
        }
    }
    if best_plane == 0 {
        return median(items);
    }
    // In-place partition: bins below the plane to the front.
    let mut k = 0;
    for j in 0..items.len() {
        if bin_of(items[j]) < best_plane {
            items.swap(k, j);
            k += 1;
        }
    }
    k
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
        if self.leaf_count != boxes.len() || self.nodes.is_empty() {
            self.build(boxes);
        } else {
            self.refit(boxes);
            if self.relative_cost() > REBUILD_RATIO * self.built_cost {
                self.build(boxes);
            }
        }
        self.traverse(out);
    }
}
