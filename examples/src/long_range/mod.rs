//! The long-range paper's control benchmarks (sec. 6, appendix A.6), one file per task, and
//! [`compare`], which runs a task under every method and overlays the convergence histories;
//! the table-top scenes ([`tabletop`]) of [`gather`], [`sort`], [`push`] and [`franka`] (the
//! Panda pushing a box), run under
//! receding-horizon control by [`mpc`].

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
