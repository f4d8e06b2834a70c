//! The error type of report output.

use std::path::PathBuf;

/// What went wrong while writing a report.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A file or directory could not be written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The path being written.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The plot has no points to draw.
    #[error("plot {title:?} has no points: add at least one series with one point")]
    Empty {
        /// The plot's title.
        title: String,
    },
    /// A point is NaN or infinite.
    #[error("series {series:?} point {index} is ({x}, {y}): coordinates must be finite")]
    NonFinite {
        /// The series' name.
        series: String,
        /// The point's index in the series.
        index: usize,
        /// Its x.
        x: f64,
        /// Its y.
        y: f64,
    },
    /// A point is not positive on a logarithmic y axis.
    #[error(
        "series {series:?} point {index} has y = {y}: a logarithmic y axis needs y > 0 \
         (use a linear axis for signed data)"
    )]
    NotPositive {
        /// The series' name.
        series: String,
        /// The point's index in the series.
        index: usize,
        /// Its y.
        y: f64,
    },
    /// The plot size is unusable.
    #[error("plot size {width}x{height} is too small: each side must be at least 100 pixels")]
    Size {
        /// Requested width (pixels).
        width: u32,
        /// Requested height (pixels).
        height: u32,
    },
    /// The drawing backend failed (e.g. the PNG could not be encoded or saved).
    #[error("cannot draw {path}: {message}")]
    Draw {
        /// The file being drawn.
        path: PathBuf,
        /// The backend's message.
        message: String,
    },
}
