//! Shared helpers of the stereo tests: the real Gen1 calibration, rendering a SLAM pair of
//! a synthetic scene through it (the synth ray caster, independent of the stereo code),
//! and ground-truth depth by ray casting.

#![allow(dead_code)]

use nalgebra::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3};
use vista::aria::calib::{CameraCalibration, DeviceCalibration};
use vista::aria::recorded_calib::recording_calibration;
use vista::aria::recording::AriaRecording;
use vista::perception::stereo::StereoGeometry;
use vista::synth::render::{render_grey, RayTable, Scene, Surface};

/// The real Gen1 sample recording.
pub const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs"
);

/// The sample's calibration, rescaled to its recorded sizes.
pub fn calib() -> DeviceCalibration {
    let rec = AriaRecording::open(SAMPLE).unwrap();
    recording_calibration(&rec).unwrap().unwrap()
}

/// The two SLAM cameras.
pub fn slam(c: &DeviceCalibration) -> (CameraCalibration, CameraCalibration) {
    (
        c.camera("camera-slam-left").unwrap().clone(),
        c.camera("camera-slam-right").unwrap().clone(),
    )
}

/// Renders the left and right SLAM images of `scene` with the device at `t_world_device`.
pub fn render_pair(
    scene: &Scene,
    left: &CameraCalibration,
    right: &CameraCalibration,
    t_world_device: &Isometry3<f64>,
) -> (Vec<u8>, Vec<u8>) {
    let l = render_grey(
        scene,
        &RayTable::new(left),
        &(t_world_device * left.t_device_camera),
    );
    let r = render_grey(
        scene,
        &RayTable::new(right),
        &(t_world_device * right.t_device_camera),
    );
    (l, r)
}

/// A device pose that puts the rectified left camera at `eye_m` looking horizontally
/// along `yaw_rad` (from world +x, counter-clockwise), rectified x to the right and y down.
pub fn pose_looking(g: &StereoGeometry, eye_m: [f64; 3], yaw_rad: f64) -> Isometry3<f64> {
    let fwd = Vector3::new(yaw_rad.cos(), yaw_rad.sin(), 0.0);
    let right = Vector3::new(yaw_rad.sin(), -yaw_rad.cos(), 0.0);
    let down = -Vector3::z();
    let r_world_rect =
        nalgebra::Rotation3::from_matrix_unchecked(nalgebra::Matrix3::from_columns(&[
            right, down, fwd,
        ]));
    let r_world_device = r_world_rect * g.r_device_rect.inverse();
    let q = UnitQuaternion::from_rotation_matrix(&r_world_device);
    // p_world = R·p_device + t with the left centre at the eye.
    let t = Vector3::from(eye_m) - r_world_device * g.left_centre_m;
    Isometry3::from_parts(Translation3::from(t), q)
}

/// Depth along the rectified axis of the first surface seen through left rectified pixel
/// `(u, v)`, m; `None` when the ray hits nothing.
pub fn true_depth(
    scene: &Scene,
    g: &StereoGeometry,
    t_world_device: &Isometry3<f64>,
    u: f64,
    v: f64,
) -> Option<(f64, Surface)> {
    let ray_rect = Vector3::new((u - g.cu_px) / g.focal_px, (v - g.cv_px) / g.focal_px, 1.0);
    let n = ray_rect.norm();
    let d_world = t_world_device.rotation * (g.r_device_rect * (ray_rect / n));
    let o = t_world_device * Point3::from(g.left_centre_m);
    let hit = scene.hit(&o.coords, &d_world)?;
    Some((hit.t_m / n, hit.surface))
}

/// Depth tolerance at depth `z_m` for a disparity error of `disparity_err_px`:
/// `δz = z²/(f·B)·δd`.
pub fn depth_tolerance_m(g: &StereoGeometry, z_m: f64, disparity_err_px: f64) -> f64 {
    z_m * z_m / (g.focal_px * g.baseline_m) * disparity_err_px
}

