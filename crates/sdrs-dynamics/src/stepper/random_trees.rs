//! Random kinematic trees for the step's unit tests: every joint kind, fixed-joint links
//! (several links per rigid body), free or fixed roots, chains or branching trees.

use crate::model::{JointKind, Link, MassModel, Model};
use nalgebra::{Isometry3, Vector3};
use sdrs_geometry::ConvexHull;

/// A small deterministic generator (xorshift), uniform in `[-1, 1)`.
pub(crate) struct Noise(pub(crate) u64);

impl Noise {
    pub(crate) fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }

    pub(crate) fn vector(&mut self, scale: f64) -> Vector3<f64> {
        Vector3::new(self.next(), self.next(), self.next()) * scale
    }

    pub(crate) fn pick(&mut self, count: usize) -> usize {
        ((self.next() + 1.0) * 0.5 * count as f64) as usize % count
    }
}

/// A random tree of `links` links: a free or fixed root, then every kind of joint, each
/// link on a random earlier one (`chain`: on the one before) with a random off-centre box.
pub(crate) fn random_model(noise: &mut Noise, links: usize, floating: bool, chain: bool) -> Model {
    let mut out = Vec::new();
    for i in 0..links {
        let joint = if i == 0 {
            if floating {
                JointKind::Free
            } else {
                JointKind::Revolute {
                    axis: noise.vector(1.0),
                }
            }
        } else {
            match noise.pick(6) {
                0 => JointKind::Fixed,
                1 => JointKind::Prismatic {
                    axis: noise.vector(1.0),
                },
                2 => JointKind::Universal {
                    first: noise.vector(1.0),
                    second: noise.vector(1.0),
                },
                3 => JointKind::Spherical,
                _ => JointKind::Revolute {
                    axis: noise.vector(1.0),
                },
            }
        };
        let parent = (i > 0).then(|| if chain { i - 1 } else { noise.pick(i) });
        let attachment = Isometry3::new(noise.vector(0.3), noise.vector(1.0));
        let offset = Isometry3::new(noise.vector(0.1), noise.vector(1.0));
        let corners: Vec<_> = ConvexHull::cuboid(Vector3::new(0.1, 0.05, 0.2))
            .expect("positive half extents")
            .vertices()
            .iter()
            .map(|v| offset * v)
            .collect();
        let hull = ConvexHull::new(corners).expect("a box");
        out.push(Link::new(
            format!("link{i}"),
            parent,
            attachment,
            joint,
            vec![hull],
            MassModel::Lumped {
                mass: 1.5 + noise.next(),
            },
        ));
    }
    Model::new(out).expect("a valid random tree")
}

/// Asserts that `got` equals `want` to 1e-12 of `want`'s largest entry (at least 1).
pub(crate) fn assert_matches(case: usize, what: &str, got: &[f64], want: &[f64]) {
    let scale = want.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    let diff = got
        .iter()
        .zip(want)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    assert!(
        diff < 1e-12 * scale,
        "case {case}: {what} differ by {diff:e} (scale {scale:e})"
    );
}
