//! Malformed calibration input: every defect gives a typed error naming the source and the
//! JSON path of the bad field, and no input panics.

use proptest::prelude::*;
use serde_json::{json, Value};
use vista::aria::calib::{CalibError, CameraModel, DeviceCalibration, FieldProblem};
use vista::aria::generation::Generation;

const SAMPLE: &str = include_str!("../calibration/aria_gen1_1WM09380041283_factory.json");

fn sample() -> Value {
    serde_json::from_str(SAMPLE).unwrap()
}

fn parse(v: &Value) -> Result<DeviceCalibration, CalibError> {
    DeviceCalibration::from_json_str(&v.to_string())
}

/// Asserts a field error at `path` with `problem`, and that the message names both.
fn assert_field_error(v: &Value, path: &str, problem: FieldProblem) {
    match parse(v) {
        Err(e @ CalibError::Field { .. }) => {
            let msg = e.to_string();
            let CalibError::Field {
                json_path,
                problem: got,
                ..
            } = e
            else {
                unreachable!()
            };
            assert_eq!(json_path, path, "{msg}");
            assert_eq!(got, problem, "{msg}");
            assert!(msg.starts_with("<string>: ") && msg.contains(path), "{msg}");
        }
        other => panic!("expected a field error at {path}, got {other:?}"),
    }
}

#[test]
fn the_sample_parses() {
    let dev = DeviceCalibration::from_json_str(SAMPLE).unwrap();
    assert_eq!(
        dev.camera_labels(),
        [
            "camera-slam-left",
            "camera-slam-right",
            "camera-et-left",
            "camera-et-right",
            "camera-rgb"
        ]
    );
    assert_eq!(dev.imu_labels(), ["imu-right", "imu-left"]);
    assert_eq!(dev.magnetometers.len(), 1);
    assert_eq!(dev.barometers.len(), 1);
    assert_eq!(dev.microphones.len(), 7);
    assert_eq!(dev.origin_label, "camera-slam-left");
    assert!(
        dev.camera("camera-slam-left")
            .unwrap()
            .t_device_camera
            .translation
            .vector
            .norm()
            < 1e-15
    );
}

#[test]
fn syntax_errors_name_line_and_column() {
    let text = "{\n  \"CameraCalibrations\": [\n    {,}\n  ]\n}";
    match DeviceCalibration::from_json_str(text) {
        Err(CalibError::Syntax { line, .. }) => assert_eq!(line, 3),
        other => panic!("{other:?}"),
    }
}

#[test]
fn missing_fields() {
    let mut v = sample();
    v.as_object_mut().unwrap().remove("CameraCalibrations");
    assert_field_error(&v, "CameraCalibrations", FieldProblem::Missing);

    let mut v = sample();
    v["CameraCalibrations"][2]["Projection"]
        .as_object_mut()
        .unwrap()
        .remove("Params");
    assert_field_error(
        &v,
        "CameraCalibrations[2].Projection.Params",
        FieldProblem::Missing,
    );

    let mut v = sample();
    v["ImuCalibrations"][1]["Gyroscope"]["Bias"]
        .as_object_mut()
        .unwrap()
        .remove("Offset");
    assert_field_error(
        &v,
        "ImuCalibrations[1].Gyroscope.Bias.Offset",
        FieldProblem::Missing,
    );

    let mut v = sample();
    v["BaroCalibrations"][0]["PressureModel"]
        .as_object_mut()
        .unwrap()
        .remove("Slope");
    assert_field_error(
        &v,
        "BaroCalibrations[0].PressureModel.Slope",
        FieldProblem::Missing,
    );

    let mut v = sample();
    v["CameraCalibrations"][4]["T_Device_Camera"]
        .as_object_mut()
        .unwrap()
        .remove("UnitQuaternion");
    assert_field_error(
        &v,
        "CameraCalibrations[4].T_Device_Camera.UnitQuaternion",
        FieldProblem::Missing,
    );
}

