//! CPU time of the calling thread, for the "ingest costs ≤ 2 % of a core" budget. Linux
//! only (`/proc/thread-self/schedstat`); `None` elsewhere or if unreadable.

/// Nanoseconds the calling thread has run on a CPU, if the OS tells.
pub fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn cpu_time_grows_with_work() {
        let Some(a) = super::thread_cpu_ns() else {
            return; // not Linux: nothing to check
        };
        // Busy for 50 ms of wall time (the kernel updates the counter at scheduler ticks).
        let t = std::time::Instant::now();
        let mut x = 0u64;
        while t.elapsed() < std::time::Duration::from_millis(50) {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(1));
        }
        let b = super::thread_cpu_ns().unwrap();
        assert!(b > a);
    }
}
