//! Hostile and damaged inputs (issue 25): bombs generated here at run time and read under a
//! heap budget (a zstd record that really inflates to 256 MiB, a gzip of semi-dense rows
//! inflating 1000×, a CSV line without end), damaged optional inputs that used to abort a
//! run (an empty gaze or hand file, a corrupt calibration, a flipped bit in a tag), a
//! recording cut short, tags stored in TAGS records, and scenarios that panicked, stalled
//! or asked for 32 GB.

#[path = "common/vrs_bombs.rs"]
mod vrs_bombs;
use vrs_bombs::vrs_with_bombs;
#[path = "common/heap_peak.rs"]
mod heap_peak;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use heap_peak::{mib, peak_growth, Tracking};
use vista::aria::recording::AriaRecording;
use vista::aria::vrs::{
    Compression, DataLayoutBuilder, DataLayoutEncoder, RecordType, StreamSpec, VrsReader,
    VrsStreamId, VrsWriter,
};

#[global_allocator]
static GLOBAL: Tracking = Tracking;

const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs"
);

fn vista() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vista"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

#[test]
fn zstd_bombs_in_a_camera_stream_are_refused_by_the_streams_budget() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bombs.vrs");
    vrs_with_bombs(&p, 3, 256 << 20);
    let (errors, peak) = peak_growth(|| {
        let rec = AriaRecording::open(&p).unwrap();
        rec.samples()
            .map(|s| s.err().map(|e| e.to_string()))
            .collect::<Vec<_>>()
    });
    assert_eq!(errors.len(), 3);
    for e in &errors {
        let e = e.as_deref().unwrap_or("decoded");
        assert!(e.contains("budget"), "{e}");
    }
    // A 640 × 480 grey frame's budget is 2 × 307200 + 64 KiB; each bomb asked for 256 MiB.
    assert!(peak < 16 << 20, "peak heap {:.1} MiB", mib(peak));
}

#[test]
fn a_record_within_the_absolute_cap_but_beyond_its_stream_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bomb.vrs");
    // 8 MiB: under the 64 MiB cap of any record, 12× a 640 × 480 grey frame's budget.
    vrs_with_bombs(&p, 1, 8 << 20);
    let rec = AriaRecording::open(&p).unwrap();
    let e = rec.samples().next().unwrap().unwrap_err().to_string();
    assert!(e.contains("budget of 679936 bytes"), "{e}");
    // The bare reader (no configuration known) still reads it: the cap is 64 MiB.
    let vrs = VrsReader::open(&p).unwrap();
    let data = vrs
        .index()
        .iter()
        .find(|e| e.record_type == RecordType::Data)
        .unwrap();
    assert_eq!(vrs.read_record(data).unwrap().payload.len(), 8 << 20);
}

fn semidense_bomb(path: &Path, text_bytes: usize) {
    let f = std::fs::File::create(path).unwrap();
    let mut enc = flate2::write::GzEncoder::new(f, flate2::Compression::best());
    enc.write_all(b"uid,graph_uid,px_world,py_world,pz_world,inv_dist_std,dist_std\n")
        .unwrap();
    let row = b"123456,g,1.5,-2.5,0.5,0.004,0.0083\n";
    let block: Vec<u8> = row.repeat((1 << 20) / row.len());
    for _ in 0..text_bytes / block.len() {
        enc.write_all(&block).unwrap();
    }
    enc.finish().unwrap();
}

#[test]
fn a_gzip_bomb_of_semidense_points_stops_at_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("semidense_points.csv.gz");
    semidense_bomb(&p, 256 << 20);
    let gz_len = std::fs::metadata(&p).unwrap().len();
    let (partial, peak) = peak_growth(|| {
        vista::aria::mps::read_semidense_points_partial(&p, vista::aria::mps::PointFilter::none())
    });
    let e = partial
        .error
        .expect("the budget stops the read")
        .to_string();
    assert!(e.contains("bytes decompressed"), "{e}");
    // What came before the budget is kept.
    assert!(!partial.items.is_empty());
    let budget = vista::aria::mps::csv_table::gzip_budget(gz_len);
    assert!(budget < 64 << 20, "{gz_len} bytes of gzip: budget {budget}");
    // 256 MB of 35-byte rows held 7.7 M points (~700 MB); the budget keeps a fraction.
    assert!(peak < 128 << 20, "peak heap {:.1} MiB", mib(peak));
}