/// Radius of a matched pixel's support, px: the 7×7 census (3) plus the default 5×5
/// aggregation window (2). A window matcher measures the dominant texture inside it, so
/// at a depth edge its disparity may belong to any surface within this radius.
pub const SUPPORT_RADIUS_PX: i32 = 5;

/// The least and greatest true depth (rectified axis) over the `(2r+1)²` left rectified
/// pixels around `(u, v)`, m; `None` when no ray there hits anything.
pub fn support_depth_range(
    scene: &Scene,
    g: &StereoGeometry,
    t_world_device: &Isometry3<f64>,
    u: f64,
    v: f64,
    r: i32,
) -> Option<(f64, f64)> {
    let mut range: Option<(f64, f64)> = None;
    for dv in -r..=r {
        for du in -r..=r {
            if let Some((z, _)) = true_depth(
                scene,
                g,
                t_world_device,
                u + f64::from(du),
                v + f64::from(dv),
            ) {
                range = Some(range.map_or((z, z), |(a, b)| (a.min(z), b.max(z))));
            }
        }
    }
    range
}

/// Verdict on one measured point: its pixel, measured and true depth, the surface its
/// centre ray hits, and whether it lies within the disparity tolerance of a surface in
/// its support.
#[derive(Debug, Clone, Copy)]
pub struct Checked {
    /// Left rectified pixel.
    pub uv: [f64; 2],
    /// Measured depth, m.
    pub z_m: f64,
    /// True depth through the pixel centre, m.
    pub z_true_m: f64,
    /// The surface hit through the pixel centre (`Floor` with an infinite depth when the
    /// centre ray hits nothing).
    pub surface: Surface,
    /// Within tolerance of the support's depth range.
    pub ok: bool,
}

/// Checks every point of a depth frame against the scene, with a disparity tolerance of
/// `disparity_err_px`.
pub fn check_points(
    points_device: &[[f32; 3]],
    scene: &Scene,
    g: &StereoGeometry,
    t_world_device: &Isometry3<f64>,
    disparity_err_px: f64,
) -> Vec<Checked> {
    use vista::perception::stereo::Side;
    let mut out = Vec::new();
    for p in points_device {
        let pd = Point3::new(f64::from(p[0]), f64::from(p[1]), f64::from(p[2]));
        let Some([u, v, z]) = g.project(Side::Left, &pd) else {
            continue;
        };
        let centre = true_depth(scene, g, t_world_device, u, v);
        let (z_true_m, surface) = centre.unwrap_or((f64::INFINITY, Surface::Floor));
        let Some((lo, hi)) = support_depth_range(scene, g, t_world_device, u, v, SUPPORT_RADIUS_PX)
        else {
            // Nothing at all around the point: it cannot be right.
            out.push(Checked {
                uv: [u, v],
                z_m: z,
                z_true_m,
                surface,
                ok: false,
            });
            continue;
        };
        let ok = z >= lo - depth_tolerance_m(g, lo, disparity_err_px)
            && z <= hi + depth_tolerance_m(g, hi, disparity_err_px);
        out.push(Checked {
            uv: [u, v],
            z_m: z,
            z_true_m,
            surface,
            ok,
        });
    }
    out
}

/// The two SLAM cameras as `vista synth` renders them (640×480 grey through `c`'s rays).
pub fn slam_frame_cameras(
    c: &DeviceCalibration,
) -> (
    vista::synth::frames::FrameCamera,
    vista::synth::frames::FrameCamera,
) {
    let (l, r) = slam(c);
    let cam = |c: CameraCalibration| vista::synth::frames::FrameCamera {
        kind: vista::synth::frames::FrameKind::Grey,
        rays: Some(RayTable::new(&c)),
        calib: Some(c),
        width: 640,
        height: 480,
    };
    (cam(l), cam(r))
}
