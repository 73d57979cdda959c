//! The ingest thread: pulls samples from the source, paces them with the clock, drops (and
//! counts) samples whose capture time goes backwards within a stream or jumps implausibly
//! far ahead of the session clock (a corrupt timestamp is never the new "now": see
//! [`JumpGuard`]), stamps arrival,
//! pushes into the buffers and wakes the consumers without ever blocking on them (a full
//! notification channel means the consumer already has a wake-up pending: coalesce). In
//! lock-step mode it instead runs a round: wakes every consumer and waits for all of them.

use std::sync::Arc;
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender, TrySendError};

use crate::profile::{PacingStats, Span};
use crate::runtime::config::{ClockMode, ProgressFn, ProgressSnapshot};
use crate::runtime::cpu::thread_cpu_ns;
use crate::runtime::shared::{Ack, Shared, Wake};
use crate::sample::{Sample, StreamId};
use crate::source::Source;
use crate::stop::StopReason;
use crate::time::sleep_until_or_stop;
use crate::time::{Clock, DeviceTime, HostTime, ReplayClock, VirtualClock, WallClock};

/// One consumer as ingest sees it.
pub(crate) struct ConsumerLink {
    pub name: String,
    pub wake: Sender<Wake>,
    /// Lock-step acknowledgements (`None` in real-time modes).
    pub ack: Option<Receiver<Ack>>,
    /// Which streams wake it (real-time modes).
    pub wants: [bool; StreamId::COUNT],
    /// Wake-ups coalesced because its channel was full.
    pub coalesced: u64,
    /// A sample it wants was pushed since its last wake-up (sent before ingest sleeps).
    pub pending: bool,
}

/// The largest pacing slack accepted (larger values are clamped): 5 ms, the pacing
/// budget's maximum error.
pub(crate) const MAX_PACING_SLACK_NS: i64 = 5_000_000;

/// The shortest a consumer wake-up is deferred while a replay delivers late samples back
/// to back without sleeping: 1 ms (or the consumer wake interval, if longer).
const MAX_WAKE_DEFER_NS: i64 = 1_000_000;

/// Consecutive samples ahead of the plausibility window, consistent with each other and
/// from at least two streams, that move the session clock on (a gap in the recording);
/// they are held meanwhile, and delivered once confirmed.
pub const JUMP_CONFIRM: u32 = 16;

/// Keeps the session clock from jumping on a corrupt timestamp (pure state).
///
/// The session is at its newest capture time, plus, on a real-time clock, the host time
/// that passed since that sample was delivered (scaled by the rate). A sample captured more
/// than the window ahead of that is implausible: it is left out (counted per stream). A
/// lone one (+1e18 ns in one IMU sample or trajectory row) never moves the clock, so neither
/// its stream nor anything that follows the session clock (the speech WAV, the trace) is
/// thrown off; [`JUMP_CONFIRM`] consistent implausible samples from two or more streams
/// are a real gap: the held samples are delivered and the clock moves on.
#[derive(Clone, Debug)]
pub(crate) struct JumpGuard {
    window_ns: i64,
    /// Device ns of host ns on a real-time clock (the rate); 0 on a virtual clock.
    rate: f64,
    /// The newest capture delivered and the host time it was delivered at.
    newest: Option<(DeviceTime, HostTime)>,
    /// The implausible run so far: its first capture, length, streams seen (bit mask).
    run: Option<(DeviceTime, u32, u64)>,
}

impl JumpGuard {
    pub(crate) fn new(window_ns: i64, mode: ClockMode) -> Self {
        let rate = match mode {
            ClockMode::RealTime { rate } if rate.is_finite() && rate > 0.0 => rate,
            ClockMode::RealTime { .. } | ClockMode::Virtual => 0.0,
            ClockMode::Live => 1.0,
        };
        Self {
            window_ns: window_ns.max(1),
            rate,
            newest: None,
            run: None,
        }
    }

