//! Sources: where samples come from.
//!
//! A [`Source`] yields samples in capture order, unpaced; the runtime's ingest stage paces
//! them with a [`crate::time::Clock`] (real time, rate-scaled, or virtual) and stamps their
//! arrival time. Replay of recorded sessions lives in `replay` (what a session folder holds in
//! `session_files`); live input and synthetic worlds plug in behind the same trait. `inspect`
//! says what a recording or session folder holds; `calibration` reads a path's device
//! calibration.

pub mod calibration;
pub mod inspect;
pub mod live;
pub mod prefetch;
pub mod replay;
pub mod session_files;

use crate::sample::{Sample, StreamId};

/// Why a source could not produce a sample. Non-fatal errors (a corrupt record) are
/// reported and the source continues; fatal ones end the stream.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// One sample could not be read; the source skipped it and can continue.
    #[error("skipped a sample of {stream}: {message}")]
    Skipped {
        /// The stream the sample belonged to, when known.
        stream: String,
        /// What went wrong, naming the file and position.
        message: String,
    },
    /// The source cannot continue.
    #[error("source failed: {0}")]
    Fatal(String),
}

impl SourceError {
    /// True when the source can go on after this error.
    pub fn is_recoverable(&self) -> bool {
        matches!(self, SourceError::Skipped { .. })
    }
}

/// A producer of samples in capture order (non-decreasing capture time across all streams).
///
/// `next_sample` returns `None` at the end of the session. Implementations fill
/// [`Sample::arrival`] with whatever they know (the ingest stage overwrites it with the
/// moment the sample was handed to the buffers).
pub trait Source: Send {
    /// A short human-readable description (file name, device address).
    fn describe(&self) -> String;
    /// The streams this source may deliver.
    fn streams(&self) -> Vec<StreamId>;
    /// The next sample, a recoverable error, or `None` at the end.
    fn next_sample(&mut self) -> Option<Result<Sample, SourceError>>;
    /// Where `stream` comes from in the source's own terms, for reports: the VRS stream id
    /// (`1202-1`) of a recorded stream, `None` for one computed on the host. By default the
    /// Gen1 layout, which the live protocol also uses.
    fn stream_origin(&self, stream: StreamId) -> Option<String> {
        stream.vrs_id().map(|(t, i)| format!("{t}-{i}"))
    }
}

/// A source over samples already in memory (tests, benches, synthetic input). Samples are
/// delivered in the order given; the caller is responsible for capture order.
#[derive(Debug, Default)]
pub struct VecSource {
    samples: std::collections::VecDeque<Sample>,
    streams: Vec<StreamId>,
}

impl VecSource {
    /// A source delivering `samples` in order.
    pub fn new(samples: Vec<Sample>) -> Self {
        let mut streams: Vec<StreamId> = samples.iter().map(|s| s.stream).collect();
        streams.sort();
        streams.dedup();
        Self {
            samples: samples.into(),
            streams,
        }
    }
}

impl Source for VecSource {
    fn describe(&self) -> String {
        format!("{} in-memory samples", self.samples.len())
    }
    fn streams(&self) -> Vec<StreamId> {
        self.streams.clone()
    }
    fn next_sample(&mut self) -> Option<Result<Sample, SourceError>> {
        self.samples.pop_front().map(Ok)
    }
}
