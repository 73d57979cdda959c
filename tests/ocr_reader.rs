//! The `TextReader` port over OCR: synchronous and background modes, the quarter-turned Aria
//! RGB frame, reading around the gaze versus the whole frame, bad input, and clock directions
//! through the real Gen1 calibration (checked against forward projection).
//! Reading needs the models from `models/fetch`.

use std::time::Duration;

use bytes::Bytes;
use vista::aria::recorded_calib::recording_calibration;
use vista::aria::recording::AriaRecording;
use vista::ocr::{
    BgrImage, OcrConfig, OcrEngine, OcrReader, Orientation, ReadMode, ReaderConfig, RgbGeometry,
};
use vista::sample::{ImageEncoding, ImageFrame, Payload, Sample, StreamId};
use vista::state::TextReader;
use vista::time::{DeviceTime, HostTime};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ocr");
const VRS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs"
);
/// EXIT's box in `exit.jpg` as RapidOCR gives it (`reference.json`): x 40..185, y 31..88.
const EXIT_BOX: [f32; 4] = [40.0, 31.0, 185.0, 88.0];
const BOX_TOL_PX: f32 = 3.0;

fn image(name: &str) -> BgrImage {
    BgrImage::from_jpeg(&std::fs::read(format!("{DATA}/{name}")).unwrap()).unwrap()
}

/// A raw rgb8 RGB-camera sample holding `img`.
fn sample(img: &BgrImage, capture_ns: i64, seq: u64) -> Sample {
    let mut rgb = img.data().to_vec();
    for px in rgb.chunks_exact_mut(3) {
        px.swap(0, 2);
    }
    Sample {
        stream: StreamId::CameraRgb,
        capture: DeviceTime(capture_ns),
        arrival: HostTime(0),
        seq,
        payload: Payload::Image(ImageFrame {
            width: img.width(),
            height: img.height(),
            encoding: ImageEncoding::Raw {
                pixel_format: 4,
                stride: img.width() * 3,
            },
            data: Bytes::from(rgb),
            frame_number: seq,
            exposure_s: 0.01,
            gain: 1.0,
        }),
    }
}

fn reader(mode: ReadMode, orientation: Orientation, geometry: Option<RgbGeometry>) -> OcrReader {
    let engine = OcrEngine::new(OcrConfig::default())
        .unwrap_or_else(|e| panic!("OCR models needed for this test (run models/fetch): {e}"));
    let cfg = ReaderConfig {
        mode,
        orientation,
        ..ReaderConfig::default()
    };
    OcrReader::new(engine, geometry, cfg).unwrap()
}

fn assert_box(got: [f32; 4], want: [f32; 4]) {
    for k in 0..4 {
        assert!(
            (got[k] - want[k]).abs() <= BOX_TOL_PX,
            "box {got:?}, want {want:?}"
        );
    }
}

fn rgb_geometry() -> RgbGeometry {
    let rec = AriaRecording::open(VRS).unwrap();
    let calib = recording_calibration(&rec).unwrap().unwrap();
    RgbGeometry::from_device(&calib, "camera-rgb").unwrap()
}

#[test]
fn synchronous_reading_gives_facts_at_the_frame_time() {
    let mut r = reader(ReadMode::Synchronous, Orientation::AsRecorded, None);
    let img = image("exit.jpg");
    r.submit(&sample(&img, 42_000, 0), Some([110.0, 60.0]));
    let facts = r.poll();
    assert_eq!(facts.len(), 1, "{facts:?}");
    let f = &facts[0];
    assert_eq!(f.text, "EXIT");
    assert!(f.confidence >= 0.95);
    assert!(f.gazed);
    assert_eq!(f.at, DeviceTime(42_000));
    assert_eq!(f.clock.get(), 12); // no calibration given
    assert_box(f.rgb_box, EXIT_BOX);
    assert!(r.poll().is_empty(), "poll drains");
    let s = r.stats();
    assert_eq!((s.frames_read, s.errors, s.frames_skipped), (1, 0, 0));
}

#[test]
fn a_quarter_turned_aria_frame_is_read_upright_and_boxed_in_its_own_pixels() {
    let mut r = reader(ReadMode::Synchronous, Orientation::RotateCw90, None);
    // Aria stores RGB a quarter turn counter-clockwise of upright.
    let upright = image("exit.jpg");
    let raw = upright.rotate_ccw90();
    r.submit(&sample(&raw, 1, 0), None);
    let facts = r.poll();
    assert_eq!(facts.len(), 1, "{facts:?}");
    assert_eq!(facts[0].text, "EXIT");
    // Upright (x, y) is raw (y, W_upright − 1 − x), W_upright = raw height = 240.
    let [x0, y0, x1, y1] = EXIT_BOX;
    let h = raw.height() as f32;
    assert_box(facts[0].rgb_box, [y0, h - 1.0 - x1, y1, h - 1.0 - x0]);
}

