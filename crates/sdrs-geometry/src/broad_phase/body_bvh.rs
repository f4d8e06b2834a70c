//! A persistent tree over one rigid body's primitives in the body frame, for mesh-against-mesh
//! candidate search (IPC's vertex–face and edge–edge pairs).
//!
//! A rigid body's primitives never move in its own frame, so the tree is built once (an
//! [`AabbTree`], binned SAH) and never refitted. Two bodies are queried tree against tree:
//! each node box visited is moved to the world by the body's pose as the box of the moved box
//! (centre `R c + t`, half extents `|R| h`, Ericson sec. 4.2.6) — a superset of the moved
//! primitives' own boxes — so only the nodes a query reaches are transformed, and pairs within
//! one body are never formed.

use super::aabb_tree::AabbTree;
use crate::aabb::Aabb;
use crate::error::{GeometryError, Result};
use nalgebra::{Isometry3, Matrix3, Point3, Vector3};

/// A static AABB tree over a body's primitive boxes (body frame); leaf `i` holds box `i`.
///
/// ```
/// use sdrs_geometry::{Aabb, broad_phase::BodyBvh};
/// use nalgebra::{Isometry3, Matrix3, Point3, Vector3};
/// let unit = |x: f64| Aabb::new(Point3::new(x, 0.0, 0.0), Point3::new(x + 1.0, 1.0, 1.0));
/// let a = BodyBvh::new(&[unit(0.0), unit(3.0)]);
/// let b = BodyBvh::new(&[unit(0.0)]);
/// // B moved 1.05 m along x: its box is 5 cm from A's first box, 95 cm from the second.
/// let (pa, pb) = (Isometry3::identity(), Isometry3::translation(1.05, 0.0, 0.0));
/// let mut pairs = Vec::new();
/// a.for_each_overlap(&[pa], &b, &[pb], 0.03, |i, j| pairs.push((i, j)))?;
/// assert_eq!(pairs, vec![(0, 0)]);
/// # Ok::<(), sdrs_geometry::GeometryError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct BodyBvh {
    tree: AabbTree,
    leaves: usize,
}

/// A pose with its rotation matrix and that matrix's absolute values, computed once per query.
struct Placement {
    rotation: Matrix3<f64>,
    abs: Matrix3<f64>,
    translation: Vector3<f64>,
}

impl Placement {
    fn new(pose: &Isometry3<f64>) -> Self {
        let rotation = *pose.rotation.to_rotation_matrix().matrix();
        Self {
            rotation,
            abs: rotation.abs(),
            translation: pose.translation.vector,
        }
    }
}

/// The world box of body-frame box `b` at each placement, merged (empty without any).
/// Padded by the round-off of the moved coordinates, so that it also holds the boxes of the
/// contents moved in floating point.
fn moved(b: &Aabb, placements: &[Placement]) -> Aabb {
    let (centre, half) = (b.center().coords, b.extents() * 0.5);
    let size = b.mins.coords.amax().max(b.maxs.coords.amax());
    placements.iter().fold(Aabb::empty(), |acc, p| {
        let c = p.rotation * centre + p.translation;
        let pad = 8.0 * f64::EPSILON * (c.amax() + p.translation.amax() + size);
        let h = p.abs * half + Vector3::repeat(pad);
        acc.merged(&Aabb::new(Point3::from(c - h), Point3::from(c + h)))
    })
}

impl BodyBvh {
    /// The tree over `boxes` (body frame).
    pub fn new(boxes: &[Aabb]) -> Self {
        let mut tree = AabbTree::default();
        tree.build(boxes);
        Self {
            tree,
            leaves: boxes.len(),
        }
    }

    /// The number of boxes.
    pub fn len(&self) -> usize {
        self.leaves
    }

    /// Whether the tree holds no box.
    pub fn is_empty(&self) -> bool {
        self.leaves == 0
    }

    /// Calls `visit(i, j)` once for every box `i` of this tree and `j` of `other` whose world
    /// boxes may come within `2 · margin`: the boxes moved by every pose of their body
    /// (`poses`, `other_poses`: one pose, or several for boxes swept along a motion), merged,
    /// and inflated by `margin` each, overlap. The moved boxes enclose the moved contents, so
    /// every pair whose exact world boxes overlap is visited (and a few more: callers test
    /// their exact boxes). Nothing is visited without poses; a margin that is not finite and
    /// non-negative is [`GeometryError::InvalidParameter`].
    pub fn for_each_overlap(
        &self,
        poses: &[Isometry3<f64>],
        other: &BodyBvh,
        other_poses: &[Isometry3<f64>],
        margin: f64,
        mut visit: impl FnMut(u32, u32),
    ) -> Result<()> {
        if !(margin >= 0.0 && margin.is_finite()) {
            return Err(GeometryError::InvalidParameter {
                name: "margin",
                value: margin,
                allowed: "finite and non-negative (half the distance at which pairs count)",
            });
        }
        let (na, nb) = (&self.tree.nodes, &other.tree.nodes);
        if na.is_empty() || nb.is_empty() {
            return Ok(());
        }
        // Both sides inflated by `margin`: one side by `2 · margin` is the same test.
        let (pa, pb): (Vec<_>, Vec<_>) = (
            poses.iter().map(Placement::new).collect(),
            other_poses.iter().map(Placement::new).collect(),
        );
        let box_a = |k: u32| moved(&na[k as usize].aabb, &pa).inflated(2.0 * margin);
        let box_b = |k: u32| moved(&nb[k as usize].aabb, &pb);
        // Node pairs with their world boxes, so each box is moved once per visit of its node.
        let mut stack = vec![(0u32, box_a(0), 0u32, box_b(0))];
        while let Some((a, wa, b, wb)) = stack.pop() {
            if !wa.intersects(&wb) {
                continue;
            }
            let (node_a, node_b) = (&na[a as usize], &nb[b as usize]);
            // Descend the larger box (both leaves: a candidate pair).
            let descend_a = match (node_a.is_leaf(), node_b.is_leaf()) {
                (true, true) => {
                    visit(node_a.right_or_leaf, node_b.right_or_leaf);
                    continue;
                }
                (true, false) => false,
                (false, true) => true,
                (false, false) => wa.surface_area() >= wb.surface_area(),
            };
            if descend_a {
                for child in [node_a.left, node_a.right_or_leaf] {
                    stack.push((child, box_a(child), b, wb));
                }
            } else {
                for child in [node_b.left, node_b.right_or_leaf] {
                    stack.push((a, wa, child, box_b(child)));
                }
            }
        }
        Ok(())
    }
}
