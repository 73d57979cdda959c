//! Aria's image-size rules for camera calibrations (projectaria_tools
//! `loader/AriaCalibRescaleAndCrop.cpp`): factory calibrations are for the full sensor, while
//! recordings may store smaller images.
//!
//! * RGB 2880×2880 → 1408×1408: crop 32 px on each side, then scale 0.5.
//! * RGB 2880×2880 → 704×704: crop 32 px on each side, then scale 0.25.
//! * SLAM / eye-tracking 640×480 → 320×240: scale 0.5.
//! * Gen2 RGB 4032×3024 → 2016×1512: scale 0.5; → 2560×3024: crop 640 px on the left and
//!   right; → 2560×1920: scale 0.635.
//! * Gen2 eye-tracking 400×400 → 200×200: scale 0.5.
//! * Same size: unchanged.

use super::camera::CameraCalibration;
use super::error::CalibError;

/// One supported size change: from, to, origin offset (px), scale.
struct Rule {
    from: (u32, u32),
    to: (u32, u32),
    offset_px: [f64; 2],
    scale: f64,
}

const RULES: [Rule; 7] = [
    Rule {
        from: (2880, 2880),
        to: (1408, 1408),
        offset_px: [32.0, 32.0],
        scale: 0.5,
    },
    Rule {
        from: (2880, 2880),
        to: (704, 704),
        offset_px: [32.0, 32.0],
        scale: 0.25,
    },
    Rule {
        from: (640, 480),
        to: (320, 240),
        offset_px: [0.0, 0.0],
        scale: 0.5,
    },
    Rule {
        from: (4032, 3024),
        to: (2016, 1512),
        offset_px: [0.0, 0.0],
        scale: 0.5,
    },
    Rule {
        from: (4032, 3024),
        to: (2560, 3024),
        offset_px: [640.0, 0.0],
        scale: 1.0,
    },
    Rule {
        from: (4032, 3024),
        to: (2560, 1920),
        offset_px: [0.0, 0.0],
        scale: 0.635,
    },
    Rule {
        from: (400, 400),
        to: (200, 200),
        offset_px: [0.0, 0.0],
        scale: 0.5,
    },
];

impl CameraCalibration {
    /// This calibration for images of `width`×`height`, following Aria's rules (see the
    /// module doc); any other size change is an error naming both sizes.
    pub fn rescaled(&self, width: u32, height: u32) -> Result<Self, CalibError> {
        let from = (self.image_width, self.image_height);
        if from == (width, height) {
            return Ok(self.clone());
        }
        match RULES.iter().find(|r| r.from == from && r.to == (width, height)) {
            Some(r) => Ok(self.rescaled_by(width, height, r.scale, r.offset_px)),
            None => Err(self.rescale_error(
                width,
                height,
                "not an Aria size (supported: 2880x2880 -> 1408x1408 or 704x704, 640x480 -> 320x240, \
                 4032x3024 -> 2016x1512, 2560x3024 or 2560x1920, 400x400 -> 200x200)"
                    .to_string(),
            )),
        }
    }
}
