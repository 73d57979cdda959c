//! [`StereoError`]: what can go wrong building or running stereo depth; each variant names
//! the camera, the frame or the setting at fault.

/// Stereo depth could not be set up or computed.
#[derive(Debug, thiserror::Error)]
pub enum StereoError {
    /// The calibration has no camera with this label.
    #[error(
        "calibration has no camera {label:?} (stereo needs camera-slam-left and camera-slam-right)"
    )]
    MissingCamera {
        /// The missing camera's label.
        label: String,
    },
    /// A calibration value is NaN or infinite.
    #[error("camera {label:?}: {what} is not finite")]
    NonFiniteCalibration {
        /// The camera.
        label: String,
        /// Which value.
        what: &'static str,
    },
    /// The two camera centres coincide: there is no baseline.
    #[error("cameras {left:?} and {right:?} are {baseline_m} m apart: no stereo baseline")]
    NoBaseline {
        /// Left camera label.
        left: String,
        /// Right camera label.
        right: String,
        /// Their distance, m.
        baseline_m: f64,
    },
    /// No rectified pixel is seen by both cameras.
    #[error("cameras {left:?} and {right:?} share no field of view in the rectified image")]
    NoOverlap {
        /// Left camera label.
        left: String,
        /// Right camera label.
        right: String,
    },
    /// A configuration value is out of range.
    #[error("stereo config: {field} = {value}: {reason}")]
    BadConfig {
        /// The field.
        field: &'static str,
        /// Its value, as text.
        value: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// An image's size differs from the one its camera is calibrated for.
    #[error("frame at {capture_ns} ns, {label}: image is {width}x{height} px, calibration is for {expected_width}x{expected_height}")]
    SizeMismatch {
        /// Capture time of the pair, device ns.
        capture_ns: i64,
        /// The camera.
        label: String,
        /// Image width, px.
        width: u32,
        /// Image height, px.
        height: u32,
        /// Calibrated width, px.
        expected_width: u32,
        /// Calibrated height, px.
        expected_height: u32,
    },
    /// An image's pixel buffer does not hold `width × height` bytes of greyscale.
    #[error("frame at {capture_ns} ns, {label}: {reason}")]
    BadImage {
        /// Capture time of the pair, device ns.
        capture_ns: i64,
        /// The camera.
        label: String,
        /// What is wrong.
        reason: String,
    },
}
