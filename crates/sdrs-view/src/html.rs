//! The self-contained HTML viewer.
