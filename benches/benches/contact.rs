//! Suite `contact`: the SDRS plane barrier and plane friction per hull pair (value, 12-vector
//! gradient and 12x12 Hessian), cold and warm started.

use criterion::{Criterion, criterion_group, criterion_main};
use nalgebra::{Isometry3, Translation3};
use sdrs_benches::{bench_cold_and_warm, hull_pairs, runner};
use sdrs_contact::friction::{FrictionCache, FrictionFrame, PlaneFriction};
use sdrs_contact::{ContactModel, Order, PlaneBarrier, PlaneCache};

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
        bench_cold_and_warm(
            &mut group,
            m,
            &pairs,
            |p, variant, cache: &mut PlaneCache| {
                model
                    .evaluate(
                        &p.a,
                        &p.pose_a,
                        &p.b,
                        &p.poses_b[variant],
                        cache,
                        Order::Hessian,
                    )
                    .expect("benchmark pairs converge")
                    .value()
            },
        );
    }
    group.finish();
}

/// A pair's friction frame (built at the pair's pose) and two step-(t+1) poses of B, slid by
/// 1 mm or 1.2 mm during a 10 ms step.
type FrictionScene = (FrictionFrame, Isometry3<f64>, [Isometry3<f64>; 2]);

fn friction_scenes(m: usize, rng: &mut proptest::test_runner::TestRunner) -> Vec<FrictionScene> {
    let barrier = PlaneBarrier::default();
    hull_pairs(m, 8, 0.005, rng)
        .iter()
        .map(|p| {
            let frame = FrictionFrame::new(
                &barrier,
                1.0,
                &p.a,
                &p.pose_a,
                &p.b,
                &p.poses_b[0],
                &mut PlaneCache::default(),
            )
            .expect("benchmark pairs are separated")
            .expect("benchmark pairs are in contact");
            let slide = |dx: f64| Translation3::new(dx, 0.5 * dx, 0.0) * p.poses_b[0];
            (frame, p.pose_a, [slide(1e-3), slide(1.2e-3)])
        })
        .collect()
}

/// Plane friction for the same pairs (μ = 0.5, Δt = 10 ms): `plane_friction_hessian` is value,
/// 12-vector gradient and 12x12 Hessian w.r.t. the step-(t+1) poses; `plane_friction_lagged`
/// adds what the adjoint needs ([`Order::Design`]: step-t gradient, 12x12 step-t mixed block,
/// per-vertex shape derivatives). `cold` starts each solve from the least-squares plane
/// velocity, `warm` from the previous solution of the pair.
fn plane_friction(c: &mut Criterion) {
    let friction = PlaneFriction::new(0.5, 0.01).unwrap();
    for (name, order) in [
        ("plane_friction_hessian", Order::Hessian),
        ("plane_friction_lagged", Order::Design),
    ] {
        let mut group = c.benchmark_group(name);
        let mut rng = runner();
        for m in VERTEX_COUNTS {
            bench_cold_and_warm(
                &mut group,
                m,
                &friction_scenes(m, &mut rng),
                |(frame, pose_a, next), variant, cache: &mut FrictionCache| {
                    friction
                        .evaluate(frame, pose_a, &next[variant], cache, order)
                        .expect("benchmark friction converges")
                        .value
                },
            );
        }
        group.finish();
    }
}

criterion_group!(benches, plane_barrier, plane_friction);
criterion_main!(benches);