#[test]
fn the_gaze_square_reads_only_what_is_looked_at_until_the_whole_frame_is_asked_for() {
    let mut r = reader(ReadMode::Synchronous, Orientation::AsRecorded, None);
    let frame = image("frame_1408.jpg");
    let s = sample(&frame, 7, 0);
    // Looking at "Toilets" (bottom left): the 640 px square does not reach "Gate 12".
    r.submit(&s, Some([230.0, 1135.0]));
    let texts: Vec<String> = r.poll().into_iter().map(|f| f.text).collect();
    assert_eq!(texts, vec!["Toilets"]);
    r.request_whole_frame();
    r.submit(&s, Some([230.0, 1135.0]));
    let facts = r.poll();
    let texts: Vec<&str> = facts.iter().map(|f| f.text.as_str()).collect();
    assert_eq!(texts, vec!["Gate 12", "Toilets"]);
    assert_eq!(
        facts.iter().map(|f| f.gazed).collect::<Vec<_>>(),
        vec![false, true]
    );
}

#[test]
fn a_whole_frame_read_on_request_is_counted_once_its_text_can_be_polled() {
    let frame = image("frame_1408.jpg");
    let gaze = Some([230.0, 1135.0]);
    for mode in [ReadMode::Synchronous, ReadMode::Background] {
        let mut r = reader(mode, Orientation::AsRecorded, None);
        // Two frames waiting (the newest wins its slot), then the whole of the first.
        r.submit(&sample(&frame, 1, 0), gaze);
        r.submit(&sample(&frame, 2, 1), gaze);
        r.read_whole(&sample(&frame, 3, 2), gaze);
        assert!(r.wait_idle(Duration::from_secs(120)), "{mode:?}");
        assert_eq!(r.whole_reads_finished(), 1, "{mode:?}");
        let facts = r.poll();
        // (Read square by square, the middle first: in the order the squares found them.)
        let mut whole: Vec<&str> = facts
            .iter()
            .filter(|f| f.at == DeviceTime(3))
            .map(|f| f.text.as_str())
            .collect();
        whole.sort_unstable();
        assert_eq!(whole, vec!["Gate 12", "Toilets"], "{mode:?}");
        // Around the gaze only "Toilets".
        assert!(facts
            .iter()
            .filter(|f| f.at != DeviceTime(3))
            .all(|f| f.text == "Toilets"));
        let s = r.stats();
        assert_eq!(s.whole_reads, 1, "{mode:?}: {s:?}");
        assert_eq!(s.frames_read + s.frames_skipped, 3, "{mode:?}: {s:?}");
    }
}

#[test]
fn a_whole_frame_read_hands_each_square_s_text_on_as_it_is_read() {
    let mut r = reader(ReadMode::Synchronous, Orientation::AsRecorded, None);
    let frame = image("frame_1408.jpg");
    let mut parts: Vec<Vec<String>> = Vec::new();
    r.read_whole_parts(&sample(&frame, 5, 0), None, &mut |f| {
        parts.push(f.into_iter().map(|x| x.text).collect())
    });
    // "Gate 12" and "Toilets" lie in different squares: handed on in two parts, each once.
    let mut all = parts.concat();
    all.sort_unstable();
    assert_eq!(all, vec!["Gate 12", "Toilets"], "{parts:?}");
    assert_eq!(parts.len(), 2, "{parts:?}");
    assert_eq!(r.whole_reads_finished(), 1);
    assert!(r.poll().is_empty(), "the parts went to the caller");
}

#[test]
fn background_mode_keeps_the_newest_frame_and_counts_the_rest() {
    let mut r = reader(ReadMode::Background, Orientation::AsRecorded, None);
    let img = image("exit.jpg");
    let n = 6u64;
    for i in 0..n {
        r.submit(&sample(&img, 1_000 * i as i64, i), None);
    }
    assert!(
        r.wait_idle(Duration::from_secs(60)),
        "reader never went idle"
    );
    let s = r.stats();
    assert_eq!(s.frames_read + s.frames_skipped, n, "{s:?}");
    assert!(
        s.frames_skipped >= 1,
        "submits are instant, reads are not: {s:?}"
    );
    let facts = r.poll();
    assert_eq!(facts.len() as u64, s.frames_read, "{facts:?}");
    assert!(facts.iter().all(|f| f.text == "EXIT"));
    // The newest frame always wins its place.
    assert_eq!(facts.last().unwrap().at, DeviceTime(1_000 * (n as i64 - 1)));
}

