//! Replay of recorded sessions: capture order, determinism, time ranges, missing parts,
//! MPS-derived streams and damaged recordings.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use vista::aria::vrs::{RecordType, VrsReader};
use vista::buffer::Reader;
use vista::runtime::{ClockMode, Consumer, ConsumerError, RuntimeConfig};
use vista::sample::{Payload, Sample, StreamId};
use vista::source::replay::{ReplayOptions, ReplaySource};
use vista::source::Source;
use vista::time::HostTime;

const VRS: &str = "tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs";
const MPS: &str = "tests/data/gen1/mps_sample";

fn drain(src: &mut ReplaySource) -> (Vec<Sample>, usize) {
    let mut out = Vec::new();
    let mut errors = 0;
    while let Some(r) = src.next_sample() {
        match r {
            Ok(s) => out.push(s),
            Err(_) => errors += 1,
        }
    }
    (out, errors)
}

/// (stream, capture, seq) — everything but the host arrival time.
fn key(s: &Sample) -> (StreamId, i64, u64) {
    (s.stream, s.capture.ns(), s.seq)
}

/// Data records of streams vista knows, per the index of an intact file.
fn known_data_records(vrs: &VrsReader) -> usize {
    vrs.index()
        .iter()
        .filter(|e| e.record_type == RecordType::Data)
        .filter(|e| StreamId::from_vrs_id(e.stream.type_id, e.stream.instance).is_some())
        .count()
}

#[test]
fn replays_every_recorded_sample_in_capture_order() {
    let mut src = ReplaySource::open(Path::new(VRS), ReplayOptions::default()).unwrap();
    let expected = known_data_records(src.recording().vrs());
    let (samples, errors) = drain(&mut src);
    assert_eq!(errors, 0);
    assert_eq!(samples.len(), expected);
    assert!(
        samples.windows(2).all(|w| w[0].capture <= w[1].capture),
        "not in capture order"
    );
    // Per-stream sequence numbers count from 0 without gaps.
    for id in StreamId::ALL {
        let seqs: Vec<u64> = samples
            .iter()
            .filter(|s| s.stream == id)
            .map(|s| s.seq)
            .collect();
        assert!(
            seqs.iter().enumerate().all(|(i, s)| *s == i as u64),
            "{id}: {seqs:?}"
        );
    }
    // Every recorded stream of the sample is there; nothing derived without an MPS folder.
    for id in [
        StreamId::CameraRgb,
        StreamId::ImuRight,
        StreamId::ImuLeft,
        StreamId::Barometer,
    ] {
        assert!(samples.iter().any(|s| s.stream == id), "{id} missing");
    }
    assert!(samples.iter().all(|s| !s.is_derived()));
}

#[test]
fn two_replays_give_identical_sequences() {
    let a = drain(&mut ReplaySource::open(Path::new(VRS), ReplayOptions::default()).unwrap()).0;
    let b = drain(&mut ReplaySource::open(Path::new(VRS), ReplayOptions::default()).unwrap()).0;
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(key(x), key(y));
        // Debug text, so NaN temperatures compare equal to themselves.
        assert_eq!(format!("{:?}", x.payload), format!("{:?}", y.payload));
    }
}

#[test]
fn from_and_to_select_a_device_time_range() {
    let all = drain(&mut ReplaySource::open(Path::new(VRS), ReplayOptions::default()).unwrap()).0;
    let opts = ReplayOptions {
        from_s: Some(0.05),
        to_s: Some(0.1),
        ..Default::default()
    };
    let mut src = ReplaySource::open(Path::new(VRS), opts).unwrap();
    let origin = src.origin().ns();
    let part = drain(&mut src).0;
    let lo = origin + 50_000_000;
    let hi = origin + 100_000_000;
    let expected: Vec<_> = all
        .iter()
        .filter(|s| s.capture.ns() >= lo && s.capture.ns() <= hi)
        .map(|s| (s.stream, s.capture.ns()))
        .collect();
    let got: Vec<_> = part.iter().map(|s| (s.stream, s.capture.ns())).collect();
    assert!(!got.is_empty());
    assert_eq!(got, expected);
}

#[test]
fn loops_keep_capture_time_increasing() {
    let once = drain(&mut ReplaySource::open(Path::new(VRS), ReplayOptions::default()).unwrap()).0;
    let opts = ReplayOptions {
        extra_loops: 2,
        ..Default::default()
    };
    let thrice = drain(&mut ReplaySource::open(Path::new(VRS), opts).unwrap()).0;
    assert_eq!(thrice.len(), 3 * once.len());
    assert!(thrice.windows(2).all(|w| w[0].capture <= w[1].capture));
}

