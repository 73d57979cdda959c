//! Rectification (pure): a virtual pinhole pair built from the two calibrated fisheye SLAM
//! cameras. Both virtual cameras share one orientation — x along the baseline (left camera
//! centre → right camera centre), z the mean of the two optical axes made orthogonal to it,
//! y = z × x — and one set of intrinsics, so a 3-D point lands on the same row in both
//! rectified images and its disparity `u_left − u_right = f·B / z`. Each virtual camera
//! keeps its fisheye's centre. The remap tables ([`RemapTable`]) are built once from the
//! session's calibration; a rectified pixel either fisheye cannot see is invalid.

use nalgebra::{Matrix3, Point3, Rotation3, Vector3};

use super::error::StereoError;
use super::remap::RemapTable;
use crate::aria::calib::{CameraCalibration, DeviceCalibration};

/// Shortest baseline accepted, m (Aria Gen1 SLAM cameras are ≈ 0.14 m apart).
const MIN_BASELINE_M: f64 = 0.01;

/// Size and focal length of the rectified images.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RectifyConfig {
    /// Rectified width, px.
    pub width_px: u32,
    /// Rectified height, px.
    pub height_px: u32,
    /// Focal length of the virtual pinhole cameras, px (the principal point is the image
    /// centre).
    pub focal_px: f64,
}

impl Default for RectifyConfig {
    /// 320 × 256 px at f = 180 px: 83° × 71° around the mean viewing direction, which
    /// covers the SLAM cameras' overlap in front of the wearer (their axes diverge by ≈ 76°)
    /// at about 3/4 of their native resolution at the centre of the overlap.
    fn default() -> Self {
        Self {
            width_px: 320,
            height_px: 256,
            focal_px: 180.0,
        }
    }
}

/// Which camera of the pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// `camera-slam-left` (the reference image).
    Left,
    /// `camera-slam-right`.
    Right,
}

/// The rectified pair's geometry: shared intrinsics, shared orientation, two centres.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StereoGeometry {
    /// Rectified width, px.
    pub width_px: u32,
    /// Rectified height, px.
    pub height_px: u32,
    /// Focal length, px.
    pub focal_px: f64,
    /// Principal point u, px.
    pub cu_px: f64,
    /// Principal point v, px.
    pub cv_px: f64,
    /// Distance between the camera centres, m.
    pub baseline_m: f64,
    /// Orientation of the rectified frame in the device frame.
    pub r_device_rect: Rotation3<f64>,
    /// Left camera centre, device frame, m.
    pub left_centre_m: Vector3<f64>,
    /// Right camera centre, device frame, m.
    pub right_centre_m: Vector3<f64>,
}

impl StereoGeometry {
    /// The centre of one camera, device frame.
    pub fn centre_m(&self, side: Side) -> Vector3<f64> {
        match side {
            Side::Left => self.left_centre_m,
            Side::Right => self.right_centre_m,
        }
    }

    /// A device-frame point in one rectified camera: `(u, v, z)` with `z` the depth along
    /// the rectified axis, m; `None` behind the camera.
    pub fn project(&self, side: Side, p_device: &Point3<f64>) -> Option<[f64; 3]> {
        let p = self.r_device_rect.inverse() * (p_device.coords - self.centre_m(side));
        (p.z > 0.0).then(|| {
            [
                self.focal_px * p.x / p.z + self.cu_px,
                self.focal_px * p.y / p.z + self.cv_px,
                p.z,
            ]
        })
    }

    /// The device-frame point seen at left rectified pixel `(u, v)` at depth `z_m` along
    /// the rectified axis.
    pub fn unproject_left(&self, u: f64, v: f64, z_m: f64) -> Point3<f64> {
        let p = Vector3::new(
            (u - self.cu_px) * z_m / self.focal_px,
            (v - self.cv_px) * z_m / self.focal_px,
            z_m,
        );
        Point3::from(self.left_centre_m + self.r_device_rect * p)
    }

    /// Depth along the rectified axis for a disparity, m (`f·B / d`).
    pub fn depth_m(&self, disparity_px: f64) -> f64 {
        self.focal_px * self.baseline_m / disparity_px
    }
}

/// The rectified pair: geometry and one remap table per camera.
#[derive(Debug, Clone)]
pub struct Rectification {
    /// The shared geometry.
    pub geometry: StereoGeometry,
    /// Left rectified pixel → left fisheye pixel.
    pub left_map: RemapTable,
    /// Right rectified pixel → right fisheye pixel.
    pub right_map: RemapTable,
    /// Left camera label.
    pub left_label: String,
    /// Right camera label.
    pub right_label: String,
}

/// The left and right cameras of `calib`'s stereo pair, or which one it lacks.
pub fn slam_cameras(
    calib: &DeviceCalibration,
) -> Result<(&CameraCalibration, &CameraCalibration), StereoError> {
    let cam = |label: &str| {
        calib
            .camera(label)
            .ok_or_else(|| StereoError::MissingCamera {
                label: label.to_string(),
            })
    };
    let (left, right) = super::stage::pair_labels(calib);
    Ok((cam(&left)?, cam(&right)?))
}

