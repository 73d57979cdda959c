//! `vista ocr`: reads a sign, around a point or in the whole image; a missing file is a clear
//! error. Needs the models from `models/fetch`.

use std::process::Command;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ocr");

fn vista(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_vista"))
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

#[test]
fn the_cli_reads_the_gazed_sign_as_json() {
    let frame = format!("{DATA}/frame_1408.jpg");
    let out = vista(&["ocr", &frame, "--gaze", "975", "480", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    assert_eq!(lines[0]["text"], "Gate 12");
    // RapidOCR's box for the same square starts at (850, 463) (reference.json).
    let x = lines[0]["box"][0][0].as_f64().unwrap();
    assert!((x - 850.0).abs() <= 3.0, "{stdout}");
}

#[test]
fn a_missing_image_names_the_file() {
    let out = vista(&["ocr", "/nonexistent/sign.jpg"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/sign.jpg"));
}