#[test]
fn wrong_parameter_counts() {
    let mut v = sample();
    v["CameraCalibrations"][0]["Projection"]["Params"]
        .as_array_mut()
        .unwrap()
        .pop();
    assert_field_error(
        &v,
        "CameraCalibrations[0].Projection.Params",
        FieldProblem::WrongLength {
            expected: "15 or 16".into(),
            actual: 14,
        },
    );
    let mut v = sample();
    v["CameraCalibrations"][3]["Projection"]["Params"]
        .as_array_mut()
        .unwrap()
        .push(json!(0.0));
    assert_field_error(
        &v,
        "CameraCalibrations[3].Projection.Params",
        FieldProblem::WrongLength {
            expected: "8".into(),
            actual: 9,
        },
    );
    let mut v = sample();
    v["MagCalibrations"][0]["Model"]["RectificationMatrix"][1] = json!([1.0, 2.0]);
    assert_field_error(
        &v,
        "MagCalibrations[0].Model.RectificationMatrix[1]",
        FieldProblem::WrongLength {
            expected: "3".into(),
            actual: 2,
        },
    );
    let mut v = sample();
    v["CameraCalibrations"][1]["T_Device_Camera"]["UnitQuaternion"] = json!([1.0, 0.0, 0.0, 0.0]);
    assert_field_error(
        &v,
        "CameraCalibrations[1].T_Device_Camera.UnitQuaternion",
        FieldProblem::WrongLength {
            expected: "2".into(),
            actual: 4,
        },
    );
}

#[test]
fn non_numbers_and_bad_values() {
    let mut v = sample();
    v["CameraCalibrations"][0]["Projection"]["Params"][3] = json!("0.1");
    assert_field_error(
        &v,
        "CameraCalibrations[0].Projection.Params[3]",
        FieldProblem::WrongType { expected: "number" },
    );
    let mut v = sample();
    v["ImuCalibrations"][0]["Accelerometer"]["Model"]["RectificationMatrix"][2][2] = json!(null);
    assert_field_error(
        &v,
        "ImuCalibrations[0].Accelerometer.Model.RectificationMatrix[2][2]",
        FieldProblem::WrongType { expected: "number" },
    );
    let mut v = sample();
    v["CameraCalibrations"][0]["Label"] = json!(7);
    assert_field_error(
        &v,
        "CameraCalibrations[0].Label",
        FieldProblem::WrongType { expected: "string" },
    );
    let mut v = sample();
    v["CameraCalibrations"] = json!({});
    assert_field_error(
        &v,
        "CameraCalibrations",
        FieldProblem::WrongType { expected: "array" },
    );
    let mut v = sample();
    v["CameraCalibrations"][4]["Projection"]["Name"] = json!("Fisheye99");
    assert_field_error(
        &v,
        "CameraCalibrations[4].Projection.Name",
        FieldProblem::UnknownModel("Fisheye99".into()),
    );
    let mut v = sample();
    v["CameraCalibrations"][4]["Projection"]["Params"][0] = json!(-5.0);
    assert_field_error(
        &v,
        "CameraCalibrations[4].Projection.Params",
        FieldProblem::OutOfRange {
            reason: "focal length must be positive".into(),
        },
    );
    let mut v = sample();
    v["ImuCalibrations"][0]["Gyroscope"]["Model"]["RectificationMatrix"] =
        json!([[1, 2, 3], [2, 4, 6], [0, 0, 1]]);
    assert_field_error(
        &v,
        "ImuCalibrations[0].Gyroscope.Model.RectificationMatrix",
        FieldProblem::SingularMatrix,
    );
    let mut v = sample();
    v["CameraCalibrations"][0]["Label"] = json!("camera-thermal");
    assert_field_error(
        &v,
        "CameraCalibrations[0].Label",
        FieldProblem::UnknownCameraLabel {
            label: "camera-thermal".into(),
            generation: Generation::Gen1,
        },
    );
    // A Gen2 label is not a Gen1 camera, and the error says which generation was assumed.
    let mut v = sample();
    v["CameraCalibrations"][0]["Label"] = json!("slam-side-left");
    assert_field_error(
        &v,
        "CameraCalibrations[0].Label",
        FieldProblem::UnknownCameraLabel {
            label: "slam-side-left".into(),
            generation: Generation::Gen1,
        },
    );
    // Numbers too large for f64 are a syntax error in serde_json.
    let text = SAMPLE.replacen("241.3750342062049", "1e999", 1);
    assert!(matches!(
        DeviceCalibration::from_json_str(&text),
        Err(CalibError::Syntax { .. })
    ));
}

#[test]
fn config_data_overrides_the_gen1_defaults() {
    let mut v = sample();
    v["CameraCalibrations"][0]["Label"] = json!("camera-custom");
    v["CameraCalibrations"][0]["ConfigData"] =
        json!({"ImageWidth": 1024, "ImageHeight": 768, "ValidRadius": 500.0});
    let dev = parse(&v).unwrap();
    let cam = dev.camera("camera-custom").unwrap();
    assert_eq!((cam.image_width, cam.image_height), (1024, 768));
    assert_eq!(cam.valid_radius_px, Some(500.0));
    assert_eq!(cam.max_solid_angle_rad, None);
    v["CameraCalibrations"][0]["ConfigData"]["ImageWidth"] = json!(-3);
    assert_field_error(
        &v,
        "CameraCalibrations[0].ConfigData.ImageWidth",
        FieldProblem::WrongType {
            expected: "non-negative integer",
        },
    );
}

