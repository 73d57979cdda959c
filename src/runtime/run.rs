//! Starting, running and joining a session: one ingest thread, one thread per consumer,
//! bounded channels between them, and the run report.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use crossbeam_channel::bounded;

use crate::buffer::{BufferSet, BufferStats};
use crate::profile::ProfileReport;
use crate::runtime::config::{ClockMode, RuntimeConfig};
use crate::runtime::consumer::Consumer;
use crate::runtime::ingest::{
    ingest_thread, ConsumerLink, IngestOutcome, IngestSettings, MAX_PACING_SLACK_NS,
};
use crate::runtime::shared::Shared;
use crate::runtime::worker::{consumer_thread, WorkerOutcome};
use crate::sample::StreamId;
use crate::source::Source;
use crate::stop::{ctrl_c_flag, stop_on_interrupt, StopHandle, StopReason};

/// A failure of the runtime itself (not of the source or a consumer, which end the run in
/// order and are reported in [`RunReport::stop_reason`]).
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// A thread could not be started.
    #[error("could not start thread {thread}: {source}")]
    Spawn {
        /// The thread's name.
        thread: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A runtime thread panicked (a bug in the source or the runtime).
    #[error("thread {thread} panicked")]
    Panicked {
        /// The thread's name.
        thread: String,
    },
}

/// What a run did.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RunReport {
    /// Why it ended.
    pub stop_reason: StopReason,
    /// Per-stream delivery and pacing, per-stage timing, wall time.
    pub profile: ProfileReport,
    /// Buffer and per-consumer delivery counters.
    pub buffers: BufferStats,
    /// Per consumer: wake-ups coalesced because its notification channel was full.
    pub coalesced: BTreeMap<String, u64>,
    /// Samples skipped because they were captured before the configured start.
    pub filtered_before_start: u64,
    /// Lock-step rounds run (virtual mode).
    pub lockstep_rounds: u64,
    /// CPU time of the ingest thread, seconds (Linux; `None` elsewhere).
    pub ingest_cpu_s: Option<f64>,
    /// Times the ingest thread slept to pace delivery (real-time modes): its wake-ups,
    /// which dominate its CPU cost.
    pub ingest_sleeps: u64,
}

/// The runtime: holds a configuration and runs sessions with it.
#[derive(Debug)]
pub struct Runtime {
    config: RuntimeConfig,
}

impl Runtime {
    /// A runtime with `config`.
    pub fn new(config: RuntimeConfig) -> Self {
        Self { config }
    }

    /// A handle that stops the run started by [`Runtime::run`].
    pub fn stop_handle(&self) -> StopHandle {
        self.config.stop.clone()
    }

    /// Runs `source` through `consumers` until the source ends, the configured end time,
    /// a stop request, Ctrl-C, or an error; joins every thread and reports.
    pub fn run(
        self,
        source: Box<dyn Source>,
        consumers: Vec<Box<dyn Consumer>>,
    ) -> Result<RunReport, RuntimeError> {
        run(source, self.config, consumers)
    }
}

