//! Suite `contact-mesh`: contact potentials between triangle meshes (value, 12-vector pose
//! gradient and 12x12 pose Hessian per evaluation).
//!
//! - `long_range_hierarchical`: the long-range potential of two icospheres of radius 0.5 m whose
//!   surfaces are 1 cm apart, hierarchical (eq. 6-8) with margin ε = 0.1 and ε = 0.5, cold
//!   (no warm start) and warm (each exact pair starts from its last plane), as the triangle
//!   count per sphere grows 320 → 1,280 → 5,120 → 20,480 (the report fits the log-log slope).
//! - `long_range_brute_force`: the unblended sum over all triangle pairs (eq. 3) on the
//!   smaller spheres, O(T²) inner solves.
//!
//! - `ipc`: the IPC barrier potential (Li et al. 2020) between the same spheres with
//!   d̂ = 2 cm (vertex–face and edge–edge pairs through the BVH broad phase, exact local
//!   Hessians), for the same triangle counts; `ipc_hull_pairs`: the same on the `contact`
//!   suite's hull pairs. `benches/reference/ipctk_pairs.py` times `ipctk` on both
//!   (`benches/reference/ipctk_timings.json`).
//! - `billiards_step`: one time step of the long-range paper's billiards scene (sec. 6: 16
//!   balls of 320 triangles on a 1,800-triangle ground grid) after 5 steps of the cue ball
//!   rolling in, for 4 and 16 balls: long-range contact between all 137 link pairs, and IPC
//!   (d̂ = 1 mm, stiffness 1e8, line search limited by CCD) for comparison.
//!
//! The report also lists what one hierarchical evaluation did (node pairs visited, exact
//! triangle pairs solved, blended terms).

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nalgebra::Isometry3;
use sdrs_benches::{hull_pairs, report_section, runner};
use sdrs_contact::ipc::potential::{Ipc, IpcShape};
use sdrs_contact::long_range::{LongRange, LongRangeCache, MeshShape};
use sdrs_contact::{ContactModel, Order};
use sdrs_dynamics::scenes::billiards;
use sdrs_dynamics::{ContactHook, IpcContact, Simulator};
use sdrs_geometry::{ConvexHull, TriMesh};

const LEVELS: [u32; 4] = [2, 3, 4, 5];

fn ball(level: u32) -> MeshShape {
    MeshShape::new(TriMesh::icosphere(0.5, level).expect("icosphere")).expect("hierarchy")
}

/// The second sphere 1 cm from the first (surface to surface at the vertices), or 0.1 mm
/// further for `variant` 1.
fn apart(variant: usize) -> Isometry3<f64> {
    Isometry3::translation(1.01 + 1e-4 * variant as f64, 0.0, 0.0)
}

fn hierarchical(c: &mut Criterion) {
    let mut group = c.benchmark_group("long_range_hierarchical");
    group.sample_size(10);
    let mut md = String::from(
        "## long_range_hierarchical: work per evaluation\n\n\
         | ε | triangles per sphere | node pairs | exact pairs | blended | centred | Newton iterations |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for level in LEVELS {
        let shape = ball(level);
        let t = shape.mesh().triangles().len();
        for epsilon in [0.1, 0.5] {
            let model = LongRange::new(epsilon).expect("epsilon");
            let (_, census) = model
                .evaluate_counted(
                    &shape,
                    &Isometry3::identity(),
                    &shape,
                    &apart(0),
                    &mut LongRangeCache::default(),
                    Order::Hessian,
                )
                .expect("spheres are apart");
            md.push_str(&format!(
                "| {epsilon} | {t} | {} | {} | {} | {} | {} |\n",
                census.node_pairs, census.exact, census.blended, census.centred, census.iterations
            ));
            // Cold: a fresh cache each time. Warm: the cache kept while the second sphere
            // alternates between two poses 0.1 mm apart, as between Newton iterations.
            for warm in [false, true] {
                let what = format!("ε={epsilon} {}", if warm { "warm" } else { "cold" });
                let mut cache = LongRangeCache::default();
                let mut k = 0;
                group.bench_function(BenchmarkId::new(what, t), |b| {
                    b.iter(|| {
                        k += 1;
                        if !warm {
                            cache = LongRangeCache::default();
                        }
                        model
                            .evaluate_counted(
                                &shape,
                                &Isometry3::identity(),
                                &shape,
                                &apart(k % 2),
                                &mut cache,
                                Order::Hessian,
                            )
                            .expect("spheres are apart")
                            .1
                            .node_pairs
                    })
                });
            }
        }
    }
    md.push('\n');
    report_section(&md);
    group.finish();
}

