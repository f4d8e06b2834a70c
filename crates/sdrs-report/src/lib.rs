//! Reports for sdrs runs: line plots of convergence histories (SVG and PNG through
//! [`plotters`]) with their data as CSV, progress bars (through [`indicatif`]) that fall back
//! to periodic plain lines when standard error is not a terminal, and output directories under
//! the cargo target directory (honouring `CARGO_TARGET_DIR`), printed as clean paths.
//!
//! ```
//! use sdrs_report::LinePlot;
//!
//! let dir = std::env::temp_dir().join("sdrs-report-doc");
//! let plot = LinePlot::new("convergence")
//!     .x_label("iteration")
//!     .y_label("loss")
//!     .log_y(true)
//!     .series("control", vec![(0.0, 1.0), (1.0, 0.1), (2.0, 0.01)])
//!     .series("co-design", vec![(0.0, 1.0), (1.0, 0.05), (2.0, 1e-3)]);
//! let written = plot.write_all(&dir, "history")?;
//! assert_eq!(written.len(), 3); // history.csv, history.svg, history.png
//! # Ok::<(), sdrs_report::ReportError>(())
//! ```

mod error;
mod paths;
mod plot;
mod progress;

pub use error::ReportError;
pub use paths::{clean_path, display_path, output_dir, target_dir, target_dir_from};
pub use plot::{LinePlot, Series, indexed};
pub use progress::{Progress, ProgressMode};

/// The README's example, run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
