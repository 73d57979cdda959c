//! How big each stream's ring buffer is: the stream's nominal rate × a retention time,
//! with per-stream overrides.

use crate::sample::StreamId;

/// The largest capacity [`BufferConfig::capacity_for`] ever returns, about 150 MB of
/// samples (a guard against a mistyped override or retention allocating gigabytes).
pub const MAX_CAPACITY: usize = 1 << 20;

/// Sizing of the per-stream ring buffers.
///
/// A stream keeps `ceil(nominal_rate_hz × retention_s)` samples (at least 1), where the
/// retention is chosen by the stream's kind: motion and other low-rate sensors (IMU,
/// magnetometer, barometer, audio blocks), camera images, or streams derived by MPS.
/// `overrides` replaces the computed capacity of one stream.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BufferConfig {
    /// Seconds of IMU, magnetometer, barometer and audio kept (default 10).
    pub motion_retention_s: f64,
    /// Seconds of camera frames kept (default 2).
    pub image_retention_s: f64,
    /// Seconds of MPS-derived streams kept (eye gaze, hands, device pose; default 10).
    pub derived_retention_s: f64,
    /// Per-stream capacities (in samples) that replace the computed ones.
    pub overrides: Vec<(StreamId, usize)>,
}

impl Default for BufferConfig {
    fn default() -> Self {
        Self {
            motion_retention_s: 10.0,
            image_retention_s: 2.0,
            derived_retention_s: 10.0,
            overrides: Vec::new(),
        }
    }
}

impl BufferConfig {
    /// Sets (or replaces) the capacity of one stream, in samples.
    pub fn with_capacity(mut self, stream: StreamId, capacity: usize) -> Self {
        self.overrides.retain(|(s, _)| *s != stream);
        self.overrides.push((stream, capacity));
        self
    }

    /// The retention time in seconds that applies to `stream`.
    pub fn retention_s(&self, stream: StreamId) -> f64 {
        if stream.is_camera() {
            self.image_retention_s
        } else if stream.is_derived() {
            self.derived_retention_s
        } else {
            self.motion_retention_s
        }
    }

    /// The capacity of `stream`'s buffer in samples: an override if one is set, else
    /// `ceil(rate × retention)`; always in `1..=MAX_CAPACITY` (NaN, zero or negative
    /// retentions give 1, an infinite one `MAX_CAPACITY`).
    pub fn capacity_for(&self, stream: StreamId) -> usize {
        let raw = match self.overrides.iter().rev().find(|(s, _)| *s == stream) {
            Some(&(_, n)) => n,
            None => {
                let n = (stream.nominal_rate_hz() * self.retention_s(stream)).ceil();
                if n > 0.0 {
                    // NaN fails the test above; +inf saturates to MAX_CAPACITY.
                    n.min(MAX_CAPACITY as f64) as usize
                } else {
                    1
                }
            }
        };
        raw.clamp(1, MAX_CAPACITY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_rate_times_retention() {
        let c = BufferConfig::default();
        assert_eq!(c.capacity_for(StreamId::ImuRight), 10_000);
        assert_eq!(c.capacity_for(StreamId::ImuLeft), 8_000);
        assert_eq!(c.capacity_for(StreamId::CameraRgb), 20);
        assert_eq!(c.capacity_for(StreamId::Magnetometer), 100);
        // 48000/4096 Hz × 10 s = 117.19 → 118.
        assert_eq!(c.capacity_for(StreamId::Audio), 118);
        // A static map (rate 0) still gets one slot.
        assert_eq!(c.capacity_for(StreamId::SemidensePoints), 1);
    }

    #[test]
    fn overrides_and_bad_values_are_clamped() {
        let c = BufferConfig {
            motion_retention_s: f64::NAN,
            image_retention_s: -3.0,
            derived_retention_s: f64::INFINITY,
            overrides: Vec::new(),
        }
        .with_capacity(StreamId::Barometer, 0)
        .with_capacity(StreamId::Barometer, 7)
        .with_capacity(StreamId::ImuLeft, usize::MAX);
        assert_eq!(c.capacity_for(StreamId::Barometer), 7);
        assert_eq!(c.capacity_for(StreamId::ImuLeft), MAX_CAPACITY);
        assert_eq!(c.capacity_for(StreamId::ImuRight), 1);
        assert_eq!(c.capacity_for(StreamId::CameraRgb), 1);
        assert_eq!(c.capacity_for(StreamId::EyeGaze), MAX_CAPACITY);
    }
}
