//! The command line's errors and their exit codes.

use std::path::PathBuf;

/// What went wrong in a subcommand.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// An input file does not exist.
    #[error("{path}: no such file")]
    Missing {
        /// The path given.
        path: PathBuf,
    },
    /// A file's type is not one the subcommand reads.
    #[error("{path}: unsupported file type; {allowed}")]
    FileType {
        /// The path given.
        path: PathBuf,
        /// What is allowed.
        allowed: &'static str,
    },
    /// Arguments that clap accepts but that do not fit together or are out of range.
    #[error("{0}")]
    Usage(String),
    /// An input file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The path given.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A task file is malformed or names what the scene does not have.
    #[error("{path}: {message}")]
    Task {
        /// The task file.
        path: PathBuf,
        /// What is wrong and what is allowed.
        message: String,
    },
    /// A scene file is malformed or cannot be built.
    #[error(transparent)]
    Scene(#[from] sdrs::scene::SceneError),
    /// The model could not be loaded.
    #[error(transparent)]
    Dynamics(#[from] sdrs::dynamics::DynamicsError),
    /// A time step failed.
    #[error("step {step}: {source}")]
    Step {
        /// The step (from 0).
        step: usize,
        /// Why.
        source: sdrs::dynamics::DynamicsError,
    },
    /// A trajectory file could not be written.
    #[error(transparent)]
    Trajectory(#[from] sdrs::record::TrajectoryError),
    /// A rollout, loss or gradient failed.
    #[error(transparent)]
    Diff(#[from] sdrs::diff::DiffError),
    /// An output could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The path being written.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A plot or progress output failed.
    #[error(transparent)]
    Report(#[from] sdrs_report::ReportError),
    /// The animation could not be exported or written.
    #[error(transparent)]
    View(#[from] sdrs_view::RunError),
    /// The trajectory does not fit the scene's model.
    #[error(transparent)]
    Export(#[from] sdrs_view::glb::ExportError),
}

impl CliError {
    /// 2 for usage errors (as clap uses for bad arguments), 1 for everything else.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Missing { .. } | CliError::FileType { .. } | CliError::Usage(_) => 2,
            _ => 1,
        }
    }
}

/// Checks that `path` exists as a file.
pub fn existing(path: &std::path::Path) -> Result<(), CliError> {
    if path.is_file() {
        Ok(())
    } else {
        Err(CliError::Missing {
            path: path.to_owned(),
        })
    }
}

/// Writes `text` to standard output; a closed pipe (`sdrs info x | head`) ends quietly.
pub fn print(text: &str) -> Result<(), CliError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(CliError::Write {
            path: "standard output".into(),
            source: e,
        }),
        _ => Ok(()),
    }
}
