//! What the live link did: connections, drops, bad frames, and per-stream link latency
//! (arrival − (capture + estimated offset)), shared between the live source and its owner.

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use hdrhistogram::Histogram;

use crate::sample::StreamId;

/// Latency percentiles of one stream, µs.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct LatencyLine {
    /// Samples measured.
    pub count: u64,
    /// Median, µs.
    pub p50_us: f64,
    /// 99th percentile, µs.
    pub p99_us: f64,
    /// Maximum, µs.
    pub max_us: f64,
}

/// A snapshot of the link's statistics (serialised into the live profile).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct LinkReport {
    /// Device serial from the last hello.
    pub device_serial: String,
    /// Streaming profile from the last hello.
    pub streaming_profile: String,
    /// Connections established (hello received).
    pub connections: u64,
    /// Connections lost without a goodbye (I/O error, timeout, truncated frame).
    pub link_drops: u64,
    /// Connections closed because of a malformed or hostile frame.
    pub bad_frames: u64,
    /// Clean goodbyes received.
    pub goodbyes: u64,
    /// Hellos whose calibration did not parse (refused; the run went on without it).
    pub bad_calibrations: u64,
    /// Connections whose device clock was shifted to continue the session clock (every
    /// connection after the first).
    pub rebased_connections: u64,
    /// Device-clock restarts or jumps detected within a connection.
    pub clock_restarts: u64,
    /// Samples left out because their capture time was implausibly far from their arrival.
    pub implausible_timestamps: u64,
    /// Samples on streams this build does not know (a newer device's), skipped.
    pub unknown_stream_samples: u64,
    /// Current host-minus-device clock offset estimate, ns.
    pub offset_ns: Option<i64>,
    /// Link latency per stream (Aria name): arrival minus (capture + offset).
    pub latency: BTreeMap<String, LatencyLine>,
}

/// Shared, lock-protected link statistics.
#[derive(Clone, Debug, Default)]
pub struct LinkStats(Arc<Mutex<Inner>>);

#[derive(Debug, Default)]
struct Inner {
    report: LinkReport,
    hist: BTreeMap<StreamId, Histogram<u64>>,
}

impl LinkStats {
    /// Empty statistics.
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies `f` to the counters.
    pub fn update(&self, f: impl FnOnce(&mut LinkReport)) {
        if let Ok(mut g) = self.0.lock() {
            f(&mut g.report);
        }
    }

    /// Records one sample's link latency.
    pub fn record_latency(&self, stream: StreamId, latency_ns: i64) {
        if let Ok(mut g) = self.0.lock() {
            let h = match g.hist.entry(stream) {
                Entry::Occupied(e) => e.into_mut(),
                // 1 µs .. 1 h, 3 significant digits (valid bounds: creation does not fail).
                Entry::Vacant(v) => match Histogram::new_with_bounds(1, 3_600_000_000, 3) {
                    Ok(h) => v.insert(h),
                    Err(_) => return,
                },
            };
            let us = (latency_ns.max(0) / 1_000).max(1) as u64;
            h.saturating_record(us);
        }
    }

    /// A snapshot.
    pub fn report(&self) -> LinkReport {
        let Ok(g) = self.0.lock() else {
            return LinkReport::default();
        };
        let mut r = g.report.clone();
        r.latency = g
            .hist
            .iter()
            .map(|(s, h)| {
                (
                    s.name().to_string(),
                    LatencyLine {
                        count: h.len(),
                        p50_us: h.value_at_quantile(0.5) as f64,
                        p99_us: h.value_at_quantile(0.99) as f64,
                        max_us: h.max() as f64,
                    },
                )
            })
            .collect();
        r
    }
}
