//! The long-range paper's control benchmarks (sec. 6, appendix A.6): the table-top scenes
//! ([`tabletop`]) of [`gather`] and [`sort`].

pub mod gather;
pub mod sort;
pub mod tabletop;
