//! Errors of the scorer: every variant names the file and, where known, the 1-based line.

use std::path::PathBuf;

/// Why a session or an output folder could not be scored.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// A file could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A JSON document or JSON line does not parse as expected.
    #[error("{}:{line}: {source}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The 1-based line (1 for a whole-file JSON document that fails to parse).
        line: usize,
        /// The parse error (its own line/column are within that line).
        #[source]
        source: serde_json::Error,
    },
    /// A JSON line is not what was expected (or the line is too long to read).
    #[error("{}:{line}: {reason}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// The 1-based line.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// The MPS trajectory could not be read.
    #[error("wearer trajectory: {0}")]
    Trajectory(#[from] crate::aria::mps::MpsError),
    /// The trajectory holds no usable pose.
    #[error("{}: no usable pose (every row is missing or not finite)", path.display())]
    NoPoses {
        /// The file.
        path: PathBuf,
    },
    /// The ground truth describes an impossible session.
    #[error("{}: field {field}: {reason}", path.display())]
    InvalidTruth {
        /// The file.
        path: PathBuf,
        /// The field, as a path (`hazards[2].position_m`).
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The session's files disagree with each other.
    #[error("{}:{line}: {reason}", path.display())]
    Mismatch {
        /// The file that disagrees.
        path: PathBuf,
        /// The 1-based line.
        line: usize,
        /// What disagrees.
        reason: String,
    },
}

impl EvalError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| Self::Io { path, source }
    }
}
