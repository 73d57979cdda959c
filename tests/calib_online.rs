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

#[test]
fn image_sizes_and_readout_times_apply_by_camera_index() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/gen1/mps_sample/trajectory/online_calibration.jsonl"
    ))
    .unwrap();
    let mut v: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    v["ImageSizes"] = serde_json::json!([[640, 480], [640, 480], [1408, 1408]]);
    v["ReadoutTimesSec"] = serde_json::json!([[2, 0.0101]]);
    let dev = DeviceCalibration::from_json_str(&v.to_string()).unwrap();
    let rgb = dev.camera("camera-rgb").unwrap();
    assert_eq!((rgb.image_width, rgb.image_height), (1408, 1408));
    assert_eq!(rgb.readout_time_s, Some(0.0101));
    assert_eq!(dev.camera("camera-slam-left").unwrap().readout_time_s, None);

    v["ReadoutTimesSec"] = serde_json::json!([[3, 0.0101]]);
    let err = DeviceCalibration::from_json_str(&v.to_string()).unwrap_err();
    assert_eq!(err.json_path(), Some("ReadoutTimesSec[0][0]"), "{err}");
    v["ReadoutTimesSec"] = serde_json::json!([]);
    v["ImageSizes"] = serde_json::json!([[640, 480]]);
    let err = DeviceCalibration::from_json_str(&v.to_string()).unwrap_err();
    assert_eq!(err.json_path(), Some("ImageSizes"), "{err}");
}