#[test]
fn bad_frames_are_counted_not_fatal() {
    for mode in [ReadMode::Synchronous, ReadMode::Background] {
        let mut r = reader(mode, Orientation::RotateCw90, None);
        let mut not_image = sample(&image("exit.jpg"), 0, 0);
        not_image.payload = Payload::Barometer(Default::default());
        r.submit(&not_image, None);
        assert!(r.wait_idle(Duration::from_secs(30)));
        let mut bad_jpeg = sample(&image("exit.jpg"), 1, 1);
        if let Payload::Image(f) = &mut bad_jpeg.payload {
            f.encoding = ImageEncoding::Jpeg;
            f.data = Bytes::from_static(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 1]);
        }
        r.submit(&bad_jpeg, None);
        assert!(r.wait_idle(Duration::from_secs(30)));
        assert!(r.poll().is_empty());
        let s = r.stats();
        assert_eq!((s.errors, s.frames_read), (2, 0), "{mode:?}: {s:?}");
    }
}

#[test]
fn real_aria_rgb_frames_read_without_errors() {
    // The Gen1 unit-test recording (no signs in view): real 1408² JPEGs, quarter-turned,
    // read around the image centre with the recording's calibration.
    let rec = AriaRecording::open(VRS).unwrap();
    let mut r = reader(
        ReadMode::Synchronous,
        Orientation::RotateCw90,
        Some(rgb_geometry()),
    );
    let frames: Vec<Sample> = rec
        .stream_samples(StreamId::CameraRgb)
        .filter_map(Result::ok)
        .take(2)
        .enumerate()
        .map(|(i, (stream, capture, payload))| Sample {
            stream,
            capture,
            arrival: HostTime(0),
            seq: i as u64,
            payload,
        })
        .collect();
    assert!(!frames.is_empty());
    for f in &frames {
        r.submit(f, Some([704.0, 704.0]));
    }
    let s = r.stats();
    assert_eq!((s.frames_read, s.errors), (frames.len() as u64, 0), "{s:?}");
    for fact in r.poll() {
        assert!(fact.confidence >= 0.8);
        assert!(
            fact.rgb_box.iter().all(|v| (0.0..=1408.0).contains(v)),
            "{fact:?}"
        );
    }
}

#[test]
fn clock_directions_invert_the_rgb_projection() {
    let g = rgb_geometry();
    let calib = {
        let rec = AriaRecording::open(VRS).unwrap();
        recording_calibration(&rec).unwrap().unwrap()
    };
    let t_device_cpf = calib.t_device_cpf();
    let cam = g.camera();
    // The camera sits ~5.6 cm left of the CPF origin, so a pixel's ray has the bearing of the
    // direction from the camera (depth unknown); the reference is that direction.
    let cam_in_cpf =
        t_device_cpf.inverse() * nalgebra::Point3::from(cam.t_device_camera.translation.vector);
    // Points 3 m away, a little below eye level (CPF: x left, y up, z forward), projected
    // forward through the calibration.
    for (toward_deg, hour) in [
        (0.0f64, 12u8),
        (25.0, 11),
        (-25.0, 1),
        (40.0, 11),
        (-40.0, 1),
    ] {
        let b = toward_deg.to_radians();
        let p_cpf = nalgebra::Point3::new(3.0 * b.sin(), -0.3, 3.0 * b.cos());
        let d = p_cpf - cam_in_cpf;
        let bearing_deg = d.x.atan2(d.z).to_degrees();
        let px = cam
            .project_device(&(t_device_cpf * p_cpf))
            .unwrap_or_else(|| panic!("bearing {bearing_deg}° not in the RGB image"));
        let got = g
            .bearing_left_deg([px.x as f32, px.y as f32])
            .expect("inside the image");
        assert!(
            (f64::from(got) - bearing_deg).abs() < 0.05,
            "bearing {bearing_deg}°: unprojected {got}°"
        );
        assert_eq!(g.clock([px.x as f32, px.y as f32]).unwrap().get(), hour);
    }
    // And the quarter turn is the right way round: up in the world is up in the upright
    // image, left is left.
    let project = |p: [f64; 3]| {
        let uv = cam
            .project_device(&(t_device_cpf * nalgebra::Point3::new(p[0], p[1], p[2])))
            .unwrap();
        Orientation::RotateCw90.to_upright([uv.x as f32, uv.y as f32], cam.image_height)
    };
    let centre = project([0.0, 0.0, 3.0]);
    let up = project([0.0, 0.5, 3.0]);
    let left = project([0.5, 0.0, 3.0]);
    assert!(
        up[1] < centre[1] - 50.0 && (up[0] - centre[0]).abs() < 30.0,
        "{centre:?} {up:?}"
    );
    assert!(
        left[0] < centre[0] - 50.0 && (left[1] - centre[1]).abs() < 30.0,
        "{centre:?} {left:?}"
    );
}
