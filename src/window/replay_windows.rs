//! Windows of recorded sessions (I/O): replays a session folder or `.vrs` file through a
//! [`WindowBuilder`], for `vista window` (one moment) and `vista stats` (every window).

use std::path::Path;

use crate::aria::recorded_calib::recording_calibration;
use crate::sample::{Sample, StreamId};
use crate::source::replay::{ReplayOptions, ReplaySource};
use crate::source::Source;
use crate::time::DeviceTime;
use crate::window::builder::{WindowBuilder, WindowCounters};
use crate::window::config::WindowConfig;
use crate::window::error::WindowError;
use crate::window::frames::{causal_indices, uniform_indices, FRAMES};
use crate::window::imu_resample::{ImuResampler, ImuWindow, ImuWindowConfig};
use crate::window::rectify::Rectifiers;
use crate::window::tensor::SensorWindow;

/// What was read from a session.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct SessionRead {
    /// The session's first capture time (the origin of `--at`), device ns.
    pub origin_ns: i64,
    /// Samples read.
    pub samples: u64,
    /// Samples the source skipped (unreadable records), with their messages.
    pub skipped: Vec<String>,
    /// The builder's counters.
    pub counters: WindowCounters,
}

/// `builder`, rectifying with the recording's calibration when `rectify` is set and the
/// recording carries one.
fn calibrated(
    path: &Path,
    src: &ReplaySource,
    builder: WindowBuilder,
    rectify: bool,
) -> Result<WindowBuilder, WindowError> {
    if !rectify {
        return Ok(builder);
    }
    match recording_calibration(src.recording()) {
        Ok(Some(c)) => Ok(builder.with_rectifiers(Rectifiers::from_calibration(&c))),
        Ok(None) => {
            log::warn!(
                "{}: no calibration in the recording; sensors stay raw",
                path.display()
            );
            Ok(builder)
        }
        Err(e) => Err(WindowError::Session {
            path: path.to_path_buf(),
            message: e.to_string(),
        }),
    }
}

fn open(path: &Path) -> Result<ReplaySource, WindowError> {
    ReplaySource::open(path, ReplayOptions::default()).map_err(|e| WindowError::Session {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// Reads `path` sample by sample (capture order), calling `visit`; recoverable source
/// errors are collected, a fatal one ends the read with an error. `visit` returns false to
/// stop early.
fn read(
    path: &Path,
    src: &mut ReplaySource,
    info: &mut SessionRead,
    mut visit: impl FnMut(&Sample) -> Result<bool, WindowError>,
) -> Result<(), WindowError> {
    while let Some(r) = src.next_sample() {
        match r {
            Ok(s) => {
                info.samples += 1;
                if !visit(&s)? {
                    break;
                }
            }
            Err(e) if e.is_recoverable() => info.skipped.push(e.to_string()),
            Err(e) => {
                return Err(WindowError::Session {
                    path: path.to_path_buf(),
                    message: e.to_string(),
                })
            }
        }
    }
    Ok(())
}

/// One moment of a session: its window and the frames sampled for it.
#[derive(Clone, Debug)]
pub struct MomentWindow {
    /// The sensor window ending at the moment.
    pub window: SensorWindow,
    /// Capture times of the 8 RGB frames sampled uniformly over the window.
    pub frames_ns: Vec<i64>,
    /// Capture times of the causal variant (most recent frames at the stride).
    pub causal_frames_ns: Vec<i64>,
    /// The fixed-rate IMU window ending at the moment (default [`ImuWindowConfig`]).
    pub imu_window: ImuWindow,
    /// What was read.
    pub read: SessionRead,
}

/// The window of session `path` ending `at_s` seconds after its first sample, with frames;
/// `causal_stride` is the causal variant's frame stride; `rectify` applies the recording's
/// sensor calibration.
pub fn window_at_moment(
    path: &Path,
    at_s: f64,
    builder: WindowBuilder,
    causal_stride: usize,
    rectify: bool,
) -> Result<MomentWindow, WindowError> {
    let mut src = open(path)?;
    let mut b = calibrated(path, &src, builder, rectify)?;
    let mut info = SessionRead {
        origin_ns: src.origin().ns(),
        ..SessionRead::default()
    };
    if !at_s.is_finite() {
        return Err(WindowError::Config(format!(
            "moment {at_s} s is not finite"
        )));
    }
    let t_end = src.origin().add_ns((at_s * 1e9).round() as i64);
    let length = b.config().length_ns();
    let mut rgb_ns = Vec::new();
    let mut imu = ImuResampler::new(ImuWindowConfig::default())?;
    read(path, &mut src, &mut info, |s| {
        if s.capture > t_end {
            return Ok(false);
        }
        b.push(s);
        imu.push(s);
        if s.stream == StreamId::CameraRgb {
            rgb_ns.push(s.capture.ns());
        }
        Ok(true)
    })?;
    let mut window = SensorWindow::new();
    b.snapshot(t_end, &mut window)?;
    info.counters = b.counters();
    let mut imu_window = imu.new_window();
    imu.resample(t_end, &mut imu_window);
    let pick = |idx: Vec<usize>| -> Vec<i64> {
        idx.into_iter()
            .filter_map(|i| rgb_ns.get(i).copied())
            .collect()
    };
    let frames_ns = pick(uniform_indices(
        &rgb_ns,
        t_end.ns().saturating_sub(length),
        t_end.ns(),
        FRAMES,
    ));
    let causal_frames_ns = pick(causal_indices(&rgb_ns, t_end.ns(), FRAMES, causal_stride));
    Ok(MomentWindow {
        window,
        frames_ns,
        causal_frames_ns,
        imu_window,
        read: info,
    })
}

/// Every non-overlapping window of session `path` that holds data (ends at multiples of
/// the window length after the first sample, bins aligned), passed to `visit` (un-normalised; rectified with
/// the recording's calibration when `rectify` is set).
pub fn for_each_window(
    path: &Path,
    config: WindowConfig,
    rectify: bool,
    mut visit: impl FnMut(&SensorWindow),
) -> Result<SessionRead, WindowError> {
    let mut src = open(path)?;
    let mut b = calibrated(path, &src, WindowBuilder::new(config)?, rectify)?;
    let mut info = SessionRead {
        origin_ns: src.origin().ns(),
        ..SessionRead::default()
    };
    let length = config.length_ns();
    // Each window ends just before a bin boundary, so its newest bin is complete.
    let first_end = config
        .bin_of(info.origin_ns)
        .saturating_add(1)
        .saturating_mul(config.bin_ns)
        .saturating_add(length - 1);
    let mut next_end = first_end;
    let mut w = SensorWindow::new();
    read(path, &mut src, &mut info, |s| {
        let t = s.capture.ns();
        if t > next_end {
            b.snapshot(DeviceTime(next_end), &mut w)?;
            visit(&w);
            // Windows wholly between the data so far and this sample would be empty: skip
            // to the first window end at or after it (a huge time jump costs nothing).
            let windows = (t.saturating_sub(next_end) - 1) / length.max(1) + 1;
            next_end = next_end.saturating_add(windows.saturating_mul(length));
        }
        b.push(s);
        Ok(true)
    })?;
    // The last window, partly after the end of the data (those bins are masked).
    if b.newest()
        .is_some_and(|n| n.ns() > next_end.saturating_sub(length))
    {
        b.snapshot(DeviceTime(next_end), &mut w)?;
        visit(&w);
    }
    info.counters = b.counters();
    Ok(info)
}
