//! Time: the two clocks of vista.
//!
//! * [`DeviceTime`] is *meaning*: when the glasses captured a sample, in nanoseconds on the
//!   glasses' own monotonic clock (Aria's `DEVICE_TIME` domain, MPS `tracking_timestamp_us`).
//! * [`HostTime`] is *cost*: when this process did something, in nanoseconds on the host's
//!   monotonic clock, measured from a process-wide epoch.
//!
//! A [`Clock`] maps between them while a session runs: live input uses [`WallClock`],
//! real-time replay uses [`ReplayClock`] (rate-scaled), and as-fast-as-possible replay uses
//! [`VirtualClock`], whose time only moves when the replay tells it to, so nothing depends on
//! host timing and two runs are identical.

mod pace;

pub use pace::{sleep_until_or_stop, MAX_SLICE};

use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A capture time on the glasses' device clock, in nanoseconds.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(transparent)]
pub struct DeviceTime(pub i64);

impl DeviceTime {
    /// From nanoseconds.
    pub const fn from_ns(ns: i64) -> Self {
        Self(ns)
    }
    /// From microseconds (MPS `tracking_timestamp_us`), saturating.
    pub const fn from_us(us: i64) -> Self {
        Self(us.saturating_mul(1_000))
    }
    /// From seconds as f64 (VRS record headers), rounded to the nearest nanosecond.
    pub fn from_secs_f64(s: f64) -> Self {
        Self((s * 1e9).round() as i64)
    }
    /// Nanoseconds.
    pub const fn ns(self) -> i64 {
        self.0
    }
    /// Seconds as f64.
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// `self - earlier` in nanoseconds (saturating).
    pub const fn since(self, earlier: DeviceTime) -> i64 {
        self.0.saturating_sub(earlier.0)
    }
    /// Shift by a signed number of nanoseconds (saturating).
    pub const fn add_ns(self, ns: i64) -> Self {
        Self(self.0.saturating_add(ns))
    }
}

impl fmt::Display for DeviceTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6} s", self.secs_f64())
    }
}

/// A moment on the host's monotonic clock, in nanoseconds since the process epoch
/// (the first call to [`HostTime::now`] or [`host_epoch`]).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(transparent)]
pub struct HostTime(pub i64);

/// The process-wide origin of [`HostTime`].
pub fn host_epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

impl HostTime {
    /// Now, on the host's monotonic clock.
    pub fn now() -> Self {
        let epoch = host_epoch();
        Self(Instant::now().saturating_duration_since(epoch).as_nanos() as i64)
    }
    /// Nanoseconds since the process epoch.
    pub const fn ns(self) -> i64 {
        self.0
    }
    /// `self - earlier` in nanoseconds (saturating).
    pub const fn since(self, earlier: HostTime) -> i64 {
        self.0.saturating_sub(earlier.0)
    }
    /// Shift by a signed number of nanoseconds (saturating).
    pub const fn add_ns(self, ns: i64) -> Self {
        Self(self.0.saturating_add(ns))
    }
    /// This moment as an [`Instant`].
    pub fn instant(self) -> Instant {
        host_epoch() + Duration::from_nanos(self.0.max(0) as u64)
    }
}

/// Maps device time to host time while a session runs.
///
/// `due(t)` says when a sample captured at device time `t` should be delivered; `wait_until`
/// blocks (or, for the virtual clock, jumps) until then; `now` is the clock's idea of the
/// present on the host timeline. Implementations must be cheap: they run once per sample.
pub trait Clock: Send + Sync {
    /// The host time at which a sample captured at `capture` is due.
    fn due(&self, capture: DeviceTime) -> HostTime;
    /// The clock's present.
    fn now(&self) -> HostTime;
    /// Waits until `t` (returns at once if `t` has passed). Returns the time actually reached.
    fn wait_until(&self, t: HostTime) -> HostTime;
    /// True when the clock follows the host's real time (pacing errors are meaningful).
    fn is_real_time(&self) -> bool;
    /// How long `clock_ns` of this clock's time lasts on the host (the same, for every clock
    /// that follows the host; a clock that runs faster or slower says so). For timeouts
    /// that wait on the clock and on a channel at once.
    fn host_duration(&self, clock_ns: i64) -> std::time::Duration {
        std::time::Duration::from_nanos(clock_ns.max(0) as u64)
    }
}

/// Live input: device time is already happening; `due` is "now" (the sample arrived).
#[derive(Debug, Default)]
pub struct WallClock;

