//! Normalisation statistics over a training split (`vista stats`): every window of every
//! session through a [`StatsAccumulator`], and the `norm_stats.json` a model bundle ships.

use std::path::{Path, PathBuf};

use crate::window::config::WindowConfig;
use crate::window::error::WindowError;
use crate::window::norm::{NormStats, StatsAccumulator};
use crate::window::replay_windows::for_each_window;

/// How the statistics are computed.
#[derive(Clone, Debug, PartialEq)]
pub struct SplitStatsOptions {
    /// Session folders or `.vrs` files of the training split.
    pub sessions: Vec<PathBuf>,
    /// Window length, seconds (64 bins).
    pub window_s: f64,
    /// Rectify IMU, magnetometer and barometer with each recording's calibration.
    pub rectify: bool,
}

/// What can go wrong computing or writing the statistics.
#[derive(Debug, thiserror::Error)]
pub enum SplitStatsError {
    /// The window length is not usable.
    #[error(transparent)]
    Config(WindowError),
    /// A session could not be read.
    #[error("reading {path}", path = path.display())]
    Session {
        /// The session folder or recording.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: WindowError,
    },
    /// The statistics could not be serialised.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// The statistics file could not be written.
    #[error("writing {path}", path = path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}

/// The statistics over every window of `options.sessions` (per session, unreadable records
/// and skipped NaN values go to the log).
pub fn split_stats(options: &SplitStatsOptions) -> Result<NormStats, SplitStatsError> {
    let config = WindowConfig::with_length_ns((options.window_s * 1e9).round() as i64)
        .map_err(SplitStatsError::Config)?;
    let mut acc = StatsAccumulator::new(config.bin_ns);
    for s in &options.sessions {
        let read = for_each_window(s, config, options.rectify, |w| acc.add_window(w)).map_err(
            |source| SplitStatsError::Session {
                path: s.clone(),
                source,
            },
        )?;
        for msg in &read.skipped {
            log::warn!("{}: {msg}", s.display());
        }
        log::info!(
            "{}: {} samples, {} NaN values skipped",
            s.display(),
            read.samples,
            read.counters.nan_values
        );
    }
    let mut stats = acc.finish();
    stats.rectified = Some(options.rectify);
    Ok(stats)
}

/// Writes `stats` to `path` as pretty JSON with a final newline.
pub fn write_stats(stats: &NormStats, path: &Path) -> Result<(), SplitStatsError> {
    let text = serde_json::to_string_pretty(stats)?;
    std::fs::write(path, text + "\n").map_err(|source| SplitStatsError::Write {
        path: path.to_path_buf(),
        source,
    })
}
