//! A binary AABB tree built top-down with a binned surface-area heuristic (Wald 2007: [`BINS`]
//! bins of box centres along the widest axis, the split minimising `area(left)·count(left) +
//! area(right)·count(right)`; O(n log n)), stored parents-before-children so that a refit is
//! one reverse sweep. Shared by [`super::OwnBvh`] (self overlaps of moving boxes, refitted)
//! and [`super::BodyBvh`] (one body's primitives in its own frame, built once).

use crate::aabb::Aabb;
use nalgebra::Point3;

/// Marks a leaf in [`Node::left`].
pub(super) const NO_CHILD: u32 = u32::MAX;

/// Bins of the surface-area-heuristic build.
pub const BINS: usize = 16;

#[derive(Debug, Clone, Copy)]
pub(super) struct Node {
    pub(super) aabb: Aabb,
    /// Left child, or `NO_CHILD` for a leaf.
    pub(super) left: u32,
    /// Right child for internal nodes; the box index for leaves.
    pub(super) right_or_leaf: u32,
}

impl Node {
    pub(super) fn is_leaf(&self) -> bool {
        self.left == NO_CHILD
    }
}

/// The tree's nodes, root first (empty for no boxes).
#[derive(Debug, Default, Clone)]
pub(super) struct AabbTree {
    pub(super) nodes: Vec<Node>,
    order: Vec<u32>,
}

impl AabbTree {
    /// Rebuilds the tree over `boxes` (leaf `i` holds box `i`).
    pub(super) fn build(&mut self, boxes: &[Aabb]) {
        self.nodes.clear();
        if boxes.is_empty() {
            return;
        }
        self.order.clear();
        self.order.extend(0..boxes.len() as u32);
        let centres: Vec<_> = boxes.iter().map(Aabb::center).collect();
        let mut order = std::mem::take(&mut self.order);
        self.build_node(boxes, &centres, &mut order);
        self.order = order;
    }

    /// Appends the subtree over `items` and returns its node index.
    fn build_node(&mut self, boxes: &[Aabb], centres: &[Point3<f64>], items: &mut [u32]) -> u32 {
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
    pub(super) fn refit(&mut self, boxes: &[Aabb]) {
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

    pub(super) fn relative_cost(&self) -> f64 {
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
}

/// Reorders `items` so that `items[..k]` and `items[k..]` are the two sides of the best binned
/// SAH split and returns `k` (a median split when all centres fall into one bin).
fn sah_split(boxes: &[Aabb], centres: &[Point3<f64>], items: &mut [u32]) -> usize {
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
