use nalgebra::{Point3, Vector3};
use proptest::prelude::*;
use sdrs_geometry::Aabb;
use sdrs_geometry::broad_phase::{
    AllPairs, BroadPhase, BvhCrate, OwnBvh, PairFinder, ParryBvh, Proxy,
};

fn finders() -> Vec<Box<dyn PairFinder>> {
    vec![
        Box::new(OwnBvh::default()),
        Box::new(BvhCrate::default()),
        Box::new(ParryBvh::default()),
    ]
}

fn proxies_from(raw: &[(usize, [f64; 3], f64)]) -> Vec<Proxy> {
    raw.iter()
        .map(|&(body, c, h)| {
            let c = Point3::from(c);
            Proxy {
                body,
                aabb: Aabb::new(c - Vector3::repeat(h), c + Vector3::repeat(h)),
            }
        })
        .collect()
}

fn reference(
    proxies: &[Proxy],
    margin: f64,
    exclude: impl Fn(usize, usize) -> bool,
) -> Vec<(usize, usize)> {
    let mut bp = BroadPhase::with_finder(margin, Box::new(AllPairs)).unwrap();
    let mut out = Vec::new();
    bp.candidate_pairs(proxies, exclude, &mut out);
    out
}

#[test]
fn margin_is_validated() {
    assert!(BroadPhase::new(-1.0).is_err());
    assert!(
        BroadPhase::new(f64::NAN)
            .unwrap_err()
            .to_string()
            .contains("margin")
    );
    assert_eq!(BroadPhase::new(0.02).unwrap().finder_name(), "own-bvh");
}

#[test]
fn empty_and_single_proxy_give_no_pairs() {
    for finder in finders() {
        let mut bp = BroadPhase::with_finder(0.1, finder).unwrap();
        let mut out = vec![(7, 7)];
        bp.candidate_pairs(&[], |_, _| false, &mut out);
        assert!(out.is_empty());
        bp.candidate_pairs(&proxies_from(&[(0, [0.0; 3], 1.0)]), |_, _| false, &mut out);
        assert!(out.is_empty());
    }
}

fn scene() -> impl Strategy<Value = Vec<(usize, [f64; 3], f64)>> {
    proptest::collection::vec(
        (
            0usize..40,
            proptest::array::uniform3(-5.0..5.0f64),
            0.01..0.6f64,
        ),
        2..300,
    )
}

proptest! {
    #![proptest_config(sdrs_geometry::testing::cases(48))]

    /// Every finder returns exactly the all-pairs answer, step after step as boxes move and
    /// the proxy count changes, with bodies and an exclusion predicate applied.
    #[test]
    fn finders_agree_with_all_pairs(
        steps in proptest::collection::vec(scene(), 1..4),
        margin in 0.0..0.3f64,
        motion in proptest::collection::vec(proptest::array::uniform3(-0.5..0.5f64), 300),
    ) {
        let exclude = |a: usize, b: usize| a.abs_diff(b) == 1;
        for finder in finders() {
            let mut bp = BroadPhase::with_finder(margin, finder).unwrap();
            let mut out = Vec::new();
            for raw in &steps {
                let mut proxies = proxies_from(raw);
                for _ in 0..3 {
                    bp.candidate_pairs(&proxies, exclude, &mut out);
                    prop_assert_eq!(&out, &reference(&proxies, margin, exclude), "{}", bp.finder_name());
                    // Move every box (same count: the trees refit instead of rebuilding).
                    for (p, m) in proxies.iter_mut().zip(&motion) {
                        let d = Vector3::from(*m);
                        p.aabb = Aabb::new(p.aabb.mins + d, p.aabb.maxs + d);
                    }
                }
            }
            for &(i, j) in &out {
                prop_assert!(i < j);
            }
        }
    }
}

#[test]
fn own_bvh_rebuilds_when_the_scene_is_scrambled() {
    let mut finder = OwnBvh::default();
    let mut boxes: Vec<Aabb> = (0..64)
        .map(|i| {
            let c = Point3::new(i as f64, 0.0, 0.0);
            Aabb::new(c, c + Vector3::repeat(0.5))
        })
        .collect();
    let mut out = Vec::new();
    finder.find_overlaps(&boxes, &mut out);
    assert_eq!(finder.rebuilds(), 1);
    finder.find_overlaps(&boxes, &mut out);
    assert_eq!(finder.rebuilds(), 1, "unchanged boxes only refit");
    // Scramble: leaf slots that were neighbours now hold boxes far apart.
    let scrambled: Vec<Aabb> = (0..64).map(|i| boxes[(i * 37) % 64]).collect();
    boxes = scrambled;
    out.clear();
    finder.find_overlaps(&boxes, &mut out);
    assert_eq!(finder.rebuilds(), 2);
    assert!(out.is_empty());
}

