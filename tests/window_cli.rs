//! `vista window` and `vista stats` on a session folder made from the test data.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn session(dir: &Path) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/gen1");
    std::fs::copy(
        root.join("aria_unit_test_timecode_sequence_calib.vrs"),
        dir.join("recording.vrs"),
    )
    .unwrap();
    for sub in ["eye_gaze_vergence", "hand_tracking", "trajectory"] {
        let to = dir.join("mps").join(sub);
        std::fs::create_dir_all(&to).unwrap();
        for e in std::fs::read_dir(root.join("mps_sample").join(sub)).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

fn vista(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vista"))
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn window_json_has_the_contract_shapes_and_stats_normalise_it() {
    let dir = tempfile::tempdir().unwrap();
    session(dir.path());
    let s = dir.path().to_str().unwrap();
    // 11.4 s after the first MPS sample: gaze, hands and trajectory are all present.
    let (ok, out, err) = vista(&["window", s, "--at", "11.4", "--json"]);
    assert!(ok, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let want = [
        ("imu", 12),
        ("mag_baro", 5),
        ("eye_gaze", 5),
        ("hands", 14),
        ("trajectory", 13),
    ];
    for (name, c) in want {
        let st = &v["streams"][name];
        assert_eq!(st["shape"], serde_json::json!([64, c]), "{name}");
        assert_eq!(st["values"].as_array().unwrap().len(), 64 * c);
        assert_eq!(st["mask"].as_array().unwrap().len(), 64);
    }
    let valid = |v: &Value, name: &str| {
        v["streams"][name]["mask"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m.as_bool().unwrap())
            .count()
    };
    assert!(valid(&v, "trajectory") >= 63);
    assert_eq!(valid(&v, "imu"), 0);
    assert!(v["frames_ns"].as_array().unwrap().is_empty());

    // Near the VRS's end: 8 uniform frame times from the RGB stream.
    let (ok, out, err) = vista(&["window", s, "--at", "132.2", "--json"]);
    assert!(ok, "{err}");
    let v2: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v2["frames_ns"].as_array().unwrap().len(), 8);
    let iw = &v2["imu_window"];
    assert_eq!(iw["shape"], serde_json::json!([1000, 6]));
    assert_eq!(iw["values"].as_array().unwrap().len(), 6000);
    let iw_valid = iw["mask"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m.as_bool().unwrap())
        .count();
    // 0.15 s of right IMU at 200 Hz: ~29 points, the rest masked.
    assert!((20..=31).contains(&iw_valid), "{iw_valid}");
    assert!(valid(&v2, "imu") >= 1);

    // Statistics over the session, then a normalised window.
    let stats = dir.path().join("norm_stats.json");
    let (ok, out, err) = vista(&["stats", s, "--out", stats.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(out.contains("windows"), "{out}");
    let st: Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(st["format"], "vista-norm-stats/1");
    assert!(st["streams"]["trajectory"]["count"][0].as_u64().unwrap() > 100);
    let (ok, out, err) = vista(&[
        "window",
        s,
        "--at",
        "11.4",
        "--json",
        "--norm",
        stats.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let n: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(n["normalised"], true);
    assert_eq!(
        n["streams"]["trajectory"]["mask"],
        v["streams"]["trajectory"]["mask"]
    );
    assert_ne!(
        n["streams"]["trajectory"]["values"],
        v["streams"]["trajectory"]["values"]
    );

    assert_eq!(st["rectified"], true);
    // Statistics made with rectification do not apply to raw windows.
    let (ok, _, err) = vista(&[
        "window",
        s,
        "--at",
        "11.4",
        "--raw",
        "--norm",
        stats.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(err.contains("norm_stats.json"), "{err}");

    // The text view.
    let (ok, out, err) = vista(&["window", s, "--at", "11.4"]);
    assert!(ok, "{err}");
    assert!(out.contains("trajectory  [64, 13]"), "{out}");
    assert!(out.contains("masked bins"), "{out}");
    assert!(out.contains("frames (uniform, s)"), "{out}");
}

#[test]
fn missing_session_fails_with_its_path() {
    let (ok, _, err) = vista(&["window", "/nonexistent/session", "--at", "1"]);
    assert!(!ok);
    assert!(err.contains("/nonexistent/session"), "{err}");
}

#[test]
fn truncated_recording_still_gives_the_readable_part() {
    let dir = tempfile::tempdir().unwrap();
    let vrs = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs");
    let bytes = std::fs::read(vrs).unwrap();
    std::fs::write(
        dir.path().join("recording.vrs"),
        &bytes[..bytes.len() * 3 / 5],
    )
    .unwrap();
    let s = dir.path().to_str().unwrap();
    let (ok, out, err) = vista(&["window", s, "--at", "0.14", "--json"]);
    assert!(ok, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let imu_valid = v["streams"]["imu"]["mask"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m.as_bool().unwrap())
        .count();
    assert!(imu_valid >= 1);
    assert!(!v["frames_ns"].as_array().unwrap().is_empty());
}
