//! Windows of real Aria Gen1 data (the test VRS and the MPS sample, replayed as one session)
//! against reference windows computed with Meta's projectaria_tools readers and numpy
//! (`scripts/ref_window.py` → `tests/data/reference/window_gen1.json`).

use std::path::Path;

use serde_json::Value;
use vista::aria::recorded_calib::recording_calibration;
use vista::aria::recording::AriaRecording;
use vista::sample::Sample;
use vista::source::replay::{ReplayOptions, ReplaySource};
use vista::source::Source;
use vista::time::DeviceTime;
use vista::window::{
    window_at, GridStream, Rectifiers, SensorWindow, WindowBuilder, WindowConfig, BINS,
};

fn session_samples() -> Vec<Sample> {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/gen1");
    std::fs::copy(
        root.join("aria_unit_test_timecode_sequence_calib.vrs"),
        dir.path().join("recording.vrs"),
    )
    .unwrap();
    copy_dir(&root.join("mps_sample"), &dir.path().join("mps"));
    let mut src = ReplaySource::open(dir.path(), ReplayOptions::default()).unwrap();
    let mut out = Vec::new();
    while let Some(s) = src.next_sample() {
        out.push(s.unwrap());
    }
    out
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn windows_match_projectaria_tools_reference() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/reference/window_gen1.json");
    let reference: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let samples = session_samples();
    let vrs = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs");
    let rec = AriaRecording::open(&vrs).unwrap();
    let calib = recording_calibration(&rec).unwrap().unwrap();
    let mut compared = 0;
    for m in reference["moments"].as_array().unwrap() {
        let name = &format!(
            "{} (rectified: {})",
            m["name"].as_str().unwrap(),
            m["rectified"]
        );
        let t_end = DeviceTime(m["t_end_ns"].as_i64().unwrap());
        let cfg = WindowConfig {
            bin_ns: m["bin_ns"].as_i64().unwrap(),
        };
        let w = if m["rectified"].as_bool().unwrap() {
            let mut b = WindowBuilder::new(cfg)
                .unwrap()
                .with_rectifiers(Rectifiers::from_calibration(&calib));
            for s in samples.iter().filter(|s| s.capture <= t_end) {
                b.push(s);
            }
            let mut w = SensorWindow::new();
            b.snapshot(t_end, &mut w).unwrap();
            w
        } else {
            window_at(&samples, t_end, cfg, None).unwrap()
        };
        let streams = m["streams"].as_object().unwrap();
        for gs in GridStream::ALL {
            let t = w.stream(gs);
            let Some(r) = streams.get(gs.name()) else {
                assert_eq!(t.valid_bins(), 0, "{name} {gs}: no data expected");
                continue;
            };
            let mask: Vec<bool> = r["mask"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_bool().unwrap())
                .collect();
            assert_eq!(t.mask.to_vec(), mask, "{name} {gs} mask");
            for bin in 0..BINS {
                let row = &r["values"][bin];
                if row.is_null() {
                    assert!((0..gs.channel_count()).all(|c| t.get(bin, c) == Some(0.0)));
                    continue;
                }
                for c in 0..gs.channel_count() {
                    let got = t.get(bin, c).unwrap();
                    match row[c].as_f64() {
                        None => {
                            assert!(!t.observed(bin, c), "{name} {gs} bin {bin} ch {c}");
                            assert_eq!(got, 0.0);
                        }
                        Some(want) => {
                            assert!(t.observed(bin, c), "{name} {gs} bin {bin} ch {c}");
                            let tol = 2e-6 * want.abs().max(1.0);
                            assert!(
                                (f64::from(got) - want).abs() <= tol,
                                "{name} {gs} bin {bin} {}: {got} vs {want}",
                                gs.channels()[c]
                            );
                            compared += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(compared > 2000, "{compared} values compared");
}

#[test]
fn resampled_imu_window_matches_numpy_interp() {
    use vista::window::{ImuResampler, ImuWindowConfig};
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/reference/window_gen1.json");
    let reference: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let r = &reference["imu_resampled"];
    let cfg = ImuWindowConfig {
        unit: vista::sample::StreamId::ImuRight,
        rate_hz: r["rate_hz"].as_f64().unwrap(),
        points: r["points"].as_u64().unwrap() as usize,
        max_gap_ns: r["max_gap_ns"].as_i64().unwrap(),
    };
    let t_end = DeviceTime(r["t_end_ns"].as_i64().unwrap());
    let mut rs = ImuResampler::new(cfg).unwrap();
    for s in session_samples().iter().filter(|s| s.capture <= t_end) {
        rs.push(s);
    }
    let mut w = rs.new_window();
    rs.resample(t_end, &mut w);
    let rows = r["values"].as_array().unwrap();
    let mut valid = 0;
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(w.mask[i], !row.is_null(), "point {i}");
        if row.is_null() {
            continue;
        }
        valid += 1;
        for c in 0..6 {
            let want = row[c].as_f64().unwrap();
            let got = f64::from(w.values[i * 6 + c]);
            assert!(
                (got - want).abs() <= 2e-6 * want.abs().max(1.0),
                "{i} {c}: {got} vs {want}"
            );
        }
    }
    assert!(valid >= 20);
}
