//! Round trips: unproject then project returns the pixel (< 1e-6 px) across the whole valid
//! region of every camera and model; project then unproject returns the point's direction.

use nalgebra::{Isometry3, Point2, Vector3};
use proptest::prelude::*;
use vista::aria::calib::{
    CameraCalibration, CameraModel, DeviceCalibration, Fisheye624, KannalaBrandtK3, Linear,
    Spherical,
};

const PX_TOL: f64 = 1e-6;

fn device() -> DeviceCalibration {
    DeviceCalibration::from_json_file(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/calibration/aria_gen1_1WM09380041283_factory.json"
    ))
    .unwrap()
}

fn synthetic(label: &str, model: CameraModel, w: u32, h: u32, max_angle: f64) -> CameraCalibration {
    CameraCalibration {
        label: label.into(),
        serial_number: String::new(),
        model,
        t_device_camera: Isometry3::identity(),
        image_width: w,
        image_height: h,
        valid_radius_px: None,
        max_solid_angle_rad: Some(max_angle),
        time_offset_s: 0.0,
        readout_time_s: None,
    }
}

/// Every camera of the sample device (factory and rescaled sizes) plus one of each other model.
fn all_cameras() -> &'static [CameraCalibration] {
    static CAMS: std::sync::OnceLock<Vec<CameraCalibration>> = std::sync::OnceLock::new();
    CAMS.get_or_init(build_cameras)
}

fn build_cameras() -> Vec<CameraCalibration> {
    let dev = device();
    let mut cams = dev.cameras.clone();
    let rgb = dev.camera("camera-rgb").unwrap();
    cams.push(rgb.rescaled(1408, 1408).unwrap());
    cams.push(rgb.rescaled(704, 704).unwrap());
    for l in ["camera-slam-left", "camera-et-right"] {
        cams.push(dev.camera(l).unwrap().rescaled(320, 240).unwrap());
    }
    cams.push(synthetic(
        "linear",
        CameraModel::Linear(Linear {
            fx: 300.0,
            fy: 310.0,
            cx: 255.5,
            cy: 191.5,
        }),
        512,
        384,
        std::f64::consts::PI,
    ));
    cams.push(synthetic(
        "spherical",
        CameraModel::Spherical(Spherical {
            fx: 150.0,
            fy: 150.0,
            cx: 255.5,
            cy: 255.5,
        }),
        512,
        512,
        std::f64::consts::PI,
    ));
    // A 16-parameter Fisheye624 with distinct focal lengths (Gen2 style).
    let mut p16 = vec![241.0, 243.5];
    p16.extend_from_slice(&dev.camera("camera-slam-right").unwrap().model.params()[1..]);
    let mut f16 = synthetic(
        "fisheye624-16",
        CameraModel::Fisheye624(Fisheye624::from_params(&p16).unwrap()),
        640,
        480,
        1.4,
    );
    f16.valid_radius_px = Some(330.0);
    cams.push(f16);
    cams.push(synthetic(
        "kb3-synthetic",
        CameraModel::KannalaBrandtK3(KannalaBrandtK3 {
            fx: 300.0,
            fy: 301.0,
            cx: 320.0,
            cy: 240.0,
            k: [0.01, -0.005, 0.001, -0.0002],
        }),
        640,
        480,
        1.2,
    ));
    cams
}

#[test]
fn unproject_then_project_returns_the_pixel_everywhere_valid() {
    for cam in all_cameras() {
        let step = (cam.image_width.max(cam.image_height) as f64 / 120.0).max(1.0);
        let (mut n, mut worst) = (0usize, 0.0f64);
        let mut v = -0.5;
        while v <= cam.image_height as f64 - 0.5 {
            let mut u = -0.5;
            while u <= cam.image_width as f64 - 0.5 {
                let uv = Point2::new(u, v);
                if let Some(ray) = cam.unproject(&uv) {
                    let back = cam.model.project(&ray).unwrap_or_else(|| {
                        panic!("{}: ray {ray:?} of {uv} does not project", cam.label)
                    });
                    let d = (back - uv).norm();
                    worst = worst.max(d);
                    assert!(
                        d < PX_TOL,
                        "{}: {uv} -> {ray:?} -> {back} ({d} px)",
                        cam.label
                    );
                    n += 1;
                }
                u += step;
            }
            v += step;
        }
        assert!(n > 2000, "{}: only {n} valid pixels", cam.label);
        eprintln!("{}: {n} pixels, worst {worst:e} px", cam.label);
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]
    #[test]
    fn project_then_unproject_returns_the_direction(
        cam_index in 0usize..13,
        theta in 0.0f64..1.4,
        phi in -std::f64::consts::PI..std::f64::consts::PI,
        depth in 0.05f64..50.0,
    ) {
        let cams = all_cameras();
        prop_assert_eq!(cams.len(), 13);
        let cam = &cams[cam_index];
        let dir = Vector3::new(theta.sin() * phi.cos(), theta.sin() * phi.sin(), theta.cos());
        if let Some(uv) = cam.project(&(dir * depth)) {
            let ray = cam.unproject(&uv).expect("a projected pixel is valid");
            prop_assert!((ray - dir).norm() < 1e-9, "{}: {dir:?} -> {uv} -> {ray:?}", cam.label);
        }
    }
}
