//! MPS `online_calibration.jsonl` lines use the same per-sensor schema as the factory
//! calibration, so each line parses as a (partial) [`DeviceCalibration`].

use nalgebra::Matrix3;
use vista::aria::calib::DeviceCalibration;

#[test]
fn online_calibration_lines_parse() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/gen1/mps_sample/trajectory/online_calibration.jsonl"
    ))
    .unwrap();
    let factory = DeviceCalibration::from_json_file(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/calibration/aria_gen1_1WM09380041283_factory.json"
    ))
    .unwrap();
    let mut n = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let dev = DeviceCalibration::from_json_str(line).unwrap();
        assert_eq!(
            dev.camera_labels(),
            ["camera-slam-left", "camera-slam-right", "camera-rgb"]
        );
        assert_eq!(dev.imus.len(), 2);
        for imu in &dev.imus {
            // MPS >= 1.1 gyro model: LinearGSensitivity (all zeros in this sample).
            assert_eq!(imu.gyro_g_sensitivity, Some(Matrix3::zeros()));
        }
        // Online SLAM intrinsics are plausible: within 2% of this Gen1 factory focal length.
        let online = dev.camera("camera-slam-left").unwrap();
        let f_online = online.model.focal_lengths_px()[0];
        let f_factory = factory
            .camera("camera-slam-left")
            .unwrap()
            .model
            .focal_lengths_px()[0];
        assert!(
            (f_online / f_factory - 1.0).abs() < 0.02,
            "{f_online} vs {f_factory}"
        );
        assert_eq!((online.image_width, online.image_height), (640, 480));
        n += 1;
    }
    assert!(n > 100, "{n} lines");
}
