//! Fixed-rate IMU windows for a pretrained IMU encoder (PRIMUS-style): one IMU unit's
//! accelerometer and gyroscope, linearly interpolated onto a uniform time grid ending at
//! the window's end. Default 200 Hz × 5 s = `[1000, 6]`, the Ego4D IMU setting of the
//! IMU2CLIP / PRIMUS pipelines (see `docs/window-channels.md`).
//!
//! Samples are held in a fixed-capacity ring (no allocation after construction);
//! resampling costs O(grid points + held samples). A grid point is valid only when real
//! samples bracket it no more than `max_gap_ns` apart (no extrapolation, no bridging of
//! dropouts); NaN or invalid samples are skipped.

use std::collections::VecDeque;

use crate::sample::{Payload, Sample, StreamId};
use crate::time::DeviceTime;
use crate::window::error::WindowError;

/// Channels of a resampled IMU window.
pub const IMU_WINDOW_CHANNELS: [&str; 6] = [
    "accel_x_mps2",
    "accel_y_mps2",
    "accel_z_mps2",
    "gyro_x_radps",
    "gyro_y_radps",
    "gyro_z_radps",
];

/// How IMU windows are resampled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImuWindowConfig {
    /// Which IMU (default: the right one, 1 kHz).
    pub unit: StreamId,
    /// Output rate, Hz.
    pub rate_hz: f64,
    /// Output points (window length = points / rate).
    pub points: usize,
    /// Largest gap between two real samples that may be interpolated across, ns.
    pub max_gap_ns: i64,
}

impl Default for ImuWindowConfig {
    fn default() -> Self {
        Self {
            unit: StreamId::ImuRight,
            rate_hz: 200.0,
            points: 1000,
            max_gap_ns: 10_000_000,
        }
    }
}

impl ImuWindowConfig {
    /// The grid's step, ns.
    pub fn step_ns(&self) -> f64 {
        1e9 / self.rate_hz
    }
}

/// One resampled window: `[points, 6]` row-major plus a `[points]` mask.
#[derive(Clone, Debug, PartialEq)]
pub struct ImuWindow {
    /// The time of the last grid point.
    pub t_end: DeviceTime,
    /// Row-major `[points, 6]`; 0 where masked.
    pub values: Vec<f32>,
    /// Per point: interpolated from real samples.
    pub mask: Vec<bool>,
}

/// Keeps the recent samples of one IMU and resamples them on demand.
#[derive(Clone, Debug)]
pub struct ImuResampler {
    config: ImuWindowConfig,
    held: VecDeque<(i64, [f64; 6])>,
    capacity: usize,
    newest_ns: i64,
}

impl ImuResampler {
    /// A resampler holding enough samples for one window at up to 1.25 kHz.
    pub fn new(config: ImuWindowConfig) -> Result<Self, WindowError> {
        if !(config.rate_hz.is_finite() && config.rate_hz > 0.0) || config.points == 0 {
            return Err(WindowError::Config(format!(
                "IMU window of {} points at {} Hz",
                config.points, config.rate_hz
            )));
        }
        let span_s = config.points as f64 / config.rate_hz;
        let capacity = (span_s * 1250.0).ceil() as usize + 64;
        Ok(Self {
            config,
            held: VecDeque::with_capacity(capacity),
            capacity,
            newest_ns: i64::MIN,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &ImuWindowConfig {
        &self.config
    }

    /// An output window of the right size (allocate once, reuse).
    pub fn new_window(&self) -> ImuWindow {
        ImuWindow {
            t_end: DeviceTime(0),
            values: vec![0.0; self.config.points * 6],
            mask: vec![false; self.config.points],
        }
    }

    /// Adds a sample of the configured unit (others, invalid axes and NaN are ignored;
    /// samples older than the newest held are ignored). O(1), no allocation.
    pub fn push(&mut self, sample: &Sample) {
        if sample.stream != self.config.unit {
            return;
        }
        let Payload::Imu(imu) = &sample.payload else {
            return;
        };
        if !(imu.accel_valid && imu.gyro_valid) {
            return;
        }
        let v = [
            imu.accel_mps2[0],
            imu.accel_mps2[1],
            imu.accel_mps2[2],
            imu.gyro_radps[0],
            imu.gyro_radps[1],
            imu.gyro_radps[2],
        ]
        .map(f64::from);
        let t = sample.capture.ns();
        if v.iter().any(|x| !x.is_finite()) || t <= self.newest_ns {
            return;
        }
        if self.held.len() >= self.capacity {
            self.held.pop_front();
        }
        self.held.push_back((t, v));
        self.newest_ns = t;
    }

    /// Resamples onto the grid `t_end − (points − 1 − i)·step`, `i = 0..points`, into
    /// `out` (made by [`ImuResampler::new_window`]).
    pub fn resample(&self, t_end: DeviceTime, out: &mut ImuWindow) {
        let n = self.config.points;
        let step = self.config.step_ns();
        out.t_end = t_end;
        let mut k = 0; // index of the first held sample with time >= grid point
        for i in 0..n {
            let t = t_end.ns() as f64 - (n - 1 - i) as f64 * step;
            while self.held.get(k).is_some_and(|(ts, _)| (*ts as f64) < t) {
                k += 1;
            }
            let row = out.values.get_mut(i * 6..i * 6 + 6);
            let m = out.mask.get_mut(i);
            let (Some(row), Some(m)) = (row, m) else {
                continue;
            };
            let after = self.held.get(k);
            let before = k.checked_sub(1).and_then(|j| self.held.get(j));
            let v = match (before, after) {
                (_, Some((ta, va))) if (*ta as f64) == t => Some(*va),
                (Some((tb, vb)), Some((ta, va)))
                    if ta.saturating_sub(*tb) <= self.config.max_gap_ns =>
                {
                    let f = (t - *tb as f64) / (*ta - *tb) as f64;
                    Some(std::array::from_fn(|c| vb[c] + (va[c] - vb[c]) * f))
                }
                _ => None,
            };
            *m = v.is_some();
            match v {
                Some(v) => row.iter_mut().zip(v).for_each(|(d, x)| *d = x as f32),
                None => row.fill(0.0),
            }
        }
    }
}
