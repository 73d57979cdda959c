//! Normalisation statistics: per-channel mean and standard deviation over a training split
//! (Welford's online algorithm, NaN-robust), their JSON file, and their application.

use std::collections::BTreeMap;
use std::path::Path;

use crate::window::error::WindowError;
use crate::window::features::MAX_CHANNELS;
use crate::window::spec::GridStream;
use crate::window::tensor::SensorWindow;

/// The `format` field of a statistics file.
pub const NORM_FORMAT: &str = "vista-norm-stats/1";

/// A standard deviation at or below this is treated as 1 when applied (constant channel).
pub const MIN_STD: f64 = 1e-9;

/// Running mean and variance of one channel (Welford). Non-finite values are skipped.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Welford {
    /// Finite values seen.
    pub count: u64,
    /// Running mean.
    pub mean: f64,
    /// Sum of squared deviations from the mean.
    pub m2: f64,
    /// Non-finite values skipped.
    pub skipped: u64,
}

impl Welford {
    /// Adds one value (skipped, and counted, when not finite).
    pub fn add(&mut self, x: f64) {
        if !x.is_finite() {
            self.skipped += 1;
            return;
        }
        self.count += 1;
        let d = x - self.mean;
        self.mean += d / self.count as f64;
        self.m2 += d * (x - self.mean);
    }

    /// Population standard deviation (0 for fewer than two values).
    pub fn std(&self) -> f64 {
        if self.count < 2 {
            0.0
        } else {
            (self.m2 / self.count as f64).sqrt()
        }
    }
}

/// The statistics of one stream's channels.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StreamStats {
    /// Channel names, in tensor order.
    pub channels: Vec<String>,
    /// Per-channel mean.
    pub mean: Vec<f64>,
    /// Per-channel population standard deviation.
    pub std: Vec<f64>,
    /// Per-channel number of values used.
    pub count: Vec<u64>,
}

/// A `norm_stats.json`: what a model bundle ships to normalise its inputs.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NormStats {
    /// Always [`NORM_FORMAT`].
    pub format: String,
    /// Bin width of the windows the statistics were computed on, ns.
    pub bin_ns: i64,
    /// Windows the statistics were computed from.
    pub windows: u64,
    /// Whether IMU, magnetometer and barometer were rectified with the recordings'
    /// calibration (windows must be built the same way); `None` when unknown.
    #[serde(default)]
    pub rectified: Option<bool>,
    /// Per grid stream (by [`GridStream::name`]).
    pub streams: BTreeMap<String, StreamStats>,
}

impl NormStats {
    /// Reads and checks a statistics file.
    pub fn load(path: &Path) -> Result<Self, WindowError> {
        let text = std::fs::read_to_string(path).map_err(|e| WindowError::Io {
            path: path.to_path_buf(),
            source: e,
        })?;
        let stats: NormStats = serde_json::from_str(&text).map_err(|e| WindowError::NormFile {
            path: path.to_path_buf(),
            line: e.line(),
            message: e.to_string(),
        })?;
        stats.table().map_err(|message| WindowError::NormFile {
            path: path.to_path_buf(),
            line: 0,
            message,
        })?;
        Ok(stats)
    }

    /// The per-stream mean and inverse standard deviation, checked against the channel
    /// lists of this build.
    pub fn table(&self) -> Result<NormTable, String> {
        if self.format != NORM_FORMAT {
            return Err(format!(
                "format {:?}, expected {NORM_FORMAT:?}",
                self.format
            ));
        }
        let mut t = NormTable::identity();
        for s in GridStream::ALL {
            let st = self
                .streams
                .get(s.name())
                .ok_or_else(|| format!("no statistics for stream {s}"))?;
            let names = s.channels();
            if st.channels.len() != names.len()
                || st.channels.iter().zip(names).any(|(a, b)| a != b)
                || st.mean.len() != names.len()
                || st.std.len() != names.len()
            {
                return Err(format!(
                    "stream {s}: channels {:?} do not match {:?} (with one mean and std each)",
                    st.channels, names
                ));
            }
            for (c, (&m, &sd)) in st.mean.iter().zip(&st.std).enumerate() {
                if !m.is_finite() || !sd.is_finite() || sd < 0.0 {
                    return Err(format!(
                        "stream {s} channel {}: mean {m}, std {sd}",
                        names[c]
                    ));
                }
                t.set(s, c, m, sd);
            }
        }
        Ok(t)
    }
}

