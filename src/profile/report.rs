//! The profile report of a session: per-stream delivery and pacing, per-stage timing,
//! wall time. Serialises to JSON (`profile.json`) and renders as a terminal table.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::profile::histogram::Percentiles;
use crate::profile::pacing::PacingStats;
use crate::profile::profiler::Profiler;

/// One stream's line in the report.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct StreamReport {
    /// The VRS stream id (`1202-1`), or `None` for MPS-derived streams.
    pub vrs_id: Option<String>,
    /// Samples pushed into the buffers.
    pub delivered: u64,
    /// Samples that never reached the buffers (`out_of_order_dropped + skipped`).
    pub dropped: u64,
    /// Samples dropped because their capture time went backwards.
    pub out_of_order_dropped: u64,
    /// Samples the source skipped (read errors).
    pub skipped: u64,
    /// Samples left out because their capture time jumped implausibly far ahead.
    pub implausible_dropped: u64,
    /// Delivered-at minus due-at, µs (empty on a virtual clock).
    pub pacing_us: Percentiles,
    /// Samples delivered before their due time (should be 0: pacing never runs ahead).
    pub early: u64,
    /// Measured rate, Hz, from capture times.
    pub rate_hz: f64,
    /// First capture time, device ns.
    pub first_capture_ns: Option<i64>,
    /// Last capture time, device ns.
    pub last_capture_ns: Option<i64>,
}

/// One stage's line in the report.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct StageReport {
    /// Span durations (`end − start`), µs.
    pub duration_us: Percentiles,
    /// Capture-to-end latencies, µs (empty when not measured, e.g. on a virtual clock).
    pub latency_us: Percentiles,
}

/// The profile of a session.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct ProfileReport {
    /// Per stream, keyed by Aria stream name (`imu-right`).
    pub streams: BTreeMap<String, StreamReport>,
    /// Per stage, keyed by stage name.
    pub stages: BTreeMap<String, StageReport>,
    /// Recoverable source errors that named no known stream.
    pub skipped_unknown_stream: u64,
    /// Spans not recorded because too many distinct stages were seen.
    pub stage_overflow: u64,
    /// Host wall time of the session, seconds.
    pub wall_time_s: f64,
}

impl ProfileReport {
    /// Builds the report from the ingest statistics and the profiler; `origins[i]` is where
    /// stream `i` came from (its VRS stream id in the recording; `Source::stream_origin`).
    pub fn build(
        pacing: &PacingStats,
        profiler: &Profiler,
        wall_time_s: f64,
        origins: &[Option<String>],
    ) -> Self {
        let streams = pacing
            .active()
            .map(|(id, s)| {
                let r = StreamReport {
                    vrs_id: origins.get(id.index()).cloned().flatten(),
                    delivered: s.delivered,
                    dropped: s.dropped(),
                    out_of_order_dropped: s.out_of_order_dropped,
                    skipped: s.skipped,
                    implausible_dropped: s.implausible_dropped,
                    pacing_us: s.pacing_us(),
                    early: s.pacing.negative(),
                    rate_hz: s.rate_hz(),
                    first_capture_ns: s.first_capture.map(|t| t.ns()),
                    last_capture_ns: s.last_capture.map(|t| t.ns()),
                };
                (id.name().to_string(), r)
            })
            .collect();
        let stages = profiler
            .snapshot()
            .into_iter()
            .map(|(name, st)| {
                let r = StageReport {
                    duration_us: st.duration.percentiles(),
                    latency_us: st.latency.percentiles(),
                };
                (name.to_string(), r)
            })
            .collect();
        Self {
            streams,
            stages,
            skipped_unknown_stream: pacing.skipped_unknown_stream,
            stage_overflow: profiler.overflow(),
            wall_time_s,
        }
    }

    /// A fixed-width table for the terminal.
    pub fn to_table(&self) -> String {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "{:<18} {:>8} {:>10} {:>8} {:>10} {:>10} {:>10}",
            "stream", "vrs id", "delivered", "dropped", "rate Hz", "pace p50", "pace p99"
        );
        for (name, s) in &self.streams {
            let _ = writeln!(
                t,
                "{:<18} {:>8} {:>10} {:>8} {:>10.2} {:>8.0}µs {:>8.0}µs   max {:.0} µs",
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
        if !self.stages.is_empty() {
            let _ = writeln!(
                t,
                "{:<18} {:>8} {:>10} {:>10} {:>10} {:>12}",
                "stage", "count", "p50 µs", "p99 µs", "max µs", "lat p99 µs"
            );
            for (name, s) in &self.stages {
                let _ = writeln!(
                    t,
                    "{:<18} {:>8} {:>10.1} {:>10.1} {:>10.1} {:>12.1}",
                    name,
                    s.duration_us.count,
                    s.duration_us.p50,
                    s.duration_us.p99,
                    s.duration_us.max,
                    s.latency_us.p99
                );
            }
        }
        if self.skipped_unknown_stream > 0 {
            let _ = writeln!(
                t,
                "skipped (unknown stream): {}",
                self.skipped_unknown_stream
            );
        }
        let _ = writeln!(t, "wall time: {:.3} s", self.wall_time_s);
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::span::Span;
    use crate::sample::StreamId;
    use crate::time::{DeviceTime, HostTime};

    #[test]
    fn report_serialises_with_streams_keyed_by_name() {
        let mut p = PacingStats::new();
        p.record_delivery(
            StreamId::ImuLeft,
            DeviceTime(0),
            HostTime(0),
            HostTime(500_000),
            true,
        );
        p.record_delivery(
            StreamId::ImuLeft,
            DeviceTime(1_250_000),
            HostTime(1_250_000),
            HostTime(1_250_000),
            true,
        );
        let prof = Profiler::new();
        prof.record(&Span {
            stage: "perception",
            capture: DeviceTime(0),
            start: HostTime(0),
            end: HostTime(7_000),
        });
        // Where each stream came from is the source's to say (Gen2 records imu-left as 1202-1).
        let mut origins = vec![None; StreamId::COUNT];
        origins[StreamId::ImuLeft.index()] = Some("1202-1".to_string());
        let r = ProfileReport::build(&p, &prof, 1.5, &origins);
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["streams"]["imu-left"]["vrs_id"], "1202-1");
        assert_eq!(v["streams"]["imu-left"]["delivered"], 2);
        assert_eq!(v["streams"]["imu-left"]["rate_hz"], 800.0);
        assert_eq!(v["streams"]["imu-left"]["pacing_us"]["max"], 500.0);
        assert_eq!(v["stages"]["perception"]["duration_us"]["count"], 1);
        assert_eq!(v["wall_time_s"], 1.5);
        let table = r.to_table();
        assert!(
            table.contains("imu-left") && table.contains("perception"),
            "{table}"
        );
    }
}