#[test]
fn file_errors_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.json");
    let err = DeviceCalibration::from_json_file(&missing).unwrap_err();
    assert!(matches!(err, CalibError::Io { .. }));
    assert!(err.to_string().contains("nope.json"), "{err}");

    let bad = dir.path().join("bad.json");
    let mut v = sample();
    v["CameraCalibrations"][1]["Projection"]["Params"][0] = json!(true);
    std::fs::write(&bad, v.to_string()).unwrap();
    let err = DeviceCalibration::from_json_file(&bad).unwrap_err();
    let msg = err.to_string();
    assert!(msg.starts_with(&format!("{}: ", bad.display())), "{msg}");
    assert_eq!(
        err.json_path(),
        Some("CameraCalibrations[1].Projection.Params[0]")
    );
}

#[test]
fn rescaling_refuses_non_aria_sizes() {
    let dev = DeviceCalibration::from_json_str(SAMPLE).unwrap();
    let rgb = dev.camera("camera-rgb").unwrap();
    let err = rgb.rescaled(1000, 1000).unwrap_err();
    assert!(
        matches!(err, CalibError::Rescale { to_width: 1000, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("2880x2880 to 1000x1000"), "{err}");
    assert!(dev
        .camera("camera-slam-left")
        .unwrap()
        .rescaled(1408, 1408)
        .is_err());
    assert!(rgb.rescale(1408, 1408, 0.5, [0.0, 0.0]).is_err());
    assert_eq!(&rgb.rescaled(2880, 2880).unwrap(), rgb);
    let err = dev
        .with_recorded_sizes(&[("camera-nope".to_string(), 10, 10)])
        .unwrap_err();
    assert!(matches!(err, CalibError::NoSuchCamera { .. }), "{err}");
    let resized = dev
        .with_recorded_sizes(&[
            ("camera-rgb".to_string(), 1408, 1408),
            ("camera-et-left".to_string(), 320, 240),
        ])
        .unwrap();
    assert_eq!(resized.camera("camera-rgb").unwrap().image_width, 1408);
    assert_eq!(resized.camera("camera-et-left").unwrap().image_height, 240);
    assert_eq!(
        resized.camera("camera-slam-left"),
        dev.camera("camera-slam-left")
    );
}

#[test]
fn fisheye_16_params_with_equal_focals_equals_15_params() {
    let dev = DeviceCalibration::from_json_str(SAMPLE).unwrap();
    let m15 = dev.camera("camera-rgb").unwrap().model;
    let mut p = m15.params();
    p.insert(1, p[0]);
    let m16 = CameraModel::from_name_and_params("Fisheye624", &p).unwrap();
    assert_eq!(m16.params(), p);
    let pt = nalgebra::Vector3::new(0.3, -0.2, 1.0);
    assert_eq!(m15.project(&pt), m16.project(&pt));
    // A different fv changes only v, in proportion to fv.
    p[1] *= 1.1;
    let m16b = CameraModel::from_name_and_params("Fisheye624", &p).unwrap();
    let (a, b) = (m15.project(&pt).unwrap(), m16b.project(&pt).unwrap());
    let [cu, cv] = m15.principal_point_px();
    assert_eq!(a.x, b.x);
    assert!(
        ((b.y - cv) / (a.y - cv) - 1.1).abs() < 1e-12,
        "{a} {b} {cu}"
    );
}

#[test]
fn every_truncation_is_an_error_not_a_panic() {
    let mut n = 0;
    for cut in (0..SAMPLE.len()).step_by(37) {
        if !SAMPLE.is_char_boundary(cut) {
            continue;
        }
        assert!(
            DeviceCalibration::from_json_str(&SAMPLE[..cut]).is_err(),
            "cut at {cut}"
        );
        n += 1;
    }
    assert!(n > 100);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn mutated_json_never_panics(pos in 0usize..8000, byte in proptest::sample::select(b"0-.e,:[]{}\"x ".to_vec())) {
        let mut bytes = SAMPLE.as_bytes().to_vec();
        let pos = pos % bytes.len();
        bytes[pos] = byte;
        if let Ok(text) = std::str::from_utf8(&bytes) {
            if let Ok(dev) = DeviceCalibration::from_json_str(text) {
                // Whatever parsed must be usable without panics.
                for cam in &dev.cameras {
                    let _ = cam.project(&nalgebra::Vector3::new(0.1, 0.1, 1.0));
                    let _ = cam.unproject(&nalgebra::Point2::new(10.0, 10.0));
                }
                let _ = dev.t_device_cpf();
            }
        }
    }
}
