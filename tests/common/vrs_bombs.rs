//! A VRS file whose camera records are zstd bombs: real frames of zeros that inflate to the
//! size their record headers declare (for the hostile-input and fuzz-seed tests).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use vista::aria::vrs::{Compression, RecordType, StreamSpec, VrsReader, VrsStreamId, VrsWriter};

/// The Aria Gen1 sample the bombs copy their stream layout from.
const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs"
);

/// zstd frame of `n` zero bytes, streamed (the zeros are never held).
fn zstd_zeros(n: u64) -> Vec<u8> {
    let mut enc = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
    std::io::copy(&mut std::io::repeat(0).take(n), &mut enc).unwrap();
    enc.finish().unwrap()
}

/// A VRS file with the sample's SLAM-left camera stream (640 × 480, its configuration
/// record copied) and `count` DATA records, each a zstd frame that inflates to `declared`
/// bytes. Returns the records' offsets.
pub fn vrs_with_bombs(path: &Path, count: usize, declared: u32) -> Vec<u64> {
    let sample = VrsReader::open(SAMPLE).unwrap();
    let slam = sample
        .streams()
        .iter()
        .find(|s| s.id == VrsStreamId::new(1201, 1))
        .unwrap();
    let mut w = VrsWriter::create_with_id(path, BTreeMap::new(), 1).unwrap();
    w.add_stream(StreamSpec::from_stream(slam)).unwrap();
    let entry = |rt| {
        sample
            .index()
            .iter()
            .find(|e| e.stream == slam.id && e.record_type == rt)
            .unwrap()
    };
    let cfg = entry(RecordType::Configuration);
    let r = sample.read_record(cfg).unwrap();
    w.write_record(
        slam.id,
        RecordType::Configuration,
        r.header.format_version,
        cfg.timestamp_s,
        &r.payload,
        Compression::None,
    )
    .unwrap();
    let data = entry(RecordType::Data);
    let version = sample.read_record(data).unwrap().header.format_version;
    let frame = zstd_zeros(u64::from(declared));
    let offsets: Vec<u64> = (0..count)
        .map(|i| {
            let t = data.timestamp_s + i as f64 * 0.05;
            w.write_record(
                slam.id,
                RecordType::Data,
                version,
                t,
                &frame,
                Compression::None,
            )
            .unwrap()
        })
        .collect();
    w.finish().unwrap();
    // Stored as is, then marked compressed (header bytes 27: codec, 28..32: size).
    let mut bytes = std::fs::read(path).unwrap();
    for &at in &offsets {
        let h = at as usize;
        bytes[h + 27] = 2;
        bytes[h + 28..h + 32].copy_from_slice(&declared.to_le_bytes());
    }
    std::fs::write(path, bytes).unwrap();
    offsets
}
