//! Camera frames of a session, rendered and JPEG-encoded: each frame depends only on the
//! static scene, the moving bodies at its time and the camera pose, so frames can be made
//! on any thread in any order ([`super::pipeline`] renders them ahead of the writer) and
//! the bytes do not depend on the number of threads.

use nalgebra::Isometry3;

use super::exposure::{auto_expose, Exposure};
use super::eyes::render_eyes_into;
use super::gaze::gaze_at;
use super::hands::{hand_cylinders, Reach};
use super::jpeg::{encode_grey, encode_rgb};
use super::people::{person_cylinders, vehicle_boxes};
use super::render::{
    render_grey16_threads, render_grey_threads, render_rgb_threads, RayTable, Scene,
};
use super::rng::SplitMix64;
use super::scenario::Scenario;
use super::sensors::NoiseSpec;
use super::trajectory::WearerPath;
use crate::aria::calib::CameraCalibration;
use crate::sample::{ImageEncoding, ImageFrame};

/// What a camera records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    /// Colour, ray cast, JPEG 4:2:0 (the RGB camera).
    Rgb,
    /// Luminance, ray cast (the SLAM cameras).
    Grey,
    /// Both eyes side by side, drawn from the gaze (the eye-tracking camera).
    Eyes,
}

/// One camera of the session.
#[derive(Debug, Clone)]
pub struct FrameCamera {
    /// What it records.
    pub kind: FrameKind,
    /// Calibration at the recorded resolution (unused for [`FrameKind::Eyes`]).
    pub calib: Option<CameraCalibration>,
    /// Its rays (empty for [`FrameKind::Eyes`]).
    pub rays: Option<RayTable>,
    /// Image width, pixels.
    pub width: u32,
    /// Image height, pixels.
    pub height: u32,
}

/// One rendered frame, encoded, with the exposure it was recorded at.
#[derive(Debug, Clone, PartialEq)]
pub struct EncodedFrame {
    /// JPEG bytes.
    pub jpeg: Vec<u8>,
    /// Its exposure ([`Exposure::BASE`] for the cameras without auto-exposure).
    pub exposure: Exposure,
}

impl EncodedFrame {
    /// The frame as a camera sample carries it (`width × height` JPEG, its exposure).
    pub fn image_frame(self, width: u32, height: u32, frame_number: u64) -> ImageFrame {
        ImageFrame {
            width,
            height,
            encoding: ImageEncoding::Jpeg,
            data: self.jpeg.into(),
            frame_number,
            exposure_s: self.exposure.exposure_s,
            gain: self.exposure.gain,
        }
    }
}

/// Everything a frame depends on besides its camera and time.
#[derive(Debug, Clone, Copy)]
pub struct FrameWorld<'a> {
    /// The scenario (people, vehicles, gaze targets).
    pub scenario: &'a Scenario,
    /// The wearer.
    pub path: &'a WearerPath,
    /// The wearer's reaches.
    pub reaches: &'a [Reach],
    /// Number of static boxes at the start of `Scene::boxes` (vehicles follow).
    pub static_boxes: usize,
    /// Session start, device ns.
    pub t0_ns: i64,
    /// JPEG quality.
    pub quality: u8,
    /// Seed of the session (the SLAM cameras' per-frame noise).
    pub seed: u64,
    /// Sensor noise levels (the SLAM cameras' read and shot noise).
    pub noise: NoiseSpec,
    /// Whether the SLAM cameras expose each frame to its scene ([`auto_expose`]); off,
    /// they record the render's own brightness at [`Exposure::BASE`].
    pub auto_exposure: bool,
}

