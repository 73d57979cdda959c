//! The model's view of one moment of a session (`vista window`): every stream's 64-bin grid
//! and the 8 frames' times, as a table (per-channel means, masked bins) or as JSON with the
//! tensors themselves.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::window::builder::WindowBuilder;
use crate::window::config::WindowConfig;
use crate::window::error::WindowError;
use crate::window::imu_resample::{ImuWindowConfig, IMU_WINDOW_CHANNELS};
use crate::window::norm::NormStats;
use crate::window::replay_windows::{window_at_moment, MomentWindow};
use crate::window::tensor::StreamTensor;

/// Which moment, and how its window is built.
#[derive(Clone, Debug, PartialEq)]
pub struct MomentOptions {
    /// A session folder (`recording.vrs`, optional `mps/`) or a bare `.vrs` file.
    pub session: PathBuf,
    /// The window's end, seconds after the session's first sample.
    pub at_s: f64,
    /// Normalise with these statistics (`vista stats`).
    pub norm: Option<PathBuf>,
    /// Window length, seconds (64 bins).
    pub window_s: f64,
    /// Frame stride of the causal frame variant (frames).
    pub causal_stride: usize,
    /// Rectify IMU, magnetometer and barometer with the recording's calibration.
    pub rectify: bool,
}

/// What can go wrong building a moment's window.
#[derive(Debug, thiserror::Error)]
pub enum MomentError {
    /// The window length or the statistics file is not usable.
    #[error(transparent)]
    Window(#[from] WindowError),
    /// The statistics were computed with the other rectification choice.
    #[error(
        "{path}: statistics were computed {} rectification; run with{} --raw",
        if *rectified { "with" } else { "without" },
        if *rectified { "out" } else { "" },
        path = path.display()
    )]
    Rectification {
        /// The statistics file.
        path: PathBuf,
        /// Whether the statistics were computed on rectified sensors.
        rectified: bool,
    },
    /// The statistics could not be applied.
    #[error("applying {path}", path = path.display())]
    Norm {
        /// The statistics file.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: WindowError,
    },
    /// The session could not be read.
    #[error("window of {path}", path = path.display())]
    Session {
        /// The session folder or recording.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: WindowError,
    },
    /// The report could not be serialised.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// One moment's window, with the options it was built with.
#[derive(Clone, Debug)]
pub struct MomentReport {
    /// The session read.
    pub session: PathBuf,
    /// The moment, seconds after the session's first sample.
    pub at_s: f64,
    /// The window, its frames and what was read.
    pub moment: MomentWindow,
}

/// The window of `options.session` at `options.at_s` (unreadable records go to the log).
pub fn moment_report(options: &MomentOptions) -> Result<MomentReport, MomentError> {
    let config = WindowConfig::with_length_ns((options.window_s * 1e9).round() as i64)?;
    let mut builder = WindowBuilder::new(config)?;
    if let Some(p) = &options.norm {
        let stats = NormStats::load(p)?;
        if let Some(rectified) = stats.rectified {
            if rectified != options.rectify {
                return Err(MomentError::Rectification {
                    path: p.clone(),
                    rectified,
                });
            }
        }
        builder = builder
            .with_norm(&stats)
            .map_err(|source| MomentError::Norm {
                path: p.clone(),
                source,
            })?;
    }
    let moment = window_at_moment(
        &options.session,
        options.at_s,
        builder,
        options.causal_stride,
        options.rectify,
    )
    .map_err(|source| MomentError::Session {
        path: options.session.clone(),
        source,
    })?;
    for msg in &moment.read.skipped {
        log::warn!("{}: {msg}", options.session.display());
    }
    Ok(MomentReport {
        session: options.session.clone(),
        at_s: options.at_s,
        moment,
    })
}

#[derive(Debug, Serialize)]
struct JsonStream {
    shape: [usize; 2],
    channels: &'static [&'static str],
    values: Vec<f32>,
    mask: Vec<bool>,
}

#[derive(Debug, Serialize)]
struct JsonWindow<'a> {
    session: &'a Path,
    t_end_ns: i64,
    at_s: f64,
    bin_ns: i64,
    first_bin_start_ns: i64,
    normalised: bool,
    streams: BTreeMap<&'static str, JsonStream>,
    frames_ns: &'a [i64],
    causal_frames_ns: &'a [i64],
    imu_window: JsonImuWindow<'a>,
}

#[derive(Debug, Serialize)]
struct JsonImuWindow<'a> {
    shape: [usize; 2],
    rate_hz: f64,
    channels: &'static [&'static str],
    values: &'a [f32],
    mask: &'a [bool],
}

