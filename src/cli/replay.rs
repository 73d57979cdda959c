//! `vista replay SESSION [--rate R | --asap] [--from S] [--to S] [--profile FILE]`: streams a
//! recorded session into the runtime exactly as it would have arrived live, and reports
//! per-stream delivery and pacing.

use std::collections::BTreeMap;
use std::hash::Hasher;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;

use vista::buffer::Reader;
use vista::profile::ProfileReport;
use vista::runtime::{
    ClockMode, Consumer, ConsumerError, ProgressSnapshot, RunReport, RuntimeConfig,
};
use vista::sample::{Payload, Sample};
use vista::source::prefetch::PrefetchSource;
use vista::source::replay::{ReplayOptions, ReplaySource};

/// Samples read ahead of pacing: ~35 ms of both IMUs, bounding memory to a few images.
const PREFETCH_SAMPLES: usize = 64;
use vista::time::HostTime;

/// Arguments of `vista replay`.
#[derive(Debug, clap::Args)]
pub struct ReplayArgs {
    /// A session folder (`recording.vrs`, optional `mps/`) or a bare `.vrs` file.
    pub session: PathBuf,
    /// Replay speed factor (1 = real time).
    #[arg(long, default_value_t = 1.0, conflicts_with = "asap")]
    pub rate: f64,
    /// As fast as possible and deterministic (virtual clock, lock-step consumers).
    #[arg(long)]
    pub asap: bool,
    /// Start this many seconds after the recording's first sample.
    #[arg(long, value_name = "SECONDS")]
    pub from: Option<f64>,
    /// Stop this many seconds after the recording's first sample.
    #[arg(long, value_name = "SECONDS")]
    pub to: Option<f64>,
    /// Replay the session this many extra times (soak tests).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub loops: u32,
    /// Leave out MPS-derived streams (eye gaze, hands, trajectory): what live input sees.
    #[arg(long)]
    pub recorded_only: bool,
    /// Plausibility window of capture times, seconds: a sample this far from its
    /// neighbours, or this far ahead of the session clock, is left out as a corrupt
    /// timestamp and counted (never the new "now").
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    pub max_clock_jump_s: f64,
    /// Write the report as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// Coalesce wake-ups: samples due within this many µs of the last wake-up are delivered
    /// together (never early). 0 = wake for every sample. Trades pacing accuracy for CPU.
    #[arg(long, default_value_t = 0, value_name = "US")]
    pub pacing_granularity_us: u32,
    /// Print a digest of the delivered sample sequence (identical for identical runs).
    #[arg(long)]
    pub digest: bool,
    /// No progress display.
    #[arg(long, short)]
    pub quiet: bool,
    /// The assistant (`--speak DIR` and its options).
    #[command(flatten)]
    pub speak: super::speak::SpeakArgs,
}

/// The JSON written by `--profile` (and summarised on the terminal).
#[derive(Debug, Serialize)]
pub struct ReplayProfile {
    /// The session replayed.
    pub session: PathBuf,
    /// `"asap"` or `"real-time"`.
    pub mode: String,
    /// Replay rate (real time only).
    pub rate: Option<f64>,
    /// Per stream (Aria name): delivered, dropped, pacing.
    pub streams: BTreeMap<String, StreamLine>,
    /// Host wall time of the run, seconds.
    pub wall_time_s: f64,
    /// Device time replayed, seconds.
    pub device_time_s: f64,
    /// `device_time_s / wall_time_s`.
    pub speed_factor: f64,
    /// CPU time of the ingest thread (pacing + pushing), seconds, when measured.
    pub ingest_cpu_s: Option<f64>,
    /// Pacing sleeps (wake-ups) of the ingest thread.
    pub ingest_sleeps: u64,
    /// Why the run stopped.
    pub stop_reason: String,
    /// Digest of the delivered sample sequence (with `--digest`; empty otherwise).
    pub sequence_digest: String,
    /// The full runtime profile (stages, histograms).
    pub runtime: ProfileReport,
    /// Buffers (produced, evicted, high-water mark per stream) and, per consumer, only the
    /// streams it reads: delivered, dropped, pending, max lag.
    pub buffers: vista::buffer::BufferStats,
}

