//! Fuzzing entry points: each takes arbitrary bytes through one hostile-input surface and
//! must never panic, hang or exceed its memory budget, whatever the bytes. The cargo-fuzz
//! targets in `fuzz/` call these, and `tests/fuzz_corpus.rs` runs every file of the
//! committed corpus (`fuzz/seeds/<target>/`) through the same functions on stable Rust, so
//! the corpus is a regression suite without nightly.

use std::path::{Path, PathBuf};

use crate::aria::calib::{CalibSource, DeviceCalibration};
use crate::aria::mps;
use crate::aria::recording::decode_image;
use crate::assistant::requests::{parse_requests_jsonl, pump_lines, RequestQueue};
use crate::sample::{ImageEncoding, ImageFrame};
use crate::source::live::protocol::{decode_frame, encode_frame, Limits};
use crate::stop::StopHandle;
use crate::synth::Scenario;
use crate::time::{DeviceTime, VirtualClock};

/// A fuzz entry point.
pub type Entry = fn(&[u8]);

/// The fuzz targets, by name: the cargo-fuzz binary and seed folder of each.
pub const TARGETS: [(&str, Entry); 7] = [
    ("vrs_reader", vrs_reader),
    ("live_frame", live_frame),
    ("mps_csv", mps_csv),
    ("calibration_json", calibration_json),
    ("scenario_json", scenario_json),
    ("request_lines", request_lines),
    ("image", image),
];

/// A VRS file in memory: open, scan, read, split and decode every record.
pub fn vrs_reader(data: &[u8]) {
    crate::aria::vrs::fuzz_entry(data);
    let Ok(vrs) =
        crate::aria::vrs::VrsReader::from_bytes("fuzz.vrs", bytes::Bytes::copy_from_slice(data))
    else {
        return;
    };
    let rec = crate::aria::recording::AriaRecording::from_reader(vrs);
    let _ = rec.summaries();
    for s in rec.samples() {
        let Ok((_, _, crate::sample::Payload::Image(frame))) = s else {
            continue;
        };
        let _ = decode_image(&frame);
    }
}

/// A live-protocol frame body: decoded with the default limits; a frame that decodes must
/// re-encode to a body that decodes again.
pub fn live_frame(data: &[u8]) {
    let limits = Limits::default();
    let body = bytes::Bytes::copy_from_slice(data);
    if let Ok(frame) = decode_frame(&body, &limits) {
        let mut out = Vec::new();
        if encode_frame(&frame, &mut out).is_ok() {
            let body = bytes::Bytes::from(out).slice(4..);
            assert!(
                decode_frame(&body, &limits).is_ok(),
                "re-encoded frame rejected"
            );
        }
    }
}

/// The MPS file names the CSV target reads, chosen by the first byte (its top bit: gzip).
const MPS_FILES: [&str; 7] = [
    "closed_loop_trajectory.csv",
    "general_eye_gaze.csv",
    "wrist_and_palm_poses.csv",
    "hand_tracking_results.csv",
    "semidense_points.csv",
    "semidense_observations.csv",
    "online_calibration.jsonl",
];

/// An MPS output file: the first byte picks the reader (and gzip with its top bit), the rest
/// is the file. Read to the end, keeping what comes before any error.
pub fn mps_csv(data: &[u8]) {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let name = MPS_FILES[usize::from(pick & 0x7f) % MPS_FILES.len()];
    let gz = pick & 0x80 != 0;
    let Some(path) = scratch_file(name, gz, body) else {
        return;
    };
    match name {
        "closed_loop_trajectory.csv" => drop(mps::read_trajectory_partial(&path)),
        "general_eye_gaze.csv" => drop(mps::read_eye_gaze_partial(&path)),
        "wrist_and_palm_poses.csv" => drop(mps::read_wrist_and_palm_partial(&path)),
        "hand_tracking_results.csv" => drop(mps::read_hand_tracking_results_partial(&path)),
        "semidense_points.csv" => drop(mps::read_semidense_points_partial(
            &path,
            mps::PointFilter::none(),
        )),
        "semidense_observations.csv" => drop(mps::read_point_observations(&path)),
        _ => drop(mps::read_online_calibrations_partial(&path)),
    }
    let _ = std::fs::remove_file(&path);
}

