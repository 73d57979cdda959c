//! Waiting for a sample's due time without burning a core: no spinning, and on Linux one
//! absolute-deadline sleep (`clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)`, in
//! [`crate::sys`]) per wait, so the time between reading the clock and entering the kernel
//! never adds to the lateness, and a wait costs one system call and one wake-up. Waits are cut into slices
//! of at most [`MAX_SLICE`], so a stop request is seen promptly.

use std::time::Duration;

use super::HostTime;

/// The longest single sleep; bounds how long a stop request can go unnoticed.
pub const MAX_SLICE: Duration = Duration::from_millis(20);

/// Sleeps until the host clock reaches `due` or `stop()` turns true. Returns the time
/// reached (never before `due`), or `None` if stopped first.
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
        let slice_ns = MAX_SLICE.as_nanos() as i64;
        let until = if left > slice_ns {
            HostTime(now.0 + slice_ns)
        } else {
            due
        };
        sleep_until(until);
    }
}

/// Sleeps until about `until` (never returns before it on Linux; elsewhere a relative
/// sleep that the caller re-checks).
#[cfg(target_os = "linux")]
fn sleep_until(until: HostTime) {
    let Some(offset) = monotonic_offset_ns() else {
        return relative_sleep(until);
    };
    // An interruption returns early, which the caller's loop handles.
    if !crate::sys::sleep_until_monotonic_ns(until.0.saturating_add(offset)) {
        relative_sleep(until);
    }
}

#[cfg(not(target_os = "linux"))]
fn sleep_until(until: HostTime) {
    relative_sleep(until)
}

fn relative_sleep(until: HostTime) {
    let left = until.since(HostTime::now());
    if left > 0 {
        std::thread::sleep(Duration::from_nanos(left.unsigned_abs()));
    }
}

/// `CLOCK_MONOTONIC` minus [`HostTime`] in nanoseconds (std's `Instant` reads the same
/// clock, so this is a constant), rounded up: a deadline converted with it is never
/// earlier than the host time it stands for. `None` if the clock cannot be read.
#[cfg(target_os = "linux")]
fn monotonic_offset_ns() -> Option<i64> {
    static OFFSET: std::sync::OnceLock<Option<i64>> = std::sync::OnceLock::new();
    *OFFSET.get_or_init(|| {
        let host = HostTime::now();
        // Read after `host`: the monotonic clock at the moment `host` was read is at most this.
        let mono = crate::sys::monotonic_ns()?;
        Some(mono - host.0)
    })
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

    #[test]
    fn many_short_waits_are_never_early() {
        for i in 0..200 {
            let due = HostTime(HostTime::now().0 + 50_000 + i * 1_000);
            let reached = sleep_until_or_stop(due, || false).unwrap();
            assert!(reached >= due, "{i}: {reached:?} < {due:?}");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn one_absolute_sleep_reaches_the_deadline() {
        // Converted deadlines are never early, so one sleep is enough (no second slice).
        for _ in 0..50 {
            let due = HostTime(HostTime::now().0 + 200_000);
            sleep_until(due);
            assert!(HostTime::now() >= due);
        }
    }
}