/// Mean and inverse standard deviation per stream and channel, ready to apply.
#[derive(Clone, Debug, PartialEq)]
pub struct NormTable {
    mean: [[f64; MAX_CHANNELS]; 5],
    inv_std: [[f64; MAX_CHANNELS]; 5],
}

impl NormTable {
    /// No normalisation (mean 0, std 1).
    pub fn identity() -> Self {
        Self {
            mean: [[0.0; MAX_CHANNELS]; 5],
            inv_std: [[1.0; MAX_CHANNELS]; 5],
        }
    }

    fn set(&mut self, s: GridStream, ch: usize, mean: f64, std: f64) {
        if let (Some(m), Some(i)) = (
            self.mean.get_mut(s.index()).and_then(|r| r.get_mut(ch)),
            self.inv_std.get_mut(s.index()).and_then(|r| r.get_mut(ch)),
        ) {
            *m = mean;
            *i = if std > MIN_STD { 1.0 / std } else { 1.0 };
        }
    }

    /// `(x − mean) · (1 / std)` for channel `ch` of `s`.
    pub fn apply(&self, s: GridStream, ch: usize, x: f64) -> f64 {
        let m = self
            .mean
            .get(s.index())
            .and_then(|r| r.get(ch))
            .copied()
            .unwrap_or(0.0);
        let i = self
            .inv_std
            .get(s.index())
            .and_then(|r| r.get(ch))
            .copied()
            .unwrap_or(1.0);
        (x - m) * i
    }
}

/// Accumulates statistics over the valid bins of many (un-normalised) windows.
#[derive(Clone, Debug)]
pub struct StatsAccumulator {
    bin_ns: i64,
    windows: u64,
    acc: [[Welford; MAX_CHANNELS]; 5],
}

impl StatsAccumulator {
    /// An empty accumulator for windows of bin width `bin_ns`.
    pub fn new(bin_ns: i64) -> Self {
        Self {
            bin_ns,
            windows: 0,
            acc: [[Welford::default(); MAX_CHANNELS]; 5],
        }
    }

    /// Adds every valid bin of `w`'s streams. Optional channels not observed in a valid bin
    /// are not counted (the raw window holds them as 0 and says so in a companion channel;
    /// `w.observed` marks them).
    pub fn add_window(&mut self, w: &SensorWindow) {
        self.windows += 1;
        for t in &w.streams {
            let Some(row) = self.acc.get_mut(t.stream.index()) else {
                continue;
            };
            let c = t.stream.channel_count();
            for bin in 0..t.mask.len() {
                if !t.mask.get(bin).copied().unwrap_or(false) {
                    continue;
                }
                for (ch, wf) in row.iter_mut().enumerate().take(c) {
                    if t.observed(bin, ch) {
                        if let Some(v) = t.get(bin, ch) {
                            wf.add(f64::from(v));
                        }
                    }
                }
            }
        }
    }

    /// The statistics file contents.
    pub fn finish(&self) -> NormStats {
        let mut streams = BTreeMap::new();
        for s in GridStream::ALL {
            let names = s.channels();
            let row = self.acc.get(s.index());
            let w = |c: usize| row.and_then(|r| r.get(c)).copied().unwrap_or_default();
            streams.insert(
                s.name().to_string(),
                StreamStats {
                    channels: names.iter().map(|n| n.to_string()).collect(),
                    mean: (0..names.len()).map(|c| w(c).mean).collect(),
                    std: (0..names.len()).map(|c| w(c).std()).collect(),
                    count: (0..names.len()).map(|c| w(c).count).collect(),
                },
            );
        }
        NormStats {
            format: NORM_FORMAT.to_string(),
            bin_ns: self.bin_ns,
            windows: self.windows,
            rectified: None,
            streams,
        }
    }
}
