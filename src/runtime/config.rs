//! How a session runs: which clock paces it, buffer sizes, queue capacities, limits, and
//! hooks (stop handle, progress callback).

use std::time::Duration;

use crate::buffer::BufferConfig;
use crate::sample::StreamId;
use crate::stop::StopHandle;
use std::sync::Arc;

use crate::time::{Clock, DeviceTime};

/// The default [`RuntimeConfig::pacing_slack_ns`]: 240 µs.
pub const DEFAULT_PACING_SLACK_NS: i64 = 240_000;

/// The default [`RuntimeConfig::consumer_wake_interval_ns`]: 5 ms.
pub const DEFAULT_CONSUMER_WAKE_INTERVAL_NS: i64 = 5_000_000;

/// Which clock paces the ingest stage.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub enum ClockMode {
    /// Replay in real time, `rate` × speed ([`crate::time::ReplayClock`]).
    RealTime {
        /// Speed factor (1 = real time); clamped by the clock to a positive finite value.
        rate: f64,
    },
    /// As fast as possible, deterministic ([`crate::time::VirtualClock`]): consumers run in
    /// lock step with ingest, so the same input gives the same consumer-observed sequence.
    Virtual,
    /// Live input: samples are delivered when the source yields them
    /// ([`crate::time::WallClock`]).
    Live,
}

/// What the progress callback sees (at most every [`RuntimeConfig::progress_interval`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ProgressSnapshot {
    /// Capture time of the first delivered sample.
    pub first_capture: Option<DeviceTime>,
    /// Capture time of the latest delivered sample.
    pub capture: Option<DeviceTime>,
    /// Samples delivered to the buffers so far, all streams.
    pub delivered: u64,
    /// Samples dropped before the buffers so far (out of order or skipped by the source).
    pub dropped: u64,
    /// Samples delivered so far, per stream with at least one.
    pub per_stream: Vec<(StreamId, u64)>,
    /// Host seconds since the session started.
    pub elapsed_s: f64,
    /// True for the last call, at the end of the session.
    pub done: bool,
}

/// A progress callback, run on the ingest thread (keep it short).
pub type ProgressFn = Box<dyn FnMut(&ProgressSnapshot) + Send>;

/// The configuration of one run.
pub struct RuntimeConfig {
    /// How the session is paced.
    pub clock_mode: ClockMode,
    /// Ring buffer sizes.
    pub buffer: BufferConfig,
    /// Capacity of each consumer's notification channel; when full, further notifications
    /// are coalesced (the consumer will find all new samples on its next read anyway).
    pub notify_capacity: usize,
    /// Lock-step ([`ClockMode::Virtual`]) consumers are called once per this much device
    /// time (0: after every sample), and also before a stream's buffer would overrun.
    pub lockstep_tick_ns: i64,
    /// Real-time modes: the ingest thread wakes at most once per this many nanoseconds,
    /// delivering every sample due by then (0: wake exactly at each due time). Trades
    /// pacing lateness (up to the granularity) for fewer wake-ups, i.e. less CPU.
    pub pacing_granularity_ns: i64,
    /// Real-time replay: when ingest must sleep for a sample due at `t`, it sleeps until
    /// `t + pacing_slack_ns` instead and then delivers every sample due by then, in order,
    /// with one wake-up (and wakes the consumers once for all of them). Samples are never
    /// early and at most this much late (plus scheduling delay); at 240 µs the two IMUs
    /// (1 kHz and 800 Hz) share about a third of their wake-ups. 0: one sleep per due time.
    pub pacing_slack_ns: i64,
    /// Real-time replay: a consumer is woken at most once per this many nanoseconds for
    /// the motion and derived streams it wants (the deferred wake-up goes out before ingest
    /// would sleep past it, or once the oldest deferred sample is this old); a camera
    /// frame it wants wakes it before ingest next sleeps, as every sample did before. Each
    /// wake-up costs the ingest thread a system call and the consumer a context switch, so
    /// a 1 kHz IMU no longer wakes every consumer ~1,000 times a second. 0: wake before
    /// every sleep. Live input always wakes at once.
    pub consumer_wake_interval_ns: i64,
    /// Samples captured before this are skipped (not paced, not counted as dropped).
    pub start: Option<DeviceTime>,
    /// The session ends at the first sample captured after this.
    pub end: Option<DeviceTime>,
    /// Stops the run from another thread.
    pub stop: StopHandle,
    /// Install a Ctrl-C handler (once per process): the first Ctrl-C stops the run in
    /// order, a second one exits the process.
    pub handle_ctrl_c: bool,
    /// Called with progress at most every `progress_interval`, and once at the end.
    pub progress: Option<ProgressFn>,
    /// Minimum host time between progress calls.
    pub progress_interval: Duration,
    /// A clock made before the run, with the device time it starts at, so that other
    /// stages (the speaker) share it from the start; `None`: ingest makes one from
    /// `clock_mode` at the first sample.
    pub clock: Option<(DeviceTime, Arc<dyn Clock>)>,
    /// Plausibility window of the session clock, ns: a sample captured further ahead of
    /// where the session is (its newest capture, plus the host time since on a real-time
    /// clock) is an outlier, left out and counted, never the new "now"; only a run of
    /// [`crate::runtime::ingest::JUMP_CONFIRM`] such samples from two or more streams,
    /// consistent with each other, moves the session clock on (a gap in the recording).
    pub max_clock_jump_ns: i64,
}

/// Default plausibility window of the session clock: 10 s.
pub const DEFAULT_MAX_CLOCK_JUMP_NS: i64 = 10_000_000_000;

impl Default for RuntimeConfig {
    fn default() -> Self {
        Self {
            clock_mode: ClockMode::RealTime { rate: 1.0 },
            buffer: BufferConfig::default(),
            notify_capacity: 2,
            lockstep_tick_ns: 10_000_000,
            pacing_granularity_ns: 0,
            pacing_slack_ns: DEFAULT_PACING_SLACK_NS,
            consumer_wake_interval_ns: DEFAULT_CONSUMER_WAKE_INTERVAL_NS,
            start: None,
            end: None,
            stop: StopHandle::new(),
            handle_ctrl_c: false,
            progress: None,
            progress_interval: Duration::from_millis(200),
            clock: None,
            max_clock_jump_ns: DEFAULT_MAX_CLOCK_JUMP_NS,
        }
    }
}

impl RuntimeConfig {
    /// The default configuration with `clock_mode`.
    pub fn new(clock_mode: ClockMode) -> Self {
        Self {
            clock_mode,
            ..Self::default()
        }
    }
}

impl std::fmt::Debug for RuntimeConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuntimeConfig")
            .field("clock_mode", &self.clock_mode)
            .field("buffer", &self.buffer)
            .field("notify_capacity", &self.notify_capacity)
            .field("lockstep_tick_ns", &self.lockstep_tick_ns)
            .field("pacing_granularity_ns", &self.pacing_granularity_ns)
            .field("pacing_slack_ns", &self.pacing_slack_ns)
            .field("consumer_wake_interval_ns", &self.consumer_wake_interval_ns)
            .field("start", &self.start)
            .field("end", &self.end)
            .field("handle_ctrl_c", &self.handle_ctrl_c)
            .field("progress", &self.progress.is_some())
            .field("progress_interval", &self.progress_interval)
            .field("clock", &self.clock.as_ref().map(|(t, _)| *t))
            .field("max_clock_jump_ns", &self.max_clock_jump_ns)
            .finish()
    }
}