/// One stream of the replay report.
#[derive(Debug, Serialize)]
pub struct StreamLine {
    /// VRS stream id, or none for MPS-derived streams.
    pub vrs_id: Option<String>,
    /// Samples delivered into the buffers.
    pub delivered: u64,
    /// Samples dropped in all: out of order, unreadable, or overwritten in a full buffer
    /// before the consumer read them.
    pub dropped: u64,
    /// Of `dropped`: capture time went backwards.
    pub dropped_out_of_order: u64,
    /// Of `dropped`: unreadable records skipped.
    pub dropped_unreadable: u64,
    /// Of `dropped`: capture time implausibly far ahead of the session clock.
    pub dropped_implausible: u64,
    /// Of `dropped`: lost in a full ring buffer.
    pub dropped_buffer_full: u64,
    /// Measured rate from capture times, Hz.
    pub rate_hz: f64,
    /// Delivered-at minus due-at, µs.
    pub pacing_us: Pacing,
}

/// Pacing error percentiles, µs.
#[derive(Debug, Serialize)]
pub struct Pacing {
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Maximum.
    pub max: f64,
}

/// Runs `vista replay`.
pub fn run(args: ReplayArgs) -> anyhow::Result<()> {
    let options = ReplayOptions {
        from_s: args.from,
        to_s: args.to,
        extra_loops: args.loops,
        recorded_only: args.recorded_only,
        max_clock_jump_ns: super::live::secs_to_ns(args.max_clock_jump_s),
    };
    let source = ReplaySource::open(&args.session, options)
        .with_context(|| format!("opening session {}", args.session.display()))?;
    let duration_s = source.duration_s() * f64::from(args.loops + 1);
    log::info!(
        "{} ({:.2} s of device time)",
        vista::source::Source::describe(&source),
        duration_s
    );

    let mode = if args.asap {
        ClockMode::Virtual
    } else {
        ClockMode::RealTime { rate: args.rate }
    };
    let mut config = RuntimeConfig::new(mode);
    config.handle_ctrl_c = true;
    // From here on: a signal while the models load stops the run before it starts, in order.
    vista::runtime::stop_on_interrupt(&config.stop);
    config.max_clock_jump_ns = super::live::secs_to_ns(args.max_clock_jump_s);
    config.pacing_granularity_ns = i64::from(args.pacing_granularity_us) * 1_000;
    let bar = progress_bar(args.quiet, args.asap, duration_s);
    if let Some(bar) = bar.clone() {
        config.progress = Some(progress_fn(bar, args.asap));
    }
    let digest = Arc::new(Mutex::new(SequenceDigest::default()));
    // The digest reads every byte of every sample, so it only runs when asked for.
    let mut consumers: Vec<Box<dyn Consumer>> = Vec::new();
    if args.digest {
        consumers.push(Box::new(DigestConsumer(Arc::clone(&digest))));
    }
    let spoken = match args.speak.speak.clone() {
        Some(dir) => {
            let origin = source.start_time();
            // Models load before the clock starts, so loading never delays the first samples.
            let pre = super::speak::preload(&args.speak, !args.asap)?;
            let clock = super::speak::replay_clock(origin, args.asap, args.rate);
            let (run, speak_consumers) = super::speak::setup(
                &args.speak,
                &dir,
                &args.session,
                &source,
                Arc::clone(&clock),
                origin,
                args.rate,
                pre,
            )?;
            config.clock = Some((origin, clock));
            consumers.extend(speak_consumers);
            Some(run)
        }
        None => None,
    };
    // In real time, record reads happen on a read-ahead thread so pacing never waits on
    // I/O. As fast as possible, one thread reading and delivering is faster (no hand-off).
    // Without a device pose (`--recorded-only`, a session without MPS), the assistant's
    // run derives one from the IMU.
    let derive = spoken.as_ref().and_then(|r| r.derive_pose.clone());
    let source: Box<dyn vista::source::Source> = match derive {
        Some(models) => Box::new(vista::perception::inertial_source::InertialPoseSource::new(
            Box::new(source),
            models,
        )),
        None => Box::new(source),
    };
    let source: Box<dyn vista::source::Source> = if args.asap {
        source
    } else {
        Box::new(
            PrefetchSource::spawn(source, PREFETCH_SAMPLES)
                .context("starting the read-ahead thread")?,
        )
    };
    let report = vista::runtime::run(source, config, consumers).context("replay failed")?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let digest = if args.digest {
        digest.lock().map(|d| d.hex()).unwrap_or_default()
    } else {
        String::new()
    };
    let mode = if args.asap { "asap" } else { "real-time" };
    let rate = (!args.asap).then_some(args.rate);
    let profile = build_profile(args.session.clone(), mode, rate, &report, digest);
    print!("{}", render(&profile));
    if let Some(path) = &args.profile {
        write_profile(path, &profile)?;
    }
    if let Some(run) = spoken {
        super::speak::finish(run, &profile)?;
    }
    if report.stop_reason.is_error() {
        anyhow::bail!("replay stopped: {:?}", report.stop_reason);
    }
    Ok(())
}