    /// What to do with `capture` (of `stream`, seen at host time `now`).
    pub(crate) fn check(&mut self, stream: StreamId, capture: DeviceTime, now: HostTime) -> Jump {
        let Some((newest, at)) = self.newest else {
            return Jump::Deliver;
        };
        let elapsed_ns = (now.since(at).max(0) as f64 * self.rate).min(i64::MAX as f64) as i64;
        let limit = newest
            .ns()
            .saturating_add(self.window_ns)
            .saturating_add(elapsed_ns);
        if capture.ns() <= limit {
            self.run = None;
            return Jump::Deliver;
        }
        let bit = 1u64 << (stream.index() % 64);
        let consistent =
            |first: DeviceTime| capture.since(first).saturating_abs() <= self.window_ns;
        let (run, fresh) = match self.run {
            Some((first, n, streams)) if consistent(first) => {
                ((first, n + 1, streams | bit), false)
            }
            _ => ((capture, 1, bit), true),
        };
        if run.1 >= JUMP_CONFIRM && run.2.count_ones() >= 2 {
            log::warn!(
                "ingest: the session clock moves on by {:.3} s: {} samples of {} streams agree \
                 (a gap in the input)",
                capture.since(newest) as f64 * 1e-9,
                run.1,
                run.2.count_ones()
            );
            self.run = None;
            return Jump::Release;
        }
        self.run = Some(run);
        Jump::Hold { fresh }
    }

    /// Notes a delivered sample.
    pub(crate) fn delivered(&mut self, capture: DeviceTime, at: HostTime) {
        match self.newest {
            Some((n, _)) if n >= capture => {}
            _ => self.newest = Some((capture, at)),
        }
    }
}

/// The verdict of [`JumpGuard::check`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Jump {
    /// Plausible: deliver it (anything held was a lone jump: left out).
    Deliver,
    /// Implausible: hold it; `fresh` when it starts a new run (what is held is left out).
    Hold {
        /// A new run begins with this sample.
        fresh: bool,
    },
    /// The run is confirmed: deliver what is held, then this sample.
    Release,
}

/// The most samples held while a jump is being confirmed (the oldest are left out).
const JUMP_HOLD_MAX: usize = 64;

/// Settings ingest needs from the run configuration.
pub(crate) struct IngestSettings {
    pub mode: ClockMode,
    pub lockstep_tick_ns: i64,
    pub pacing_granularity_ns: i64,
    pub pacing_slack_ns: i64,
    pub consumer_wake_interval_ns: i64,
    pub start: Option<DeviceTime>,
    pub end: Option<DeviceTime>,
    pub progress: Option<ProgressFn>,
    pub progress_interval: std::time::Duration,
    pub clock: Option<(DeviceTime, Arc<dyn Clock>)>,
    pub max_clock_jump_ns: i64,
}

/// What ingest hands back when it ends.
pub(crate) struct IngestOutcome {
    pub pacing: PacingStats,
    pub reason: StopReason,
    pub coalesced: Vec<(String, u64)>,
    pub filtered_before_start: u64,
    pub lockstep_rounds: u64,
    pub cpu_ns: Option<u64>,
    pub sleeps: u64,
}

struct Ingest {
    shared: Arc<Shared>,
    links: Vec<ConsumerLink>,
    settings: IngestSettings,
    pacing: PacingStats,
    last_capture: [Option<DeviceTime>; StreamId::COUNT],
    warned_backwards: [bool; StreamId::COUNT],
    jumps: JumpGuard,
    warned_jump: bool,
    /// Samples held while a jump is being confirmed (bounded by `JUMP_HOLD_MAX`).
    held: Vec<Sample>,
    clock: Option<Arc<dyn Clock>>,
    origin: DeviceTime,
    // Lock-step state.
    round_tick: i64,
    since_round: [usize; StreamId::COUNT],
    pushed_since_round: bool,
    rounds: u64,
    woken: Vec<bool>,
    filtered: u64,
    started: Instant,
    last_progress: Option<Instant>,
    newest: Option<DeviceTime>,
    last_wake: HostTime,
    /// Arrival time of the oldest sample whose consumer wake-up is deferred.
    pending_since: Option<HostTime>,
    /// A deferred wake-up is for a camera frame: it goes out before the next sleep.
    pending_urgent: bool,
    /// Pacing sleeps taken.
    sleeps: u64,
}

