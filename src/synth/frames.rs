//! Camera frames of a session, rendered and JPEG-encoded: each frame depends only on the
//! static scene, the moving bodies at its time and the camera pose, so frames can be made
//! on any thread in any order ([`super::pipeline`] renders them ahead of the writer) and
//! the bytes do not depend on the number of threads.

use nalgebra::Isometry3;

use super::eyes::render_eyes_into;
use super::gaze::gaze_at;
use super::hands::{hand_cylinders, Reach};
use super::jpeg::{encode_grey, encode_rgb};
use super::people::{person_cylinders, vehicle_boxes};
use super::render::{render_grey_threads, render_rgb_threads, RayTable, Scene};
use super::scenario::Scenario;
use super::trajectory::WearerPath;
use crate::aria::calib::CameraCalibration;

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

    /// Renders and encodes one frame of `cam` at `t_ns` into JPEG bytes (`None` when the
    /// encoder refuses the image size), using `scene` (dressed here) and `pixels` as
    /// scratch and at most `threads` threads.
    pub fn frame(
        &self,
        cam: &FrameCamera,
        t_ns: i64,
        scene: &mut Scene,
        pixels: &mut Vec<u8>,
        threads: usize,
    ) -> Option<Vec<u8>> {
        let t_s = (t_ns - self.t0_ns) as f64 * 1e-9;
        let (w, h) = (cam.width as usize, cam.height as usize);
        match (cam.kind, &cam.calib, &cam.rays) {
            (FrameKind::Eyes, _, _) => {
                let g = gaze_at(self.path, &self.scenario.gaze, t_s);
                render_eyes_into(&g, t_s, cam.width, cam.height, pixels);
                encode_grey(pixels, w, h, self.quality)
            }
            (FrameKind::Rgb, Some(c), Some(rays)) => {
                self.dress(scene, t_s);
                render_rgb_threads(scene, rays, &self.camera_pose(c, t_s), pixels, threads);
                encode_rgb(pixels, w, h, self.quality)
            }
            (FrameKind::Grey, Some(c), Some(rays)) => {
                self.dress(scene, t_s);
                render_grey_threads(scene, rays, &self.camera_pose(c, t_s), pixels, threads);
                encode_grey(pixels, w, h, self.quality)
            }
            _ => None,
        }
    }
}