fn json_stream(t: &StreamTensor) -> JsonStream {
    JsonStream {
        shape: t.shape(),
        channels: t.stream.channels(),
        values: t.values.clone(),
        mask: t.mask.to_vec(),
    }
}

impl MomentReport {
    /// The tensors as one line of JSON.
    pub fn to_json(&self) -> Result<String, MomentError> {
        let m = &self.moment;
        let w = &m.window;
        let out = JsonWindow {
            session: &self.session,
            t_end_ns: w.t_end.ns(),
            at_s: self.at_s,
            bin_ns: w.bin_ns,
            first_bin_start_ns: w.first_bin_start_ns,
            normalised: w.normalised,
            streams: w
                .streams
                .iter()
                .map(|t| (t.stream.name(), json_stream(t)))
                .collect(),
            frames_ns: &m.frames_ns,
            causal_frames_ns: &m.causal_frames_ns,
            imu_window: JsonImuWindow {
                shape: [m.imu_window.mask.len(), IMU_WINDOW_CHANNELS.len()],
                rate_hz: ImuWindowConfig::default().rate_hz,
                channels: &IMU_WINDOW_CHANNELS,
                values: &m.imu_window.values,
                mask: &m.imu_window.mask,
            },
        };
        Ok(serde_json::to_string(&out)?)
    }

    /// The table: the window's span, per stream its shape, valid and masked bins and
    /// per-channel means, the IMU window, the frames' times and the read counters (one
    /// line each, each ending in a newline).
    pub fn to_table(&self) -> String {
        let m = &self.moment;
        let w = &m.window;
        let mut o = String::new();
        let origin = m.read.origin_ns;
        let rel = |t: i64| (t - origin) as f64 * 1e-9;
        let _ = writeln!(
            o,
            "{}: window [{:.3} s, {:.3} s] after the first sample, {} bins of {} ms{}",
            self.session.display(),
            rel(w.first_bin_start_ns),
            rel(w.t_end.ns()),
            w.streams.first().map_or(0, |t| t.shape()[0]),
            w.bin_ns as f64 * 1e-6,
            if w.normalised { ", normalised" } else { "" }
        );
        for t in &w.streams {
            let [bins, c] = t.shape();
            let masked: Vec<usize> = (0..bins)
                .filter(|&b| !t.mask.get(b).copied().unwrap_or(false))
                .collect();
            let _ = writeln!(
                o,
                "{:<11} [{bins}, {c}]  valid {}/{bins}  masked bins: {}",
                t.stream.name(),
                t.valid_bins(),
                ranges(&masked)
            );
            for (ch, name) in t.stream.channels().iter().enumerate() {
                let _ = match t.channel_mean(ch) {
                    Some(mean) => writeln!(o, "    {name:<20} mean {mean:+.6}"),
                    None => writeln!(o, "    {name:<20} (no observed value)"),
                };
            }
        }
        let fmt = |v: &[i64]| {
            v.iter()
                .map(|&t| format!("{:.3}", rel(t)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let iw = &m.imu_window;
        let _ = writeln!(
            o,
            "imu_window  [{}, {}] at {} Hz (right IMU, for the IMU encoder)  valid {}/{}",
            iw.mask.len(),
            IMU_WINDOW_CHANNELS.len(),
            ImuWindowConfig::default().rate_hz,
            iw.mask.iter().filter(|&&v| v).count(),
            iw.mask.len()
        );
        let _ = writeln!(o, "frames (uniform, s): [{}]", fmt(&m.frames_ns));
        let _ = writeln!(o, "frames (causal, s):  [{}]", fmt(&m.causal_frames_ns));
        let c = m.read.counters;
        let _ = writeln!(
            o,
            "{} samples read, {} aggregated, {} NaN values skipped, {} too late, {} unreadable",
            m.read.samples,
            c.added,
            c.nan_values,
            c.too_late,
            m.read.skipped.len()
        );
        o
    }
}

/// "0-9, 12, 20-63" from sorted bin numbers.
fn ranges(nums: &[usize]) -> String {
    let Some(&first) = nums.first() else {
        return "none".to_string();
    };
    let mut out = Vec::new();
    let mut start = first;
    let mut prev = start;
    for &n in nums.iter().skip(1) {
        if n != prev + 1 {
            out.push(span(start, prev));
            start = n;
        }
        prev = n;
    }
    out.push(span(start, prev));
    out.join(", ")
}

fn span(a: usize, b: usize) -> String {
    if a == b {
        a.to_string()
    } else {
        format!("{a}-{b}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_join_consecutive_bins() {
        assert_eq!(ranges(&[]), "none");
        assert_eq!(ranges(&[0, 1, 2, 5, 7, 8]), "0-2, 5, 7-8");
    }
}