#[test]
fn a_semidense_bomb_in_a_session_keeps_the_points_before_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    let s = session_with(dir.path(), &[]);
    std::fs::create_dir_all(s.join("mps/slam")).unwrap();
    semidense_bomb(&s.join("mps/slam/semidense_points.csv.gz"), 128 << 20);
    let (inputs, peak) = peak_growth(|| vista::perception::PerceptionInputs::from_session(&s));
    let inputs = inputs.expect("degrades");
    assert!(inputs.points.is_some());
    assert!(peak < 256 << 20, "peak heap {:.1} MiB", mib(peak));
    assert!(
        inputs.notes.iter().any(|n| n.contains("the rest left out")),
        "{:?}",
        inputs.notes
    );
}

#[test]
fn an_mps_line_without_end_is_refused_without_buffering_it() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("closed_loop_trajectory.csv");
    let mut f = std::fs::File::create(&p).unwrap();
    f.write_all(b"graph_uid,tracking_timestamp_us").unwrap();
    f.write_all(&vec![b'7'; 32 << 20]).unwrap();
    drop(f);
    let (partial, peak) = peak_growth(|| vista::aria::mps::read_trajectory_partial(&p));
    let e = partial.error.expect("refused").to_string();
    assert!(e.contains("longer than 65536 bytes"), "{e}");
    assert!(peak < 4 << 20, "peak heap {:.1} MiB", mib(peak));
}

/// A session folder holding the sample recording and the given MPS files (relative paths
/// under `mps/`, contents).
fn session_with(dir: &Path, mps: &[(&str, &[u8])]) -> PathBuf {
    let s = dir.join("session");
    std::fs::create_dir_all(&s).unwrap();
    std::fs::copy(SAMPLE, s.join("recording.vrs")).unwrap();
    for (rel, bytes) in mps {
        let p = s.join("mps").join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    s
}

#[test]
fn empty_gaze_and_hand_files_are_left_out_and_the_replay_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let s = session_with(
        dir.path(),
        &[
            ("eye_gaze/general_eye_gaze.csv", b""),
            ("hand_tracking/wrist_and_palm_poses.csv", b""),
        ],
    );
    let out = vista()
        .args(["replay", s.to_str().unwrap(), "--asap", "-q"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("without eye-gaze") || err.contains("without eye"),
        "{err}"
    );
    assert!(err.contains("general_eye_gaze.csv"), "{err}");
    assert!(err.contains("wrist_and_palm_poses.csv"), "{err}");
}

/// `vista replay VRS --asap -q --recorded-only`: its output and its standard error.
fn replay_recorded(vrs: &Path) -> (std::process::Output, String) {
    let out = vista()
        .args(["replay"])
        .arg(vrs)
        .args(["--asap", "-q", "--recorded-only"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, err)
}

#[test]
fn a_truncated_recording_replays_and_says_how_much_was_lost() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(SAMPLE).unwrap();
    let cut = dir.path().join("cut.vrs");
    std::fs::write(&cut, &bytes[..bytes.len() * 3 / 5]).unwrap();
    let (out, err) = replay_recorded(&cut);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("bytes lost"), "{err}");
    assert!(err.contains("records skipped"), "{err}");
}

/// The sample's bytes with bit `bit` of the first byte after `marker` (searched from the
/// start) flipped.
fn flipped(marker: &[u8], bit: u8) -> Vec<u8> {
    let mut bytes = std::fs::read(SAMPLE).unwrap();
    let at = bytes
        .windows(marker.len())
        .position(|w| w == marker)
        .expect("marker in the sample");
    bytes[at + marker.len()] ^= 1 << bit;
    bytes
}

#[test]
fn a_flipped_bit_in_a_tag_spoils_that_tag_only() {
    // The high bit of a letter in the calibration text: invalid UTF-8 in one tag.
    let bytes = flipped(b"\"DeviceClassInfo\"", 7);
    let vrs = VrsReader::from_bytes("flipped.vrs", bytes.into()).expect("still opens");
    assert!(!vrs.streams().is_empty());
    assert!(vrs.file_tags().contains_key("calib_json"));
}