fn finite(label: &str, what: &'static str, values: &[f64]) -> Result<(), StereoError> {
    if values.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(StereoError::NonFiniteCalibration {
            label: label.to_string(),
            what,
        })
    }
}

fn check_camera(cam: &CameraCalibration) -> Result<(), StereoError> {
    let l = cam.label.as_str();
    finite(l, "intrinsics", &cam.model.params())?;
    let t = &cam.t_device_camera;
    finite(l, "translation", t.translation.vector.as_slice())?;
    finite(l, "rotation", t.rotation.coords.as_slice())?;
    finite(
        l,
        "valid radius",
        &[
            cam.valid_radius_px.unwrap_or(0.0),
            cam.max_solid_angle_rad.unwrap_or(0.0),
        ],
    )?;
    let [fu, fv] = cam.model.focal_lengths_px();
    if fu > 0.0 && fv > 0.0 && cam.image_width >= 2 && cam.image_height >= 2 {
        Ok(())
    } else {
        Err(StereoError::NonFiniteCalibration {
            label: l.to_string(),
            what: "focal length or image size (must be positive)",
        })
    }
}

fn check_config(cfg: &RectifyConfig) -> Result<(), StereoError> {
    let bad = |field, value: String, reason| StereoError::BadConfig {
        field,
        value,
        reason,
    };
    if !(cfg.focal_px.is_finite() && cfg.focal_px > 0.0) {
        return Err(bad(
            "focal_px",
            cfg.focal_px.to_string(),
            "must be finite and positive",
        ));
    }
    for (field, v) in [("width_px", cfg.width_px), ("height_px", cfg.height_px)] {
        if !(16..=4096).contains(&v) {
            return Err(bad(field, v.to_string(), "must be within 16..=4096"));
        }
    }
    Ok(())
}

impl Rectification {
    /// The rectified pair of `camera-slam-left` and `camera-slam-right` of `calib`
    /// (calibrated for the recorded image size: see `crate::aria::recorded_calib`).
    pub fn slam_pair(calib: &DeviceCalibration, cfg: &RectifyConfig) -> Result<Self, StereoError> {
        let (left, right) = slam_cameras(calib)?;
        Self::new(left, right, cfg)
    }

    /// Builds the rectified pair of `left` and `right` (calibrated for the image size that
    /// will be fed in).
    pub fn new(
        left: &CameraCalibration,
        right: &CameraCalibration,
        cfg: &RectifyConfig,
    ) -> Result<Self, StereoError> {
        check_config(cfg)?;
        check_camera(left)?;
        check_camera(right)?;
        let c_l = left.t_device_camera.translation.vector;
        let c_r = right.t_device_camera.translation.vector;
        let b = c_r - c_l;
        let baseline_m = b.norm();
        let no_overlap = || StereoError::NoOverlap {
            left: left.label.clone(),
            right: right.label.clone(),
        };
        if baseline_m < MIN_BASELINE_M {
            return Err(StereoError::NoBaseline {
                left: left.label.clone(),
                right: right.label.clone(),
                baseline_m,
            });
        }
        let x = b / baseline_m;
        let z_mean = left.t_device_camera.rotation * Vector3::z()
            + right.t_device_camera.rotation * Vector3::z();
        let z = (z_mean - x * x.dot(&z_mean))
            .try_normalize(1e-9)
            .ok_or_else(no_overlap)?;
        let y = z.cross(&x);
        let r_device_rect = Rotation3::from_matrix_unchecked(Matrix3::from_columns(&[x, y, z]));
        let geometry = StereoGeometry {
            width_px: cfg.width_px,
            height_px: cfg.height_px,
            focal_px: cfg.focal_px,
            cu_px: (f64::from(cfg.width_px) - 1.0) / 2.0,
            cv_px: (f64::from(cfg.height_px) - 1.0) / 2.0,
            baseline_m,
            r_device_rect,
            left_centre_m: c_l,
            right_centre_m: c_r,
        };
        let left_map = remap_for(&geometry, left);
        let right_map = remap_for(&geometry, right);
        let both = left_map
            .valid_mask()
            .iter()
            .zip(right_map.valid_mask())
            .filter(|(l, r)| **l && *r)
            .count();
        if both == 0 {
            return Err(no_overlap());
        }
        Ok(Self {
            geometry,
            left_map,
            right_map,
            left_label: left.label.clone(),
            right_label: right.label.clone(),
        })
    }
}

/// The table sending each rectified pixel of `cam`'s virtual camera to its fisheye pixel.
fn remap_for(g: &StereoGeometry, cam: &CameraCalibration) -> RemapTable {
    let r_cam_rect = cam.t_device_camera.rotation.inverse().to_rotation_matrix() * g.r_device_rect;
    RemapTable::from_fn(
        g.width_px,
        g.height_px,
        cam.image_width,
        cam.image_height,
        |u, v| {
            let ray = Vector3::new(
                (f64::from(u) - g.cu_px) / g.focal_px,
                (f64::from(v) - g.cv_px) / g.focal_px,
                1.0,
            );
            cam.project(&(r_cam_rect * ray)).map(|p| [p.x, p.y])
        },
    )
}
