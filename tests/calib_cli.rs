//! `vista calib` end to end: the built binary projects and unprojects stdin lines with the
//! committed calibration JSON, matching projectaria_tools' reference values.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const CALIB: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/calibration/aria_gen1_1WM09380041283_factory.json"
);

fn vista(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_vista"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn reference_camera(name: &str) -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/reference/calib_projection.json"
    ))
    .unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v["cameras"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap()
        .clone()
}

fn nums(line: &str) -> Vec<f64> {
    line.split_whitespace()
        .map(|s| s.parse().unwrap())
        .collect()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

#[test]
fn project_matches_reference() {
    for (camera, args) in [
        ("camera-rgb", vec!["calib", CALIB, "--project"]),
        (
            "camera-slam-left",
            vec!["calib", CALIB, "--project", "--camera", "camera-slam-left"],
        ),
    ] {
        let rec = reference_camera(camera);
        let projections = rec["projections"].as_array().unwrap();
        let input: String = projections
            .iter()
            .map(|p| {
                let x = &p["p_cam_m"];
                format!("{:?} {:?} {:?}\n", f(&x[0]), f(&x[1]), f(&x[2]))
            })
            .collect();
        let out = vista(&args, &input);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), projections.len());
        let mut valid = 0;
        for (line, p) in lines.iter().zip(projections) {
            match p["uv_px"].as_array() {
                None => assert_eq!(*line, "invalid"),
                Some(r) => {
                    let uv = nums(line);
                    assert_eq!(uv.len(), 2, "{line}");
                    let d = ((uv[0] - f(&r[0])).powi(2) + (uv[1] - f(&r[1])).powi(2)).sqrt();
                    assert!(d < 1e-6, "{camera}: {line} vs {r:?}");
                    valid += 1;
                }
            }
        }
        assert!(valid > 20 && valid < projections.len(), "{valid}");
    }
}

#[test]
fn unproject_matches_reference() {
    let rec = reference_camera("camera-et-left");
    let unprojections = rec["unprojections"].as_array().unwrap();
    let input: String = unprojections
        .iter()
        .map(|u| format!("{:?}, {:?}\n", f(&u["uv_px"][0]), f(&u["uv_px"][1])))
        .collect();
    let out = vista(
        &[
            "calib",
            CALIB,
            "--unproject",
            "--camera",
            "camera-et-left",
            "--json",
        ],
        &input,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), unprojections.len());
    for (line, u) in lines.iter().zip(unprojections) {
        let got: Value = serde_json::from_str(line).unwrap();
        match u["ray"].as_array() {
            None => assert!(got.is_null(), "{line}"),
            Some(r) => {
                let d: f64 = (0..3)
                    .map(|i| (f(&got[i]) - f(&r[i])).powi(2))
                    .sum::<f64>()
                    .sqrt();
                assert!(d < 1e-9, "{line} vs {r:?}");
            }
        }
    }
}

#[test]
fn malformed_lines_name_the_line() {
    let out = vista(&["calib", CALIB, "--project"], "0 0 1\n\n1 2\n");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 3"), "{err}");
    let out = vista(&["calib", CALIB, "--unproject"], "# header\n10 abc\n");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 2"));
}

#[test]
fn describe_and_errors() {
    let out = vista(&["calib", CALIB], "");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("1WM09380041283"));
    for label in [
        "camera-slam-left",
        "camera-slam-right",
        "camera-et-left",
        "camera-et-right",
        "camera-rgb",
        "imu-left",
        "mag0",
        "baro0",
    ] {
        assert!(text.contains(label), "{label} missing:\n{text}");
    }
    let out = vista(&["calib", CALIB, "--json"], "");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["cameras"].as_array().unwrap().len(), 5);

    let out = vista(
        &["calib", CALIB, "--project", "--camera", "camera-nope"],
        "",
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("camera-nope"));

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"CameraCalibrations": [{"Label": 3}]}"#).unwrap();
    let out = vista(&["calib", bad.to_str().unwrap()], "");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.json") && err.contains("CameraCalibrations[0].Label"),
        "{err}"
    );
}
