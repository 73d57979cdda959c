//! The session clock of a live run across device-clock restarts (pure compute).
//!
//! A live run can outlive a connection: the glasses reboot, the bridge restarts, the link
//! drops. A new connection (a new hello) may bring a device clock that starts again from
//! zero, or from anywhere. [`SessionTimeline`] maps every connection's device clock onto one
//! *session* clock that only moves forward with real time: `session = device + shift_ns`.
//! The first connection keeps its device time (shift 0), and so does a connection whose
//! device clock simply continued (a link drop and reconnect). A sample is *implausible* when
//! its session time, mapped to host time through the clock-offset estimate (or the last
//! one known), lies more than the plausibility window from its arrival, or when it lies more
//! than [`BACK_TOLERANCE_NS`] behind the newest session time released. If the first sample
//! of a new connection is implausible, its device clock restarted: the shift is re-chosen so
//! that it lands at the session's "now" (never before what was released), and that is
//! counted.
//!
//! Within a connection, a lone implausible sample (a corrupt timestamp, +1e18 ns) is left
//! out and counted; a run of [`RESTART_CONFIRM`] implausible samples consistent with each
//! other is a device-clock restart (or jump) in the middle of a connection: the shift is
//! re-chosen the same way, the held samples released under it, and the restart counted. A
//! jump is never taken as the new "now".

use std::collections::VecDeque;

/// Consecutive implausible samples, consistent with each other, that make a restart.
pub const RESTART_CONFIRM: usize = 16;

/// A sample this far behind the newest session time (of any stream) is implausible: further
/// than any stream lags another on a working link.
pub const BACK_TOLERANCE_NS: i64 = 1_000_000_000;

/// Default plausibility window: 10 s.
pub const DEFAULT_MAX_JUMP_NS: i64 = 10_000_000_000;

/// What the timeline counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimelineCounts {
    /// New connections whose device clock did not continue the session's (restarted):
    /// shifted to continue it.
    pub rebased_connections: u64,
    /// Device-clock restarts (or jumps) detected within a connection.
    pub clock_restarts: u64,
    /// Samples left out as implausible (a lone timestamp outside the window).
    pub implausible: u64,
}

/// One held sample: device capture, host arrival, and the caller's item.
#[derive(Debug)]
struct Held<T> {
    capture_ns: i64,
    arrival_ns: i64,
    item: T,
}

/// Maps each connection's device clock onto one forward-moving session clock.
#[derive(Debug)]
pub struct SessionTimeline<T> {
    max_jump_ns: i64,
    /// `session = device + shift_ns` for the current connection.
    shift_ns: i64,
    /// The next sample starts a new connection (chooses the shift).
    new_connection: bool,
    /// The newest session time released.
    newest_ns: Option<i64>,
    /// The last offset estimate (host − session) seen with a plausible sample.
    last_offset_ns: Option<i64>,
    held: VecDeque<Held<T>>,
    counts: TimelineCounts,
}

impl<T> SessionTimeline<T> {
    /// A timeline with plausibility window `max_jump_ns` (clamped to ≥ 1 ms).
    pub fn new(max_jump_ns: i64) -> Self {
        Self {
            max_jump_ns: max_jump_ns.max(1_000_000),
            shift_ns: 0,
            new_connection: true,
            newest_ns: None,
            last_offset_ns: None,
            held: VecDeque::with_capacity(RESTART_CONFIRM),
            counts: TimelineCounts::default(),
        }
    }

    /// A new connection (hello) begins: its first sample chooses the shift. Samples held
    /// from the last connection are left out (counted).
    pub fn new_connection(&mut self) {
        self.drop_held();
        self.new_connection = true;
    }

    /// What was counted so far.
    pub fn counts(&self) -> TimelineCounts {
        self.counts
    }

    /// The current shift, session − device ns.
    pub fn shift_ns(&self) -> i64 {
        self.shift_ns
    }

    /// The session time of device time `device_ns` on this connection, if it is plausible
    /// at host time `arrival_ns` under `offset_ns` (for heartbeats: never held).
    pub fn plausible(
        &self,
        device_ns: i64,
        arrival_ns: i64,
        offset_ns: Option<i64>,
    ) -> Option<i64> {
        if self.new_connection {
            return None;
        }
        let session = device_ns.saturating_add(self.shift_ns);
        (!self.implausible(session, arrival_ns, offset_ns.or(self.last_offset_ns)))
            .then_some(session)
    }

