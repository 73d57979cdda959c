//! [`StereoDepth`]: the stereo stage (pure, synchronous): a decoded left/right SLAM pair →
//! rectify → match → triangulate → [`DepthFrame`] (device-frame points). Every buffer is
//! allocated once (the cost volume is 320·256·64 u16 = 10.5 MB at the defaults). One
//! pair measured 71 ms median on one core of a loaded 2-core VM (load ≈ 14), decode
//! included (`cargo bench --bench stereo`).

use nalgebra::{Isometry3, Point3};

use super::error::StereoError;
use super::matcher::{MatchConfig, MatchStats, Matcher};
use super::rectify::{Rectification, RectifyConfig};
use super::triangulate::{triangulate, TriangulateConfig, TriangulateStats};
use crate::aria::calib::{CameraCalibration, DeviceCalibration};
use crate::aria::recording::image::{decode_image, DecodedImage};
use crate::sample::{ImageFrame, StreamId};

/// The calibration labels of the stereo pair (`camera-slam-left` and `camera-slam-right` on
/// Gen1; on Gen2 the pair the calibration picks, [`DeviceCalibration::stereo_pair`]), which
/// a recording streams as `camera-slam-left` and `camera-slam-right`.
pub fn pair_labels(calib: &DeviceCalibration) -> (String, String) {
    calib.stereo_pair().map_or_else(
        || {
            // No pair the calibration can vouch for: the generation's usual two.
            let label = |s| {
                calib
                    .generation
                    .sensor_label(s)
                    .unwrap_or_default()
                    .to_string()
            };
            (
                label(StreamId::CameraSlamLeft),
                label(StreamId::CameraSlamRight),
            )
        },
        |p| (p.left, p.right),
    )
}

/// Settings of the whole stage.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StereoConfig {
    /// Rectified image size and focal length.
    pub rectify: RectifyConfig,
    /// Block matching.
    pub matcher: MatchConfig,
    /// Which points are kept.
    pub points: TriangulateConfig,
}

/// A borrowed greyscale image, row-major, `width × height` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GreyView<'a> {
    /// Width, px.
    pub width: u32,
    /// Height, px.
    pub height: u32,
    /// Pixels.
    pub pixels: &'a [u8],
}

impl<'a> GreyView<'a> {
    /// A view of a decoded image (any channel count; checked when processed).
    pub fn of(img: &'a DecodedImage) -> (Self, u8) {
        (
            Self {
                width: img.width,
                height: img.height,
                pixels: &img.pixels,
            },
            img.channels,
        )
    }
}

/// What happened in one pair.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct DepthStats {
    /// Rectified pixels both cameras see.
    pub overlap_px: u32,
    /// Matching counts.
    pub matching: MatchStats,
    /// Triangulation counts.
    pub points: TriangulateStats,
}

/// Depth of one pair: points in the device frame.
#[derive(Debug, Clone, PartialEq)]
pub struct DepthFrame {
    /// Capture time of the left frame, device ns.
    pub capture_ns: i64,
    /// Points, device frame, m.
    pub points_device: Vec<[f32; 3]>,
    /// Counts.
    pub stats: DepthStats,
}

impl DepthFrame {
    /// The points in the world frame, given the device pose at [`Self::capture_ns`]
    /// (`T_world_device`, e.g. the MPS trajectory's, or `T_world_cpf · T_device_cpf⁻¹`).
    pub fn to_world(&self, t_world_device: &Isometry3<f64>) -> Vec<[f32; 3]> {
        self.points_device
            .iter()
            .map(|p| {
                let w =
                    t_world_device * Point3::new(f64::from(p[0]), f64::from(p[1]), f64::from(p[2]));
                [w.x as f32, w.y as f32, w.z as f32]
            })
            .collect()
    }
}

/// Stereo depth for one calibrated pair of cameras.
#[derive(Debug, Clone)]
pub struct StereoDepth {
    cfg: StereoConfig,
    rect: Rectification,
    left_valid: Vec<bool>,
    right_valid: Vec<bool>,
    overlap_px: u32,
    matcher: Matcher,
    rect_left: Vec<u8>,
    rect_right: Vec<u8>,
}

impl StereoDepth {
    /// The stage for `camera-slam-left` / `camera-slam-right` of `calib` (calibrated for the
    /// recorded image size: see `crate::aria::recorded_calib`).
    pub fn new(calib: &DeviceCalibration, cfg: StereoConfig) -> Result<Self, StereoError> {
        let (left, right) = super::rectify::slam_cameras(calib)?;
        Self::from_cameras(left, right, cfg)
    }

