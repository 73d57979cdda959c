//! Window configuration: the grid's bin width (the window length is `BINS × bin_ns`).

use crate::window::error::WindowError;
use crate::window::spec::BINS;

/// Default bin width: 100 ms, so the default window is 64 × 100 ms = 6.4 s. One bin is one
/// period of the 10 Hz streams (eye gaze, hands, magnetometer, cameras), so each of their
/// samples usually has a bin of its own, and 6.4 s holds a few steps of walking — the
/// motion context a guidance answer needs — while staying inside the shortest VISTA clips
/// (~10 s).
pub const DEFAULT_BIN_NS: i64 = 100_000_000;

/// How windows are built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowConfig {
    /// Bin width, ns (> 0).
    pub bin_ns: i64,
}

impl Default for WindowConfig {
    fn default() -> Self {
        Self {
            bin_ns: DEFAULT_BIN_NS,
        }
    }
}

impl WindowConfig {
    /// A window of `length_ns` (rounded down to a multiple of [`BINS`] ns).
    pub fn with_length_ns(length_ns: i64) -> Result<Self, WindowError> {
        let bin_ns = length_ns / BINS as i64;
        if bin_ns <= 0 {
            return Err(WindowError::Config(format!(
                "window length {length_ns} ns is shorter than {BINS} ns"
            )));
        }
        Ok(Self { bin_ns })
    }

    /// Window length, ns.
    pub fn length_ns(&self) -> i64 {
        self.bin_ns.saturating_mul(BINS as i64)
    }

    /// The absolute bin holding device time `t_ns`.
    pub fn bin_of(&self, t_ns: i64) -> i64 {
        t_ns.div_euclid(self.bin_ns.max(1))
    }
}
