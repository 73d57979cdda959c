//! [`ListenError`]: what can go wrong hearing the wearer — an audio file that cannot be
//! read, a model that is missing or damaged, a model run that fails. Each names the file.

use std::path::PathBuf;

use crate::infer::engine::EngineError;

/// Hearing failed.
#[derive(Debug, thiserror::Error)]
pub enum ListenError {
    /// An audio file is missing, damaged or in a form vista does not read.
    #[error("{path}: {reason}")]
    Audio {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// An audio file holds more than vista listens to at once.
    #[error("{path}: {seconds:.0} s of audio; vista listens to at most {max_s:.0} s from a file")]
    TooLong {
        /// The file.
        path: PathBuf,
        /// Its length, seconds.
        seconds: f64,
        /// The most accepted, seconds.
        max_s: f64,
    },
    /// A sample rate the resampler cannot take.
    #[error("audio at {rate_hz} Hz: vista takes {min_hz}–{max_hz} Hz")]
    Rate {
        /// The rate given.
        rate_hz: u32,
        /// Lowest accepted.
        min_hz: u32,
        /// Highest accepted.
        max_hz: u32,
    },
    /// A model file is missing, damaged, or not shaped as expected.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// A model file's content is wrong, or a model run failed (names the file).
    #[error("{path}: {what}")]
    Model {
        /// The model file.
        path: PathBuf,
        /// What went wrong.
        what: String,
    },
}
