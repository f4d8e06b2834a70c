//! End-to-end scenarios from the sdrs papers, as `examples/*.rs` of this package
//! (`cargo run --release -p sdrs-examples --example NAME`), with the scenes and helpers they
//! share:
//!
//! - [`chain_reach`]: the chain-reach co-design of the SDRS paper (sec. V-B, Fig. 10), run by
//!   the `chain_codesign` example (the README's demo).
//! - [`quadruped`]: the spider walking up a slope (SDRS sec. V-C), run by the `quadruped`
//!   example; [`walker`] holds what it shares with the other locomotion benchmarks.
//! - [`biped`]: the 7-link biped walking on flat ground (SDRS sec. V-D), run by the `biped`
//!   example.

//! - [`long_range`]: the long-range paper's control benchmarks (sec. 6): billiards, with
//!   every baseline from the same initial guess; run by the `long_range_billiards` example.
//!   Its table-top benchmarks (Fig. 8: gather and sort) are run by the `long_range_tabletop`
//!   example.
//! - [`book_stack`]: the book stack of both papers' accuracy experiments (SDRS sec. V-J,
//!   long-range Table 2): statics per plank, and the margin and force error against the
//!   long-range coefficient; run by the `book_stack` example.
//! - [`robots`]: real robots held by PD (fixed-base arms) or dropped onto the ground and held
//!   (floating bases), checked for errors, NaN, penetration, falls; run by the `robots` example.
//! - [`single_jaw`]: the single-jaw gripper with topology change (sec. V-E, Fig. 14), run by
//!   the `single_jaw` example; its jaw is a grid of [`blocks`] whose vertices are the design,
//!   and its loss is staged ([`stages`]).
//! - [`parallel_jaw`]: the universal parallel-jaw gripper (sec. V-F, Fig. 16): two block jaws
//!   whose vertices are the design, shared by four grasp-and-carry trajectories evaluated in
//!   parallel; run by the `parallel_jaw` example. What it shares with the three-fingered
//!   hand is in [`carry`].
//! - [`three_finger`]: the three-fingered hand (sec. V-G, Fig. 19): six phalanges of four
//!   blocks each as the design, three grasp-and-carry trajectories; run by the `three_finger`
//!   example.
//! - [`identify`]: system identification of a thrown, pushed box's friction coefficient and
//!   mass from its recorded trajectory (issue 46), run by the `identify_box` example.
//! - [`wall`]: the wall experiment of the SDRS paper's MuJoCo comparison (sec. V-J, Fig. 24
//!   top), run by the `wall` example.

pub mod biped;
pub mod blocks;
pub mod book_stack;
pub mod carry;
pub mod chain_reach;
pub mod identify;
pub mod long_range;
pub mod parallel_jaw;
pub mod quadruped;
pub mod robots;
pub mod single_jaw;
pub mod stages;
pub mod three_finger;
pub mod walker;
pub mod wall;