impl FrameWorld<'_> {
    /// Puts the moving bodies (people, reaching hands, vehicles) of `t_s` into `scene`.
    pub fn dress(&self, scene: &mut Scene, t_s: f64) {
        let world = &self.scenario.world;
        person_cylinders(world, t_s, &mut scene.cylinders);
        hand_cylinders(self.path, self.reaches, t_s, &mut scene.cylinders);
        scene.boxes.truncate(self.static_boxes);
        vehicle_boxes(world, t_s, &mut scene.boxes);
    }

    /// The pose of camera `calib` at `t_s`.
    pub fn camera_pose(&self, calib: &CameraCalibration, t_s: f64) -> Isometry3<f64> {
        self.path.t_world_device(t_s) * calib.t_device_camera
    }

    /// Renders, exposes (the SLAM cameras: [`auto_expose`]) and encodes one frame of `cam`
    /// at `t_ns` (`None` when the encoder refuses the image size), using `scene` (dressed
    /// here) and `pixels` as scratch and at most `threads` threads.
    pub fn frame(
        &self,
        cam: &FrameCamera,
        t_ns: i64,
        scene: &mut Scene,
        pixels: &mut Vec<u8>,
        threads: usize,
    ) -> Option<EncodedFrame> {
        let t_s = (t_ns - self.t0_ns) as f64 * 1e-9;
        let (w, h) = (cam.width as usize, cam.height as usize);
        match (cam.kind, &cam.calib, &cam.rays) {
            (FrameKind::Eyes, _, _) => {
                let g = gaze_at(self.path, &self.scenario.gaze, t_s);
                render_eyes_into(&g, t_s, cam.width, cam.height, pixels);
                base(encode_grey(pixels, w, h, self.quality))
            }
            (FrameKind::Rgb, Some(c), Some(rays)) => {
                self.dress(scene, t_s);
                render_rgb_threads(scene, rays, &self.camera_pose(c, t_s), pixels, threads);
                base(encode_rgb(pixels, w, h, self.quality))
            }
            (FrameKind::Grey, Some(c), Some(rays)) => {
                self.dress(scene, t_s);
                let pose = self.camera_pose(c, t_s);
                let exposure = if self.auto_exposure {
                    render_grey16_threads(scene, rays, &pose, pixels, threads);
                    auto_expose(pixels)
                } else {
                    render_grey_threads(scene, rays, &pose, pixels, threads);
                    Exposure::BASE
                };
                let mut rng = SplitMix64::derive(self.seed ^ t_ns as u64, &c.label);
                add_sensor_noise(pixels, &self.noise, &mut rng);
                let jpeg = encode_grey(pixels, w, h, self.quality)?;
                Some(EncodedFrame { jpeg, exposure })
            }
            _ => None,
        }
    }
}

fn base(jpeg: Option<Vec<u8>>) -> Option<EncodedFrame> {
    jpeg.map(|jpeg| EncodedFrame {
        jpeg,
        exposure: Exposure::BASE,
    })
}

/// Adds a camera's read and shot noise to every valid pixel of `pixels` (0 marks a pixel
/// outside the calibrated region, which stays 0): Gaussian of variance
/// `read² + shot · value`, approximated by a sum of four uniform draws (one `u64` per
/// pixel), rounded and clamped to `1..=255`.
pub fn add_sensor_noise(pixels: &mut [u8], noise: &NoiseSpec, rng: &mut SplitMix64) {
    let read_var = noise.slam_read_noise_dn * noise.slam_read_noise_dn;
    let shot = noise.slam_shot_noise_dn2_per_dn;
    if read_var <= 0.0 && shot <= 0.0 {
        return;
    }
    // σ per grey level, computed once.
    let mut sigma = [0f32; 256];
    for (v, s) in sigma.iter_mut().enumerate() {
        *s = (read_var + shot * v as f64).max(0.0).sqrt() as f32;
    }
    // Four 16-bit uniforms: mean 2, variance 4/12; scaled to unit variance.
    const UNIT: f32 = 1.732_050_8 / 65_536.0;
    for p in pixels.iter_mut().filter(|p| **p != 0) {
        let r = rng.next_u64();
        let sum = (r & 0xffff) + ((r >> 16) & 0xffff) + ((r >> 32) & 0xffff) + (r >> 48);
        let z = (sum as f32 - 2.0 * 65_536.0) * UNIT;
        let s = sigma.get(usize::from(*p)).copied().unwrap_or(0.0);
        *p = (f32::from(*p) + s * z).round().clamp(1.0, 255.0) as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sensor_noise_has_the_specified_spread_and_keeps_invalid_pixels() {
        let mut px = vec![128u8; 100_000];
        px[7] = 0;
        add_sensor_noise(&mut px, &NoiseSpec::TYPICAL, &mut SplitMix64::new(3));
        assert_eq!(px[7], 0);
        let valid: Vec<f64> = px
            .iter()
            .filter(|p| **p != 0)
            .map(|p| f64::from(*p))
            .collect();
        let n = valid.len() as f64;
        let mean = valid.iter().sum::<f64>() / n;
        let sd = (valid.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n).sqrt();
        let want = (1.5f64 * 1.5 + 0.05 * 128.0).sqrt();
        assert!((mean - 128.0).abs() < 0.05, "{mean}");
        // Rounding to whole levels adds 1/12 of a level² of variance.
        assert!(
            (sd - (want * want + 1.0 / 12.0).sqrt()).abs() < 0.05,
            "{sd} vs {want}"
        );
        let mut quiet = vec![128u8; 1000];
        add_sensor_noise(&mut quiet, &NoiseSpec::NONE, &mut SplitMix64::new(3));
        assert!(quiet.iter().all(|p| *p == 128));
    }
}
