//! The long-range paper's control benchmarks (sec. 6, appendix A.6), one file per task, and
//! [`compare`], which runs a task under every method and overlays the convergence histories;
//! the table-top scenes ([`tabletop`]) of [`gather`] and [`sort`].

pub mod billiards;
pub mod compare;
pub mod gather;
pub mod sort;
pub mod tabletop;
