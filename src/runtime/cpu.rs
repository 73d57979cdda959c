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
        let mut x = 0u64;
        for i in 0..5_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        let b = super::thread_cpu_ns().unwrap();
        assert!(b > a);
    }
}