impl Clock for WallClock {
    fn due(&self, _capture: DeviceTime) -> HostTime {
        HostTime::now()
    }
    fn now(&self) -> HostTime {
        HostTime::now()
    }
    fn wait_until(&self, t: HostTime) -> HostTime {
        sleep_until(t)
    }
    fn is_real_time(&self) -> bool {
        true
    }
}

/// Real-time replay at `rate` × speed: device time `origin_device` maps to host time
/// `origin_host`, and every later capture is due `(capture − origin_device) / rate` after it.
#[derive(Debug, Clone)]
pub struct ReplayClock {
    origin_device: DeviceTime,
    origin_host: HostTime,
    rate: f64,
}

impl ReplayClock {
    /// A replay clock starting now. `rate` must be finite and > 0 (clamped to ≥ 1e-6).
    pub fn start(origin_device: DeviceTime, rate: f64) -> Self {
        let rate = if rate.is_finite() && rate > 1e-6 {
            rate
        } else {
            1.0
        };
        Self {
            origin_device,
            origin_host: HostTime::now(),
            rate,
        }
    }
    /// The replay speed factor.
    pub fn rate(&self) -> f64 {
        self.rate
    }
}

impl Clock for ReplayClock {
    fn due(&self, capture: DeviceTime) -> HostTime {
        let dt = capture.since(self.origin_device) as f64 / self.rate;
        HostTime(self.origin_host.0.saturating_add(dt.round() as i64))
    }
    fn now(&self) -> HostTime {
        HostTime::now()
    }
    fn wait_until(&self, t: HostTime) -> HostTime {
        sleep_until(t)
    }
    fn is_real_time(&self) -> bool {
        true
    }
}

/// As-fast-as-possible, deterministic replay: host time is a pure function of device time.
/// `wait_until` never sleeps; it just moves the clock forward (never backward).
#[derive(Debug)]
pub struct VirtualClock {
    origin_device: DeviceTime,
    now_ns: AtomicI64,
}

impl VirtualClock {
    /// A virtual clock whose host time 0 is device time `origin_device`.
    pub fn new(origin_device: DeviceTime) -> Self {
        Self {
            origin_device,
            now_ns: AtomicI64::new(0),
        }
    }
}

impl Clock for VirtualClock {
    fn due(&self, capture: DeviceTime) -> HostTime {
        HostTime(capture.since(self.origin_device))
    }
    fn now(&self) -> HostTime {
        HostTime(self.now_ns.load(Ordering::Acquire))
    }
    fn wait_until(&self, t: HostTime) -> HostTime {
        let prev = self.now_ns.fetch_max(t.0, Ordering::AcqRel);
        HostTime(prev.max(t.0))
    }
    fn is_real_time(&self) -> bool {
        false
    }
}

/// Sleeps until `t` on the host clock and returns the time reached. Never spins: at 1 kHz
/// a spin-wait would burn a whole core, while a plain sleep lands within the kernel's timer
/// slack (~50–100 µs on Linux).
pub fn sleep_until(t: HostTime) -> HostTime {
    loop {
        let now = HostTime::now();
        let left = t.since(now);
        if left <= 0 {
            return now;
        }
        std::thread::sleep(Duration::from_nanos(left as u64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_time_conversions() {
        assert_eq!(DeviceTime::from_us(12).ns(), 12_000);
        assert_eq!(DeviceTime::from_secs_f64(1.5).ns(), 1_500_000_000);
        assert_eq!(DeviceTime(5).since(DeviceTime(2)), 3);
        assert_eq!(DeviceTime(i64::MAX).add_ns(1).ns(), i64::MAX);
    }

    #[test]
    fn virtual_clock_is_pure_and_monotonic() {
        let c = VirtualClock::new(DeviceTime(1_000));
        assert_eq!(c.due(DeviceTime(1_500)), HostTime(500));
        assert_eq!(c.wait_until(HostTime(500)), HostTime(500));
        // Never goes backward.
        assert_eq!(c.wait_until(HostTime(100)), HostTime(500));
        assert_eq!(c.now(), HostTime(500));
    }

    #[test]
    fn replay_clock_scales_by_rate() {
        let c = ReplayClock::start(DeviceTime(0), 2.0);
        let a = c.due(DeviceTime(0));
        let b = c.due(DeviceTime(1_000_000_000));
        assert_eq!(b.since(a), 500_000_000);
    }

    #[test]
    fn sleep_until_reaches_deadline() {
        let t = HostTime(HostTime::now().0 + 2_000_000);
        let reached = sleep_until(t);
        assert!(reached >= t);
    }
}
