//! The stream report of a run (`--profile FILE`, and the first part of `profile.json`):
//! per stream, delivered and dropped samples (by reason), rate and pacing; the runtime's
//! stage profile and buffer statistics; for live input, the link.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::profile::ProfileReport;
use crate::runtime::RunReport;
use crate::source::live::LinkReport;

use super::PipelineError;

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
    pub buffers: crate::buffer::BufferStats,
    /// The Rerun recording, when the run made one: items offered, logged and dropped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rerun: Option<crate::view::ViewReport>,
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

/// The JSON written by `--profile`: replay's fields, plus the link.
#[derive(Debug, Serialize)]
pub struct LiveProfile {
    /// The same fields as `vista replay --profile`.
    #[serde(flatten)]
    pub base: ReplayProfile,
    /// What the link did.
    pub link: LinkReport,
}

/// Writes a run's profile as pretty JSON, creating the folder it goes in.
pub fn write_profile(path: &Path, profile: &impl Serialize) -> Result<(), PipelineError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(PipelineError::write(dir))?;
    }
    let json = serde_json::to_string_pretty(profile).map_err(PipelineError::json("the profile"))?;
    std::fs::write(path, json + "\n").map_err(PipelineError::write(path))?;
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
        rerun: None,
    }
}

/// The terminal table of a replay: per stream, delivered, dropped, rate and pacing.
pub fn render(p: &ReplayProfile) -> String {
    use std::fmt::Write;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{:<22} {:>8} {:>10} {:>8} {:>9} {:>10} {:>10} {:>10}",
        "stream", "vrs id", "delivered", "dropped", "rate Hz", "pace p50", "pace p99", "pace max"
    );
    for (name, s) in &p.streams {
        let _ = writeln!(
            t,
            "{:<22} {:>8} {:>10} {:>8} {:>9.1} {:>8.0}µs {:>8.0}µs {:>8.0}µs",
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
    view_line(&mut t, p);
    t
}

/// The Rerun recording's line, when the run made one.
fn view_line(t: &mut String, p: &ReplayProfile) {
    use std::fmt::Write;
    if let Some(r) = &p.rerun {
        let _ = writeln!(
            t,
            "rerun: {} item(s) logged to {} ({} dropped behind, {} refused)",
            r.logged, r.target, r.dropped, r.failed
        );
    }
}

/// The terminal report of a live run: replay's per-stream table plus the link.
pub fn render_live(p: &LiveProfile) -> String {
    use std::fmt::Write;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{:<22} {:>10} {:>8} {:>9} {:>12} {:>12} {:>12}",
        "stream", "delivered", "dropped", "rate Hz", "link p50", "link p99", "link max"
    );
    for (name, s) in &p.base.streams {
        let l = p.link.latency.get(name).cloned().unwrap_or_default();
        let _ = writeln!(
            t,
            "{:<22} {:>10} {:>8} {:>9.1} {:>10.0}µs {:>10.0}µs {:>10.0}µs",
            name, s.delivered, s.dropped, s.rate_hz, l.p50_us, l.p99_us, l.max_us
        );
    }
    let _ = writeln!(
        t,
        "live from {} ({}): {:.3} s of device time in {:.3} s wall; {} connections, {} link drops, {} bad frames; stop: {}",
        p.base.session.display(),
        p.link.device_serial,
        p.base.device_time_s,
        p.base.wall_time_s,
        p.link.connections,
        p.link.link_drops,
        p.link.bad_frames,
        p.base.stop_reason
    );
    view_line(&mut t, &p.base);
    t
}
