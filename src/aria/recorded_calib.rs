//! The device calibration of a recording, with every camera calibrated for the resolution
//! actually recorded in that file (the RGB factory calibration is for the full sensor, Gen1
//! 2880×2880 and Gen2 4032×3024; 1408×1408 or 2016×1512 streams need it rescaled as
//! projectaria_tools does).

use crate::aria::calib::{CalibError, CalibSource, DeviceCalibration};
use crate::aria::generation::Generation;
use crate::aria::recording::AriaRecording;
use crate::sample::StreamId;

/// `(calibration label, width, height)` of every camera image the recording stores.
///
/// Gen1's eye-tracking stream holds both eyes side by side in one frame, so each eye's camera
/// gets half the frame's width; Gen2 records each eye in its own stream.
pub fn recorded_camera_sizes(rec: &AriaRecording) -> Vec<(String, u32, u32)> {
    let generation = rec.generation();
    let mut out = Vec::new();
    for stream in rec.known_streams() {
        let (Some(label), Some((w, h))) = (
            rec.sensor_label(stream),
            stream.is_camera().then(|| rec.image_size(stream)).flatten(),
        ) else {
            continue;
        };
        if generation == Generation::Gen1 && stream == StreamId::CameraEt {
            out.push(("camera-et-left".to_string(), w / 2, h));
            out.push(("camera-et-right".to_string(), w / 2, h));
        } else {
            out.push((label.to_string(), w, h));
        }
    }
    out
}

/// The recording's device calibration (file tag `calib_json`) rescaled to the recorded
/// image sizes, or `None` when the recording carries no calibration.
pub fn recording_calibration(rec: &AriaRecording) -> Result<Option<DeviceCalibration>, CalibError> {
    let Some(json) = rec.calib_json() else {
        return Ok(None);
    };
    let source = CalibSource::Named(format!("{}: calib_json tag", rec.vrs().path().display()));
    let calib = DeviceCalibration::from_json_str_with_source(json, source)?;
    calib
        .with_recorded_sizes(&recorded_camera_sizes(rec))
        .map(Some)
}
