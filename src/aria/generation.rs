//! Which Aria glasses made a recording: Gen1 or Gen2. The generation decides the camera
//! labels and their default image sizes, which VRS stream holds which sensor (Gen2 swaps
//! the IMUs' instance ids and adds two SLAM cameras, a second eye camera and the device's own
//! perception streams) and the image codec.

use std::fmt;

use crate::aria::vrs::VrsStreamId;
use crate::sample::StreamId;

/// VRS recordable type of Gen2's on-device poses (`PoseRecordableClass`): VIO, high-frequency
/// VIO and hand tracking share it, told apart by the stream's flavor.
pub const POSE_TYPE_ID: i32 = 371;
/// VRS recordable type of Gen2's on-device eye gaze (`GazeRecordableClass`).
pub const GAZE_TYPE_ID: i32 = 373;
/// Flavor of the Gen2 ~10 Hz VIO stream.
pub const FLAVOR_VIO: &str = "device/oatmeal/vio";
/// Flavor of the Gen2 ~800 Hz VIO stream.
pub const FLAVOR_VIO_HIGH_FREQUENCY: &str = "device/oatmeal/vio_high_frequency";
/// Flavor of the Gen2 hand-tracking stream.
pub const FLAVOR_HAND: &str = "device/oatmeal/hand";

/// The Aria hardware generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Generation {
    /// Aria Gen1 (`DeviceClass` "Aria").
    Gen1,
    /// Aria Gen2 (`DeviceClass` / VRS `device_type` "Oatmeal").
    Gen2,
}

impl Generation {
    /// From a calibration's `DeviceClassInfo.DeviceClass` or a recording's `device_type`
    /// tag: "Oatmeal" is Gen2 (as in projectaria_tools' `SensorCalibrationJson`); anything
    /// else, an empty class included, is Gen1, whose early files carry no class.
    pub fn from_device_class(class: &str) -> Self {
        if class.eq_ignore_ascii_case("oatmeal") {
            Generation::Gen2
        } else {
            Generation::Gen1
        }
    }

    /// The label of the camera whose frame is the device frame when a calibration names none.
    pub const fn default_origin_label(self) -> &'static str {
        match self {
            Generation::Gen1 => "camera-slam-left",
            Generation::Gen2 => "slam-front-left",
        }
    }

    /// The vista stream a recording of this generation holds under `id` (with the stream's
    /// VRS `flavor`), as projectaria_tools' `StreamIdLabelMapper` assigns them; `None` for
    /// streams vista lists but does not decode (time mapping, GPS, Wi-Fi, Bluetooth, PPG,
    /// temperature, ambient light, battery).
    pub fn stream_of(self, id: VrsStreamId, flavor: &str) -> Option<StreamId> {
        match self {
            Generation::Gen1 => StreamId::from_vrs_id(id.type_id, id.instance),
            Generation::Gen2 => Some(match (id.type_id, id.instance) {
                (1201, 1) => StreamId::CameraSlamLeft,
                (1201, 2) => StreamId::CameraSlamRight,
                (1201, 3) => StreamId::CameraSlamSideLeft,
                (1201, 4) => StreamId::CameraSlamSideRight,
                (1202, 1) => StreamId::ImuLeft,
                (1202, 2) => StreamId::ImuRight,
                (214, 1) => StreamId::CameraRgb,
                (211, 1) => StreamId::CameraEt,
                (211, 2) => StreamId::CameraEtRight,
                (1203, 1) => StreamId::Magnetometer,
                (247, 1) => StreamId::Barometer,
                (231, 1) => StreamId::Audio,
                (GAZE_TYPE_ID, 1) => StreamId::EyeGaze,
                (POSE_TYPE_ID, _) => match flavor {
                    FLAVOR_VIO_HIGH_FREQUENCY => StreamId::DevicePose,
                    FLAVOR_VIO => StreamId::DeviceVio,
                    FLAVOR_HAND => StreamId::HandTracking,
                    _ => return None,
                },
                _ => return None,
            }),
        }
    }

    /// The calibration label of a camera or IMU stream in this generation's usual layout
    /// (Gen1's eye-tracking stream holds both eyes: its label here is the left eye's; a Gen2
    /// recording picks its stereo pair from the calibration, so its own
    /// `AriaRecording::sensor_label` is the authority there).
    pub const fn sensor_label(self, stream: StreamId) -> Option<&'static str> {
        Some(match (self, stream) {
            (_, StreamId::CameraRgb) => "camera-rgb",
            (_, StreamId::CameraEt) => "camera-et-left",
            (_, StreamId::CameraEtRight) => "camera-et-right",
            (_, StreamId::ImuLeft) => "imu-left",
            (_, StreamId::ImuRight) => "imu-right",
            (_, StreamId::Magnetometer) => "mag0",
            (_, StreamId::Barometer) => "baro0",
            (Generation::Gen1, StreamId::CameraSlamLeft) => "camera-slam-left",
            (Generation::Gen1, StreamId::CameraSlamRight) => "camera-slam-right",
            (Generation::Gen2, StreamId::CameraSlamLeft) => "slam-front-left",
            (Generation::Gen2, StreamId::CameraSlamRight) => "slam-front-right",
            (Generation::Gen2, StreamId::CameraSlamSideLeft) => "slam-side-left",
            (Generation::Gen2, StreamId::CameraSlamSideRight) => "slam-side-right",
            _ => return None,
        })
    }

    /// The name of a VRS stream that vista does not decode, as projectaria_tools labels it
    /// (`gps`, `ppg`, `bluetooth`, …), for listings.
    pub fn other_label(self, id: VrsStreamId) -> Option<&'static str> {
        Some(match (self, id.type_id, id.instance) {
            (Generation::Gen1, 281, 1) | (Generation::Gen2, 281, 2) => "gps",
            (Generation::Gen1, 281, 2) | (Generation::Gen2, 281, 1) => "gps-app",
            (_, 282, 1) => "wps",
            (_, 283, 1) => "bluetooth",
            (Generation::Gen2, 246, 1) => "temperature",
            (Generation::Gen2, 248, 1) => "ppg",
            (Generation::Gen2, 500, 1) => "als",
            (Generation::Gen2, 241, 1) => "emg",
            (Generation::Gen2, 502, 1) => "battery-status",
            _ => return None,
        })
    }
}