/// The body of the ingest thread.
pub(crate) fn ingest_thread(
    mut source: Box<dyn Source>,
    shared: Arc<Shared>,
    links: Vec<ConsumerLink>,
    settings: IngestSettings,
) -> IngestOutcome {
    let _cpu = crate::profile::cpu::account(crate::profile::stages::INGEST);
    let cpu0 = thread_cpu_ns();
    let jumps = JumpGuard::new(settings.max_clock_jump_ns, settings.mode);
    let mut ing = Ingest {
        jumps,
        warned_jump: false,
        held: Vec::new(),
        shared,
        woken: vec![false; links.len()],
        links,
        settings,
        pacing: PacingStats::new(),
        last_capture: [None; StreamId::COUNT],
        warned_backwards: [false; StreamId::COUNT],
        clock: None,
        origin: DeviceTime(0),
        round_tick: 0,
        since_round: [0; StreamId::COUNT],
        pushed_since_round: false,
        rounds: 0,
        filtered: 0,
        started: Instant::now(),
        last_progress: None,
        newest: None,
        last_wake: HostTime(i64::MIN / 2),
        pending_since: None,
        pending_urgent: false,
        sleeps: 0,
    };
    log::info!("ingest: reading {}", source.describe());
    let reason = ing.run(source.as_mut());
    ing.drop_held();
    ing.flush_wakes();
    // A last lock-step round delivers what was pushed since the previous one (not after a
    // consumer failed: the run is being torn down).
    let consumer_failed = matches!(reason, StopReason::ConsumerFailed { .. });
    if ing.lockstep() && ing.pushed_since_round && !consumer_failed {
        let now = ing.clock.as_ref().map_or(HostTime(0), |c| c.now());
        if let Err(r) = ing.round(now) {
            log::warn!("ingest: final lock-step round failed: {r:?}");
        }
    }
    ing.progress(true);
    let cpu_ns = match (cpu0, thread_cpu_ns()) {
        (Some(a), Some(b)) => Some(b.saturating_sub(a)),
        _ => None,
    };
    log::info!("ingest: stopped ({reason:?})");
    IngestOutcome {
        pacing: ing.pacing,
        reason,
        coalesced: ing
            .links
            .iter()
            .map(|l| (l.name.clone(), l.coalesced))
            .collect(),
        filtered_before_start: ing.filtered,
        lockstep_rounds: ing.rounds,
        cpu_ns,
        sleeps: ing.sleeps,
    }
    // Dropping `ing` drops the wake senders: consumer threads see the end.
}

impl Ingest {
    fn lockstep(&self) -> bool {
        matches!(self.settings.mode, ClockMode::Virtual)
    }

    fn run(&mut self, source: &mut dyn Source) -> StopReason {
        loop {
            if let Some(r) = self.shared.stop_reason() {
                return r;
            }
            let sample = match source.next_sample() {
                None => return StopReason::EndOfSource,
                Some(Ok(s)) => s,
                Some(Err(e)) if e.is_recoverable() => {
                    log::warn!("ingest: {e}");
                    if let crate::source::SourceError::Skipped { stream, .. } = &e {
                        self.pacing.record_skipped(stream);
                    }
                    continue;
                }
                Some(Err(e)) => {
                    log::error!("ingest: {e}");
                    return StopReason::SourceFailed {
                        message: e.to_string(),
                    };
                }
            };
            if self.settings.start.is_some_and(|t0| sample.capture < t0) {
                self.filtered += 1;
                continue;
            }
            if self.settings.end.is_some_and(|t1| sample.capture > t1) {
                return StopReason::EndOfRange;
            }
            if let Err(r) = self.admit(sample) {
                return r;
            }
            self.progress(false);
        }
    }

    fn clock_for(&mut self, first: DeviceTime) -> Arc<dyn Clock> {
        if let Some(c) = &self.clock {
            return Arc::clone(c);
        }
        let (origin, c): (DeviceTime, Arc<dyn Clock>) = match self.settings.clock.take() {
            Some(preset) => preset,
            None => (
                first,
                match self.settings.mode {
                    ClockMode::RealTime { rate } => Arc::new(ReplayClock::start(first, rate)),
                    ClockMode::Virtual => Arc::new(VirtualClock::new(first)),
                    ClockMode::Live => Arc::new(WallClock),
                },
            ),
        };
        self.origin = origin;
        // Only ingest sets the clock, once.
        let _ = self.shared.clock.set(Arc::clone(&c));
        self.clock = Some(Arc::clone(&c));
        c
    }

    /// Delivers `sample` unless its capture time jumps implausibly far ahead (see
    /// [`JumpGuard`]): such samples are held until the jump is confirmed, or left out.
    fn admit(&mut self, sample: Sample) -> Result<(), StopReason> {
        match self
            .jumps
            .check(sample.stream, sample.capture, HostTime::now())
        {
            Jump::Deliver => {
                self.drop_held();
                self.deliver(sample)
            }
            Jump::Hold { fresh } => {
                if fresh {
                    self.drop_held();
                }
                if self.held.len() >= JUMP_HOLD_MAX {
                    let oldest = self.held.remove(0);
                    self.left_out(&oldest);
                }
                self.held.push(sample);
                Ok(())
            }
            Jump::Release => {
                let mut held = std::mem::take(&mut self.held);
                let mut result = Ok(());
                for s in held.drain(..) {
                    if result.is_ok() {
                        result = self.deliver(s);
                    }
                }
                self.held = held;
                result?;
                self.deliver(sample)
            }
        }
    }