/// The sample's bytes with bit 30 set in the length of the value after the tag key `key`
/// (its first occurrence): the length now runs far past the description record.
fn tag_length_flipped(key: &[u8]) -> Vec<u8> {
    let mut bytes = std::fs::read(SAMPLE).unwrap();
    let at = bytes
        .windows(key.len())
        .position(|w| w == key)
        .expect("key in the sample")
        + key.len();
    let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    assert!(len < 1 << 20, "{len}: not a tag's length");
    bytes[at + 3] ^= 1 << 6;
    bytes
}

#[test]
fn a_flipped_bit_in_a_tag_length_loses_what_follows_not_the_file() {
    let whole = VrsReader::open(SAMPLE).unwrap();
    assert!(whole.recovery().description_damage.is_none());
    // In the file tags (the description's last part): every stream and record stays, the
    // calibration is lost.
    let bytes = tag_length_flipped(b"calib_json");
    let vrs = VrsReader::from_bytes("flipped.vrs", bytes.clone().into()).expect("still opens");
    let damage = vrs
        .recovery()
        .description_damage
        .clone()
        .expect("damage noted");
    assert!(damage.contains("file tags"), "{damage}");
    assert_eq!(vrs.streams().len(), whole.streams().len());
    assert_eq!(vrs.index().len(), whole.index().len());
    assert!(!vrs.file_tags().contains_key("calib_json"));
    // A replay goes on, and says what it lacks.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("flipped.vrs");
    std::fs::write(&path, &bytes).unwrap();
    let (out, err) = replay_recorded(&path);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("damaged description record"), "{err}");
    // In the first stream's tags: that stream keeps the tags read before the damage, the
    // streams after it are lost (their record formats with them).
    let bytes = tag_length_flipped(b"VRS_Original_Recordable_Name");
    let vrs = VrsReader::from_bytes("flipped.vrs", bytes.into()).expect("still opens");
    let damage = vrs
        .recovery()
        .description_damage
        .clone()
        .expect("damage noted");
    assert!(damage.contains("kept 0 of"), "{damage}");
    assert_eq!(vrs.streams().len(), 1);
    assert_eq!(vrs.streams()[0].id, whole.streams()[0].id);
}

#[test]
fn a_corrupt_calibration_is_left_out_where_a_nominal_one_serves() {
    // `{` of the calibration JSON becomes `z`: the tag no longer parses.
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = std::fs::read(SAMPLE).unwrap();
    let tag = b"calib_json";
    let at = bytes.windows(tag.len()).position(|w| w == tag).unwrap() + tag.len() + 4;
    assert_eq!(bytes[at], b'{');
    bytes[at] = b'z';
    let s = dir.path().join("s");
    std::fs::create_dir_all(&s).unwrap();
    std::fs::write(s.join("recording.vrs"), &bytes).unwrap();
    let rec = AriaRecording::open(s.join("recording.vrs")).unwrap();
    assert!(vista::aria::recorded_calib::recording_calibration(&rec).is_err());
    let inputs = vista::perception::PerceptionInputs::from_session(&s).expect("degrades");
    assert!(
        inputs
            .notes
            .iter()
            .any(|n| n.contains("calibration unreadable")),
        "{:?}",
        inputs.notes
    );
}

