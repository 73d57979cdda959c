//! From a pixel of the RGB image to a clock direction: unproject the pixel to a ray in the
//! camera frame, rotate it into the central pupil frame (CPF: x left, y up, z forward, the
//! head's own frame), and take its horizontal bearing `atan2(x, z)`, positive to the left.
//! Without a gravity estimate the head's horizontal plane stands in for the floor plane.

use nalgebra::{Isometry3, Point2, Vector3};

use crate::aria::calib::{CameraCalibration, DeviceCalibration};
use crate::state::{bearing_to_clock, ClockHour};

/// The RGB camera's calibration and its pose in the central pupil frame.
#[derive(Clone, Debug, PartialEq)]
pub struct RgbGeometry {
    camera: CameraCalibration,
    t_cpf_camera: Isometry3<f64>,
}

impl RgbGeometry {
    /// The camera `label` (normally `camera-rgb`, calibrated for the recorded resolution:
    /// see `aria::recorded_calib`) of a device calibration; `None` when it has no such camera.
    pub fn from_device(calib: &DeviceCalibration, label: &str) -> Option<Self> {
        let camera = calib.camera(label)?.clone();
        let t_cpf_camera = calib.t_device_cpf().inverse() * camera.t_device_camera;
        Some(Self {
            camera,
            t_cpf_camera,
        })
    }

    /// The camera calibration.
    pub fn camera(&self) -> &CameraCalibration {
        &self.camera
    }

    /// The ray through pixel `px` (recorded image), unit length, in the CPF; `None` outside
    /// the valid image region.
    pub fn ray_cpf(&self, px: [f32; 2]) -> Option<Vector3<f64>> {
        let ray = self
            .camera
            .unproject(&Point2::new(f64::from(px[0]), f64::from(px[1])))?;
        Some(self.t_cpf_camera.rotation * ray)
    }

    /// The horizontal bearing of pixel `px`, degrees, positive to the left; `None` outside
    /// the valid image region or for a ray straight up or down.
    pub fn bearing_left_deg(&self, px: [f32; 2]) -> Option<f32> {
        let r = self.ray_cpf(px)?;
        if r.x.hypot(r.z) < 1e-6 {
            return None;
        }
        Some(r.x.atan2(r.z).to_degrees() as f32)
    }

    /// The clock hour of pixel `px`.
    pub fn clock(&self, px: [f32; 2]) -> Option<ClockHour> {
        self.bearing_left_deg(px).map(bearing_to_clock)
    }
}