/// Writes a run's profile as pretty JSON, creating the folder it goes in.
pub fn write_profile(path: &std::path::Path, profile: &impl Serialize) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let json = serde_json::to_string_pretty(profile)?;
    std::fs::write(path, json + "\n").with_context(|| format!("writing {}", path.display()))?;
    log::info!("profile written to {}", path.display());
    Ok(())
}

/// The report of a run: per-stream delivery, drops and pacing from the runtime's profile
/// and buffer statistics. `session` names the input (a session path, or a device address),
/// `mode` how it was paced.
pub fn build_profile(
    session: PathBuf,
    mode: &str,
    rate: Option<f64>,
    report: &RunReport,
    sequence_digest: String,
) -> ReplayProfile {
    let p = &report.profile;
    let streams = p
        .streams
        .iter()
        .map(|(name, s)| {
            let buffer_full = report
                .buffers
                .consumers
                .values()
                .filter_map(|c| c.get(name))
                .map(|c| c.dropped)
                .max()
                .unwrap_or(0);
            let line = StreamLine {
                vrs_id: s.vrs_id.clone(),
                delivered: s.delivered,
                dropped: s.dropped + buffer_full,
                dropped_out_of_order: s.out_of_order_dropped,
                dropped_unreadable: s.skipped,
                dropped_implausible: s.implausible_dropped,
                dropped_buffer_full: buffer_full,
                rate_hz: s.rate_hz,
                pacing_us: Pacing {
                    p50: s.pacing_us.p50,
                    p99: s.pacing_us.p99,
                    max: s.pacing_us.max,
                },
            };
            (name.clone(), line)
        })
        .collect();
    let device_time_s = p
        .streams
        .values()
        .filter_map(|s| Some((s.first_capture_ns?, s.last_capture_ns?)))
        .fold(None, |acc: Option<(i64, i64)>, (a, b)| {
            Some(acc.map_or((a, b), |(x, y)| (x.min(a), y.max(b))))
        })
        .map_or(0.0, |(a, b)| (b - a) as f64 * 1e-9);
    ReplayProfile {
        session,
        mode: mode.to_string(),
        rate,
        streams,
        wall_time_s: p.wall_time_s,
        device_time_s,
        speed_factor: if p.wall_time_s > 0.0 {
            device_time_s / p.wall_time_s
        } else {
            0.0
        },
        ingest_cpu_s: report.ingest_cpu_s,
        ingest_sleeps: report.ingest_sleeps,
        stop_reason: format!("{:?}", report.stop_reason),
        sequence_digest,
        runtime: p.clone(),
        buffers: report.buffers.clone(),
    }
}

fn render(p: &ReplayProfile) -> String {
    use std::fmt::Write;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{:<18} {:>8} {:>10} {:>8} {:>9} {:>10} {:>10} {:>10}",
        "stream", "vrs id", "delivered", "dropped", "rate Hz", "pace p50", "pace p99", "pace max"
    );
    for (name, s) in &p.streams {
        let _ = writeln!(
            t,
            "{:<18} {:>8} {:>10} {:>8} {:>9.1} {:>8.0}µs {:>8.0}µs {:>8.0}µs",
            name,
            s.vrs_id.as_deref().unwrap_or("-"),
            s.delivered,
            s.dropped,
            s.rate_hz,
            s.pacing_us.p50,
            s.pacing_us.p99,
            s.pacing_us.max
        );
    }
    let _ = writeln!(
        t,
        "{} replay: {:.3} s of device time in {:.3} s wall ({:.1}× real time){}; stop: {}",
        p.mode,
        p.device_time_s,
        p.wall_time_s,
        p.speed_factor,
        p.ingest_cpu_s
            .map_or(String::new(), |c| format!(", ingest CPU {:.3} s", c)),
        p.stop_reason
    );
    if !p.sequence_digest.is_empty() {
        let _ = writeln!(t, "sequence digest: {}", p.sequence_digest);
    }
    t
}

