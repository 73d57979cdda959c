//! The device calibration of a recording, with every camera calibrated for the resolution
//! actually recorded in that file (the Gen1 RGB factory calibration is for the full
//! 2880×2880 sensor; 1408×1408 streams need it rescaled as projectaria_tools does).

use crate::aria::calib::{CalibError, CalibSource, DeviceCalibration};
use crate::aria::recording::AriaRecording;
use crate::sample::StreamId;

/// `(calibration label, width, height)` of every camera image the recording stores.
///
/// The eye-tracking stream holds both eyes side by side in one frame, so each eye's camera
/// gets half the frame's width.
pub fn recorded_camera_sizes(rec: &AriaRecording) -> Vec<(String, u32, u32)> {
    let mut out = Vec::new();
    let mut add = |label: &str, size: Option<(u32, u32)>| {
        if let Some((w, h)) = size {
            out.push((label.to_string(), w, h));
        }
    };
    add("camera-rgb", rec.image_size(StreamId::CameraRgb));
    add("camera-slam-left", rec.image_size(StreamId::CameraSlamLeft));
    add(
        "camera-slam-right",
        rec.image_size(StreamId::CameraSlamRight),
    );
    let et = rec.image_size(StreamId::CameraEt).map(|(w, h)| (w / 2, h));
    add("camera-et-left", et);
    add("camera-et-right", et);
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
