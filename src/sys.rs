//! The operating system's calls through `libc`, in one place: every `unsafe` the crate
//! needs for the OS is here, each behind a safe function (clocks, a thread's CPU clock, the
//! process's usage, an absolute-deadline sleep, a thread's scheduling priority). FFI to
//! other libraries stays with them: llama.cpp in `infer::llm`, eSpeak NG in
//! `speech::espeak_ffi`, alsa-lib in `audio`.

/// A thread's CPU clock, readable from any thread of the process while it lives.
pub type ClockId = libc::clockid_t;

/// The CPU time of `clock` in ns (`None` when the clock cannot be read).
// `time_t` and `c_long` are narrower than i64 on 32-bit targets.
#[allow(clippy::useless_conversion)]
pub fn clock_ns(clock: ClockId) -> Option<i64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call;
    // clock_gettime reports an invalid clock id through its return value.
    let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
    (rc == 0).then(|| {
        i64::from(ts.tv_sec)
            .saturating_mul(1_000_000_000)
            .saturating_add(i64::from(ts.tv_nsec))
    })
}

/// The calling thread's CPU time in ns.
pub fn this_thread_ns() -> i64 {
    clock_ns(libc::CLOCK_THREAD_CPUTIME_ID).unwrap_or(0)
}

/// The calling thread's CPU clock id, for reading it from other threads.
#[cfg(target_os = "linux")]
pub fn this_thread_clock() -> Option<ClockId> {
    let mut id: ClockId = 0;
    // SAFETY: pthread_self() is the calling, live thread; `id` is a valid out pointer.
    let rc = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut id) };
    (rc == 0).then_some(id)
}

/// Not available here: live threads are counted when they end.
#[cfg(not(target_os = "linux"))]
pub fn this_thread_clock() -> Option<ClockId> {
    None
}

/// The process's (user, system) CPU time in ns and peak resident set in bytes.
// `time_t` and `suseconds_t` are narrower than i64 on 32-bit targets.
#[allow(clippy::useless_conversion)]
pub fn process_usage() -> Option<(i64, i64, u64)> {
    // SAFETY: rusage is plain old data; all-zero is a valid value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid, writable rusage for the duration of the call.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    if rc != 0 {
        return None;
    }
    let ns = |t: libc::timeval| {
        i64::from(t.tv_sec)
            .saturating_mul(1_000_000_000)
            .saturating_add(i64::from(t.tv_usec).saturating_mul(1_000))
    };
    // Linux reports ru_maxrss in KiB, macOS in bytes.
    let unit: u64 = if cfg!(target_os = "macos") { 1 } else { 1024 };
    let rss = u64::try_from(ru.ru_maxrss)
        .unwrap_or(0)
        .saturating_mul(unit);
    Some((ns(ru.ru_utime), ns(ru.ru_stime), rss))
}

/// `CLOCK_MONOTONIC` in ns (`None` if it cannot be read).
#[cfg(target_os = "linux")]
pub fn monotonic_ns() -> Option<i64> {
    clock_ns(libc::CLOCK_MONOTONIC)
}

/// Sleeps until `CLOCK_MONOTONIC` reaches `deadline_ns` (one absolute-deadline
/// `clock_nanosleep`). Returns false when the call failed (the caller sleeps another way);
/// an interruption (EINTR) returns early with true, which a caller's loop re-checks.
#[cfg(target_os = "linux")]
pub fn sleep_until_monotonic_ns(deadline_ns: i64) -> bool {
    let ts = libc::timespec {
        tv_sec: deadline_ns.div_euclid(1_000_000_000) as libc::time_t,
        tv_nsec: deadline_ns.rem_euclid(1_000_000_000) as libc::c_long,
    };
    // SAFETY: `ts` is a valid timespec, the remainder pointer may be null with
    // TIMER_ABSTIME, and the call touches no other memory.
    let rc = unsafe {
        libc::clock_nanosleep(
            libc::CLOCK_MONOTONIC,
            libc::TIMER_ABSTIME,
            &ts,
            std::ptr::null_mut(),
        )
    };
    rc == 0 || rc == libc::EINTR
}

/// Lowers the calling thread's scheduling priority by `niceness` (Linux: nice values are
/// per thread; at most 19). Returns whether it was lowered.
#[cfg(target_os = "linux")]
pub fn lower_this_thread_priority(niceness: i32) -> bool {
    // SAFETY: gettid and getpriority/setpriority on this thread's own id only read and
    // change this thread's scheduling priority; errno is this thread's own.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        *libc::__errno_location() = 0;
        let now = libc::getpriority(libc::PRIO_PROCESS, tid);
        *libc::__errno_location() == 0
            && libc::setpriority(libc::PRIO_PROCESS, tid, (now + niceness).min(19)) == 0
    }
}

/// Not available here: the priority stays.
#[cfg(not(target_os = "linux"))]
pub fn lower_this_thread_priority(_niceness: i32) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_thread_has_cpu_time_and_the_process_has_usage() {
        let before = this_thread_ns();
        let mut x = 0u64;
        for i in 0..5_000_000u64 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
        assert!(this_thread_ns() > before, "{x}");
        let (user_ns, _sys_ns, rss) = process_usage().unwrap();
        assert!(user_ns > 0);
        assert!(rss > 0);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn an_absolute_sleep_never_wakes_before_its_deadline() {
        let start = monotonic_ns().unwrap();
        let deadline = start + 2_000_000;
        assert!(sleep_until_monotonic_ns(deadline));
        // EINTR aside (no signal is sent here), it returns at or after the deadline.
        assert!(monotonic_ns().unwrap() >= deadline);
    }
}
