//! Damaged VRS files: truncation, bad magic, impossible sizes, corrupt compressed payloads,
//! malformed DataLayout JSON, random damage. Each is a typed error naming the file and the
//! byte offset — or a recovery that still delivers everything before the damage — never a
//! panic.

use std::collections::BTreeMap;

use vista::aria::recording::{AriaRecording, RecordingError};
use vista::aria::vrs::{
    Compression, IndexSource, RecordType, StreamSpec, VrsError, VrsReader, VrsStreamId, VrsWriter,
};
use vista::sample::StreamId;

const SAMPLE: &str = "tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs";

fn sample_bytes() -> Vec<u8> {
    std::fs::read(SAMPLE).unwrap()
}

#[test]
fn truncation_delivers_every_complete_record() {
    let full = VrsReader::open(SAMPLE).unwrap();
    let bytes = sample_bytes();
    let idx = full.index();
    let rgb = idx
        .iter()
        .find(|e| e.stream == VrsStreamId::new(214, 1) && e.record_type == RecordType::Data)
        .unwrap();
    let k = &idx[idx.len() / 2];
    let cuts = [
        idx[0].offset + 100,                  // inside the first record
        k.offset,                             // exactly at a record boundary
        k.offset + 10,                        // inside a record header
        rgb.offset + u64::from(rgb.size) / 2, // in the middle of a JPEG
        bytes.len() as u64 - 1,               // one byte short
    ];
    for cut in cuts {
        let r = VrsReader::from_bytes("cut.vrs", bytes[..cut as usize].to_vec().into()).unwrap();
        let want: Vec<_> = idx
            .iter()
            .filter(|e| e.offset + u64::from(e.size) <= cut)
            .copied()
            .collect();
        assert_eq!(r.index(), want.as_slice(), "cut at {cut}");
        let end = want
            .last()
            .map_or(idx[0].offset, |e| e.offset + u64::from(e.size));
        let rep = r.recovery();
        assert!(
            matches!(rep.index_source, IndexSource::Rebuilt { .. }),
            "{rep:?}"
        );
        assert_eq!(rep.bytes_lost, cut - end, "cut at {cut}");
        assert_eq!(
            rep.records_skipped,
            (idx.len() - want.len()) as u64,
            "cut at {cut}"
        );
        // Everything delivered reads back identical to the intact file.
        for e in r.index() {
            assert_eq!(r.read_record(e).unwrap(), full.read_record(e).unwrap());
        }
    }
}

#[test]
fn truncation_inside_the_description_is_a_typed_error() {
    let bytes = sample_bytes();
    for cut in [0usize, 40, 79, 80, 100, 20_000] {
        let err = VrsReader::from_bytes("short.vrs", bytes[..cut].to_vec().into()).unwrap_err();
        assert!(
            matches!(err, VrsError::Truncated { .. }),
            "cut {cut}: {err}"
        );
        assert_eq!(err.path().to_str(), Some("short.vrs"));
        let msg = err.to_string();
        assert!(msg.contains("short.vrs") && msg.contains("byte"), "{msg}");
    }
}

#[test]
fn wrong_magic_is_a_typed_error() {
    let mut bytes = sample_bytes();
    bytes[0] = b'X';
    let err = VrsReader::from_bytes("magic.vrs", bytes.into()).unwrap_err();
    assert!(matches!(err, VrsError::BadMagic { offset: 0, .. }), "{err}");
    assert!(err.to_string().contains("magic.vrs"));
    // Not a file at all.
    let err = VrsReader::open("tests/data/gen1/LICENSE").unwrap_err();
    assert!(matches!(err, VrsError::BadMagic { .. }), "{err}");
}

#[test]
fn record_running_past_the_end() {
    let full = VrsReader::open(SAMPLE).unwrap();
    let mut bytes = sample_bytes();
    bytes[24..32].copy_from_slice(&0i64.to_le_bytes()); // no index: scan
    let last = *full.index().last().unwrap();
    let huge = (bytes.len() as u32).to_le_bytes();
    bytes[last.offset as usize..last.offset as usize + 4].copy_from_slice(&huge);
    let r = VrsReader::from_bytes("long.vrs", bytes.clone().into()).unwrap();
    assert_eq!(r.index().len(), full.index().len() - 1);
    assert_eq!(r.recovery().records_skipped, 1);
    assert_eq!(r.recovery().bytes_lost, u64::from(last.size));

    // Reading an entry that claims more bytes than the file has: typed error, right offset.
    let mut e = last;
    e.size = bytes.len() as u32;
    let err = r.read_record(&e).unwrap_err();
    assert!(matches!(err, VrsError::Truncated { .. }), "{err}");
    assert_eq!(err.offset(), last.offset);
}

