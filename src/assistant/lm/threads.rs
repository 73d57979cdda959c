//! How many llama.cpp threads the language model uses, chosen from the machine's cores and
//! its load.
//!
//! llama.cpp's CPU threads wait actively between steps (OpenMP), so a thread more than there
//! are free cores does not merely share a core: every step waits for the slowest thread,
//! which is descheduled. On a loaded 2-core machine two threads generated 1.4 tokens/s and
//! one thread 18. The run itself always keeps other work busy (perception, text reading,
//! speech), so the model is given at most `cores − 1` threads, fewer when the load average
//! says the other cores are busy, never more than [`MAX_THREADS`], and at least one.
//! A fixed count can be forced (`--lm-threads`). The choice is made per request (reading
//! `/proc/loadavg` costs microseconds) and recorded in each decision.

/// Most threads ever used (a 135M model gains little past four).
pub const MAX_THREADS: u32 = 4;

/// How threads are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ThreadPolicy {
    /// From the cores and the load average, per request.
    #[default]
    Auto,
    /// Always this many (at least 1).
    Fixed(u32),
}

impl ThreadPolicy {
    /// From the command line: `None` or `0` is automatic.
    pub fn from_arg(n: Option<u32>) -> Self {
        match n {
            None | Some(0) => ThreadPolicy::Auto,
            Some(n) => ThreadPolicy::Fixed(n),
        }
    }

    /// The thread count now.
    pub fn threads(self) -> u32 {
        match self {
            ThreadPolicy::Fixed(n) => n.max(1),
            ThreadPolicy::Auto => auto_threads(cores(), load_average()),
        }
    }

    /// A short description for run notes (`auto (2 cores)`, `fixed 1`).
    pub fn describe(self) -> String {
        match self {
            ThreadPolicy::Fixed(n) => format!("fixed {}", n.max(1)),
            ThreadPolicy::Auto => format!(
                "auto from load ({} cores, at most {})",
                cores(),
                cores().saturating_sub(1).clamp(1, MAX_THREADS)
            ),
        }
    }
}

/// Threads for `cores` cores at 1-minute load average `load` (`None`: unknown, assume idle):
/// `min(cores − 1, ⌊cores − load⌋, MAX_THREADS)`, at least 1.
pub fn auto_threads(cores: u32, load: Option<f64>) -> u32 {
    let leave_one = cores.saturating_sub(1);
    let free = match load {
        Some(l) if l.is_finite() && l >= 0.0 => {
            let f = (f64::from(cores) - l).floor();
            if f <= 0.0 {
                0
            } else {
                f.min(f64::from(u32::MAX)) as u32
            }
        }
        _ => cores,
    };
    leave_one.min(free).clamp(1, MAX_THREADS)
}

/// Cores this process may use.
pub fn cores() -> u32 {
    std::thread::available_parallelism()
        .map(|n| u32::try_from(n.get()).unwrap_or(u32::MAX))
        .unwrap_or(1)
}

/// The 1-minute load average (Linux `/proc/loadavg`), if readable.
pub fn load_average() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/loadavg").ok()?;
    parse_loadavg(&s)
}

fn parse_loadavg(s: &str) -> Option<f64> {
    s.split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_cores_always_get_one_thread() {
        for load in [None, Some(0.0), Some(0.5), Some(1.9), Some(7.0)] {
            assert_eq!(auto_threads(2, load), 1, "{load:?}");
        }
        assert_eq!(auto_threads(1, Some(0.0)), 1);
    }

    #[test]
    fn idle_cores_are_used_up_to_the_cap_and_load_takes_them_away() {
        assert_eq!(auto_threads(8, Some(0.2)), 4);
        assert_eq!(auto_threads(4, Some(0.0)), 3);
        assert_eq!(auto_threads(4, Some(1.5)), 2);
        assert_eq!(auto_threads(4, Some(3.5)), 1);
        assert_eq!(auto_threads(8, Some(f64::NAN)), 4);
        assert_eq!(auto_threads(8, Some(-1.0)), 4);
    }

    #[test]
    fn fixed_counts_and_the_argument() {
        assert_eq!(ThreadPolicy::from_arg(None), ThreadPolicy::Auto);
        assert_eq!(ThreadPolicy::from_arg(Some(0)), ThreadPolicy::Auto);
        assert_eq!(ThreadPolicy::from_arg(Some(3)).threads(), 3);
        assert_eq!(ThreadPolicy::Fixed(0).threads(), 1);
        assert!(ThreadPolicy::Auto.threads() >= 1);
    }

    #[test]
    fn loadavg_lines_parse() {
        assert_eq!(parse_loadavg("2.48 1.04 0.40 3/412 10750\n"), Some(2.48));
        assert_eq!(parse_loadavg(""), None);
        assert_eq!(parse_loadavg("x"), None);
    }
}
