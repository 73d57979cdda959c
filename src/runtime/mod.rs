//! The runtime: threads joined by bounded channels, paced by a clock, stopped in order.
//!
//! ```text
//!  Source ──► ingest thread ──push──► BufferSet ◄──read── consumer threads (one each)
//!              │ pace (Clock), drop backwards,              ▲
//!              │ stamp arrival, count                       │
//!              └──── wake-ups: bounded channel per consumer ┘ (full → coalesce)
//! ```
//!
//! * **Real time** ([`ClockMode::RealTime`], [`ClockMode::Live`]): ingest sleeps until each
//!   sample is due (absolute-deadline sleeps, no spinning; one sleep serves every sample due within
//!   [`RuntimeConfig::pacing_slack_ns`], late but never early; optionally at most one
//!   wake-up per [`RuntimeConfig::pacing_granularity_ns`]), pushes it, and wakes the
//!   consumers that [`want`](Consumer::wants) its stream with `try_send` (never blocking: a
//!   full channel means a wake-up is already pending), in replay once per sleep, just before
//!   it, and for motion streams at most once per
//!   [`RuntimeConfig::consumer_wake_interval_ns`] (camera frames at the next sleep). A
//!   consumer slower than its streams loses the oldest samples, counted per consumer and
//!   only for the streams it reads.
//! * **Lock step** ([`ClockMode::Virtual`], `--asap`): time is virtual; ingest runs a
//!   *round* every [`RuntimeConfig::lockstep_tick_ns`] of device time (and before any
//!   stream's buffer would overrun): it wakes every consumer with the virtual `now` and waits
//!   for all to answer. What each consumer sees depends only on the input, so two runs give
//!   the same output byte for byte.
//! * **Shutdown**: end of source (or of the configured range), [`StopHandle::stop`], Ctrl-C
//!   (first: orderly stop; second: exit), a source's fatal error, a consumer's error or
//!   panic. Consumers get a last call and `finish`; every thread is joined; the
//!   [`RunReport`] says why it stopped and what was delivered and dropped where.
//! * **Profiling**: ingest stamps every sample's arrival and records its lateness against
//!   the due time ([`crate::profile::PacingStats`]) and an `ingest` span; every consumer
//!   call is a span named after the consumer whose capture time is the newest sample it has
//!   read ([`crate::buffer::Reader::newest_capture`]); on real-time clocks the profiler also
//!   records each span's end minus the due time of that capture (capture-to-result latency).
//!   [`RunReport::ingest_cpu_s`] measures the ingest thread's CPU time (Linux).

mod config;
mod consumer;
mod cpu;
mod ingest;
mod run;
mod shared;
mod worker;

pub use config::{
    ClockMode, ProgressFn, ProgressSnapshot, RuntimeConfig, DEFAULT_CONSUMER_WAKE_INTERVAL_NS,
    DEFAULT_PACING_SLACK_NS,
};
pub use consumer::{Consumer, ConsumerError};
pub use cpu::thread_cpu_ns;
pub use run::{run, RunReport, Runtime, RuntimeError};
// The stop handle lives below the sources (which hold it too); the runtime hands it out.
pub use crate::stop::{ctrl_c_flag, stop_on_interrupt, StopHandle, StopReason};