#[test]
fn corrupt_zstd_payload_is_a_typed_error_and_other_streams_survive() {
    let full = VrsReader::open(SAMPLE).unwrap();
    // Configuration records are zstd-compressed in the sample: damage the IMU-right one.
    let conf = *full
        .index()
        .iter()
        .find(|e| {
            e.stream == VrsStreamId::new(1202, 1) && e.record_type == RecordType::Configuration
        })
        .unwrap();
    let mut bytes = sample_bytes();
    let start = conf.offset as usize + 32 + 20;
    for b in &mut bytes[start..start + 40] {
        *b ^= 0x5A;
    }
    let r = VrsReader::from_bytes("zstd.vrs", bytes.into()).unwrap();
    let err = r.read_record(&conf).unwrap_err();
    match &err {
        VrsError::Decompress { codec, offset, .. } => {
            assert_eq!(*codec, "zstd");
            assert_eq!(*offset, conf.offset);
        }
        other => panic!("{other}"),
    }
    // The recording still opens; IMU-right has no configuration, the rest decodes.
    let rec = AriaRecording::from_reader(r);
    assert!(rec.config(VrsStreamId::new(1202, 1)).is_none());
    assert_eq!(rec.image_size(StreamId::CameraRgb), Some((1408, 1408)));
    assert!(rec.samples().all(|s| s.is_ok()));
}

fn tiny_file(path: &std::path::Path, compression: Compression) -> u64 {
    let mut w = VrsWriter::create(path, BTreeMap::new()).unwrap();
    let dl = r#"{"data_layout":[{"name":"capture_timestamp_ns","type":"DataPieceValue<int64_t>","offset":0},{"name":"temperature","type":"DataPieceValue<double>","offset":8},{"name":"pressure","type":"DataPieceValue<double>","offset":16},{"name":"altitude","type":"DataPieceValue<double>","offset":24}]}"#;
    let id = VrsStreamId::new(247, 1);
    w.add_stream(StreamSpec::new(id, "Barometer Data Class").format(
        RecordType::Data,
        1,
        "data_layout/size=32",
        &[Some(dl)],
    ))
    .unwrap();
    let mut off = 0;
    for i in 0..3i64 {
        let mut p = Vec::new();
        p.extend_from_slice(&(1_000 + i).to_le_bytes());
        p.extend_from_slice(&20.0f64.to_le_bytes());
        p.extend_from_slice(&101_000.0f64.to_le_bytes());
        p.extend_from_slice(&0.0f64.to_le_bytes());
        off = w
            .write_record(id, RecordType::Data, 1, i as f64, &p, compression)
            .unwrap();
    }
    w.finish().unwrap();
    off
}

#[test]
fn corrupt_lz4_payload_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lz4.vrs");
    let last = tiny_file(&path, Compression::Lz4);
    let mut bytes = std::fs::read(&path).unwrap();
    // LZ4 frame magic of the last record's payload.
    bytes[last as usize + 32] ^= 0xFF;
    std::fs::write(&path, &bytes).unwrap();
    let r = VrsReader::open(&path).unwrap();
    assert_eq!(r.index().len(), 3);
    let e = r.index()[2];
    let err = r.read_record(&e).unwrap_err();
    assert!(
        matches!(err, VrsError::Decompress { codec: "lz4", offset, .. } if offset == last),
        "{err}"
    );
    assert_eq!(err.path(), path.as_path());
    // The other records still read.
    assert!(r.read_record(&r.index()[0]).is_ok());
}

#[test]
fn malformed_data_layout_json_is_a_typed_error_per_record() {
    let mut bytes = sample_bytes();
    // Break the barometer's data layout JSON in the description record (same length).
    let needle = br#"{"name":"pressure","type":"DataPieceValue<double>""#;
    let at = bytes
        .windows(needle.len())
        .position(|w| w == needle)
        .unwrap();
    bytes[at + 7] = b';'; // `"name":` -> `"name";`
    let r = VrsReader::from_bytes("dl.vrs", bytes.into()).unwrap();
    let id = VrsStreamId::new(247, 1);
    let err = r.data_layout(id, RecordType::Data, 1, 0).unwrap_err();
    assert!(matches!(err, VrsError::BadDataLayout { .. }), "{err}");
    assert_eq!(err.offset(), r.description_offset());
    assert!(err.to_string().contains("247-1") && err.to_string().contains("dl.vrs"));

    let rec = AriaRecording::from_reader(r);
    let mut baro_errors = 0;
    let mut ok = 0;
    for s in rec.samples() {
        match s {
            Ok((id, _, _)) => {
                assert_ne!(id, StreamId::Barometer);
                ok += 1;
            }
            Err(RecordingError::Stream {
                stream,
                source: VrsError::BadDataLayout { stream: vrs_id, .. },
            }) => {
                assert_eq!(stream, "barometer (247-1)");
                assert_eq!(vrs_id, "247-1");
                baro_errors += 1;
            }
            Err(other) => panic!("{other}"),
        }
    }
    assert_eq!(baro_errors, 8);
    assert_eq!(ok, 4 * 4 + 150 + 121 + 2);
}

