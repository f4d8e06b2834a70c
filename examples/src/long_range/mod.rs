//! The long-range paper's control benchmarks (sec. 6, appendix A.6), one file per task, and
//! [`compare`], which runs a task under every method and overlays the convergence histories;
//! the table-top scenes ([`tabletop`]) of [`gather`], [`sort`], [`push`] and [`franka`] (the
//! Panda pushing a box), run under
//! receding-horizon control by [`mpc`].
//!
//! **Results, per method** (the measured runs each module's or example's docs give in full;
//! success is "within ε of the target"; wall times on this project's 2-core machine, often
//! beside other jobs; the paper's iteration counts are Table 3's):
//!
//! | task (command) | long-range | IPC | SDRS hulls | gradient bundle | ours: iterations, time | paper |
//! |---|---|---|---|---|---|---|
//! | billiards, reachable targets (`long_range_billiards --targets reachable`) | trivial start 0.4209 → 0 (it. 214), random start 2.081 → 0 (210): both balls | 0.4209, gradient 0 / 1.301 → 0.4209 | 0.4209, gradient 0 / 0.822 → 0.4157 | 0.4209, gradient 0 / 0.822 → 0.089 | 400, 0.16-0.23 s per it. | long-range converges from the trivial start, the others only after sampling; 400 it. |
//! | billiards, paper's random targets (`long_range_billiards`) | 0.0717 → 0.0153, no start gets both balls in | 0.0717, gradient 0 | 0.0717, gradient 0 | 0.0717 → 0.0239 | 400 | as above |
//! | push (`long_range_push --full --baselines`) | box within ε from frame 54 | rod never moves | rod never moves | rod never moves | 50 per frame, 1.18 s per window evaluation | long-range succeeds, no baseline moves; 50 it. |
//! | gather, 10 cubes (`long_range_tabletop gather --cubes 10 --counted-far-field --frames 60 --keep-on-ground`) | 2.3775 → 1.4733, 3 of 10 in 60 frames (also 3 with the rod's height driven, `--drive-z`) | rod still (4-cube run) | rod still (4 cubes) | rod still (4 cubes) | 10 per frame, 3.55 s per evaluation | all 10 in 300 frames; 60 it. |
//! | sort, 10 cubes (`sort --post --cubes 10 --counted-far-field --rod=-0.375,-0.32,0 --frames 150 --keep-on-ground`) | 9.9750 → 6.4762, 3 of 10 in 150 frames | rod still (2-cube run) | rod still (2 cubes) | rod still (2 cubes) | 10 per frame, 0.838 s per evaluation | all 10 in 700 frames; 100 it. |
//! | gather, 2 generated rabbits (`gather --bunny-like --first 1 --cubes 2 --rod 0,-0.55,0 --horizon 16`) | 0.2175 → 0 (frame 21): 2 of 2 | not measured | not measured | not measured | 10 per frame, 13.4 s per evaluation | 10 bunnies; 60 it. |
//! | ant push (`long_range_ant_push --full`; `--decay-to 0.1`) | box within ε at it. 77 (constant step), 25 (decaying step) | box untouched, gradient 0 (reduced run) | the same | the same | 38 s / 10.9 s per it. | box at its target; 100 it. |
//! | Franka push (`long_range_franka --full`) | box within ε from frame 47 | never moves the box (200-frame run, h = 16) | the same | the same | 50 at the first frame, 0.50 s per frame | a bunny pushed, 7.83 s per frame |
//!
//! What is not reproduced: gather and sort of all 10 cubes (the rod does not go around cubes it has
//! passed: [`gather`]'s docs), 10 non-convex pieces (too slow here), and the book stack's stability
//! in Table 2 (`book_stack --table2`: ours falls while settling at μ = 1e-5 to 1e-8, and at 1e-10
//! creeps and falls at 26 s; the paper's stands from 1e-6). MuJoCo (finite differences) is run on
//! push only (`benches/reference/mujoco_push.py`: its gradient is exactly 0 over all 400
//! iterations).

pub mod animation;
pub mod ant_push;
pub mod billiards;
pub mod compare;
pub mod franka;
pub mod gather;
pub mod mpc;
pub mod push;
pub mod sort;
pub mod tabletop;
