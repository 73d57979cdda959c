//! Samples: the one message type that flows from sources into the buffers.
//!
//! A [`Sample`] carries *what* (stream and payload), *when it happened* (capture time on the
//! glasses' device clock) and *when we got it* (arrival time on the host's monotonic clock), so
//! every later stage can measure latency from the moment of capture. Payloads are cheap to
//! clone: image and audio bytes are shared ([`bytes::Bytes`], reference counted) and stay
//! encoded (JPEG) until a consumer decodes them.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use bytes::Bytes;

use crate::time::{DeviceTime, HostTime};

/// The streams vista knows, by their Aria names.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
#[repr(u8)]
pub enum StreamId {
    /// RGB camera, VRS `214-1`.
    CameraRgb,
    /// Left SLAM camera (the device frame), VRS `1201-1`.
    CameraSlamLeft,
    /// Right SLAM camera, VRS `1201-2`.
    CameraSlamRight,
    /// Eye-tracking camera (both eyes side by side), VRS `211-1`.
    CameraEt,
    /// Right IMU, ~1 kHz (BMI085), VRS `1202-1`.
    ImuRight,
    /// Left IMU, ~800 Hz (BMI263), VRS `1202-2`.
    ImuLeft,
    /// Magnetometer, ~10 Hz, VRS `1203-1`.
    Magnetometer,
    /// Barometer, ~50 Hz, VRS `247-1`.
    Barometer,
    /// Microphone array, 7 channels at 48 kHz, VRS `231-1`.
    Audio,
    /// MPS eye gaze (derived).
    EyeGaze,
    /// MPS hand tracking, wrist and palm (derived).
    HandTracking,
    /// MPS 6-DoF device trajectory (derived).
    DevicePose,
    /// MPS semi-dense point cloud (a static map, derived).
    SemidensePoints,
    /// Aria Gen2 left side SLAM camera (`slam-side-left`), VRS `1201-3`.
    CameraSlamSideLeft,
    /// Aria Gen2 right side SLAM camera (`slam-side-right`), VRS `1201-4`.
    CameraSlamSideRight,
    /// Aria Gen2 right eye camera (`camera-et-right`), VRS `211-2`; on Gen2 `camera-et` is
    /// the left eye alone.
    CameraEtRight,
    /// Aria Gen2 on-device visual-inertial odometry at ~10 Hz with its tracker's health
    /// (VRS `371-x`, flavor `device/oatmeal/vio`); the ~800 Hz estimate is `device-pose`.
    DeviceVio,
}

impl StreamId {
    /// Every stream, in a fixed order (the order of the enum).
    pub const ALL: [StreamId; 17] = [
        StreamId::CameraRgb,
        StreamId::CameraSlamLeft,
        StreamId::CameraSlamRight,
        StreamId::CameraEt,
        StreamId::ImuRight,
        StreamId::ImuLeft,
        StreamId::Magnetometer,
        StreamId::Barometer,
        StreamId::Audio,
        StreamId::EyeGaze,
        StreamId::HandTracking,
        StreamId::DevicePose,
        StreamId::SemidensePoints,
        StreamId::CameraSlamSideLeft,
        StreamId::CameraSlamSideRight,
        StreamId::CameraEtRight,
        StreamId::DeviceVio,
    ];

    /// Number of stream ids (for per-stream arrays indexed by [`StreamId::index`]).
    pub const COUNT: usize = Self::ALL.len();

