//! The session clock of a live run: device time mapped to host time through the live
//! clock-offset estimate, so that "captured at device time t" has a host time.
//!
//! [`OffsetCell`] is the estimate shared between the live source (which updates it on every
//! arrival) and [`LiveClock`] (which reads it). `due(capture)` is `capture + offset`, never
//! later than now: a live sample has already arrived, so pacing never waits for it, and
//! `arrival − due` is the link delay beyond the fastest delivery (the measurable part of the
//! link latency, as in `device/PROTOCOL.md`). Before any estimate exists, `due` is now.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use crate::time::{sleep_until, Clock, DeviceTime, HostTime};

/// Marks "no estimate yet".
const UNKNOWN: i64 = i64::MIN;

/// The current host-minus-device offset estimate, ns, shared between threads.
#[derive(Clone, Debug)]
pub struct OffsetCell(Arc<AtomicI64>);

impl Default for OffsetCell {
    fn default() -> Self {
        Self(Arc::new(AtomicI64::new(UNKNOWN)))
    }
}

impl OffsetCell {
    /// A cell with no estimate.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores the latest estimate (`None` forgets it, e.g. on a new connection).
    pub fn set(&self, offset_ns: Option<i64>) {
        let v = match offset_ns {
            Some(UNKNOWN) => UNKNOWN + 1,
            Some(v) => v,
            None => UNKNOWN,
        };
        self.0.store(v, Ordering::Release);
    }

    /// The latest estimate, host ns − device ns.
    pub fn get(&self) -> Option<i64> {
        let v = self.0.load(Ordering::Acquire);
        (v != UNKNOWN).then_some(v)
    }
}

/// The clock of a live run: host time is the wall clock; device time maps to it through the
/// shared offset estimate.
#[derive(Clone, Debug)]
pub struct LiveClock {
    offset: OffsetCell,
}

impl LiveClock {
    /// A clock reading `offset`.
    pub fn new(offset: OffsetCell) -> Self {
        Self { offset }
    }

    /// Host time of device time `capture` under the current estimate (may be in the future).
    pub fn host_of(&self, capture: DeviceTime) -> Option<HostTime> {
        self.offset
            .get()
            .map(|o| HostTime(capture.ns().saturating_add(o)))
    }
}

impl Clock for LiveClock {
    fn due(&self, capture: DeviceTime) -> HostTime {
        let now = HostTime::now();
        self.host_of(capture).map_or(now, |t| t.min(now))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn due_follows_the_offset_and_never_runs_ahead_of_now() {
        let cell = OffsetCell::new();
        let clock = LiveClock::new(cell.clone());
        let before = HostTime::now();
        // No estimate: due is now.
        let d = clock.due(DeviceTime(5));
        assert!(d >= before && d <= HostTime::now());
        // An offset that puts the capture 1 s in the past: due = capture + offset exactly.
        let now = HostTime::now().ns();
        let capture = 1_000_000_000_000i64;
        cell.set(Some(now - 1_000_000_000 - capture));
        assert_eq!(
            clock.due(DeviceTime(capture)),
            HostTime(now - 1_000_000_000)
        );
        // An offset that would put it in the future: clamped to now.
        cell.set(Some(now + 5_000_000_000 - capture));
        let d = clock.due(DeviceTime(capture));
        assert!(d.ns() < now + 5_000_000_000);
        assert!(d <= HostTime::now());
        cell.set(None);
        assert_eq!(cell.get(), None);
        cell.set(Some(i64::MIN));
        assert_eq!(cell.get(), Some(i64::MIN + 1));
    }
}
