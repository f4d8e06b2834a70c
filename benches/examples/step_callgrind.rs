//! A fixed time-step workload for instruction counting (see `gjk_callgrind.rs`): one scene of
//! the `dynamics` suite, warmed up as there, then `STEPS` steps (default 200) from the same
//! state, as criterion times them.
//!
//! ```text
//! cargo build --release -p sdrs-benches --example step_callgrind
//! valgrind --tool=callgrind --toggle-collect='*step_callgrind::timed*' \
//!     target/release/examples/step_callgrind talos
//! ```
//!
//! Scenes: `ur5`, `solo12`, `anymal`, `talos` (`robot_free_step`), `resting_box`, `stack_5`
//! (`box_step`), `rotating4` (`rotating_chains_step/4`), `chain/LINKS` (`chain_step/LINKS`),
//! `billiards/BALLS` (`contact-mesh`'s `billiards_step/long-range/BALLS`, 5 steps in). The
//! collected instructions over `STEPS` are the cost of one step; it prints the Newton
//! iterations per step and a fingerprint of the bits of the `FURTHER` (default 50) states
//! after them (to compare two builds' trajectories), and with `WALL=1` (not under callgrind)
//! the wall time per step, the fastest of 5 further batches.
//!
//! `jacobian/ROBOT` (`ur5`, `solo12`, `talos`) counts the `diff` suite's
//! `step_jacobian_robots/jacobian/ROBOT` instead: `STEPS` linearisations and step Jacobians
//! (collect `*step_callgrind::jacobians*`); it prints a fingerprint of the Jacobian's bits.

use sdrs_benches::{
    JacobianScene, box_stack, free_robot, jacobian, jacobian_scene, warmed_up, warmed_up_from,
};
use sdrs_dynamics::scenes::{Scene, billiards, chain, rotating_chains};
use sdrs_dynamics::{Motion, Simulator};

/// The timed steps: every one from the same state; returns the Newton iterations.
#[inline(never)]
fn timed(sim: &mut Simulator, scene: &Scene, motion: &Motion, steps: usize) -> usize {
    (0..steps)
        .map(|_| {
            sim.step(&motion.state, &motion.previous, &scene.control)
                .expect("the scene steps")
                .1
                .iterations
        })
        .sum()
}

/// The timed step Jacobians: a fingerprint of the bits of one entry of each.
#[inline(never)]
fn jacobians(scene: &mut JacobianScene, count: usize) -> u64 {
    (0..count).fold(0, |print, _| {
        let entry = jacobian(&mut scene.sim, &scene.before, &scene.after, &scene.control);
        print.rotate_left(5) ^ entry.to_bits()
    })
}

/// With `WALL` set (never under callgrind: the batches would be collected), the wall time per
/// call of `batch` (`count` calls), the fastest of 5 batches, as text for the report line;
/// empty otherwise. (Callgrind counts `memset`/`memcpy` per `rep` iteration, overstating
/// zeroing and copying.)
fn fastest_of_5(count: usize, mut batch: impl FnMut()) -> String {
    if std::env::var_os("WALL").is_none() {
        return String::new();
    }
    let fastest = (0..5)
        .map(|_| {
            let clock = std::time::Instant::now();
            batch();
            clock.elapsed().as_secs_f64() / count as f64
        })
        .fold(f64::INFINITY, f64::min);
    format!(", {:.2} µs each (fastest of 5 batches)", fastest * 1e6)
}

fn main() {
    let name = std::env::args().nth(1).unwrap_or_else(|| "talos".into());
    let steps = std::env::var("STEPS").map_or(200, |s| s.parse().expect("STEPS must be a count"));
    if let Some(robot) = name.strip_prefix("jacobian/") {
        let mut scene = jacobian_scene(robot);
        let print = jacobians(&mut scene, steps);
        let fastest = fastest_of_5(steps, || {
            jacobians(&mut scene, steps);
        });
        println!("{name}: {steps} step Jacobians{fastest}; fingerprint {print:016x}");
        return;
    }
    let (mut sim, scene, motion) = match name.as_str() {
        "resting_box" => warmed_up(box_stack(1), 100),
        "stack_5" => warmed_up(box_stack(5), 100),
        "rotating4" => warmed_up(rotating_chains(4, 0.01).expect("valid scene"), 100),
        balls if balls.starts_with("billiards/") => {
            let balls = balls["billiards/".len()..]
                .parse()
                .expect("billiards/BALLS with a ball count");
            let table = billiards(balls, 2.0, 0.01).expect("valid scene");
            let mut sim = Simulator::with_contact(
                table.scene.model.clone(),
                table.scene.settings.clone(),
                Box::new(table.contact),
            )
            .expect("valid settings");
            let mut motion = table.start;
            for _ in 0..5 {
                sim.advance(&mut motion, &table.scene.control)
                    .expect("the scene steps");
            }
            (sim, table.scene, motion)
        }
        chain_links if chain_links.starts_with("chain/") => {
            let links = chain_links["chain/".len()..]
                .parse()
                .expect("chain/LINKS with a link count");
            warmed_up(chain(links, 0.01).expect("valid chain"), 5)
        }
        robot => {
            let (scene, start) = free_robot(robot);
            warmed_up_from(scene, start, 5)
        }
    };
    let iterations = timed(&mut sim, &scene, &motion, steps);
    let fastest = fastest_of_5(steps, || {
        timed(&mut sim, &scene, &motion, steps);
    });
    // A fingerprint of the bits of 50 further steps' states: equal fingerprints of two builds
    // mean bit-identical trajectories.
    let mut motion = motion;
    let mut fingerprint = 0u64;
    let further =
        std::env::var("FURTHER").map_or(50, |s| s.parse().expect("FURTHER must be a count"));
    for _ in 0..further {
        sim.advance(&mut motion, &scene.control)
            .expect("the scene steps");
        for q in motion.state.q.iter() {
            fingerprint = fingerprint.rotate_left(5) ^ q.to_bits();
        }
    }
    println!(
        "{name}: {steps} steps, {:.2} Newton iterations per step{fastest}; fingerprint \
         {fingerprint:016x}",
        iterations as f64 / steps as f64
    );
}
