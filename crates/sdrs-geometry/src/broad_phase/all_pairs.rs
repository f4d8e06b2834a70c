//! The quadratic reference pair finder.

use super::PairFinder;
use crate::aabb::Aabb;

/// Tests every pair of boxes: O(n²), exact, the reference for tests and small scenes.
#[derive(Debug, Default, Clone)]
pub struct AllPairs;

impl PairFinder for AllPairs {
    fn name(&self) -> &'static str {
        "all-pairs"
    }

    fn boxed_clone(&self) -> Box<dyn PairFinder> {
        Box::new(self.clone())
    }

    fn find_overlaps(&mut self, boxes: &[Aabb], out: &mut Vec<(u32, u32)>) {
        for (i, a) in boxes.iter().enumerate() {
            for (j, b) in boxes.iter().enumerate().skip(i + 1) {
                if a.intersects(b) {
                    out.push((i as u32, j as u32));
                }
            }
        }
    }
}