    /// A dense index in `0..COUNT`.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The Aria name, e.g. `camera-rgb`.
    pub const fn name(self) -> &'static str {
        match self {
            StreamId::CameraRgb => "camera-rgb",
            StreamId::CameraSlamLeft => "camera-slam-left",
            StreamId::CameraSlamRight => "camera-slam-right",
            StreamId::CameraEt => "camera-et",
            StreamId::ImuRight => "imu-right",
            StreamId::ImuLeft => "imu-left",
            StreamId::Magnetometer => "magnetometer",
            StreamId::Barometer => "barometer",
            StreamId::Audio => "audio",
            StreamId::EyeGaze => "eye-gaze",
            StreamId::HandTracking => "hand-tracking",
            StreamId::DevicePose => "device-pose",
            StreamId::SemidensePoints => "semidense-points",
            StreamId::CameraSlamSideLeft => "camera-slam-side-left",
            StreamId::CameraSlamSideRight => "camera-slam-side-right",
            StreamId::CameraEtRight => "camera-et-right",
            StreamId::DeviceVio => "device-vio",
        }
    }

    /// The VRS stream id `(recordable type id, instance id)` of a stream in an Aria Gen1
    /// recording (and vista's live protocol), or `None` for streams Gen1 does not record
    /// (MPS outputs, Gen2's extra cameras and on-device perception; a Gen2 recording's layout
    /// is `aria::generation::Generation::stream_of`).
    pub const fn vrs_id(self) -> Option<(i32, u16)> {
        match self {
            StreamId::CameraRgb => Some((214, 1)),
            StreamId::CameraSlamLeft => Some((1201, 1)),
            StreamId::CameraSlamRight => Some((1201, 2)),
            StreamId::CameraEt => Some((211, 1)),
            StreamId::ImuRight => Some((1202, 1)),
            StreamId::ImuLeft => Some((1202, 2)),
            StreamId::Magnetometer => Some((1203, 1)),
            StreamId::Barometer => Some((247, 1)),
            StreamId::Audio => Some((231, 1)),
            _ => None,
        }
    }

    /// The stream an Aria Gen1 recording holds under VRS id `(type_id, instance)`, if vista
    /// knows it.
    pub fn from_vrs_id(type_id: i32, instance: u16) -> Option<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|s| s.vrs_id() == Some((type_id, instance)))
    }

    /// True for streams that Machine Perception Services computes offline and a Gen1 device
    /// never streams (Gen2 glasses record pose, gaze and hands themselves: a recording says
    /// which, `aria::recording::AriaRecording::stream_of`).
    pub const fn is_derived(self) -> bool {
        matches!(
            self,
            StreamId::EyeGaze
                | StreamId::HandTracking
                | StreamId::DevicePose
                | StreamId::SemidensePoints
        )
    }

    /// True for camera streams.
    pub const fn is_camera(self) -> bool {
        matches!(
            self,
            StreamId::CameraRgb
                | StreamId::CameraSlamLeft
                | StreamId::CameraSlamRight
                | StreamId::CameraEt
                | StreamId::CameraSlamSideLeft
                | StreamId::CameraSlamSideRight
                | StreamId::CameraEtRight
        )
    }

    /// The nominal rate in Hz for Aria Gen1 (cameras: the common streaming profile's rate;
    /// Gen2-only streams: Gen2's).
    pub const fn nominal_rate_hz(self) -> f64 {
        match self {
            StreamId::CameraRgb => 10.0,
            StreamId::CameraSlamLeft | StreamId::CameraSlamRight => 10.0,
            StreamId::CameraEt => 10.0,
            StreamId::ImuRight => 1000.0,
            StreamId::ImuLeft => 800.0,
            StreamId::Magnetometer => 10.0,
            StreamId::Barometer => 50.0,
            StreamId::Audio => 48_000.0 / 4096.0,
            StreamId::EyeGaze => 10.0,
            StreamId::HandTracking => 10.0,
            StreamId::DevicePose => 1000.0,
            StreamId::SemidensePoints => 0.0,
            StreamId::CameraSlamSideLeft | StreamId::CameraSlamSideRight => 30.0,
            StreamId::CameraEtRight => 5.0,
            StreamId::DeviceVio => 10.0,
        }
    }
}

impl fmt::Display for StreamId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error for an unknown stream name.
#[derive(Debug, thiserror::Error)]
#[error("unknown stream name {0:?} (known: camera-rgb, camera-slam-left, camera-slam-right, camera-et, imu-right, imu-left, magnetometer, barometer, audio, eye-gaze, hand-tracking, device-pose, semidense-points, camera-slam-side-left, camera-slam-side-right, camera-et-right, device-vio)")]
pub struct UnknownStream(pub String);

impl FromStr for StreamId {
    type Err = UnknownStream;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .iter()
            .copied()
            .find(|id| id.name() == s)
            .ok_or_else(|| UnknownStream(s.to_string()))
    }
}

/// How an image's bytes are encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageEncoding {
    /// JPEG (all Gen1 camera streams in the usual profiles).
    Jpeg,
    /// PNG.
    Png,
    /// One frame of an H.265 video stream (Aria Gen2's cameras), in Annex-B form.
    Hevc {
        /// Frames since the last key frame: 0 for a key frame, which decodes on its own.
        key_frame_index: u32,
    },
    /// Uncompressed pixels: VRS pixel format id and row stride in bytes.
    Raw {
        /// VRS `PixelFormat` (1 = grey8, 4 = rgb8, …).
        pixel_format: u32,
        /// Bytes per row.
        stride: u32,
    },
}

