//! A fixed plane-barrier workload for instruction counting (see `gjk_callgrind.rs`):
//! 2,000 warm-started value+gradient+Hessian evaluations over 8 pairs of `M`-vertex hulls
//! (default 96) 5 mm apart with s = 1 cm; prints the mean inner iterations.

use sdrs_contact::{ContactModel, Order, PlaneBarrier, PlaneCache};

fn main() {
    let m = std::env::var("M").map_or(96, |m| m.parse().expect("M must be a vertex count"));
    let pairs = sdrs_benches::hull_pairs(m, 8, 0.005, &mut sdrs_benches::runner());
    let model = PlaneBarrier::default();
    let mut caches = vec![PlaneCache::default(); pairs.len()];
    let mut iterations = 0;
    for k in 0..2000 {
        let p = &pairs[k % pairs.len()];
        let out = model
            .evaluate(
                &p.a,
                &p.pose_a,
                &p.b,
                &p.poses_b[(k / pairs.len()) % 2],
                &mut caches[k % pairs.len()],
                Order::Hessian,
            )
            .expect("benchmark pairs converge");
        iterations += out.contact().map_or(0, |c| c.iterations);
    }
    println!(
        "M = {m}: {:.2} inner iterations per warm evaluation",
        iterations as f64 / 2000.0
    );
}
