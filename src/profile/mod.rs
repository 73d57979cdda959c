//! Profiling from day one: HDR latency histograms, per-stream pacing statistics, stage
//! spans and the session's profile report.
//!
//! Two clocks are measured: every [`Span`] names the capture time (device clock) of the
//! newest sample its work depended on and stamps start and end on the host clock, so the
//! [`Profiler`] can report both how long each stage takes and how long after capture its
//! results appear. [`PacingStats`] records, per stream, how late each sample was handed to
//! the buffers against the time the clock said it was due.
//!
//! These are the measuring primitives every stage uses, so this module sits low in the crate
//! (it depends on samples, state and time only). Reports that read a run's outputs (the
//! latency picture, utterance latencies) are [`crate::report`].

pub mod cpu;
mod histogram;
mod pacing;
mod profiler;
mod report;
mod span;
pub mod stages;
pub mod timeline;
pub mod trace;

pub use histogram::{LatencyHistogram, Percentiles, MAX_TRACKED_NS};
pub use pacing::{PacingStats, StreamPacing};
pub use profiler::{Profiler, StageStats, MAX_STAGES};
pub use report::{ProfileReport, StageReport, StreamReport};
pub use span::{Span, StageStamp};
