//! [`CameraCalibration`]: one camera's intrinsics, extrinsics and valid image region, with
//! projectaria_tools' validity rules (`CameraCalibration.cpp`): a point projects only when it
//! lies within the max solid angle of the optical axis and its pixel lies inside the image
//! (`[-0.5, W-0.5] × [-0.5, H-0.5]`, pixel centres at integers) and inside the valid radius
//! around the principal point.

use nalgebra::{Isometry3, Point2, Point3, Vector3};

use super::error::CalibError;
use super::model::CameraModel;

/// A camera's valid pixel region: image bounds and the valid radius.
#[derive(Debug, Clone, Copy)]
struct ValidRegion {
    u_max: f64,
    v_max: f64,
    cu: f64,
    cv: f64,
    radius_sq: Option<f64>,
}

impl ValidRegion {
    #[inline(always)]
    fn contains(&self, uv: &Point2<f64>) -> bool {
        let in_bounds = uv.x >= -0.5 && uv.y >= -0.5 && uv.x <= self.u_max && uv.y <= self.v_max;
        in_bounds
            && self.radius_sq.is_none_or(|r_sq| {
                let (du, dv) = (uv.x - self.cu, uv.y - self.cv);
                du * du + dv * dv <= r_sq
            })
    }
}

/// Calibration of one camera.
#[derive(Debug, Clone, PartialEq)]
pub struct CameraCalibration {
    /// Sensor label, e.g. `camera-rgb`.
    pub label: String,
    /// Camera serial number (empty when unknown).
    pub serial_number: String,
    /// Intrinsics.
    pub model: CameraModel,
    /// Pose of the camera in the device frame: `p_device = t_device_camera · p_camera`.
    pub t_device_camera: Isometry3<f64>,
    /// Image width the intrinsics refer to, pixels.
    pub image_width: u32,
    /// Image height the intrinsics refer to, pixels.
    pub image_height: u32,
    /// Radius around the principal point outside which pixels are invalid, pixels.
    pub valid_radius_px: Option<f64>,
    /// Max angle from the optical axis of a projectable point, radians.
    pub max_solid_angle_rad: Option<f64>,
    /// Time offset device − camera (`TimeOffsetSec_Device_Camera`), seconds.
    pub time_offset_s: f64,
    /// Rolling-shutter readout time, seconds (MPS online calibration `ReadoutTimesSec`;
    /// `None` in factory calibration).
    pub readout_time_s: Option<f64>,
}

impl CameraCalibration {
    /// The valid image region as plain numbers (hoisted out of per-point loops).
    #[inline]
    fn region(&self) -> ValidRegion {
        let [cu, cv] = self.model.principal_point_px();
        ValidRegion {
            u_max: f64::from(self.image_width) - 0.5,
            v_max: f64::from(self.image_height) - 0.5,
            cu,
            cv,
            radius_sq: self.valid_radius_px.map(|r| r * r),
        }
    }

    /// True when a pixel lies inside the image and the valid radius (projectaria_tools'
    /// `isVisible`).
    #[inline]
    pub fn is_visible(&self, uv: &Point2<f64>) -> bool {
        self.region().contains(uv)
    }

    /// True when a camera-frame point lies within the max solid angle of the optical axis
    /// (`atan2(√(x²+y²), z) <= max`).
    #[inline]
    pub fn in_visible_cone(&self, p_cam: &Vector3<f64>) -> bool {
        self.max_solid_angle_rad.is_none_or(|max| {
            let angle = (p_cam.x * p_cam.x + p_cam.y * p_cam.y)
                .sqrt()
                .atan2(p_cam.z);
            angle <= max
        })
    }

    /// Projection with the cone test but without the region test.
    #[inline(always)]
    fn project_in_cone(&self, p_cam: &Vector3<f64>) -> Option<Point2<f64>> {
        let max = self.max_solid_angle_rad.unwrap_or(f64::INFINITY);
        match &self.model {
            // The fisheye models compute the angle anyway: test it there, once. (Fisheye624
            // uses atan(r/z), which can differ from atan2 by an ulp exactly at the cone edge.)
            CameraModel::Fisheye624(m) => m.project_within_angle(p_cam, max),
            CameraModel::KannalaBrandtK3(m) => m.project_within_angle(p_cam, max),
            model => {
                if self.in_visible_cone(p_cam) {
                    model.project(p_cam)
                } else {
                    None
                }
            }
        }
    }