    /// The stage for any two calibrated cameras (`left` is the reference image; the
    /// rectified x axis runs from its centre to `right`'s).
    pub fn from_cameras(
        left: &CameraCalibration,
        right: &CameraCalibration,
        cfg: StereoConfig,
    ) -> Result<Self, StereoError> {
        let p = &cfg.points;
        if !(p.min_depth_m.is_finite()
            && p.max_depth_m.is_finite()
            && p.min_depth_m > 0.0
            && p.max_depth_m > p.min_depth_m)
        {
            return Err(StereoError::BadConfig {
                field: "points.min_depth_m / max_depth_m",
                value: format!("{} / {}", p.min_depth_m, p.max_depth_m),
                reason: "must be finite with 0 < min < max",
            });
        }
        let rect = Rectification::new(left, right, &cfg.rectify)?;
        let g = &rect.geometry;
        let matcher = Matcher::new(g.width_px, g.height_px, cfg.matcher)?;
        let left_valid = rect.left_map.valid_mask();
        let right_valid = rect.right_map.valid_mask();
        let overlap_px = left_valid
            .iter()
            .zip(&right_valid)
            .filter(|(l, r)| **l && **r)
            .count() as u32;
        Ok(Self {
            cfg,
            rect,
            left_valid,
            right_valid,
            overlap_px,
            matcher,
            rect_left: Vec::new(),
            rect_right: Vec::new(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &StereoConfig {
        &self.cfg
    }

    /// The rectification (geometry and remap tables).
    pub fn rectification(&self) -> &Rectification {
        &self.rect
    }

    /// The last rectified pair `(left, right)`, row-major at the rectified size.
    pub fn rectified(&self) -> (&[u8], &[u8]) {
        (&self.rect_left, &self.rect_right)
    }

    /// Disparities of the last pair (left rectified image, row-major, NaN where none), px.
    pub fn disparity(&self) -> &[f32] {
        self.matcher.disparity()
    }

    fn check(
        &self,
        capture_ns: i64,
        label: &str,
        img: &GreyView<'_>,
        size: (u32, u32),
    ) -> Result<(), StereoError> {
        if (img.width, img.height) != size {
            return Err(StereoError::SizeMismatch {
                capture_ns,
                label: label.to_string(),
                width: img.width,
                height: img.height,
                expected_width: size.0,
                expected_height: size.1,
            });
        }
        let want = img.width as usize * img.height as usize;
        if img.pixels.len() != want {
            return Err(StereoError::BadImage {
                capture_ns,
                label: label.to_string(),
                reason: format!(
                    "{} bytes for a {}x{} greyscale image ({want} expected)",
                    img.pixels.len(),
                    img.width,
                    img.height
                ),
            });
        }
        Ok(())
    }

    /// Depth of one decoded greyscale pair captured at `capture_ns`, both exposed alike.
    pub fn process(
        &mut self,
        capture_ns: i64,
        left: GreyView<'_>,
        right: GreyView<'_>,
    ) -> Result<DepthFrame, StereoError> {
        self.process_exposed(capture_ns, left, right, 1.0)
    }

    /// [`Self::process`] for a pair whose cameras were exposed differently: the right
    /// image's levels are multiplied by `right_to_left` (the left frame's exposure × gain
    /// over the right's; see [`exposure_ratio`]) before matching, so that the intensity
    /// term compares like with like. Each SLAM camera sets its own exposure, and when one
    /// looks at a bright wall and the other at a dim street the two differ by half.
    pub fn process_exposed(
        &mut self,
        capture_ns: i64,
        left: GreyView<'_>,
        right: GreyView<'_>,
        right_to_left: f32,
    ) -> Result<DepthFrame, StereoError> {
        self.check(
            capture_ns,
            &self.rect.left_label,
            &left,
            self.rect.left_map.source_size(),
        )?;
        self.check(
            capture_ns,
            &self.rect.right_label,
            &right,
            self.rect.right_map.source_size(),
        )?;
        self.rect.left_map.apply(left.pixels, &mut self.rect_left);
        self.rect
            .right_map
            .apply(right.pixels, &mut self.rect_right);
        if (right_to_left - 1.0).abs() > EXPOSURE_SAME {
            let lut = brightness_lut(right_to_left);
            for p in &mut self.rect_right {
                *p = lut[usize::from(*p)];
            }
        }
        let matching = self.matcher.compute(
            &self.rect_left,
            &self.left_valid,
            &self.rect_right,
            &self.right_valid,
        );
        let mut points_device = Vec::with_capacity(matching.matched_px as usize);
        let points = triangulate(
            self.matcher.disparity(),
            &self.rect.geometry,
            &self.cfg.points,
            &mut points_device,
        );
        Ok(DepthFrame {
            capture_ns,
            points_device,
            stats: DepthStats {
                overlap_px: self.overlap_px,
                matching,
                points,
            },
        })
    }

    /// Depth of one encoded pair (JPEG or raw grey8, as SLAM samples carry them): decode,
    /// then [`Self::process`].
    pub fn process_frames(
        &mut self,
        capture_ns: i64,
        left: &ImageFrame,
        right: &ImageFrame,
    ) -> Result<DepthFrame, StereoError> {
        let l = decode_grey(capture_ns, &self.rect.left_label, left)?;
        let r = decode_grey(capture_ns, &self.rect.right_label, right)?;
        self.process_exposed(
            capture_ns,
            GreyView::of(&l).0,
            GreyView::of(&r).0,
            exposure_ratio(left, right),
        )
    }
}

/// Exposure ratios closer to 1 than this are taken as equal.
const EXPOSURE_SAME: f32 = 0.01;
/// Most brightening or darkening the exposure ratio applies (beyond it the recorded
/// exposure is taken as wrong and the ratio as 1).
const MAX_EXPOSURE_RATIO: f32 = 8.0;

/// The left frame's exposure × gain over the right's: what the right frame's levels are
/// multiplied by to be exposed as the left (SLAM sensors respond linearly). 1 where either
/// frame's exposure is unknown (0), not finite, or the ratio is beyond
/// [`MAX_EXPOSURE_RATIO`] either way.
pub fn exposure_ratio(left: &ImageFrame, right: &ImageFrame) -> f32 {
    let (l, r) = (left.exposure_s * left.gain, right.exposure_s * right.gain);
    let ratio = l / r;
    if l > 0.0 && r > 0.0 && (1.0 / MAX_EXPOSURE_RATIO..=MAX_EXPOSURE_RATIO).contains(&ratio) {
        ratio
    } else {
        1.0
    }
}

/// Levels multiplied by `k`, rounded and clamped to `1..=255` (0, outside a camera's
/// image, stays 0).
fn brightness_lut(k: f32) -> [u8; 256] {
    let mut lut = [0u8; 256];
    for (v, out) in lut.iter_mut().enumerate().skip(1) {
        *out = (v as f32 * k).round().clamp(1.0, 255.0) as u8;
    }
    lut
}

/// Decodes a SLAM frame, refusing anything but one channel.
fn decode_grey(
    capture_ns: i64,
    label: &str,
    frame: &ImageFrame,
) -> Result<DecodedImage, StereoError> {
    let bad = |reason: String| StereoError::BadImage {
        capture_ns,
        label: label.to_string(),
        reason,
    };
    let img = decode_image(frame).map_err(|e| bad(format!("frame {}: {e}", frame.frame_number)))?;
    if img.channels != 1 {
        return Err(bad(format!(
            "frame {}: {} channels, stereo needs greyscale",
            frame.frame_number, img.channels
        )));
    }
    Ok(img)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Translation3, UnitQuaternion, Vector3};

    fn frame(exposure_s: f32, gain: f32) -> ImageFrame {
        ImageFrame {
            exposure_s,
            gain,
            ..ImageFrame::still(Vec::new())
        }
    }

    #[test]
    fn the_exposure_ratio_brings_the_right_frame_to_the_left_exposure() {
        let r = exposure_ratio(&frame(0.008, 2.0), &frame(0.004, 2.0));
        assert!((r - 2.0).abs() < 1e-6, "{r}");
        let r = exposure_ratio(&frame(0.005, 1.0), &frame(0.004, 5.0));
        assert!((r - 0.25).abs() < 1e-6, "{r}");
        // Unknown or absurd exposures: no correction.
        assert_eq!(exposure_ratio(&frame(0.0, 1.0), &frame(0.004, 1.0)), 1.0);
        assert_eq!(exposure_ratio(&frame(0.004, 1.0), &frame(0.0, 1.0)), 1.0);
        assert_eq!(
            exposure_ratio(&frame(f32::NAN, 1.0), &frame(0.004, 1.0)),
            1.0
        );
        assert_eq!(exposure_ratio(&frame(0.1, 1.0), &frame(0.001, 1.0)), 1.0);
        let lut = brightness_lut(1.5);
        assert_eq!((lut[0], lut[1], lut[100], lut[200]), (0, 2, 150, 255));
        assert_eq!(brightness_lut(0.1)[3], 1);
    }

    #[test]
    fn to_world_applies_the_pose() {
        let f = DepthFrame {
            capture_ns: 5,
            points_device: vec![[1.0, 0.0, 2.0]],
            stats: DepthStats::default(),
        };
        // 90° about z, then 10 m along x: (1, 0, 2) → (0, 1, 2) → (10, 1, 2).
        let pose = Isometry3::from_parts(
            Translation3::new(10.0, 0.0, 0.0),
            UnitQuaternion::from_axis_angle(&Vector3::z_axis(), std::f64::consts::FRAC_PI_2),
        );
        let w = f.to_world(&pose);
        for (a, b) in w[0].iter().zip([10.0f32, 1.0, 2.0]) {
            assert!((a - b).abs() < 1e-6, "{w:?}");
        }
    }
}
