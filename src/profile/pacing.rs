//! Per-stream delivery statistics of the ingest stage: what was delivered, what was dropped
//! and why, how late each delivery was against its due time, and the measured rate.

use crate::profile::histogram::{LatencyHistogram, Percentiles};
use crate::sample::StreamId;
use crate::time::{DeviceTime, HostTime};

/// Delivery statistics of one stream.
#[derive(Clone, Debug, Default)]
pub struct StreamPacing {
    /// Samples pushed into the buffers.
    pub delivered: u64,
    /// Samples dropped because their capture time went backwards within the stream.
    pub out_of_order_dropped: u64,
    /// Samples the source skipped (recoverable read errors) on this stream.
    pub skipped: u64,
    /// Samples left out because their capture time jumped implausibly far ahead of the
    /// session clock (a corrupt timestamp).
    pub implausible_dropped: u64,
    /// Delivered-at minus due-at, ns (only recorded on real-time clocks).
    pub pacing: LatencyHistogram,
    /// Capture time of the first delivered sample.
    pub first_capture: Option<DeviceTime>,
    /// Capture time of the last delivered sample.
    pub last_capture: Option<DeviceTime>,
}

impl StreamPacing {
    /// Samples that never reached the buffers (out of order or skipped by the source).
    pub fn dropped(&self) -> u64 {
        self.out_of_order_dropped + self.skipped + self.implausible_dropped
    }

    /// The measured rate in Hz: `(delivered − 1) / (last − first)` (0 with fewer than two
    /// samples or a zero span).
    pub fn rate_hz(&self) -> f64 {
        match (self.first_capture, self.last_capture) {
            (Some(a), Some(b)) if self.delivered >= 2 && b > a => {
                (self.delivered - 1) as f64 / b.since(a) as f64 * 1e9
            }
            _ => 0.0,
        }
    }

    /// The pacing percentiles in µs.
    pub fn pacing_us(&self) -> Percentiles {
        self.pacing.percentiles()
    }
}

/// Delivery statistics of every stream (one [`StreamPacing`] per [`StreamId`], allocated
/// up front; updating never allocates).
#[derive(Clone, Debug, Default)]
pub struct PacingStats {
    streams: Vec<StreamPacing>,
    /// Recoverable source errors that named no known stream.
    pub skipped_unknown_stream: u64,
}

impl PacingStats {
    /// Empty statistics for all streams.
    pub fn new() -> Self {
        Self {
            streams: vec![StreamPacing::default(); StreamId::COUNT],
            skipped_unknown_stream: 0,
        }
    }

    fn get_mut(&mut self, stream: StreamId) -> Option<&mut StreamPacing> {
        self.streams.get_mut(stream.index())
    }

    /// The statistics of `stream` (`None` only for a `PacingStats::default()` never used).
    pub fn stream(&self, stream: StreamId) -> Option<&StreamPacing> {
        self.streams.get(stream.index())
    }

    /// Records a delivery of a sample captured at `capture`, due at `due`, handed over at
    /// `delivered_at`. `real_time` says whether the lateness is meaningful (it is not on a
    /// virtual clock, where it is not recorded).
    pub fn record_delivery(
        &mut self,
        stream: StreamId,
        capture: DeviceTime,
        due: HostTime,
        delivered_at: HostTime,
        real_time: bool,
    ) {
        if self.streams.is_empty() {
            *self = Self::new();
        }
        if let Some(s) = self.get_mut(stream) {
            s.delivered += 1;
            s.first_capture.get_or_insert(capture);
            s.last_capture = Some(capture);
            if real_time {
                s.pacing.record_ns(delivered_at.since(due));
            }
        }
    }

    /// Records a sample dropped because its capture time went backwards.
    pub fn record_out_of_order(&mut self, stream: StreamId) {
        if self.streams.is_empty() {
            *self = Self::new();
        }
        if let Some(s) = self.get_mut(stream) {
            s.out_of_order_dropped += 1;
        }
    }

    /// Records a sample left out because its capture time jumped implausibly far ahead.
    pub fn record_implausible(&mut self, stream: StreamId) {
        if self.streams.is_empty() {
            *self = Self::new();
        }
        if let Some(s) = self.get_mut(stream) {
            s.implausible_dropped += 1;
        }
    }

    /// Records a sample the source skipped; `stream` is the source's name for it.
    pub fn record_skipped(&mut self, stream: &str) {
        if self.streams.is_empty() {
            *self = Self::new();
        }
        match stream.parse::<StreamId>() {
            Ok(id) => {
                if let Some(s) = self.get_mut(id) {
                    s.skipped += 1;
                }
            }
            Err(_) => self.skipped_unknown_stream += 1,
        }
    }

    /// Streams with any activity, in stream order.
    pub fn active(&self) -> impl Iterator<Item = (StreamId, &StreamPacing)> {
        StreamId::ALL
            .iter()
            .zip(self.streams.iter())
            .filter(|(_, s)| s.delivered > 0 || s.dropped() > 0)
            .map(|(&id, s)| (id, s))
    }

    /// Samples delivered over all streams.
    pub fn total_delivered(&self) -> u64 {
        self.streams.iter().map(|s| s.delivered).sum()
    }

    /// Samples dropped over all streams (out of order or skipped).
    pub fn total_dropped(&self) -> u64 {
        self.streams.iter().map(|s| s.dropped()).sum::<u64>() + self.skipped_unknown_stream
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_rates_and_lateness() {
        let mut p = PacingStats::new();
        for i in 0..=100i64 {
            // 1 kHz, each delivered 30 µs late.
            let due = HostTime(i * 1_000_000);
            p.record_delivery(
                StreamId::ImuRight,
                DeviceTime(5_000 + i * 1_000_000),
                due,
                HostTime(due.0 + 30_000),
                true,
            );
        }
        p.record_out_of_order(StreamId::ImuRight);
        p.record_skipped("imu-right");
        p.record_skipped("nonsense");
        let s = p.stream(StreamId::ImuRight).unwrap();
        assert_eq!((s.delivered, s.dropped()), (101, 2));
        assert!((s.rate_hz() - 1000.0).abs() < 1e-9, "{}", s.rate_hz());
        assert!((s.pacing_us().p99 - 30.0).abs() < 0.05);
        assert_eq!(p.total_dropped(), 3);
        assert_eq!(p.active().count(), 1);
    }

    #[test]
    fn virtual_clock_records_no_lateness() {
        let mut p = PacingStats::default();
        p.record_delivery(
            StreamId::Barometer,
            DeviceTime(0),
            HostTime(0),
            HostTime(9),
            false,
        );
        let s = p.stream(StreamId::Barometer).unwrap();
        assert_eq!((s.delivered, s.pacing.count(), s.rate_hz()), (1, 0, 0.0));
    }
}
