//! Waiting for a sample's due time without burning a core: plain `thread::sleep` in
//! slices of at most [`MAX_SLICE`], so a stop request is seen promptly, and no spinning
//! (Linux's timer slack keeps wake-ups within ~0.1 ms of the deadline).

use std::time::Duration;

use crate::time::HostTime;

/// The longest single sleep; bounds how long a stop request can go unnoticed.
pub const MAX_SLICE: Duration = Duration::from_millis(20);

/// Sleeps until the host clock reaches `due` or `stop()` turns true. Returns the time
/// reached, or `None` if stopped first.
pub fn sleep_until_or_stop(due: HostTime, stop: impl Fn() -> bool) -> Option<HostTime> {
    loop {
        let now = HostTime::now();
        let left = due.since(now);
        if left <= 0 {
            return Some(now);
        }
        if stop() {
            return None;
        }
        let slice = Duration::from_nanos(left.unsigned_abs()).min(MAX_SLICE);
        std::thread::sleep(slice);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reaches_the_deadline_and_stops_early() {
        let due = HostTime(HostTime::now().0 + 3_000_000);
        let reached = sleep_until_or_stop(due, || false).unwrap();
        assert!(reached >= due);
        let far = HostTime(HostTime::now().0 + 60_000_000_000);
        assert_eq!(sleep_until_or_stop(far, || true), None);
    }
}
