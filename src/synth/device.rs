//! Which glasses a synthetic session imitates, and where each signal goes in its recording:
//! Aria Gen1 (two SLAM cameras, IMUs at 1 kHz and 800 Hz, the eye-tracking camera, MPS
//! for pose, gaze and hands) or Aria Gen2 (four SLAM cameras, both IMUs at 800 Hz, a
//! magnetometer at 100 Hz recording tesla, and the glasses' own VIO, eye gaze and hand
//! tracking as recorded streams). Stream ids and rates are those of the real recordings
//! the templates are (`tests/data/gen1`, `tests/data/gen2`).

use crate::aria::generation::Generation;
use crate::aria::vrs::{VrsReader, VrsStreamId};

/// The glasses a synthetic session imitates.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum SynthDevice {
    /// Aria Gen1.
    #[default]
    Gen1,
    /// Aria Gen2, with its on-device perception.
    Gen2,
}

/// The template recording of each device shipped with the crate (its real layouts and
/// calibration).
pub const GEN1_TEMPLATE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs"
);
/// Aria Gen2's template.
pub const GEN2_TEMPLATE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/gen2/aria_gen2_unit_test_sequence_with_bluetooth.vrs"
);

/// Streams of the glasses' own perception in a Gen2 recording, and their rates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OnDevicePerception {
    /// High-frequency VIO (IMU rate).
    pub vio_high_frequency: VrsStreamId,
    /// VIO.
    pub vio: VrsStreamId,
    /// Eye gaze.
    pub eye_gaze: VrsStreamId,
    /// Hand tracking.
    pub hands: VrsStreamId,
}

/// Rate of Gen2's high-frequency VIO, Hz (IMU rate).
pub const GEN2_VIO_HF_HZ: f64 = 800.0;
/// Rate of Gen2's VIO, Hz.
pub const GEN2_VIO_HZ: f64 = 10.0;
/// Rate of Gen2's eye gaze and hand tracking, Hz (the sample records both at 30 Hz).
pub const GEN2_GAZE_HANDS_HZ: f64 = 30.0;

/// Where a device records each signal.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceLayout {
    /// The generation.
    pub generation: Generation,
    /// `imu-right`: stream and rate, Hz.
    pub imu_right: (VrsStreamId, f64),
    /// `imu-left`: stream and rate, Hz.
    pub imu_left: (VrsStreamId, f64),
    /// Magnetometer: stream and rate, Hz.
    pub mag: (VrsStreamId, f64),
    /// What one µT is in the magnetometer's records (Gen1 records µT, Gen2 tesla).
    pub mag_record_per_ut: f64,
    /// Barometer stream.
    pub baro: VrsStreamId,
    /// SLAM cameras with their calibration labels, the stereo pair first.
    pub slam: Vec<(VrsStreamId, &'static str)>,
    /// RGB camera.
    pub rgb: VrsStreamId,
    /// Eye-tracking camera drawn (Gen1: both eyes in one frame; Gen2: none drawn, its gaze
    /// comes from the glasses).
    pub et: Option<VrsStreamId>,
    /// The glasses' own perception (Gen2).
    pub on_device: Option<OnDevicePerception>,
}

impl SynthDevice {
    /// The generation imitated.
    pub fn generation(self) -> Generation {
        match self {
            SynthDevice::Gen1 => Generation::Gen1,
            SynthDevice::Gen2 => Generation::Gen2,
        }
    }

    /// The device's template shipped with the crate.
    pub fn default_template(self) -> &'static str {
        match self {
            SynthDevice::Gen1 => GEN1_TEMPLATE,
            SynthDevice::Gen2 => GEN2_TEMPLATE,
        }
    }

    /// Where this device records each signal; Gen2's perception streams are found in
    /// `template` by type and flavor.
    pub fn layout(self, template: &VrsReader) -> Result<DeviceLayout, String> {
        let id = VrsStreamId::new;
        Ok(match self {
            SynthDevice::Gen1 => DeviceLayout {
                generation: Generation::Gen1,
                imu_right: (id(1202, 1), 1000.0),
                imu_left: (id(1202, 2), 800.0),
                mag: (id(1203, 1), 10.0),
                mag_record_per_ut: 1.0,
                baro: id(247, 1),
                slam: vec![
                    (id(1201, 1), "camera-slam-left"),
                    (id(1201, 2), "camera-slam-right"),
                ],
                rgb: id(214, 1),
                et: Some(id(211, 1)),
                on_device: None,
            },
            SynthDevice::Gen2 => {
                let by_flavor = |type_id: i32, suffix: &str| {
                    template
                        .streams()
                        .iter()
                        .find(|s| {
                            s.id.type_id == type_id && s.flavor().unwrap_or("").ends_with(suffix)
                        })
                        .map(|s| s.id)
                        .ok_or_else(|| {
                            format!("no {type_id}-x stream of flavor …{suffix} in the template")
                        })
                };
                DeviceLayout {
                    generation: Generation::Gen2,
                    // Gen2 numbers its IMUs the other way round.
                    imu_right: (id(1202, 2), 800.0),
                    imu_left: (id(1202, 1), 800.0),
                    mag: (id(1203, 1), 100.0),
                    mag_record_per_ut: 1e-6,
                    baro: id(247, 1),
                    slam: vec![
                        (id(1201, 1), "slam-front-left"),
                        (id(1201, 2), "slam-front-right"),
                        (id(1201, 3), "slam-side-left"),
                        (id(1201, 4), "slam-side-right"),
                    ],
                    rgb: id(214, 1),
                    et: None,
                    on_device: Some(OnDevicePerception {
                        vio_high_frequency: by_flavor(371, "/vio_high_frequency")?,
                        vio: by_flavor(371, "/vio")?,
                        eye_gaze: by_flavor(373, "")?,
                        hands: by_flavor(371, "/hand")?,
                    }),
                }
            }
        })
    }
}