/// Writes `body` to a file called `name` (`.gz` added when `gz`) in a folder of this
/// process and thread, for the readers that take a path.
fn scratch_file(name: &str, gz: bool, body: &[u8]) -> Option<PathBuf> {
    let thread = format!("{:?}", std::thread::current().id())
        .chars()
        .filter(char::is_ascii_digit)
        .collect::<String>();
    let dir = std::env::temp_dir().join(format!("vista-fuzz-{}-{thread}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let file = if gz {
        format!("{name}.gz")
    } else {
        name.to_string()
    };
    let path = dir.join(file);
    std::fs::write(&path, body).ok()?;
    Some(path)
}

/// A device calibration JSON: parsed; when it parses, every camera projects and unprojects
/// a few points and is rescaled to half its size.
pub fn calibration_json(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let source = CalibSource::Named("fuzz calibration".into());
    let Ok(calib) = DeviceCalibration::from_json_str_with_source(text, source) else {
        return;
    };
    for cam in &calib.cameras {
        for p in [[0.0, 0.0, 1.0], [0.3, -0.2, 2.0], [1.0, 1.0, 0.1]] {
            if let Some(uv) = cam.project(&nalgebra::Vector3::from(p)) {
                let _ = cam.unproject(&uv);
            }
        }
    }
    let sizes: Vec<(String, u32, u32)> = calib
        .cameras
        .iter()
        .map(|c| (c.label.clone(), 320, 240))
        .collect();
    let _ = calib.with_recorded_sizes(&sizes);
}

/// A scenario JSON: parsed and validated; a scenario that passes has its people and
/// vehicles placed at a few times.
pub fn scenario_json(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(s) = Scenario::from_json(Path::new("fuzz.json"), text) else {
        return;
    };
    for t in [0.0, s.duration_s / 2.0, s.duration_s] {
        for p in &s.world.people {
            let _ = (p.position_at(t), p.facing_at(t), p.waving_at(t));
        }
        for v in &s.world.vehicles {
            let _ = (v.position_at(t), v.heading_at(t));
        }
    }
}

/// Request lines: as a `requests.jsonl` file, and as live lines through the pump.
pub fn request_lines(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = parse_requests_jsonl(Path::new("fuzz.jsonl"), &text);
    let queue = RequestQueue::new(16);
    let clock = VirtualClock::new(DeviceTime(0));
    let stop = StopHandle::new();
    pump_lines(std::io::Cursor::new(data), &queue, &clock, &stop);
    for r in queue.drain() {
        assert!(!r.text.contains('\0'), "a NUL reached a request");
    }
    stop.stop();
}

/// An image file: decoded as a still (PNG or JPEG by its signature), and as a frame of a
/// 640 × 480 stream; and as an H.265 key frame of no stream and of a 512 × 512 stream.
pub fn image(data: &[u8]) {
    let sniffed = ImageEncoding::sniff(data);
    let hevc = ImageEncoding::Hevc { key_frame_index: 0 };
    for (width, height, encoding) in [
        (0, 0, sniffed),
        (640, 480, sniffed),
        (0, 0, hevc),
        (512, 512, hevc),
    ] {
        let frame = ImageFrame {
            width,
            height,
            encoding,
            data: bytes::Bytes::copy_from_slice(data),
            frame_number: 0,
            exposure_s: 0.0,
            gain: 1.0,
        };
        if let Ok(img) = decode_image(&frame) {
            if width > 0 {
                assert!(
                    img.width <= width && img.height <= height,
                    "frame over its size"
                );
            }
        }
    }
}
