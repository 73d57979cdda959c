//! Errors of the window module, naming the file and position where there is one.

use std::path::PathBuf;

/// What can go wrong building windows or reading their inputs.
#[derive(Debug, thiserror::Error)]
pub enum WindowError {
    /// A file could not be read or written.
    #[error("{path}: {source}", path = path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A normalisation statistics file is malformed or does not match the channels.
    #[error("{path}:{line}: normalisation statistics: {message}", path = path.display())]
    NormFile {
        /// The file.
        path: PathBuf,
        /// 1-based line of the JSON error (0 when the error is about the contents).
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A window was asked to end before samples already added to the builder.
    #[error("window end {t_end_ns} ns is before the newest sample added ({newest_ns} ns)")]
    EndBeforeNewest {
        /// The requested end.
        t_end_ns: i64,
        /// The newest capture time added.
        newest_ns: i64,
    },
    /// The configuration is not usable.
    #[error("bad window configuration: {0}")]
    Config(String),
    /// A frame could not be decoded.
    #[error("frame at {capture_ns} ns: {message}")]
    Frame {
        /// Capture time of the frame.
        capture_ns: i64,
        /// What went wrong.
        message: String,
    },
    /// A session could not be opened or read.
    #[error("{path}: {message}", path = path.display())]
    Session {
        /// The session folder or recording.
        path: PathBuf,
        /// What went wrong (names the file and position).
        message: String,
    },
}
