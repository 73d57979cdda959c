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

#[test]
fn the_cli_reads_a_png_as_it_reads_the_jpeg() {
    use vista::sample::{ImageEncoding, ImageFrame};
    // The same frame as a PNG (decoded from the JPEG, so the pixels are identical).
    let jpg = std::fs::read(format!("{DATA}/frame_1408.jpg")).unwrap();
    let frame = ImageFrame {
        width: 0,
        height: 0,
        encoding: ImageEncoding::Jpeg,
        data: jpg.into(),
        frame_number: 0,
        exposure_s: 0.0,
        gain: 1.0,
    };
    let img = vista::aria::recording::decode_image(&frame).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let png_path = dir.path().join("frame_1408.png");
    let mut enc = png::Encoder::new(
        std::fs::File::create(&png_path).unwrap(),
        img.width,
        img.height,
    );
    enc.set_color(if img.channels == 3 {
        png::ColorType::Rgb
    } else {
        png::ColorType::Grayscale
    });
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().unwrap();
    w.write_image_data(&img.pixels).unwrap();
    w.finish().unwrap();
    let read = |path: &str| {
        let out = vista(&["ocr", path, "--gaze", "975", "480", "--json"]);
        assert!(
            out.status.success(),
            "{path}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let from_png = read(png_path.to_str().unwrap());
    assert!(from_png.contains("Gate 12"), "{from_png}");
    assert_eq!(from_png, read(&format!("{DATA}/frame_1408.jpg")));
}