fn progress_bar(quiet: bool, asap: bool, duration_s: f64) -> Option<ProgressBar> {
    if quiet {
        return None;
    }
    let bar = ProgressBar::with_draw_target(
        Some((duration_s * 1000.0).max(1.0) as u64),
        ProgressDrawTarget::stderr_with_hz(5),
    );
    let style = if asap {
        ProgressStyle::with_template("{bar:40} {pos}/{len} ms device time {msg}")
    } else {
        ProgressStyle::with_template("{spinner} {elapsed} {msg}")
    };
    if let Ok(s) = style {
        bar.set_style(s);
    }
    bar.enable_steady_tick(Duration::from_millis(200));
    Some(bar)
}

fn progress_fn(bar: ProgressBar, asap: bool) -> vista::runtime::ProgressFn {
    let mut last: Option<(f64, Vec<(vista::sample::StreamId, u64)>)> = None;
    Box::new(move |p: &ProgressSnapshot| {
        if let (Some(a), Some(b)) = (p.first_capture, p.capture) {
            bar.set_position((b.since(a) as f64 * 1e-6) as u64);
        }
        if asap {
            bar.set_message(format!("{} samples", p.delivered));
            return;
        }
        // Live per-stream rates over the last interval.
        let rates = match &last {
            Some((t0, counts)) if p.elapsed_s > *t0 => {
                let dt = p.elapsed_s - t0;
                p.per_stream
                    .iter()
                    .map(|(s, n)| {
                        let before = counts.iter().find(|(x, _)| x == s).map_or(0, |(_, c)| *c);
                        format!("{} {:.0}/s", s.name(), n.saturating_sub(before) as f64 / dt)
                    })
                    .collect::<Vec<_>>()
                    .join("  ")
            }
            _ => String::new(),
        };
        bar.set_message(rates);
        last = Some((p.elapsed_s, p.per_stream.clone()));
    })
}

/// An FNV-1a-style hash over everything a consumer observes of each sample, in delivery order.
#[derive(Debug)]
struct SequenceDigest {
    hasher: Fnv1a,
    samples: u64,
}

impl Default for SequenceDigest {
    fn default() -> Self {
        Self {
            hasher: Fnv1a(0xcbf2_9ce4_8422_2325),
            samples: 0,
        }
    }
}

impl SequenceDigest {
    fn add(&mut self, s: &Sample) {
        let h = &mut self.hasher;
        h.write_u8(s.stream as u8);
        h.write_i64(s.capture.ns());
        h.write_u64(s.seq);
        match &s.payload {
            Payload::Image(f) => {
                h.write_u32(f.width);
                h.write_u32(f.height);
                h.write(&f.data);
            }
            Payload::Audio(a) => h.write(&a.pcm_i32le),
            other => h.write(format!("{other:?}").as_bytes()),
        }
        self.samples += 1;
    }

    fn hex(&self) -> String {
        format!("{:016x} ({} samples)", self.hasher.finish(), self.samples)
    }
}

#[derive(Debug)]
struct Fnv1a(u64);

impl Hasher for Fnv1a {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // FNV-1a over 64-bit words (8× fewer multiplies than per byte), then the tail bytes.
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            let mut x = [0u8; 8];
            x.copy_from_slice(w);
            self.0 ^= u64::from_le_bytes(x);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
        for b in words.remainder() {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// Feeds every delivered sample, in order, into the digest.
struct DigestConsumer(Arc<Mutex<SequenceDigest>>);

impl Consumer for DigestConsumer {
    fn name(&self) -> &str {
        "sequence-digest"
    }
    fn on_samples(&mut self, reader: &mut Reader, _now: HostTime) -> Result<(), ConsumerError> {
        let mut d = self.0.lock().map_err(|_| "digest lock poisoned")?;
        reader.drain_all_new(|s| d.add(s));
        Ok(())
    }
}
