//! Cross-module check on real data: MPS eye-gaze rays, taken through the central pupil frame
//! and the device calibration, project into the RGB image (people look at what is in front of
//! them), and a recording's calibration is the factory one rescaled to the recorded size.

use nalgebra::Point3;
use vista::aria::calib::DeviceCalibration;
use vista::aria::mps::read_eye_gaze;
use vista::aria::recorded_calib::recording_calibration;
use vista::aria::recording::AriaRecording;

const MPS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/gen1/mps_sample");

fn online_calibration() -> DeviceCalibration {
    // The MPS sample belongs to another device than the unit-test VRS: use its own online
    // calibration (the first line), as the sample's README says.
    let text =
        std::fs::read_to_string(format!("{MPS}/trajectory/online_calibration.jsonl")).unwrap();
    DeviceCalibration::from_json_str(text.lines().next().unwrap()).unwrap()
}

#[test]
fn gaze_rays_from_the_mps_sample_project_into_the_rgb_image() {
    let calib = online_calibration();
    let rgb = calib.camera("camera-rgb").unwrap().clone();
    let rgb = if rgb.image_width == 2880 {
        rgb.rescaled(1408, 1408).unwrap()
    } else {
        rgb
    };
    let t_camera_cpf = rgb.t_device_camera.inverse() * calib.t_device_cpf();
    for file in [
        "eye_gaze_vergence/generalized_gaze.csv",
        "eye_gaze/generalized_eye_gaze.csv",
    ] {
        let gaze = read_eye_gaze(format!("{MPS}/{file}")).unwrap();
        assert!(gaze.len() > 50, "{file}: {} rows", gaze.len());
        let mut inside = 0;
        for g in &gaze {
            // Vergence depth when the file has it, else 1 m (a typical reading distance).
            let depth = g
                .depth_m
                .filter(|d| d.is_finite() && *d > 0.1)
                .unwrap_or(1.0);
            let p_cpf = Point3::from(g.point_at_depth_cpf(depth));
            let p_cam = t_camera_cpf * p_cpf;
            if let Some(uv) = rgb.project(&p_cam.coords) {
                assert!(
                    uv.x >= 0.0 && uv.y >= 0.0 && uv.x < 1408.0 && uv.y < 1408.0,
                    "{uv:?}"
                );
                inside += 1;
            }
        }
        // Gaze is within the RGB camera's field of view nearly all the time.
        assert!(
            inside * 10 >= gaze.len() * 9,
            "{file}: {inside} of {} inside",
            gaze.len()
        );
    }
}

#[test]
fn a_recordings_calibration_is_rescaled_to_the_recorded_resolution() {
    let rec = AriaRecording::open(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs"
    ))
    .unwrap();
    let calib = recording_calibration(&rec).unwrap().unwrap();
    let rgb = calib.camera("camera-rgb").unwrap();
    assert_eq!(
        (rgb.image_width, rgb.image_height),
        rec.image_size(vista::sample::StreamId::CameraRgb).unwrap()
    );
    // projectaria_tools' own rescale of this calibration to 1408×1408 (scripts/ref_calib.py).
    let reference: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/reference/calib_projection.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let cam = reference["cameras"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "camera-rgb@1408")
        .unwrap();
    let want: Vec<f64> = cam["params"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let got = rgb.model.params();
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert!(
            (g - w).abs() <= 1e-9 * w.abs().max(1.0),
            "{got:?} vs {want:?}"
        );
    }
    // ET frames hold both eyes: each eye's camera is calibrated for half the frame width.
    let et = calib.camera("camera-et-left").unwrap();
    let (w, h) = rec.image_size(vista::sample::StreamId::CameraEt).unwrap();
    assert_eq!((et.image_width, et.image_height), (w / 2, h));
}
