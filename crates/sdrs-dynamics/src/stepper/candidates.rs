//! Candidate hull pairs kept across evaluations (a Verlet list).
//!
//! Newton's iterates and line-search trials of one step move the hulls by millimetres, yet
//! every evaluation needs the pairs within the barrier's support distance. The broad phase
//! therefore runs with each hull's box inflated by a skin `σ` beyond the support distance, and
//! its pairs are reused for any configuration in which no hull has moved more than `σ` from
//! where they were found: two hulls that come within the support distance there were within
//! it plus `2σ` at the build, so they are in the list. A hull's motion is bounded through its
//! bounding sphere (centre `c`, radius `r`, on a link that moved from `(R₀, t₀)` to
//! `(R₁, t₁)`): every point moves by at most `|R₁c + t₁ − R₀c − t₀| + θ r`, `θ` the angle of
//! `R₁R₀ᵀ`. Pairs beyond the support distance cost one warm-started GJK gate each and
//! contribute exactly zero, so the list changes no result.

use nalgebra::{Isometry3, Point3};
use sdrs_geometry::twist::turn_chord;

/// The skin as a multiple of the barrier's support distance. A wider skin rebuilds the list
/// less often but keeps more pairs beyond the support, each a GJK gate per evaluation: at 8
/// support distances (6.4 mm at the default support) the motion benchmark's Solo-12 trot
/// spent 8% more instructions per step than at 2, the humanoid lying 4% more, the A1 trot
/// 1% more; at 24 the A1 trot spent 15% more; 1 was no faster than 2.
const SKIN_PER_SUPPORT: f64 = 2.0;

/// A hull's bounding sphere on its link.
#[derive(Debug, Clone, Copy)]
pub(super) struct HullSphere {
    pub(super) link: usize,
    pub(super) centre: Point3<f64>,
    pub(super) radius: f64,
}

/// The pairs found at some link poses, with the skin they hold within.
#[derive(Debug, Clone)]
pub(super) struct CandidateList {
    spheres: Vec<HullSphere>,
    skin: f64,
    /// The link poses the pairs were found at (empty: no list yet).
    poses: Vec<Isometry3<f64>>,
    pairs: Vec<(usize, usize)>,
}

impl CandidateList {
    /// An empty list for hulls with these bounding spheres, its skin scaled to the barrier's
    /// `support` distance.
    pub(super) fn new(spheres: Vec<HullSphere>, support: f64) -> Self {
        Self {
            spheres,
            skin: SKIN_PER_SUPPORT * support,
            poses: Vec::new(),
            pairs: Vec::new(),
        }
    }

    /// The candidate pairs at link `poses`: the kept ones when every hull is within the skin
    /// of where they were found, else those `find` returns for hull boxes inflated by the
    /// margin it is given (kept for the next call).
    pub(super) fn pairs(
        &mut self,
        poses: &[Isometry3<f64>],
        find: impl FnOnce(f64) -> Vec<(usize, usize)>,
    ) -> Vec<(usize, usize)> {
        if !self.holds_at(poses) {
            self.pairs = find(self.skin);
            self.poses.clear();
            self.poses.extend_from_slice(poses);
        }
        self.pairs.clone()
    }

    /// Forgets the kept pairs.
    pub(super) fn clear(&mut self) {
        self.poses.clear();
    }

    /// Whether no hull has moved more than the skin since the list was found.
    fn holds_at(&self, poses: &[Isometry3<f64>]) -> bool {
        self.poses.len() == poses.len()
            && self.spheres.iter().all(|s| {
                let (then, now) = (&self.poses[s.link], &poses[s.link]);
                let shift = (now * s.centre - then * s.centre).norm();
                let turn = turn_chord(&now.rotation, &then.rotation);
                // NaN poses fail the test and rebuild (where the evaluation reports them).
                shift + turn * s.radius <= self.skin
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Vector3;

    fn list() -> CandidateList {
        let sphere = HullSphere {
            link: 0,
            centre: Point3::new(1.0, 0.0, 0.0),
            radius: 0.5,
        };
        CandidateList::new(vec![sphere], 4e-3)
    }

    /// Whether `list` ran the broad phase for `pose` (which finds the pair (0, 1)).
    fn searched(list: &mut CandidateList, pose: Isometry3<f64>) -> bool {
        let mut searched = false;
        let pairs = list.pairs(&[pose], |margin| {
            assert_eq!(margin, 8e-3, "the skin: 2 support distances");
            searched = true;
            vec![(0, 1)]
        });
        assert_eq!(pairs, vec![(0, 1)]);
        searched
    }

    #[test]
    fn pairs_are_kept_while_every_hull_stays_within_the_skin() {
        let mut list = list();
        assert!(searched(&mut list, Isometry3::identity()));
        assert!(
            !searched(&mut list, Isometry3::translation(0.007, 0.0, 0.0)),
            "7 mm: kept"
        );
        // A turn of 0.01 rad about the link origin moves the sphere's centre by 1 cm: searched
        // again, though the link origin did not move.
        let turned = Isometry3::new(Vector3::zeros(), Vector3::new(0.0, 0.0, 0.01));
        assert!(searched(&mut list, turned));
        // A turn of 0.01 rad about the sphere's centre moves its points by 2 sin(θ/2) r ≈ 5 mm: kept.
        let centre = (turned * Point3::new(1.0, 0.0, 0.0)).coords;
        let about_centre = |angle: f64| {
            Isometry3::translation(centre.x, centre.y, centre.z)
                * Isometry3::new(Vector3::zeros(), Vector3::new(0.0, 0.0, angle))
                * Isometry3::translation(-centre.x, -centre.y, -centre.z)
                * turned
        };
        assert!(!searched(&mut list, about_centre(0.01)));
        // Twice that turn moves them by 1 cm: searched again.
        assert!(searched(&mut list, about_centre(0.02)));
        list.clear();
        assert!(searched(&mut list, Isometry3::identity()), "cleared");
        let nan = Isometry3::translation(f64::NAN, 0.0, 0.0);
        assert!(
            searched(&mut list, nan) && searched(&mut list, nan),
            "never kept for NaN"
        );
    }
}