fn session_dir(with_mps: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(VRS, dir.path().join("recording.vrs")).unwrap();
    if with_mps {
        copy_dir(Path::new(MPS), &dir.path().join("mps"));
    }
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest: PathBuf = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

#[test]
fn a_session_without_mps_names_what_is_missing_and_runs() {
    let dir = session_dir(false);
    let mut src = ReplaySource::open(dir.path(), ReplayOptions::default()).unwrap();
    let missing = src.files().missing();
    assert!(
        missing.iter().any(|m| m.contains("no MPS folder")),
        "{missing:?}"
    );
    assert!(!drain(&mut src).0.is_empty());
}

#[test]
fn mps_streams_are_merged_and_marked_derived() {
    let dir = session_dir(true);
    let mut src = ReplaySource::open(dir.path(), ReplayOptions::default()).unwrap();
    assert!(
        src.files().missing().is_empty(),
        "{:?}",
        src.files().missing()
    );
    let (samples, errors) = drain(&mut src);
    assert_eq!(errors, 0);
    for id in [
        StreamId::DevicePose,
        StreamId::EyeGaze,
        StreamId::HandTracking,
    ] {
        let n = samples.iter().filter(|s| s.stream == id).count();
        assert!(n > 0, "{id}: none delivered");
    }
    assert!(samples.iter().filter(|s| s.is_derived()).all(|s| matches!(
        s.payload,
        Payload::Pose(_) | Payload::EyeGaze(_) | Payload::Hands(_)
    )));
    assert!(
        samples.windows(2).all(|w| w[0].capture <= w[1].capture),
        "merge out of order"
    );
    // Recorded-only replay (what live input sees) leaves them out.
    let opts = ReplayOptions {
        recorded_only: true,
        ..Default::default()
    };
    let live_like = drain(&mut ReplaySource::open(dir.path(), opts).unwrap()).0;
    assert!(live_like.iter().all(|s| !s.is_derived()));
}

#[test]
fn a_truncated_recording_replays_everything_before_the_damage() {
    let bytes = std::fs::read(VRS).unwrap();
    let intact = VrsReader::open(VRS).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for frac in [0.3, 0.55, 0.8, 0.97] {
        let cut = (bytes.len() as f64 * frac) as usize;
        let path = dir.path().join(format!("cut_{cut}.vrs"));
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let complete = intact
            .index()
            .iter()
            .filter(|e| e.record_type == RecordType::Data)
            .filter(|e| StreamId::from_vrs_id(e.stream.type_id, e.stream.instance).is_some())
            .filter(|e| e.offset + u64::from(e.size) <= cut as u64)
            .count();
        let mut src = ReplaySource::open(&path, ReplayOptions::default()).unwrap();
        let (samples, _errors) = drain(&mut src);
        assert_eq!(samples.len(), complete, "cut at {cut} bytes");
    }
}

/// Collects the keys of every sample it is handed, in order.
struct Collect(Arc<Mutex<Vec<(StreamId, i64, u64)>>>);

impl Consumer for Collect {
    fn name(&self) -> &str {
        "collect"
    }
    fn on_samples(&mut self, reader: &mut Reader, _now: HostTime) -> Result<(), ConsumerError> {
        let mut v = self.0.lock().unwrap();
        reader.drain_all_new(|s| v.push(key(s)));
        Ok(())
    }
}

fn run_asap(path: &Path) -> (Vec<(StreamId, i64, u64)>, vista::runtime::RunReport) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let src = ReplaySource::open(path, ReplayOptions::default()).unwrap();
    let report = vista::runtime::run(
        Box::new(src),
        RuntimeConfig::new(ClockMode::Virtual),
        vec![Box::new(Collect(Arc::clone(&seen)))],
    )
    .unwrap();
    let v = seen.lock().unwrap().clone();
    (v, report)
}

#[test]
fn asap_runs_through_the_runtime_are_identical_and_lose_nothing() {
    let dir = session_dir(true);
    let (a, ra) = run_asap(dir.path());
    let (b, _) = run_asap(dir.path());
    assert_eq!(a, b);
    let mut src = ReplaySource::open(dir.path(), ReplayOptions::default()).unwrap();
    let n = drain(&mut src).0.len();
    assert_eq!(a.len(), n, "lock-step consumer must see every sample");
    let delivered: u64 = ra.profile.streams.values().map(|s| s.delivered).sum();
    assert_eq!(delivered as usize, n);
}

#[test]
fn loops_of_a_range_follow_each_other_without_a_gap() {
    let opts = ReplayOptions {
        from_s: Some(0.05),
        to_s: Some(0.1),
        extra_loops: 1,
        ..Default::default()
    };
    let samples = drain(&mut ReplaySource::open(Path::new(VRS), opts).unwrap()).0;
    let n = samples.len();
    assert!(n > 10 && n % 2 == 0, "{n}");
    let (first, second) = samples.split_at(n / 2);
    // The second loop is the first shifted by one constant, just past the first's end.
    let shift = second[0].capture.ns() - first[0].capture.ns();
    for (a, b) in first.iter().zip(second) {
        assert_eq!(
            (a.stream, b.capture.ns() - a.capture.ns()),
            (b.stream, shift)
        );
    }
    let gap = second[0].capture.ns() - first[n / 2 - 1].capture.ns();
    assert!(gap > 0 && gap < 5_000_000, "gap between loops {gap} ns");
}
