//! The `vista inspect` and `vista replay` commands, run as a user would.

use std::process::Command;

const VRS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs"
);

fn vista(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_vista"))
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

#[test]
fn inspect_json_lists_streams_tags_and_calibration() {
    let out = vista(&["inspect", VRS, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rgb = &v["streams"]["214-1"];
    assert_eq!(rgb["name"], "camera-rgb");
    assert_eq!(rgb["data_records"], 4);
    assert!(rgb["first_ns"].as_i64().unwrap() < rgb["last_ns"].as_i64().unwrap());
    assert_eq!(v["streams"]["1202-1"]["name"], "imu-right");
    assert_eq!(v["tags"]["device_serial"], "1WM09380041283");
    assert_eq!(v["tags"]["firmware_version"], "3.26.3");
    let cams = v["calibration"]["cameras"].as_array().unwrap();
    let rgb_cal = cams.iter().find(|c| c["label"] == "camera-rgb").unwrap();
    // Calibrated for the recorded resolution, not the factory 2880×2880.
    assert_eq!(rgb_cal["width"], 1408);
}

#[test]
fn inspect_reports_a_missing_file_with_its_path() {
    let out = vista(&["inspect", "/nonexistent/session"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/session"));
}

#[test]
fn asap_replay_writes_the_profile_and_is_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let mut digests = Vec::new();
    for i in 0..2 {
        let path = dir.path().join(format!("p{i}.json"));
        let out = vista(&[
            "replay",
            VRS,
            "--asap",
            "--digest",
            "-q",
            "--profile",
            path.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let imu = &v["streams"]["imu-right"];
        assert_eq!(imu["delivered"], 150);
        assert_eq!(imu["dropped"], 0);
        for k in ["p50", "p99", "max"] {
            assert!(imu["pacing_us"][k].is_number(), "pacing_us.{k}");
        }
        assert!(v["wall_time_s"].as_f64().unwrap() > 0.0);
        let digest = v["sequence_digest"].as_str().unwrap().to_string();
        assert!(digest.ends_with("(297 samples)"), "{digest}");
        digests.push(digest);
    }
    assert_eq!(digests[0], digests[1]);
}

#[test]
fn real_time_replay_takes_the_recordings_duration() {
    // 0.15 s of recording at rate 0.5 must take at least 0.29 s of wall time.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.json");
    let out = vista(&[
        "replay",
        VRS,
        "--rate",
        "0.5",
        "-q",
        "--profile",
        path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let device_s = v["device_time_s"].as_f64().unwrap();
    assert!(v["wall_time_s"].as_f64().unwrap() >= device_s / 0.5 * 0.98);
    assert_eq!(v["mode"], "real-time");
}