    /// Leaves out (and counts) every held sample: the jump was a lone one.
    fn drop_held(&mut self) {
        let mut held = std::mem::take(&mut self.held);
        for s in held.drain(..) {
            self.left_out(&s);
        }
        self.held = held;
    }

    fn left_out(&mut self, sample: &Sample) {
        self.pacing.record_implausible(sample.stream);
        if !std::mem::replace(&mut self.warned_jump, true) {
            log::warn!(
                "ingest: {} capture time {} is more than {:.0} s ahead of the session clock \
                 (at {}); left out as an outlier (warned once)",
                sample.stream,
                sample.capture,
                self.settings.max_clock_jump_ns as f64 * 1e-9,
                self.newest.unwrap_or_default()
            );
        }
    }

    fn deliver(&mut self, mut sample: Sample) -> Result<(), StopReason> {
        let idx = sample.stream.index();
        let last = self.last_capture.get(idx).copied().flatten();
        if last.is_some_and(|l| sample.capture < l) {
            self.pacing.record_out_of_order(sample.stream);
            if let Some(w) = self.warned_backwards.get_mut(idx) {
                if !*w {
                    *w = true;
                    log::warn!(
                        "ingest: {} capture time went backwards ({} after {}); dropping such samples (warned once per stream)",
                        sample.stream,
                        sample.capture,
                        last.unwrap_or_default()
                    );
                }
            }
            return Ok(());
        }
        let clock = self.clock_for(sample.capture);
        let due = clock.due(sample.capture);
        if self.lockstep() {
            self.maybe_round_before(&sample, clock.as_ref())?;
        }
        let arrival = if clock.is_real_time() {
            // With a pacing granularity, wake at most once per granule: a sample due
            // sooner than that after the last wake waits for the granule (late, never early).
            // With a slack, one sleep serves every sample due within it (late, never early).
            let now = HostTime::now();
            let target = if due > now {
                HostTime(due.0.saturating_add(self.settings.pacing_slack_ns)).max(HostTime(
                    self.last_wake
                        .0
                        .saturating_add(self.settings.pacing_granularity_ns),
                ))
            } else {
                due
            };
            if target > now {
                // Consumers get what was pushed before ingest goes to sleep, unless that
                // can wait: motion samples wait until the oldest of them is
                // `consumer_wake_interval_ns` old (by the end of this sleep).
                let interval = self.settings.consumer_wake_interval_ns;
                let due_wake = self
                    .pending_since
                    .is_some_and(|since| target.since(since) >= interval);
                if self.pending_urgent || due_wake {
                    self.flush_wakes();
                }
                self.sleeps += 1;
            }
            let shared = &self.shared;
            match sleep_until_or_stop(target, || shared.stop_reason().is_some()) {
                Some(t) => {
                    if target > now {
                        self.last_wake = t;
                    }
                    t
                }
                None => return Err(self.shared.stop_reason().unwrap_or(StopReason::Stopped)),
            }
        } else {
            clock.wait_until(due)
        };
        let work_start = HostTime::now();
        sample.arrival = arrival;
        let capture = sample.capture;
        let stream = sample.stream;
        self.pacing
            .record_delivery(stream, capture, due, arrival, clock.is_real_time());
        if let Some(l) = self.last_capture.get_mut(idx) {
            *l = Some(capture);
        }
        self.newest = Some(self.newest.map_or(capture, |n| n.max(capture)));
        self.jumps.delivered(capture, arrival);
        self.shared.buffers.push(sample);
        if self.lockstep() {
            if let Some(n) = self.since_round.get_mut(idx) {
                *n += 1;
            }
            self.pushed_since_round = true;
            if self.settings.lockstep_tick_ns <= 0 {
                self.round(clock.now())?;
            }
        } else {
            let mut woken = false;
            for link in &mut self.links {
                let wants = link.wants.get(idx).copied().unwrap_or(true);
                link.pending |= wants;
                woken |= wants;
            }
            // Replay defers the wake-ups to just before its next sleep (samples due
            // together wake each consumer once), motion samples longer (see
            // `consumer_wake_interval_ns`); live input cannot know when the next sample
            // comes, so it wakes at once. A replay running behind never sleeps, so it also
            // wakes them once the oldest deferred wake-up is old enough.
            if woken {
                self.pending_urgent |= stream.is_camera();
                let since = *self.pending_since.get_or_insert(arrival);
                let limit = self
                    .settings
                    .consumer_wake_interval_ns
                    .max(MAX_WAKE_DEFER_NS);
                if !matches!(self.settings.mode, ClockMode::RealTime { .. })
                    || arrival.since(since) >= limit
                {
                    self.flush_wakes();
                }
            }
        }
        let span = Span {
            stage: "ingest",
            capture,
            start: work_start,
            end: HostTime::now(),
        };
        if clock.is_real_time() {
            self.shared.profiler.record_with_due(&span, due);
        } else {
            self.shared.profiler.record(&span);
        }
        Ok(())
    }