/// Runs `source` through `consumers` with `config` (see [`Runtime::run`]).
pub fn run(
    source: Box<dyn Source>,
    config: RuntimeConfig,
    consumers: Vec<Box<dyn Consumer>>,
) -> Result<RunReport, RuntimeError> {
    let started = Instant::now();
    let origins: Vec<Option<String>> = StreamId::ALL
        .iter()
        .map(|&s| source.stream_origin(s))
        .collect();
    let lockstep = matches!(config.clock_mode, ClockMode::Virtual);
    let buffers = Arc::new(BufferSet::new(config.buffer.clone()));
    let ctrl_c = if config.handle_ctrl_c {
        // The stop handle too: a source blocked outside ingest's loop (a live source
        // waiting for its next connection) sees the signal at once.
        stop_on_interrupt(&config.stop);
        ctrl_c_flag()
    } else {
        None
    };
    let shared = Arc::new(Shared::new(
        Arc::clone(&buffers),
        config.stop.clone(),
        ctrl_c,
    ));
    log::info!(
        "runtime: {:?}, {} consumer(s)",
        config.clock_mode,
        consumers.len()
    );

    let mut links = Vec::with_capacity(consumers.len());
    let mut workers: Vec<(String, JoinHandle<WorkerOutcome>)> = Vec::new();
    for consumer in consumers {
        let name = consumer.name().to_string();
        let (wake_tx, wake_rx) = bounded(config.notify_capacity.max(1));
        let (ack_tx, ack_rx) = if lockstep {
            let (t, r) = bounded(1);
            (Some(t), Some(r))
        } else {
            (None, None)
        };
        let mut wants = [true; StreamId::COUNT];
        for (w, s) in wants.iter_mut().zip(StreamId::ALL) {
            *w = consumer.wants(s);
        }
        let mut reader = buffers.reader(name.clone());
        // Accounting covers only the streams the consumer reads (its subscription).
        reader.subscribe_only(StreamId::ALL.into_iter().filter(|s| wants[s.index()]));
        let sh = Arc::clone(&shared);
        let thread = format!("vista-{name}");
        let spawned = std::thread::Builder::new()
            .name(thread.clone())
            .spawn(move || consumer_thread(consumer, reader, wake_rx, ack_tx, sh));
        match spawned {
            Ok(h) => workers.push((thread, h)),
            Err(source) => {
                drop(links);
                let _ = join_workers(workers);
                return Err(RuntimeError::Spawn { thread, source });
            }
        }
        links.push(ConsumerLink {
            name,
            wake: wake_tx,
            ack: ack_rx,
            wants,
            coalesced: 0,
            pending: false,
        });
    }

    let settings = IngestSettings {
        mode: config.clock_mode,
        lockstep_tick_ns: config.lockstep_tick_ns,
        pacing_granularity_ns: config.pacing_granularity_ns.max(0),
        pacing_slack_ns: config.pacing_slack_ns.clamp(0, MAX_PACING_SLACK_NS),
        consumer_wake_interval_ns: config.consumer_wake_interval_ns.max(0),
        start: config.start,
        end: config.end,
        progress: config.progress,
        progress_interval: config.progress_interval,
        clock: config.clock,
        max_clock_jump_ns: config.max_clock_jump_ns.max(1_000_000),
    };
    let sh = Arc::clone(&shared);
    let ingest = std::thread::Builder::new()
        .name("vista-ingest".to_string())
        .spawn(move || ingest_thread(source, sh, links, settings));
    let ingest = match ingest {
        Ok(h) => h,
        Err(source) => {
            // `links` moved into the failed closure and is dropped: workers see the end.
            let _ = join_workers(workers);
            return Err(RuntimeError::Spawn {
                thread: "vista-ingest".to_string(),
                source,
            });
        }
    };
    let ingest: Result<IngestOutcome, _> = ingest.join();
    let outcomes = join_workers(workers);
    let ingest = ingest.map_err(|_| RuntimeError::Panicked {
        thread: "vista-ingest".to_string(),
    })?;
    let outcomes = outcomes?;

    // A consumer failure seen by a worker after ingest had already ended still counts.
    let stop_reason = match (&ingest.reason, shared.stop_reason()) {
        (
            StopReason::EndOfSource | StopReason::EndOfRange,
            Some(r @ StopReason::ConsumerFailed { .. }),
        ) => r,
        // A source that ended because a signal stopped it (a live source waiting for its
        // next connection) reports the interrupt.
        (StopReason::EndOfSource, Some(StopReason::Interrupted)) => StopReason::Interrupted,
        _ => ingest.reason.clone(),
    };
    let mut stats = BufferStats::from_set(&buffers);
    for o in outcomes {
        stats.add_consumer(&o.name, o.stats);
    }
    let wall = started.elapsed().as_secs_f64();
    let profile = ProfileReport::build(&ingest.pacing, &shared.profiler, wall, &origins);
    log::info!("runtime: done in {wall:.3} s ({stop_reason:?})");
    Ok(RunReport {
        stop_reason,
        profile,
        buffers: stats,
        coalesced: ingest.coalesced.into_iter().collect(),
        filtered_before_start: ingest.filtered_before_start,
        lockstep_rounds: ingest.lockstep_rounds,
        ingest_cpu_s: ingest.cpu_ns.map(|ns| ns as f64 * 1e-9),
        ingest_sleeps: ingest.sleeps,
    })
}

fn join_workers(
    workers: Vec<(String, JoinHandle<WorkerOutcome>)>,
) -> Result<Vec<WorkerOutcome>, RuntimeError> {
    let mut out = Vec::with_capacity(workers.len());
    let mut panicked = None;
    for (thread, h) in workers {
        match h.join() {
            Ok(o) => out.push(o),
            Err(_) => panicked = panicked.or(Some(thread)),
        }
    }
    match panicked {
        Some(thread) => Err(RuntimeError::Panicked { thread }),
        None => Ok(out),
    }
}