#[test]
fn streams_whose_tags_are_in_tags_records_are_shown() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("tags.vrs");
    let id = VrsStreamId::new(247, 1);
    let layout = DataLayoutBuilder::new()
        .value::<i64>("capture_timestamp_ns")
        .build()
        .unwrap();
    let mut w = VrsWriter::create_with_id(&p, BTreeMap::new(), 7).unwrap();
    // Declared without any format: its tags come in a TAGS record, as newer writers do.
    w.add_stream(StreamSpec::new(id, "")).unwrap();
    let mut vrs_tags = BTreeMap::new();
    vrs_tags.insert("RF:Data:1".to_string(), "data_layout".to_string());
    vrs_tags.insert("DL:Data:1:0".to_string(), layout.to_json());
    vrs_tags.insert(
        "VRS_Original_Recordable_Name".to_string(),
        "Digital twin thing".to_string(),
    );
    let mut user_tags = BTreeMap::new();
    user_tags.insert("device".to_string(), "adt".to_string());
    let map = |m: &BTreeMap<String, String>| {
        let mut out = Vec::new();
        for (k, v) in m {
            for s in [k, v] {
                out.extend((s.len() as u32).to_le_bytes());
                out.extend(s.as_bytes());
            }
        }
        out
    };
    let (a, b) = (map(&vrs_tags), map(&user_tags));
    let mut tags = Vec::new();
    for (off, len) in [(0, a.len()), (a.len(), b.len())] {
        tags.extend((off as u32).to_le_bytes());
        tags.extend((len as u32).to_le_bytes());
    }
    tags.extend(&a);
    tags.extend(&b);
    w.write_record(id, RecordType::Tags, 1, f64::MIN, &tags, Compression::None)
        .unwrap();
    let mut enc = DataLayoutEncoder::new(&layout);
    enc.set::<i64>("capture_timestamp_ns", 42).unwrap();
    w.write_record(
        id,
        RecordType::Data,
        1,
        0.0,
        &enc.encode(),
        Compression::Zstd,
    )
    .unwrap();
    w.finish().unwrap();

    let r = VrsReader::open(&p).unwrap();
    let s = r.stream(id).expect("declared");
    assert_eq!(s.recordable_name(), Some("Digital twin thing"));
    assert_eq!(s.user_tags.get("device").map(String::as_str), Some("adt"));
    // The TAGS record leaves the index; the DATA record decodes with the layout it gave.
    assert_eq!(r.index().len(), 1);
    let e = r.index()[0];
    let rec = r.read_record(&e).unwrap();
    let dl = r.data_layout(id, RecordType::Data, 1, 0).unwrap();
    assert_eq!(
        dl.value::<i64>(&rec.payload, "capture_timestamp_ns"),
        Some(42)
    );
}

fn scenario_file(dir: &Path, patch: impl FnOnce(&mut serde_json::Value)) -> PathBuf {
    let mut v = serde_json::json!({
        "name": "hostile", "summary": "", "duration_s": 2.0,
        "world": {
            "walls": [{"from_m": [0.0, 3.0], "to_m": [6.0, 3.0], "height_m": 2.5}],
            "obstacles": [{"kind": "box", "label": "box", "center_m": [2.0, 0.0, 0.5],
                           "size_m": [0.5, 0.5, 1.0], "hazard": true}]
        },
        "wearer": {"start_m": [0.0, 0.0], "heading_deg": 0.0,
                   "script": [{"do": "walk", "distance_m": 1.0, "speed_mps": 1.0}]}
    });
    patch(&mut v);
    let p = dir.join("hostile.json");
    std::fs::write(&p, v.to_string()).unwrap();
    p
}

#[test]
fn synth_refuses_hostile_scenarios_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    type Patch = fn(&mut serde_json::Value);
    let cases: [(&str, Patch); 4] = [
        ("world.obstacles[0].size_m[0]", |v| {
            v["world"]["obstacles"][0]["size_m"][0] = (-1.0).into()
        }),
        ("wearer.script[0].distance_m", |v| {
            v["wearer"]["script"][0]["distance_m"] = 1e9.into()
        }),
        ("duration_s", |v| v["duration_s"] = 1e6.into()),
        ("world.obstacles[0].center_m[0]", |v| {
            v["world"]["obstacles"][0]["center_m"][0] = 5e6.into()
        }),
    ];
    for (field, patch) in cases {
        let p = scenario_file(dir.path(), patch);
        let out = vista()
            .args(["synth", p.to_str().unwrap(), "--out"])
            .arg(dir.path().join("out"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{field}: {err}");
        assert!(err.contains(field), "{field}: {err}");
        assert!(!err.contains("panicked"), "{field}: {err}");
    }
    // --duration answers to the same bound.
    let p = scenario_file(dir.path(), |_| {});
    let out = vista()
        .args(["synth", p.to_str().unwrap(), "--duration", "1e6", "--out"])
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--duration"));
}

#[test]
fn a_requests_file_without_end_is_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("requests.jsonl");
    // /dev/zero, but finite: 64 MiB of NULs and no line break.
    let f = std::fs::File::create(&p).unwrap();
    f.set_len(64 << 20).unwrap();
    let (s, peak) = peak_growth(|| vista::assistant::requests::read_requests_jsonl(&p).unwrap());
    assert!(s.requests.is_empty());
    assert!(peak < 64 << 20, "peak heap {:.1} MiB", mib(peak));
}