    /// Admits one sample captured at device time `capture_ns`, arrived at host time
    /// `arrival_ns`, under the current offset estimate `offset_ns` (host − session; `None`
    /// right after a reset: the last one known is used). Released samples go to
    /// `emit(session_ns, arrival_ns, item)` in order. Returns true when the shift changed
    /// (the caller resets its offset estimate).
    pub fn admit(
        &mut self,
        capture_ns: i64,
        arrival_ns: i64,
        offset_ns: Option<i64>,
        item: T,
        mut emit: impl FnMut(i64, i64, T),
    ) -> bool {
        let offset = offset_ns.or(self.last_offset_ns);
        let mut rebased = false;
        if std::mem::replace(&mut self.new_connection, false) {
            let session = capture_ns.saturating_add(self.shift_ns);
            if self.implausible(session, arrival_ns, offset) {
                // The device clock restarted with the connection: continue the session.
                self.counts.rebased_connections += 1;
                self.rebase(capture_ns, arrival_ns);
                rebased = true;
            }
        }
        if let Some(o) = offset_ns {
            self.last_offset_ns = Some(o);
        }
        let session = capture_ns.saturating_add(self.shift_ns);
        if rebased || !self.implausible(session, arrival_ns, offset) {
            // Whatever was held was a lone jump, not a restart.
            self.drop_held();
            self.release(session, arrival_ns, item, &mut emit);
            return rebased;
        }
        // Implausible: held as a possible restart, if consistent with what is held.
        let d = arrival_ns.saturating_sub(capture_ns);
        if self.held.front().is_some_and(|h| {
            let d0 = h.arrival_ns.saturating_sub(h.capture_ns);
            d0.saturating_sub(d).saturating_abs() > self.max_jump_ns
        }) {
            self.drop_held();
        }
        self.held.push_back(Held {
            capture_ns,
            arrival_ns,
            item,
        });
        if self.held.len() < RESTART_CONFIRM {
            return false;
        }
        // A restart (or a jump of the whole clock): place it at "now" and release.
        self.counts.clock_restarts += 1;
        if let Some(first) = self.held.front() {
            let (c, a) = (first.capture_ns, first.arrival_ns);
            self.rebase(c, a);
        }
        let held = std::mem::take(&mut self.held);
        for h in held {
            let s = h.capture_ns.saturating_add(self.shift_ns);
            self.release(s, h.arrival_ns, h.item, &mut emit);
        }
        true
    }

    /// True if session time `session_ns`, arrived at `arrival_ns`, is too far from its
    /// arrival under `offset_ns`, or too far behind what was released.
    fn implausible(&self, session_ns: i64, arrival_ns: i64, offset_ns: Option<i64>) -> bool {
        let far = offset_ns.is_some_and(|o| {
            let lag = arrival_ns.saturating_sub(session_ns.saturating_add(o));
            lag.saturating_abs() > self.max_jump_ns
        });
        let behind = self
            .newest_ns
            .is_some_and(|n| session_ns < n.saturating_sub(BACK_TOLERANCE_NS));
        far || behind
    }

    /// Chooses the shift so that device time `capture_ns`, arrived at `arrival_ns`, lands
    /// at the session's "now" (by the last offset), never before what was released.
    fn rebase(&mut self, capture_ns: i64, arrival_ns: i64) {
        let Some(newest) = self.newest_ns else {
            self.shift_ns = 0;
            return;
        };
        let now = self
            .last_offset_ns
            .map_or(newest, |o| arrival_ns.saturating_sub(o));
        let target = now.max(newest.saturating_add(1));
        self.shift_ns = target.saturating_sub(capture_ns);
    }

    fn release(
        &mut self,
        session_ns: i64,
        arrival_ns: i64,
        item: T,
        emit: &mut impl FnMut(i64, i64, T),
    ) {
        self.newest_ns = Some(self.newest_ns.map_or(session_ns, |n| n.max(session_ns)));
        emit(session_ns, arrival_ns, item);
    }

