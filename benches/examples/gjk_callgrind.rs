//! A fixed GJK workload for instruction counting, which is repeatable where wall time on a
//! shared machine is not:
//!
//! ```text
//! cargo build --release -p sdrs-benches --example gjk_callgrind
//! M=96 valgrind --tool=callgrind target/release/examples/gjk_callgrind
//! callgrind_annotate --inclusive=yes callgrind.out.* | grep gjk_distance
//! ```
//!
//! It runs 2,000 cold-started queries over 32 random pairs of `M`-vertex hulls (default 768)
//! 0.1 m apart and prints the total GJK iteration count; divide the inclusive instruction count
//! of `gjk_distance` by 2,000 for the cost per query.

use sdrs_geometry::gjk::{GjkCache, GjkSettings, Proximity, gjk_distance};

fn main() {
    let m = std::env::var("M").map_or(768, |m| m.parse().expect("M must be a vertex count"));
    let pairs = sdrs_benches::hull_pairs(m, 32, 0.1, &mut sdrs_benches::runner());
    let settings = GjkSettings::default();
    let mut iterations = 0;
    for k in 0..2000 {
        let p = &pairs[k % pairs.len()];
        let result = gjk_distance(
            &p.a,
            &p.pose_a,
            &p.b,
            &p.poses_b[0],
            &settings,
            &mut GjkCache::default(),
        );
        if let Proximity::Separated(s) = result {
            iterations += s.iterations;
        }
    }
    println!("M = {m}: {iterations} GJK iterations over 2000 cold queries");
}
