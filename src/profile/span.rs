//! Stage stamps: what a stage did, when (host clock), for which capture (device clock).

use crate::time::{DeviceTime, HostTime};

/// One unit of work of one stage: it started and ended at these host times and depended
/// on samples up to `capture` (the capture time of the newest sample it used), so the
/// latency from capture to result is measurable downstream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Span {
    /// The stage's name (e.g. `ingest`, `perception`).
    pub stage: &'static str,
    /// Capture time of the newest sample the work depended on.
    pub capture: DeviceTime,
    /// When the work started (host clock).
    pub start: HostTime,
    /// When the work ended (host clock).
    pub end: HostTime,
}

/// The name the task brief also uses for a [`Span`].
pub type StageStamp = Span;

impl Span {
    /// A span for `stage` that starts now.
    pub fn begin(stage: &'static str, capture: DeviceTime) -> Self {
        let now = HostTime::now();
        Self {
            stage,
            capture,
            start: now,
            end: now,
        }
    }

    /// This span, ended now.
    pub fn finish(mut self) -> Self {
        self.end = HostTime::now();
        self
    }

    /// `end − start` in nanoseconds.
    pub fn duration_ns(&self) -> i64 {
        self.end.since(self.start)
    }
}
