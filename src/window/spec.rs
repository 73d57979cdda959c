//! The five grid streams of the VISTA sensor window: their channels, raw slots and
//! aggregation rules (documented in `docs/window-channels.md`).
//!
//! Each stream gathers samples into *raw slots* (what one sample contributes, e.g. an IMU
//! unit's six axes), aggregates each slot within a bin by one [`Aggregation`] rule, and is
//! then turned into its output *channels* (e.g. a trajectory relative to the pose at the
//! window's end) by `features`.

use crate::sample::StreamId;

/// Bins per window (the paper's 64-bin temporal grid).
pub const BINS: usize = 64;

/// Most raw slots any stream uses.
pub const MAX_SLOTS: usize = 16;

/// How a raw slot is aggregated within one bin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aggregation {
    /// Arithmetic mean of the bin's finite values (fast, noisy streams).
    Mean,
    /// The newest finite value in the bin (slow streams, and poses, which cannot be averaged
    /// component-wise).
    Last,
}

/// One of the five sensor streams aligned to the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GridStream {
    /// Both IMUs (right BMI085 and left BMI263): accelerometer and gyroscope.
    Imu,
    /// Magnetometer and barometer.
    MagBaro,
    /// MPS eye gaze.
    EyeGaze,
    /// MPS hand tracking (wrist and palm).
    Hands,
    /// MPS 6-DoF device trajectory.
    Trajectory,
}

/// IMU channels (12): right unit then left unit.
pub const IMU_CHANNELS: [&str; 12] = [
    "right_accel_x_mps2",
    "right_accel_y_mps2",
    "right_accel_z_mps2",
    "right_gyro_x_radps",
    "right_gyro_y_radps",
    "right_gyro_z_radps",
    "left_accel_x_mps2",
    "left_accel_y_mps2",
    "left_accel_z_mps2",
    "left_gyro_x_radps",
    "left_gyro_y_radps",
    "left_gyro_z_radps",
];

/// Magnetometer / barometer channels (5).
pub const MAG_BARO_CHANNELS: [&str; 5] = [
    "mag_dir_x",
    "mag_dir_y",
    "mag_dir_z",
    "heading_change_rad",
    "pressure_change_pa",
];

/// Eye-gaze channels (5).
pub const EYE_GAZE_CHANNELS: [&str; 5] = [
    "gaze_dir_x",
    "gaze_dir_y",
    "gaze_dir_z",
    "depth_m",
    "depth_valid",
];

/// Hand channels (14): left hand then right hand.
pub const HANDS_CHANNELS: [&str; 14] = [
    "left_confidence",
    "left_wrist_x_m",
    "left_wrist_y_m",
    "left_wrist_z_m",
    "left_palm_x_m",
    "left_palm_y_m",
    "left_palm_z_m",
    "right_confidence",
    "right_wrist_x_m",
    "right_wrist_y_m",
    "right_wrist_z_m",
    "right_palm_x_m",
    "right_palm_y_m",
    "right_palm_z_m",
];

/// Trajectory channels (13), all relative to the pose at the window's end.
pub const TRAJECTORY_CHANNELS: [&str; 13] = [
    "rel_tx_m",
    "rel_ty_m",
    "rel_tz_m",
    "rel_rotvec_x_rad",
    "rel_rotvec_y_rad",
    "rel_rotvec_z_rad",
    "lin_vel_x_mps",
    "lin_vel_y_mps",
    "lin_vel_z_mps",
    "ang_vel_x_radps",
    "ang_vel_y_radps",
    "ang_vel_z_radps",
    "quality",
];

use Aggregation::{Last, Mean};

impl GridStream {
    /// The five streams in output order.
    pub const ALL: [GridStream; 5] = [
        GridStream::Imu,
        GridStream::MagBaro,
        GridStream::EyeGaze,
        GridStream::Hands,
        GridStream::Trajectory,
    ];

    /// A dense index in `0..5`.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The name used in JSON, statistics files and the model contract.
    pub const fn name(self) -> &'static str {
        match self {
            GridStream::Imu => "imu",
            GridStream::MagBaro => "mag_baro",
            GridStream::EyeGaze => "eye_gaze",
            GridStream::Hands => "hands",
            GridStream::Trajectory => "trajectory",
        }
    }

    /// The stream with this name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|s| s.name() == name)
    }

    /// The grid stream a recorded or derived stream feeds, if any.
    pub const fn of(stream: StreamId) -> Option<Self> {
        match stream {
            StreamId::ImuRight | StreamId::ImuLeft => Some(GridStream::Imu),
            StreamId::Magnetometer | StreamId::Barometer => Some(GridStream::MagBaro),
            StreamId::EyeGaze => Some(GridStream::EyeGaze),
            StreamId::HandTracking => Some(GridStream::Hands),
            StreamId::DevicePose => Some(GridStream::Trajectory),
            _ => None,
        }
    }

    /// Output channel names, in tensor order.
    pub const fn channels(self) -> &'static [&'static str] {
        match self {
            GridStream::Imu => &IMU_CHANNELS,
            GridStream::MagBaro => &MAG_BARO_CHANNELS,
            GridStream::EyeGaze => &EYE_GAZE_CHANNELS,
            GridStream::Hands => &HANDS_CHANNELS,
            GridStream::Trajectory => &TRAJECTORY_CHANNELS,
        }
    }

    /// Number of output channels `C` (the tensor is `[BINS, C]`).
    pub const fn channel_count(self) -> usize {
        self.channels().len()
    }

    /// The aggregation rule of every raw slot, in slot order (see `extract`).
    pub const fn slot_rules(self) -> &'static [Aggregation] {
        match self {
            // right accel, right gyro, left accel, left gyro.
            GridStream::Imu => &[Mean; 12],
            // mag field xyz (10 Hz: last), pressure (50 Hz: mean).
            GridStream::MagBaro => &[Last, Last, Last, Mean],
            // gaze unit vector xyz, depth: mean (direction renormalised afterwards).
            GridStream::EyeGaze => &[Mean, Mean, Mean, Mean],
            // per hand: confidence, wrist xyz, palm xyz.
            GridStream::Hands => &[Mean; 14],
            // translation xyz, quaternion ijkw, lin vel xyz, ang vel xyz, quality.
            GridStream::Trajectory => &[Last; 14],
        }
    }

    /// Raw slots that must all be observed for a bin to be valid; the others are optional
    /// (filled with the normalised mean, 0, and described by a companion channel).
    pub const fn required_slots(self) -> &'static [usize] {
        match self {
            GridStream::Imu => &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
            GridStream::MagBaro => &[0, 1, 2, 3],
            GridStream::EyeGaze => &[0, 1, 2],
            GridStream::Hands => &[0, 7],
            GridStream::Trajectory => &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13],
        }
    }
}

impl std::fmt::Display for GridStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