    /// Projects a camera-frame point (metres) to a pixel; `None` when behind the camera,
    /// outside the max solid angle, or outside the valid image region.
    #[inline]
    pub fn project(&self, p_cam: &Vector3<f64>) -> Option<Point2<f64>> {
        self.project_in_cone(p_cam)
            .filter(|uv| self.region().contains(uv))
    }

    /// Projects many camera-frame points: `out[i] = self.project(&points[i])` for
    /// `i < min(points.len(), out.len())`.
    pub fn project_batch(&self, points: &[Vector3<f64>], out: &mut [Option<Point2<f64>>]) {
        let region = self.region();
        let max = self.max_solid_angle_rad.unwrap_or(f64::INFINITY);
        match &self.model {
            CameraModel::Fisheye624(m) => {
                for (o, p) in out.iter_mut().zip(points) {
                    *o = m
                        .project_within_angle(p, max)
                        .filter(|uv| region.contains(uv));
                }
            }
            _ => {
                for (o, p) in out.iter_mut().zip(points) {
                    *o = self.project_in_cone(p).filter(|uv| region.contains(uv));
                }
            }
        }
    }

    /// Projects a device-frame point (metres) to a pixel, with the same checks as
    /// [`Self::project`].
    pub fn project_device(&self, p_device: &Point3<f64>) -> Option<Point2<f64>> {
        let p_cam = self.t_device_camera.inverse_transform_point(p_device);
        self.project(&p_cam.coords)
    }

    /// The unit ray (camera frame) through a pixel; `None` when the pixel is outside the
    /// valid image region or the ray is not finite.
    pub fn unproject(&self, uv: &Point2<f64>) -> Option<Vector3<f64>> {
        if self.is_visible(uv) {
            self.model.unproject(uv)
        } else {
            None
        }
    }

    /// A copy for a cropped and scaled image: the origin moves by `origin_offset_px`, then
    /// everything scales by `scale` (projectaria_tools' `CameraCalibration::rescale`). The new
    /// size must equal `(old − 2·offset)·scale` within 1e-5 px.
    pub fn rescale(
        &self,
        width: u32,
        height: u32,
        scale: f64,
        origin_offset_px: [f64; 2],
    ) -> Result<Self, CalibError> {
        const TOLERANCE_PX: f64 = 1e-5;
        let expect_w = (f64::from(self.image_width) - 2.0 * origin_offset_px[0]) * scale;
        let expect_h = (f64::from(self.image_height) - 2.0 * origin_offset_px[1]) * scale;
        let ok = scale.is_finite()
            && scale > 0.0
            && (expect_w - f64::from(width)).abs() <= TOLERANCE_PX
            && (expect_h - f64::from(height)).abs() <= TOLERANCE_PX;
        if !ok {
            return Err(self.rescale_error(
                width,
                height,
                format!(
                    "scale {scale} with origin offset ({}, {}) gives {expect_w}x{expect_h}",
                    origin_offset_px[0], origin_offset_px[1]
                ),
            ));
        }
        Ok(self.rescaled_by(width, height, scale, origin_offset_px))
    }

    /// [`Self::rescale`] without the size check, for Aria's own size rules whose crop is not
    /// centred or whose scale is rounded (Gen2 RGB 4032×3024 → 2560×3024 moves the origin by
    /// 640 px; → 2560×1920 scales by 0.635), exactly as projectaria_tools applies them.
    pub(crate) fn rescaled_by(
        &self,
        width: u32,
        height: u32,
        scale: f64,
        origin_offset_px: [f64; 2],
    ) -> Self {
        let mut out = self.clone();
        out.model
            .subtract_from_origin(origin_offset_px[0], origin_offset_px[1]);
        out.model.scale(scale);
        out.valid_radius_px = self.valid_radius_px.map(|r| r * scale);
        out.image_width = width;
        out.image_height = height;
        out
    }

    pub(crate) fn rescale_error(&self, width: u32, height: u32, reason: String) -> CalibError {
        CalibError::Rescale {
            label: self.label.clone(),
            from_width: self.image_width,
            from_height: self.image_height,
            to_width: width,
            to_height: height,
            reason,
        }
    }
}