fn brute_force(c: &mut Criterion) {
    let mut group = c.benchmark_group("long_range_brute_force");
    group.sample_size(10);
    let model = LongRange::new(0.1).expect("epsilon");
    for level in [1, 2] {
        let shape = ball(level);
        let t = shape.mesh().triangles().len();
        group.bench_function(BenchmarkId::new("all pairs", t), |b| {
            b.iter(|| {
                model
                    .brute_force(
                        &shape,
                        &Isometry3::identity(),
                        &shape,
                        &apart(0),
                        Order::Hessian,
                    )
                    .expect("spheres are apart")
                    .value()
            })
        });
    }
    group.finish();
}

fn ipc(c: &mut Criterion) {
    let mut group = c.benchmark_group("ipc");
    group.sample_size(10);
    let model = Ipc::new(0.02).expect("dhat");
    for level in LEVELS {
        let shape = IpcShape::new(TriMesh::icosphere(0.5, level).expect("icosphere"));
        let t = shape.mesh().triangles().len();
        group.bench_function(BenchmarkId::new("d̂=2cm", t), |b| {
            b.iter(|| {
                model
                    .evaluate(
                        &shape,
                        &Isometry3::identity(),
                        &shape,
                        &apart(0),
                        &mut (),
                        Order::Hessian,
                    )
                    .expect("spheres are apart")
                    .value()
            })
        });
    }
    group.finish();
}

/// IPC on the `contact` suite's hull pairs (8 pairs of M-vertex hulls 5 mm apart, the draws
/// of `examples/export_pairs.rs`), d̂ = 2s/(1 − s) for s = 1 cm as in
/// `benches/reference/ipctk_pairs.py`: one pair per iteration, cycling.
fn ipc_hull_pairs(c: &mut Criterion) {
    let mut group = c.benchmark_group("ipc_hull_pairs");
    group.sample_size(10);
    let model = Ipc::new(2.0 * 0.01 / 0.99).expect("dhat");
    let mut rng = runner();
    for m in [8, 32, 96, 384, 768] {
        let pairs = hull_pairs(m, 8, 0.005, &mut rng);
        let shape = |h: &ConvexHull| {
            IpcShape::new(
                TriMesh::new(h.vertices().to_vec(), h.triangles().to_vec()).expect("hull mesh"),
            )
        };
        let shapes: Vec<_> = pairs.iter().map(|p| (shape(&p.a), shape(&p.b))).collect();
        let mut k = 0;
        group.bench_function(BenchmarkId::new("d̂=2.02cm", m), |b| {
            b.iter(|| {
                k = (k + 1) % pairs.len();
                let (p, (a, s)) = (&pairs[k], &shapes[k]);
                model
                    .evaluate(a, &p.pose_a, s, &p.poses_b[0], &mut (), Order::Hessian)
                    .expect("pairs are apart")
                    .value()
            })
        });
    }
    group.finish();
}

/// One step of the billiards scene (sec. 6), 5 steps in, under the long-range potential
/// (between all link pairs) and under IPC (d̂ = 1 mm, stiffness 1e8: balls rest about 0.1 mm
/// above the grid; CCD-limited line search).
fn billiards_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("billiards_step");
    group.sample_size(10);
    for balls in [4, 16] {
        let scene = billiards(balls, 2.0, 0.01).expect("scene");
        let model = scene.scene.model.clone();
        let ipc = Ipc::new(1e-3).expect("positive");
        let hooks: [(&str, Box<dyn ContactHook>); 2] = [
            ("long-range", Box::new(scene.contact)),
            (
                "ipc",
                Box::new(IpcContact::new(&model, ipc, 1e8, false).expect("meshes")),
            ),
        ];
        for (what, hook) in hooks {
            let control = scene.scene.control.clone();
            let mut sim =
                Simulator::with_contact(model.clone(), scene.scene.settings.clone(), hook)
                    .expect("valid settings");
            let mut motion = scene.start.clone();
            for _ in 0..5 {
                sim.advance(&mut motion, &control).expect("steps converge");
            }
            group.bench_function(BenchmarkId::new(what, balls), |b| {
                b.iter(|| {
                    sim.step(&motion.state, &motion.previous, &control)
                        .expect("steps converge")
                        .1
                        .iterations
                })
            });
        }
    }
    group.finish();
}

criterion_group!(
    benches,
    hierarchical,
    brute_force,
    ipc,
    ipc_hull_pairs,
    billiards_step
);
criterion_main!(benches);
