//! [`PerceptionError`]: what can go wrong loading perception's inputs; each names the file.

use std::path::PathBuf;

/// Loading perception's inputs failed.
#[derive(Debug, thiserror::Error)]
pub enum PerceptionError {
    /// The session could not be located.
    #[error(transparent)]
    Session(#[from] crate::source::session_files::SessionError),
    /// The recording could not be opened.
    #[error("{}: cannot open recording: {message}", path.display())]
    Recording {
        /// The recording.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The recording's calibration could not be parsed.
    #[error("{}: calibration: {source}", path.display())]
    Calibration {
        /// The recording.
        path: PathBuf,
        /// The calibration error.
        #[source]
        source: crate::aria::calib::CalibError,
    },
    /// An MPS file (points or observations) could not be read; the message names the file
    /// and line.
    #[error(transparent)]
    Mps(#[from] crate::aria::mps::MpsError),
}