impl fmt::Display for Generation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Generation::Gen1 => "Aria Gen1",
            Generation::Gen2 => "Aria Gen2",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oatmeal_is_gen2_and_anything_else_gen1() {
        assert_eq!(Generation::from_device_class("Oatmeal"), Generation::Gen2);
        assert_eq!(Generation::from_device_class("Aria"), Generation::Gen1);
        assert_eq!(Generation::from_device_class(""), Generation::Gen1);
        assert_eq!(Generation::Gen2.default_origin_label(), "slam-front-left");
    }

    #[test]
    fn gen2_swaps_the_imus_and_tells_poses_apart_by_flavor() {
        let id = |t, i| VrsStreamId::new(t, i);
        let g1 = Generation::Gen1;
        let g2 = Generation::Gen2;
        assert_eq!(g1.stream_of(id(1202, 1), ""), Some(StreamId::ImuRight));
        assert_eq!(g2.stream_of(id(1202, 1), ""), Some(StreamId::ImuLeft));
        assert_eq!(
            g2.stream_of(id(1201, 3), ""),
            Some(StreamId::CameraSlamSideLeft)
        );
        assert_eq!(g1.stream_of(id(1201, 3), ""), None);
        assert_eq!(
            g2.stream_of(id(371, 3), FLAVOR_VIO_HIGH_FREQUENCY),
            Some(StreamId::DevicePose)
        );
        assert_eq!(
            g2.stream_of(id(371, 2), FLAVOR_VIO),
            Some(StreamId::DeviceVio)
        );
        assert_eq!(
            g2.stream_of(id(371, 1), FLAVOR_HAND),
            Some(StreamId::HandTracking)
        );
        assert_eq!(g2.stream_of(id(371, 4), "device/oatmeal/new"), None);
        assert_eq!(g2.stream_of(id(373, 1), ""), Some(StreamId::EyeGaze));
        assert_eq!(g1.stream_of(id(373, 1), ""), None);
        assert_eq!(
            g2.sensor_label(StreamId::CameraSlamLeft),
            Some("slam-front-left")
        );
        assert_eq!(
            g1.sensor_label(StreamId::CameraSlamLeft),
            Some("camera-slam-left")
        );
        assert_eq!(g2.other_label(id(248, 1)), Some("ppg"));
    }
}