/// xorshift: deterministic damage without a dependency.
fn rng(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

fn read_everything(bytes: Vec<u8>) {
    let Ok(r) = VrsReader::from_bytes("fuzz.vrs", bytes.into()) else {
        return;
    };
    let mut buf = Vec::new();
    for e in r.index() {
        let _ = r.read_record_into(e, &mut buf);
    }
    let rec = AriaRecording::from_reader(r);
    let _ = rec.summaries();
    let _ = rec.time_domain_mappings();
    for s in rec.samples() {
        let _ = s;
    }
}

#[test]
fn random_truncations_and_byte_flips_never_panic() {
    let bytes = sample_bytes();
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..100 {
        let cut = (rng(&mut seed) % bytes.len() as u64) as usize;
        read_everything(bytes[..cut].to_vec());
    }
    for _ in 0..300 {
        let mut b = bytes.clone();
        // Damage concentrated where the structure is: header, description, index, headers.
        for _ in 0..8 {
            let span = if rng(&mut seed) % 2 == 0 {
                40_000
            } else {
                b.len() as u64
            };
            let at = (rng(&mut seed) % span) as usize;
            b[at] ^= (rng(&mut seed) % 255 + 1) as u8;
        }
        read_everything(b);
    }
}

#[test]
fn fuzz_entry_survives_garbage() {
    let bytes = sample_bytes();
    vista::aria::vrs::fuzz_entry(&[]);
    vista::aria::vrs::fuzz_entry(&bytes[..200]);
    vista::aria::vrs::fuzz_entry(&bytes[..36_000]);
    let mut seed = 7u64;
    let junk: Vec<u8> = (0..4096).map(|_| rng(&mut seed) as u8).collect();
    vista::aria::vrs::fuzz_entry(&junk);
}

#[test]
fn a_corrupt_record_is_one_error_and_iteration_continues() {
    let full = VrsReader::open(SAMPLE).unwrap();
    let imu = VrsStreamId::new(1202, 1);
    let victim = *full
        .index()
        .iter()
        .filter(|e| e.stream == imu && e.record_type == RecordType::Data)
        .nth(5)
        .unwrap();
    let mut bytes = sample_bytes();
    // Claim the (uncompressed) payload is a zstd frame: the payload cannot decode.
    let at = victim.offset as usize;
    bytes[at + 27] = 2;
    bytes[at + 28..at + 32].copy_from_slice(&79u32.to_le_bytes());
    let rec =
        AriaRecording::from_reader(VrsReader::from_bytes("bad-record.vrs", bytes.into()).unwrap());
    let all: Vec<_> = rec.samples().collect();
    let errors: Vec<_> = all.iter().filter_map(|r| r.as_ref().err()).collect();
    assert_eq!(errors.len(), 1);
    match errors[0] {
        RecordingError::Stream {
            stream,
            source: VrsError::Decompress { offset, path, .. },
        } => {
            assert_eq!(stream, "imu-right (1202-1)");
            assert_eq!(*offset, victim.offset);
            assert_eq!(path.to_str(), Some("bad-record.vrs"));
        }
        other => panic!("{other}"),
    }
    let intact = AriaRecording::open(SAMPLE).unwrap().samples().count();
    assert_eq!(all.len(), intact, "the iteration went on after the error");
}

#[test]
fn a_damaged_header_is_stepped_over_with_the_index() {
    let full = VrsReader::open(SAMPLE).unwrap();
    let victim = full.index()[full.index().len() / 2];
    let mut bytes = sample_bytes();
    bytes[victim.offset as usize + 26] = 9; // impossible record type
    let r = VrsReader::from_bytes("damaged.vrs", bytes.clone().into()).unwrap();
    let want: Vec<_> = full
        .index()
        .iter()
        .filter(|e| e.offset != victim.offset)
        .copied()
        .collect();
    assert_eq!(r.index(), want.as_slice());
    let rep = r.recovery();
    assert!(
        matches!(rep.index_source, IndexSource::Rebuilt { .. }),
        "{rep:?}"
    );
    assert_eq!(rep.records_skipped, 1);
    assert_eq!(rep.bytes_lost, u64::from(victim.size));

    // Without an index there is nothing to step over it with: the scan stops there.
    bytes[24..32].copy_from_slice(&0i64.to_le_bytes());
    let r = VrsReader::from_bytes("damaged-no-index.vrs", bytes.into()).unwrap();
    let before: Vec<_> = full
        .index()
        .iter()
        .filter(|e| e.offset < victim.offset)
        .copied()
        .collect();
    assert_eq!(r.index(), before.as_slice());
    assert_eq!(r.recovery().bytes_lost, full.file_len() - victim.offset);
    match &r.recovery().index_source {
        IndexSource::Rebuilt { reason } => {
            assert!(reason.contains(&victim.offset.to_string()), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}