impl ImageEncoding {
    /// The encoding of a still image file from its first bytes: PNG by its signature,
    /// anything else JPEG (whose decoder then says what is wrong).
    pub fn sniff(bytes: &[u8]) -> Self {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Self::Png
        } else {
            Self::Jpeg
        }
    }
}

/// One camera frame, still encoded.
#[derive(Clone, Debug, PartialEq)]
pub struct ImageFrame {
    /// Width in pixels, as recorded.
    pub width: u32,
    /// Height in pixels, as recorded.
    pub height: u32,
    /// How `data` is encoded.
    pub encoding: ImageEncoding,
    /// The encoded bytes (shared, never copied).
    pub data: Bytes,
    /// The camera's frame counter.
    pub frame_number: u64,
    /// Exposure time in seconds.
    pub exposure_s: f32,
    /// Analogue gain.
    pub gain: f32,
}

impl ImageFrame {
    /// A still image file's bytes as a frame of no stream: PNG by its signature, else JPEG;
    /// no configured size, so decoding holds it to the still-image pixel budget
    /// (`aria::recording::image::MAX_STILL_PIXELS`).
    pub fn still(data: impl Into<Bytes>) -> Self {
        let data = data.into();
        Self {
            width: 0,
            height: 0,
            encoding: ImageEncoding::sniff(&data),
            data,
            frame_number: 0,
            exposure_s: 0.0,
            gain: 1.0,
        }
    }
}

/// One IMU sample, raw (as recorded; rectify with the calibration).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct ImuSample {
    /// Specific force in m/s², IMU frame.
    pub accel_mps2: [f32; 3],
    /// Angular velocity in rad/s, IMU frame.
    pub gyro_radps: [f32; 3],
    /// Whether `accel_mps2` holds a measurement.
    pub accel_valid: bool,
    /// Whether `gyro_radps` holds a measurement.
    pub gyro_valid: bool,
    /// Sensor temperature in °C (NaN when not reported).
    pub temperature_c: f32,
}

/// One magnetometer sample, raw, converted to tesla.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct MagSample {
    /// Magnetic flux density in tesla, sensor frame (raw; Gen1 records µT, converted here).
    pub field_t: [f32; 3],
}

/// One barometer sample.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct BaroSample {
    /// Pressure in pascal (raw; calibrate with the barometer model).
    pub pressure_pa: f64,
    /// Temperature in °C.
    pub temperature_c: f32,
}

/// How an audio block's bytes are coded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AudioCoding {
    /// Interleaved signed 32-bit little-endian samples, `frames × channels` (Gen1).
    PcmI32Le,
    /// One Opus multistream packet of `frames` frames (Gen2's microphones), left coded until
    /// a consumer needs the samples: it decodes the stream's packets in order
    /// (`aria::recording::opus::OpusPcm`), 16-bit samples scaled to 32 bits like Gen1's.
    Opus,
}

/// A block of audio frames.
#[derive(Clone, Debug, PartialEq)]
pub struct AudioBlock {
    /// Channels per frame.
    pub channels: u8,
    /// Frames per second.
    pub sample_rate_hz: u32,
    /// Capture time of each frame, device ns (Aria stores one per frame).
    pub timestamps_ns: Arc<[i64]>,
    /// How `data` is coded.
    pub coding: AudioCoding,
    /// The frames, coded as `coding` says.
    pub data: Bytes,
}

/// One eye-gaze estimate, in the central pupil frame (CPF).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct EyeGazeSample {
    /// Yaw in radians (angle of the ray projected on XZ from +Z).
    pub yaw_rad: f32,
    /// Pitch in radians (angle of the ray projected on YZ from +Z).
    pub pitch_rad: f32,
    /// Vergence depth in metres along the gaze ray, when estimated.
    pub depth_m: Option<f32>,
}

/// Wrist and palm of one hand, device frame.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct WristPalm {
    /// Tracking confidence in [0, 1].
    pub confidence: f32,
    /// Wrist position, metres, device frame.
    pub wrist_m: [f32; 3],
    /// Palm centre, metres, device frame.
    pub palm_m: [f32; 3],
}

/// Hand tracking for both hands; a missing hand is `None`.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct HandSample {
    /// Left hand.
    pub left: Option<WristPalm>,
    /// Right hand.
    pub right: Option<WristPalm>,
}

