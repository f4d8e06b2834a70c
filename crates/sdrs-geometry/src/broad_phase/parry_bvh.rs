//! parry's incremental BVH as a pair finder (benchmark baseline).

use super::PairFinder;
use crate::aabb::Aabb;
use crate::parry_adapter::to_glam;
use parry3d_f64::bounding_volume::Aabb as ParryAabb;
use parry3d_f64::partitioning::{Bvh, BvhBuildStrategy, BvhWorkspace};

/// parry's `Bvh`: leaves updated in place, refitted, then traversed against itself.
#[derive(Default, Clone)]
pub struct ParryBvh {
    tree: Option<(Bvh, usize)>,
    workspace: BvhWorkspace,
}

fn convert(b: &Aabb) -> ParryAabb {
    ParryAabb::new(to_glam(&b.mins), to_glam(&b.maxs))
}

impl PairFinder for ParryBvh {
    fn name(&self) -> &'static str {
        "parry-bvh"
    }

    fn boxed_clone(&self) -> Box<dyn PairFinder> {
        Box::new(self.clone())
    }

    fn find_overlaps(&mut self, boxes: &[Aabb], out: &mut Vec<(u32, u32)>) {
        match &mut self.tree {
            Some((tree, count)) if *count == boxes.len() => {
                for (i, b) in boxes.iter().enumerate() {
                    tree.insert_or_update_partially(convert(b), i as u32, 0.0);
                }
                tree.refit(&mut self.workspace);
            }
            _ => {
                let leaves: Vec<ParryAabb> = boxes.iter().map(convert).collect();
                self.tree = Some((
                    Bvh::from_leaves(BvhBuildStrategy::Binned, &leaves),
                    boxes.len(),
                ));
            }
        }
        if let Some((tree, _)) = &self.tree {
            tree.traverse_bvtt_single_tree::<false>(&mut self.workspace, &mut |i, j| {
                out.push((i.min(j), i.max(j)))
            });
        }
    }
}