mod body_trees {
    //! `BodyBvh`: two bodies' primitive trees queried at their poses find every pair of
    //! primitives whose exact world boxes overlap, each once.

    use nalgebra::{Isometry3, Point3};
    use proptest::prelude::*;
    use sdrs_geometry::broad_phase::BodyBvh;
    use sdrs_geometry::testing::pose;
    use sdrs_geometry::{Aabb, GeometryError};

    /// Small random triangles (body frame) in a unit cube.
    fn triangles() -> impl Strategy<Value = Vec<[Point3<f64>; 3]>> {
        proptest::collection::vec(
            (
                proptest::array::uniform3(-0.5..0.5f64),
                proptest::array::uniform9(-0.1..0.1f64),
            ),
            1..60,
        )
        .prop_map(|ts| {
            ts.into_iter()
                .map(|(c, d)| {
                    std::array::from_fn(|k| {
                        Point3::new(c[0] + d[3 * k], c[1] + d[3 * k + 1], c[2] + d[3 * k + 2])
                    })
                })
                .collect()
        })
    }

    fn tree(ts: &[[Point3<f64>; 3]]) -> BodyBvh {
        BodyBvh::new(&ts.iter().map(Aabb::from_points).collect::<Vec<_>>())
    }

    /// The box of a triangle's corners at every pose, inflated.
    fn world(t: &[Point3<f64>; 3], poses: &[Isometry3<f64>], margin: f64) -> Aabb {
        Aabb::from_points(
            &poses
                .iter()
                .flat_map(|p| t.map(|v| p * v))
                .collect::<Vec<_>>(),
        )
        .inflated(margin)
    }

    proptest! {
        #![proptest_config(sdrs_geometry::testing::cases(300))]

        #[test]
        fn every_overlapping_pair_is_visited_once(
            a in triangles(), b in triangles(),
            pa in proptest::collection::vec(pose(0.6), 1..3),
            pb in proptest::collection::vec(pose(0.6), 1..3),
            margin in 0.0..0.1f64,
        ) {
            let mut visited = Vec::new();
            tree(&a).for_each_overlap(&pa, &tree(&b), &pb, margin, |i, j| visited.push((i, j))).unwrap();
            let count = visited.len();
            visited.sort_unstable();
            visited.dedup();
            prop_assert_eq!(visited.len(), count, "a pair visited twice");
            for (i, ta) in a.iter().enumerate() {
                for (j, tb) in b.iter().enumerate() {
                    if world(ta, &pa, margin).intersects(&world(tb, &pb, margin)) {
                        prop_assert!(visited.binary_search(&(i as u32, j as u32)).is_ok(),
                            "pair ({}, {}) overlaps but was not visited", i, j);
                    }
                }
            }
        }
    }

    #[test]
    fn bad_margins_are_refused_and_empty_trees_meet_nothing() {
        let one = BodyBvh::new(&[Aabb::new(Point3::origin(), Point3::new(1.0, 1.0, 1.0))]);
        let id = [Isometry3::identity()];
        for margin in [-1e-3, f64::NAN, f64::INFINITY] {
            let err = one
                .for_each_overlap(&id, &one, &id, margin, |_, _| {})
                .unwrap_err();
            assert!(matches!(
                err,
                GeometryError::InvalidParameter { name: "margin", .. }
            ));
        }
        let mut met = 0;
        one.for_each_overlap(&id, &BodyBvh::new(&[]), &id, 0.1, |_, _| met += 1)
            .unwrap();
        one.for_each_overlap(&[], &one, &id, 0.1, |_, _| met += 1)
            .unwrap();
        assert_eq!(met, 0);
        one.for_each_overlap(&id, &one, &id, 0.0, |_, _| met += 1)
            .unwrap();
        assert_eq!(met, 1);
        assert_eq!((one.len(), BodyBvh::new(&[]).is_empty()), (1, true));
    }
}