/// A 6-DoF device pose from a trajectory.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PoseSample {
    /// `T_world_device` (closed loop) or `T_odometry_device` (open loop), metres.
    pub t_world_device: nalgebra::Isometry3<f64>,
    /// Linear velocity, m/s (frame as in the source file).
    pub linear_velocity_mps: [f32; 3],
    /// Angular velocity, rad/s, device frame.
    pub angular_velocity_radps: [f32; 3],
    /// Tracking quality in [0, 1].
    pub quality: f32,
}

/// What a sample carries.
#[derive(Clone, Debug, PartialEq)]
pub enum Payload {
    /// A camera frame.
    Image(ImageFrame),
    /// One IMU sample.
    Imu(ImuSample),
    /// One magnetometer sample.
    Magnetometer(MagSample),
    /// One barometer sample.
    Barometer(BaroSample),
    /// A block of audio frames.
    Audio(AudioBlock),
    /// One eye-gaze estimate.
    EyeGaze(EyeGazeSample),
    /// Hand tracking.
    Hands(HandSample),
    /// A device pose.
    Pose(PoseSample),
}

// A sample whose payload is plain (`Payload::is_plain`) holds `Copy` data only, so a bitwise
// copy of it is its clone: the ring buffers' bulk copies rely on this. Adding a field to
// `Sample` fails to compile here until it is checked too.
const _: fn(&Sample) = |s| {
    let Sample {
        stream,
        capture,
        arrival,
        seq,
        payload: _,
    } = s;
    plain(stream);
    plain(capture);
    plain(arrival);
    plain(seq);
};

/// `true`, for `Copy` types only (a compile-time check).
#[inline(always)]
const fn plain<T: Copy>(_: &T) -> bool {
    true
}

impl Payload {
    /// True when the payload owns no shared buffer (every kind but images and audio): it
    /// is plain data (`Copy`, checked at compile time for each kind), so cloning it is a
    /// copy of its bytes and dropping it frees nothing.
    #[inline]
    pub fn is_plain(&self) -> bool {
        match self {
            Payload::Image(_) | Payload::Audio(_) => false,
            Payload::Imu(x) => plain(x),
            Payload::Magnetometer(x) => plain(x),
            Payload::Barometer(x) => plain(x),
            Payload::EyeGaze(x) => plain(x),
            Payload::Hands(x) => plain(x),
            Payload::Pose(x) => plain(x),
        }
    }

    /// A short name for the payload kind.
    pub fn kind(&self) -> &'static str {
        match self {
            Payload::Image(_) => "image",
            Payload::Imu(_) => "imu",
            Payload::Magnetometer(_) => "magnetometer",
            Payload::Barometer(_) => "barometer",
            Payload::Audio(_) => "audio",
            Payload::EyeGaze(_) => "eye-gaze",
            Payload::Hands(_) => "hands",
            Payload::Pose(_) => "pose",
        }
    }
}

/// One timestamped measurement from one stream.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Which stream.
    pub stream: StreamId,
    /// Capture time on the glasses' device clock.
    pub capture: DeviceTime,
    /// Arrival time on the host's monotonic clock (when the source handed it over).
    pub arrival: HostTime,
    /// Per-stream sequence number assigned by the source, from 0.
    pub seq: u64,
    /// The measurement.
    pub payload: Payload,
}

impl Sample {
    /// True when the stream is derived by MPS rather than recorded live.
    pub fn is_derived(&self) -> bool {
        self.stream.is_derived()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in StreamId::ALL {
            assert_eq!(s.name().parse::<StreamId>().ok(), Some(s));
            assert_eq!(StreamId::ALL[s.index()], s);
        }
        assert!("camera-xyz".parse::<StreamId>().is_err());
    }

    #[test]
    fn vrs_ids_round_trip() {
        for s in StreamId::ALL {
            match s.vrs_id() {
                Some((t, i)) => assert_eq!(StreamId::from_vrs_id(t, i), Some(s)),
                // MPS outputs, and what only Gen2 records (its own layout, elsewhere).
                None => assert!(
                    s.is_derived()
                        || matches!(
                            s,
                            StreamId::CameraSlamSideLeft
                                | StreamId::CameraSlamSideRight
                                | StreamId::CameraEtRight
                                | StreamId::DeviceVio
                        ),
                    "{s}"
                ),
            }
        }
        assert_eq!(StreamId::from_vrs_id(285, 1), None);
    }

    #[test]
    fn sample_stays_small() {
        // Samples are copied through ring buffers at up to 1 kHz per IMU; keep them compact.
        assert!(
            std::mem::size_of::<Sample>() <= 144,
            "{}",
            std::mem::size_of::<Sample>()
        );
    }
}
