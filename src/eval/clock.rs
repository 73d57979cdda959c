//! The session clock: how the host times of `decisions.jsonl` and `transcript.jsonl`
//! (`decided_ns`, `first_audio_ns`, `end_ns`) map onto device time, where the ground truth
//! lives.
//!
//! The runtime's clocks (`crate::time`) map device time to host time as
//! `host = origin_host + (device − origin_device) / rate`. A deterministic `--asap` replay
//! uses the virtual clock (`origin_host = 0`, `rate = 1`, `origin_device` = the first
//! sample's capture time, which for a synthetic session is `ground_truth.t0_ns`); a
//! real-time replay uses the host time at start and the replay rate. [`SessionClock`]
//! inverts that mapping.

use serde::{Deserialize, Serialize};

/// The affine map between host (session clock) and device time of one run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SessionClock {
    /// Device time (ns) that maps to `origin_host_ns`.
    pub origin_device_ns: i64,
    /// Host time (ns) of `origin_device_ns`.
    pub origin_host_ns: i64,
    /// Replay speed (device seconds per host second); 1 for live input and `--asap`.
    pub rate: f64,
}

impl SessionClock {
    /// The virtual clock of an `--asap` replay whose first sample was captured at
    /// `origin_device_ns` (host time 0).
    pub fn virtual_from(origin_device_ns: i64) -> Self {
        Self {
            origin_device_ns,
            origin_host_ns: 0,
            rate: 1.0,
        }
    }

    fn rate(&self) -> f64 {
        if self.rate.is_finite() && self.rate > 1e-6 {
            self.rate
        } else {
            1.0
        }
    }

    /// Device time (ns) of host time `host_ns` (saturating).
    pub fn to_device_ns(&self, host_ns: i64) -> i64 {
        let dt = host_ns.saturating_sub(self.origin_host_ns) as f64 * self.rate();
        self.origin_device_ns.saturating_add(dt.round() as i64)
    }

    /// Host time (ns) at which device time `device_ns` is due (saturating).
    pub fn to_host_ns(&self, device_ns: i64) -> i64 {
        let dt = device_ns.saturating_sub(self.origin_device_ns) as f64 / self.rate();
        self.origin_host_ns.saturating_add(dt.round() as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{Clock, DeviceTime, VirtualClock};

    #[test]
    fn inverts_the_runtime_virtual_clock() {
        let origin = DeviceTime(1_000_000_000);
        let runtime = VirtualClock::new(origin);
        let ours = SessionClock::virtual_from(origin.ns());
        for d in [
            1_000_000_000i64,
            1_000_000_001,
            3_220_000_000,
            24_999_999_999,
        ] {
            let host = runtime.due(DeviceTime(d)).0;
            assert_eq!(ours.to_host_ns(d), host);
            assert_eq!(ours.to_device_ns(host), d);
        }
    }

    #[test]
    fn rate_scales_and_bad_rates_fall_back_to_one() {
        let c = SessionClock {
            origin_device_ns: 10,
            origin_host_ns: 100,
            rate: 2.0,
        };
        // One host second at 2× covers two device seconds.
        assert_eq!(c.to_device_ns(100 + 1_000_000_000), 10 + 2_000_000_000);
        let bad = SessionClock {
            rate: f64::NAN,
            ..c
        };
        assert_eq!(bad.to_device_ns(100 + 5), 15);
        let sat = SessionClock::virtual_from(i64::MAX);
        assert_eq!(sat.to_device_ns(i64::MAX), i64::MAX);
    }
}