    /// Wakes every consumer with a pending wake-up, without blocking (a full channel means
    /// one is already queued: coalesced and counted).
    fn flush_wakes(&mut self) {
        self.pending_since = None;
        self.pending_urgent = false;
        for link in &mut self.links {
            if !std::mem::take(&mut link.pending) {
                continue;
            }
            match link.wake.try_send(Wake::New) {
                Ok(()) | Err(TrySendError::Disconnected(_)) => {}
                Err(TrySendError::Full(_)) => link.coalesced += 1,
            }
        }
    }

    /// Lock step: runs a round before pushing `sample` if it starts a new tick, or if its
    /// stream's buffer would otherwise overrun an unread sample.
    fn maybe_round_before(&mut self, sample: &Sample, clock: &dyn Clock) -> Result<(), StopReason> {
        let tick_ns = self.settings.lockstep_tick_ns;
        let tick = if tick_ns > 0 {
            sample.capture.since(self.origin).div_euclid(tick_ns)
        } else {
            0
        };
        let cap = self.shared.buffers.stream(sample.stream).capacity();
        let full = self
            .since_round
            .get(sample.stream.index())
            .is_some_and(|&n| n >= cap);
        if self.pushed_since_round && (tick != self.round_tick || full) {
            self.round(clock.now())?;
        }
        self.round_tick = tick;
        Ok(())
    }

    /// Lock step: wakes every consumer with `now` and waits for all answers.
    fn round(&mut self, now: HostTime) -> Result<(), StopReason> {
        self.rounds += 1;
        self.pushed_since_round = false;
        self.since_round = [0; StreamId::COUNT];
        let mut failure = None;
        for (link, woken) in self.links.iter_mut().zip(self.woken.iter_mut()) {
            *woken = link.wake.send(Wake::Round { now }).is_ok();
            if !*woken && failure.is_none() {
                failure = Some(StopReason::ConsumerFailed {
                    consumer: link.name.clone(),
                    message: "consumer thread ended".to_string(),
                });
            }
        }
        for (link, &woken) in self.links.iter().zip(self.woken.iter()) {
            let Some(ack) = link.ack.as_ref().filter(|_| woken) else {
                continue;
            };
            let answer = match ack.recv() {
                Ok(a) => a,
                Err(_) => Err("consumer thread ended".to_string()),
            };
            if let Err(message) = answer {
                if failure.is_none() {
                    failure = Some(StopReason::ConsumerFailed {
                        consumer: link.name.clone(),
                        message,
                    });
                }
            }
        }
        match failure {
            Some(r) => Err(r),
            None => Ok(()),
        }
    }

    fn progress(&mut self, done: bool) {
        let Some(cb) = self.settings.progress.as_mut() else {
            return;
        };
        let now = Instant::now();
        if !done
            && self
                .last_progress
                .is_some_and(|t| now.duration_since(t) < self.settings.progress_interval)
        {
            return;
        }
        self.last_progress = Some(now);
        let per_stream = self
            .pacing
            .active()
            .map(|(id, s)| (id, s.delivered))
            .collect();
        let snap = ProgressSnapshot {
            first_capture: self.clock.as_ref().map(|_| self.origin),
            capture: self.newest,
            delivered: self.pacing.total_delivered(),
            dropped: self.pacing.total_dropped(),
            per_stream,
            elapsed_s: self.started.elapsed().as_secs_f64(),
            done,
        };
        cb(&snap);
    }
}
