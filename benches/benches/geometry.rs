//! Suite `geometry`: GJK distance, broad phase, sphere-tree construction and contact patches.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use sdrs_benches::{bench_cold_and_warm, hull_cloud, hull_pairs, runner};
use sdrs_geometry::broad_phase::{
    AllPairs, BroadPhase, BvhCrate, OwnBvh, PairFinder, ParryBvh, Proxy,
};
use sdrs_geometry::contact::{hull_halfspace_contacts, hull_pair_contacts};
use sdrs_geometry::gjk::{GjkCache, GjkSettings, Proximity, gjk_distance};
use sdrs_geometry::{ConvexHull, SphereTree, TriMesh};
use std::hint::black_box;

const VERTEX_COUNTS: [usize; 5] = [8, 32, 96, 384, 768];

/// One GJK query per iteration, cycling through 8 pairs 0.1 m apart (a working set that
/// stays in cache, as the pairs of one Newton solve do). `cold` starts every
/// query from scratch; `warm` reuses each pair's cache while B alternates between two poses
/// 0.1 mm apart. Group `gjk_same_pose`: pairs 1 cm apart queried again at the same pose.
fn gjk(c: &mut Criterion) {
    let mut group = c.benchmark_group("gjk");
    let mut rng = runner();
    let settings = GjkSettings::default();
    for m in VERTEX_COUNTS {
        let pairs = hull_pairs(m, 8, 0.1, &mut rng);
        bench_cold_and_warm(&mut group, m, &pairs, |p, variant, cache: &mut GjkCache| {
            match gjk_distance(&p.a, &p.pose_a, &p.b, &p.poses_b[variant], &settings, cache) {
                Proximity::Separated(s) => s.distance,
                Proximity::Intersecting { .. } => 0.0,
            }
        });
    }
    group.finish();

    // The same pose queried again (as a line search re-evaluating its start, or a converged
    // Newton step): pairs 1 cm apart, `warm` reusing the cache of the previous identical query.
    let mut group = c.benchmark_group("gjk_same_pose");
    for m in [96, 768] {
        let pairs = hull_pairs(m, 8, 0.01, &mut rng);
        bench_cold_and_warm(
            &mut group,
            m,
            &pairs,
            |p, _, cache: &mut GjkCache| match gjk_distance(
                &p.a,
                &p.pose_a,
                &p.b,
                &p.poses_b[0],
                &settings,
                cache,
            ) {
                Proximity::Separated(s) => s.distance,
                Proximity::Intersecting { .. } => 0.0,
            },
        );
    }
    group.finish();
}

/// The broad phase for `n` moving hulls, boxes given: each iteration alternates between the
/// world AABBs of two pose sets (hulls moved by up to 5 cm and 0.05 rad) and finds the
/// candidate pairs with a 1 cm margin. Group `broad_phase_step` adds computing the AABBs from
/// the hull poses, i.e. the whole per-step cost with the default finder.
fn broad_phase(c: &mut Criterion) {
    let mut group = c.benchmark_group("broad_phase");
    group.sample_size(20);
    let mut rng = runner();
    let mut clouds = Vec::new();
    for n in [10, 100, 1_000, 10_000] {
        let (hulls, poses) = hull_cloud(n, &mut rng);
        let boxes: Vec<Vec<Proxy>> = poses
            .iter()
            .map(|set| {
                hulls
                    .iter()
                    .zip(set)
                    .enumerate()
                    .map(|(i, (h, p))| Proxy {
                        body: i,
                        aabb: h.aabb(p),
                    })
                    .collect()
            })
            .collect();
        let mut finders: Vec<Box<dyn PairFinder>> = vec![
            Box::new(OwnBvh::default()),
            Box::new(BvhCrate::default()),
            Box::new(ParryBvh::default()),
        ];
        if n <= 1_000 {
            finders.push(Box::new(AllPairs));
        }
        for finder in finders {
            let mut bp = BroadPhase::with_finder(0.01, finder).unwrap();
            let mut pairs = Vec::new();
            let mut step = 0;
            group.bench_function(BenchmarkId::new(bp.finder_name(), n), |bench| {
                bench.iter(|| {
                    step += 1;
                    bp.candidate_pairs(&boxes[step % 2], |_, _| false, &mut pairs);
                    black_box(pairs.len())
                })
            });
        }
        clouds.push((n, hulls, poses));
    }
    group.finish();

    let mut group = c.benchmark_group("broad_phase_step");
    group.sample_size(20);
    for (n, hulls, poses) in &clouds {
        let mut bp = BroadPhase::new(0.01).unwrap();
        let mut proxies = Vec::with_capacity(*n);
        let mut pairs = Vec::new();
        let mut step = 0;
        group.bench_function(BenchmarkId::new("aabbs+own-bvh", n), |bench| {
            bench.iter(|| {
                step += 1;
                proxies.clear();
                proxies.extend(hulls.iter().zip(&poses[step % 2]).enumerate().map(
                    |(i, (h, p))| Proxy {
                        body: i,
                        aabb: h.aabb(p),
                    },
                ));
                bp.candidate_pairs(&proxies, |_, _| false, &mut pairs);
                black_box(pairs.len())
            })
        });
    }
    group.finish();
}

/// Building the layered sphere tree over icospheres of growing triangle count.
fn sphere_tree(c: &mut Criterion) {
    let mut group = c.benchmark_group("sphere_tree_build");
    group.sample_size(10);
    for level in 3..=6 {
        let mesh = TriMesh::icosphere(1.0, level).unwrap();
        group.bench_with_input(
            BenchmarkId::new("build", mesh.triangles().len()),
            &mesh,
            |bench, mesh| bench.iter(|| black_box(SphereTree::build(mesh).unwrap().node_count())),
        );
    }
    group.finish();
}

/// Contact patches for hard contact: a box resting 1 mm deep on the ground (4 points), and a
/// box on a box, resting face on face 1 mm deep (turned 0.4 rad: clipping two squares) and
/// 1 mm apart within a 2 mm margin (GJK normal), each with a warm GJK cache.
fn contact_patches(c: &mut Criterion) {
    let mut group = c.benchmark_group("contact_patch");
    let cube = ConvexHull::cuboid(Vector3::new(0.5, 0.5, 0.5)).unwrap();
    let ground_pose = Isometry3::translation(0.1, 0.2, 0.499);
    group.bench_function("box_on_ground", |bench| {
        bench.iter(|| {
            let contacts =
                hull_halfspace_contacts(&cube, black_box(&ground_pose), &Vector3::z(), 0.0, 1e-3);
            black_box(contacts.unwrap().len())
        })
    });
    let turned = UnitQuaternion::from_scaled_axis(Vector3::new(0.0, 0.0, 0.4));
    for (name, z) in [
        ("box_on_box_overlapping", 0.999),
        ("box_on_box_apart", 1.001),
    ] {
        let pose_b = Isometry3::from_parts(Translation3::new(0.2, -0.1, z), turned);
        let mut cache = GjkCache::default();
        group.bench_function(name, |bench| {
            bench.iter(|| {
                let contacts = hull_pair_contacts(
                    &cube,
                    &Isometry3::identity(),
                    &cube,
                    black_box(&pose_b),
                    2e-3,
                    &mut cache,
                );
                black_box(contacts.unwrap().len())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, gjk, broad_phase, sphere_tree, contact_patches);
criterion_main!(benches);