/// A copy of the sample's camera streams `ids` whose DATA records keep their metadata but
/// carry `image` as their image block (a JPEG header claiming 16384², say).
fn vrs_with_images(path: &Path, ids: &[VrsStreamId], image: &[u8]) {
    let sample = VrsReader::open(SAMPLE).unwrap();
    let mut w = VrsWriter::create_with_id(path, sample.file_tags().clone(), 1).unwrap();
    for s in sample.streams().iter().filter(|s| ids.contains(&s.id)) {
        w.add_stream(StreamSpec::from_stream(s)).unwrap();
    }
    for e in sample.index().iter().filter(|e| ids.contains(&e.stream)) {
        let r = sample.read_record(e).unwrap();
        let payload = if e.record_type == RecordType::Data {
            let blocks = sample
                .split_record(e.offset, &r.header, &r.payload)
                .unwrap();
            let mut p = r.payload[blocks[0].clone()].to_vec();
            p.extend_from_slice(image);
            p
        } else {
            r.payload.to_vec()
        };
        let v = r.header.format_version;
        w.write_record(
            e.stream,
            e.record_type,
            v,
            e.timestamp_s,
            &payload,
            Compression::None,
        )
        .unwrap();
    }
    w.finish().unwrap();
}

/// A real 16 × 16 JPEG (grey, or colour when `rgb`) whose frame header is then made to
/// claim `side × side`: its headers parse, so a decoder that trusts them allocates
/// `side² × channels` bytes before the scan data runs out.
fn jpeg_claiming(side: u16, rgb: bool) -> Vec<u8> {
    let mut j = if rgb {
        let px: Vec<u8> = (0..16 * 16 * 3).map(|i| (i * 7 % 251) as u8).collect();
        vista::synth::jpeg::encode_rgb(&px, 16, 16, 90).unwrap()
    } else {
        let px: Vec<u8> = (0..16 * 16).map(|i| (i * 7 % 251) as u8).collect();
        vista::synth::jpeg::encode_grey(&px, 16, 16, 90).unwrap()
    };
    let sof = j
        .windows(2)
        .position(|w| w[0] == 0xFF && (0xC0..=0xC2).contains(&w[1]))
        .unwrap();
    j[sof + 5..sof + 7].copy_from_slice(&side.to_be_bytes());
    j[sof + 7..sof + 9].copy_from_slice(&side.to_be_bytes());
    j
}

#[test]
fn a_jpeg_larger_than_its_stream_is_refused_in_replay() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("jpeg.vrs");
    vrs_with_images(
        &p,
        &[VrsStreamId::new(1201, 1)],
        &jpeg_claiming(16384, false),
    );
    let rec = AriaRecording::open(&p).unwrap();
    let (errors, peak) = peak_growth(|| {
        rec.samples()
            .filter_map(Result::ok)
            .filter_map(|(_, _, payload)| match payload {
                vista::sample::Payload::Image(f) => Some(
                    vista::aria::recording::decode_image(&f)
                        .unwrap_err()
                        .to_string(),
                ),
                _ => None,
            })
            .collect::<Vec<_>>()
    });
    assert!(!errors.is_empty());
    assert!(errors
        .iter()
        .all(|e| e.contains("larger than the stream's 640×480")));
    assert!(peak < 4 << 20, "peak heap {:.1} MiB", mib(peak));
}

/// Writes the hostile files measured in the report into `$VISTA_HOSTILE_DIR` (ignored: a
/// measurement aid, not a test).
#[test]
#[ignore = "writes measurement inputs; run with VISTA_HOSTILE_DIR=dir"]
fn write_hostile_files() {
    let Some(out) = std::env::var_os("VISTA_HOSTILE_DIR").map(PathBuf::from) else {
        return;
    };
    std::fs::create_dir_all(&out).unwrap();
    let records: usize = std::env::var("VISTA_BOMB_RECORDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(8);
    vrs_with_bombs(&out.join("zstd_bombs.vrs"), records, 1 << 30);
    let slam = [VrsStreamId::new(1201, 1), VrsStreamId::new(1201, 2)];
    vrs_with_images(
        &out.join("jpeg_bombs.vrs"),
        &slam,
        &jpeg_claiming(16384, false),
    );
    std::fs::write(out.join("jpeg_16384.jpg"), jpeg_claiming(16384, true)).unwrap();
    let raw_mb: usize = std::env::var("VISTA_GZ_MB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(512);
    let s = session_with(&out, &[]);
    std::fs::create_dir_all(s.join("mps/slam")).unwrap();
    semidense_bomb(&s.join("mps/slam/semidense_points.csv.gz"), raw_mb << 20);
}