    fn drop_held(&mut self) {
        self.counts.implausible += self.held.len() as u64;
        self.held.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = 1_000_000_000;

    /// Feeds `(capture, arrival)` pairs with offset = host − session of the released ones
    /// (a perfect estimator: the minimum seen), returns the released session times.
    fn feed(
        t: &mut SessionTimeline<usize>,
        pairs: &[(i64, i64)],
        offset: &mut Option<i64>,
    ) -> Vec<i64> {
        let mut out = Vec::new();
        for (i, &(c, a)) in pairs.iter().enumerate() {
            let mut got = Vec::new();
            t.admit(c, a, *offset, i, |s, a, _| got.push((s, a)));
            for (s, a) in got {
                let d = a - s;
                *offset = Some(offset.map_or(d, |o: i64| o.min(d)));
                out.push(s);
            }
        }
        out
    }

    #[test]
    fn a_second_connection_continues_the_session_clock() {
        let mut t = SessionTimeline::new(10 * S);
        let mut off = None;
        // First pass: device 0..5 s, host 100..105 s.
        let first: Vec<_> = (0..50)
            .map(|i| (i * S / 10, 100 * S + i * S / 10))
            .collect();
        let a = feed(&mut t, &first, &mut off);
        assert_eq!(a, first.iter().map(|p| p.0).collect::<Vec<_>>());
        // The device restarts: the same device times again, 2 s of host time later.
        t.new_connection();
        off = None; // the caller resets its estimator on a hello
        let second: Vec<_> = (0..50)
            .map(|i| (i * S / 10, 107 * S + i * S / 10))
            .collect();
        let b = feed(&mut t, &second, &mut off);
        assert_eq!(b.len(), 50, "nothing is lost");
        assert!(b.windows(2).all(|w| w[1] > w[0]));
        assert!(
            b[0] > *a.last().unwrap(),
            "{} after {}",
            b[0],
            a.last().unwrap()
        );
        // Placed at the session's now: 7 s after the first pass began.
        assert!((b[0] - 7 * S).abs() < S / 100, "{}", b[0]);
        assert_eq!(t.counts().rebased_connections, 1);
        assert_eq!(t.counts().implausible, 0);
    }

    #[test]
    fn a_reconnect_of_a_continuing_clock_keeps_its_capture_times() {
        let mut t = SessionTimeline::new(10 * S);
        let mut off = None;
        let first: Vec<_> = (0..50)
            .map(|i| (i * S / 10, 100 * S + i * S / 10))
            .collect();
        feed(&mut t, &first, &mut off);
        // The link drops for 0.5 s; the device clock goes on.
        t.new_connection();
        off = None;
        let second: Vec<_> = (55..100)
            .map(|i| (i * S / 10, 100 * S + i * S / 10))
            .collect();
        let b = feed(&mut t, &second, &mut off);
        assert_eq!(b, second.iter().map(|p| p.0).collect::<Vec<_>>());
        assert_eq!(t.counts(), TimelineCounts::default());
    }

    #[test]
    fn a_short_pass_replayed_soon_after_is_still_a_restart() {
        // 3 s passes 1 s apart: within the window, but 3 s behind the session.
        let mut t = SessionTimeline::new(10 * S);
        let mut off = None;
        let pass = |h0: i64| -> Vec<(i64, i64)> {
            (0..30).map(|i| (i * S / 10, h0 + i * S / 10)).collect()
        };
        let a = feed(&mut t, &pass(100 * S), &mut off);
        t.new_connection();
        off = None;
        let b = feed(&mut t, &pass(104 * S), &mut off);
        assert_eq!(b.len(), 30);
        assert!(b[0] > *a.last().unwrap());
        assert_eq!(t.counts().rebased_connections, 1);
    }

    #[test]
    fn a_lone_jump_is_left_out_and_never_becomes_now() {
        let mut t = SessionTimeline::new(10 * S);
        let mut off = None;
        let mut pairs: Vec<_> = (0..100)
            .map(|i| (i * S / 100, 50 * S + i * S / 100))
            .collect();
        if let Some(p) = pairs.get_mut(40) {
            p.0 = 1_000_000_000_000_000_000;
        }
        let out = feed(&mut t, &pairs, &mut off);
        assert_eq!(out.len(), 99);
        assert!(out.iter().all(|&s| s < S), "{out:?}");
        assert_eq!(t.counts().implausible, 1);
        assert_eq!(t.counts().clock_restarts, 0);
    }

    #[test]
    fn a_restart_within_a_connection_is_detected_and_placed_at_now() {
        let mut t = SessionTimeline::new(10 * S);
        let mut off = None;
        // 30 s of device time at 100 Hz, then the clock starts again from 0.
        let mut pairs: Vec<_> = (0..3000)
            .map(|i| (i * S / 100, 10 * S + i * S / 100))
            .collect();
        pairs.extend((0..500).map(|i| (i * S / 100, 40 * S + i * S / 100)));
        let out = feed(&mut t, &pairs, &mut off);
        assert_eq!(out.len(), 3500, "the held samples are released");
        assert!(out.windows(2).all(|w| w[1] > w[0]));
        assert!((out[3000] - 30 * S).abs() < S / 50, "{}", out[3000]);
        assert_eq!(t.counts().clock_restarts, 1);
    }
}
