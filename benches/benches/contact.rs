//! Suite `contact`: the SDRS plane barrier per hull pair (value, 12-vector gradient and 12x12
//! Hessian), cold and warm started.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use sdrs_benches::{hull_pairs, runner};
use sdrs_contact::{ContactModel, Order, PlaneBarrier, PlaneCache};
use std::hint::black_box;

const VERTEX_COUNTS: [usize; 5] = [8, 32, 96, 384, 768];

/// Pairs 5 mm apart with the default support s = 1 cm (support distance 2.02 cm), cycling
/// through 8 pairs. `cold` starts each evaluation from a fresh cache (GJK, mid-plane, Newton);
/// `warm` keeps each pair's cache while B alternates between two poses 0.1 mm apart, as between
/// the Newton iterations of a time step.
fn plane_barrier(c: &mut Criterion) {
    let mut group = c.benchmark_group("plane_barrier_hessian");
    let model = PlaneBarrier::default();
    let mut rng = runner();
    for m in VERTEX_COUNTS {
        let pairs = hull_pairs(m, 8, 0.005, &mut rng);
        for (name, warm) in [("cold", false), ("warm", true)] {
            group.bench_with_input(BenchmarkId::new(name, m), &pairs, |bench, pairs| {
                let mut caches = vec![PlaneCache::default(); pairs.len()];
                let mut k = 0;
                bench.iter(|| {
                    k = (k + 1) % (2 * pairs.len());
                    let p = &pairs[k / 2];
                    if !warm {
                        caches[k / 2] = PlaneCache::default();
                    }
                    let out = model
                        .evaluate(
                            &p.a,
                            &p.pose_a,
                            &p.b,
                            &p.poses_b[k % 2],
                            &mut caches[k / 2],
                            Order::Hessian,
                        )
                        .expect("benchmark pairs converge");
                    black_box(out.value())
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, plane_barrier);
criterion_main!(benches);
