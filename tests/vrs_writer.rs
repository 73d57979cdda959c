//! Write → read round trips: the real Aria sample re-written record by record (with every
//! compression kind) reads back identical, and synthetic layouts built with the encoder
//! decode to the values put in.

use std::collections::BTreeMap;

use vista::aria::recording::AriaRecording;
use vista::aria::vrs::{
    Compression, DataLayoutBuilder, DataLayoutEncoder, IndexSource, RecordType, StreamSpec,
    VrsReader, VrsStreamId, VrsWriter,
};
use vista::sample::{Payload, StreamId};

const SAMPLE: &str = "tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs";

fn rewrite(src: &VrsReader, path: &std::path::Path, pick: impl Fn(usize) -> Compression) {
    let mut w = VrsWriter::create(path, src.file_tags().clone()).unwrap();
    for s in src.streams() {
        w.add_stream(StreamSpec::from_stream(s)).unwrap();
    }
    for (i, e) in src.index().iter().enumerate() {
        let r = src.read_record(e).unwrap();
        w.write_record(
            e.stream,
            e.record_type,
            r.header.format_version,
            e.timestamp_s,
            &r.payload,
            pick(i),
        )
        .unwrap();
    }
    let sum = w.finish().unwrap();
    assert_eq!(sum.records, src.index().len() as u64);
    assert_eq!(sum.bytes, std::fs::metadata(path).unwrap().len());
}

#[test]
fn rewritten_sample_reads_back_identical() {
    let src = VrsReader::open(SAMPLE).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("copy.vrs");
    let codecs = [Compression::None, Compression::Zstd, Compression::Lz4];
    rewrite(&src, &path, |i| codecs[i % 3]);

    let back = VrsReader::open(&path).unwrap();
    assert_eq!(back.header().version_str(), "VRS1");
    assert_eq!(back.recovery().index_source, IndexSource::FromIndex);
    assert_eq!(back.file_tags(), src.file_tags());
    assert_eq!(back.streams().len(), src.streams().len());
    for s in src.streams() {
        let b = back.stream(s.id).unwrap();
        assert_eq!(b.user_tags, s.user_tags);
        assert_eq!(b.vrs_tags, s.vrs_tags);
    }
    assert_eq!(back.index().len(), src.index().len());
    for (i, (a, b)) in src.index().iter().zip(back.index()).enumerate() {
        assert_eq!(
            (a.stream, a.record_type, a.timestamp_s),
            (b.stream, b.record_type, b.timestamp_s)
        );
        let (ra, rb) = (src.read_record(a).unwrap(), back.read_record(b).unwrap());
        assert_eq!(ra.payload, rb.payload, "record {i}");
        assert_eq!(rb.header.compression, codecs[i % 3]);
        assert_eq!(ra.header.format_version, rb.header.format_version);
    }

    // The typed layer sees the same samples.
    let (ra, rb) = (
        AriaRecording::open(SAMPLE).unwrap(),
        AriaRecording::open(&path).unwrap(),
    );
    let a: Vec<_> = ra.samples().map(Result::unwrap).collect();
    let b: Vec<_> = rb.samples().map(Result::unwrap).collect();
    assert_eq!(a.len(), b.len());
    // Compared through Debug: IMU temperatures are NaN in the sample, and NaN != NaN.
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(format!("{x:?}"), format!("{y:?}"));
    }
    assert_eq!(ra.summaries(), rb.summaries());

    // Without its index (cut off before the index was written) the copy still reads.
    let bytes = std::fs::read(&path).unwrap();
    let index_at = back.header().index_record_offset as usize;
    let cut = VrsReader::from_bytes("cut.vrs", bytes[..index_at].to_vec().into()).unwrap();
    assert!(matches!(
        cut.recovery().index_source,
        IndexSource::Rebuilt { .. }
    ));
    assert_eq!(cut.recovery().bytes_lost, 0);
    assert_eq!(cut.index(), back.index());
}

#[test]
fn encoded_audio_layout_round_trips_through_the_typed_layer() {
    // Audio as Aria Gen1 records it (reference §2.3): a var-size layout + int32 PCM.
    let cfg = DataLayoutBuilder::new()
        .value::<u32>("stream_id")
        .value::<u8>("audio_channel_count")
        .value::<u32>("audio_sample_rate")
        .value::<u8>("audio_sample_format")
        .build()
        .unwrap();
    let data = DataLayoutBuilder::new()
        .value::<u8>("audio_muted")
        .vector::<i64>("capture_timestamps_ns")
        .build()
        .unwrap();
    assert_eq!(cfg.fixed_size(), 10);
    let id = VrsStreamId::new(231, 1);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audio.vrs");
    let mut w = VrsWriter::create(&path, BTreeMap::new()).unwrap();
    w.add_stream(
        StreamSpec::new(id, "Audio")
            .format(
                RecordType::Configuration,
                1,
                "data_layout/size=10",
                &[Some(&cfg.to_json())],
            )
            .format(
                RecordType::Data,
                1,
                "data_layout+audio/pcm/int32le/channels=7/rate=48000",
                &[Some(&data.to_json()), None],
            ),
    )
    .unwrap();
    let mut e = DataLayoutEncoder::new(&cfg);
    e.set::<u8>("audio_channel_count", 7).unwrap();
    e.set::<u32>("audio_sample_rate", 48_000).unwrap();
    e.set::<u8>("audio_sample_format", 13).unwrap();
    w.write_record(
        id,
        RecordType::Configuration,
        1,
        0.0,
        &e.encode(),
        Compression::Zstd,
    )
    .unwrap();
    let frames = 16usize;
    let mut blocks = Vec::new();
    for rec in 0..3i64 {
        let ts: Vec<i64> = (0..frames as i64)
            .map(|f| 1_000_000_000 + rec * 1_000_000 + f * 20_833)
            .collect();
        let pcm: Vec<i32> = (0..frames * 7)
            .map(|k| k as i32 * 1000 - rec as i32)
            .collect();
        let mut e = DataLayoutEncoder::new(&data);
        e.set_vector::<i64>("capture_timestamps_ns", &ts).unwrap();
        let mut payload = e.encode();
        assert_eq!(payload.len(), 1 + 8 + frames * 8);
        payload.extend(pcm.iter().flat_map(|v| v.to_le_bytes()));
        w.write_record(
            id,
            RecordType::Data,
            1,
            ts[0] as f64 * 1e-9,
            &payload,
            Compression::Lz4,
        )
        .unwrap();
        blocks.push((ts, pcm));
    }
    w.finish().unwrap();

    let rec = AriaRecording::open(&path).unwrap();
    let got: Vec<_> = rec
        .stream_samples(StreamId::Audio)
        .map(Result::unwrap)
        .collect();
    assert_eq!(got.len(), 3);
    for ((_, t, p), (ts, pcm)) in got.iter().zip(&blocks) {
        assert_eq!(t.ns(), ts[0]);
        let Payload::Audio(a) = p else {
            panic!("{p:?}")
        };
        assert_eq!((a.channels, a.sample_rate_hz), (7, 48_000));
        assert_eq!(&a.timestamps_ns[..], &ts[..]);
        let back: Vec<i32> = a
            .data
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(&back, pcm);
    }
}

#[test]
fn writer_rejects_misuse_with_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("misuse.vrs");
    let mut w = VrsWriter::create(&path, BTreeMap::new()).unwrap();
    let id = VrsStreamId::new(247, 1);
    let bad = StreamSpec::new(id, "Baro").format(RecordType::Data, 1, "data_layout", &[Some("{")]);
    assert!(w.add_stream(bad).is_err());
    w.add_stream(StreamSpec::new(id, "Baro")).unwrap();
    assert!(w.add_stream(StreamSpec::new(id, "Baro")).is_err());
    let other = VrsStreamId::new(1, 9);
    assert!(w
        .write_record(other, RecordType::Data, 1, 0.0, b"x", Compression::None)
        .is_err());
    w.write_record(id, RecordType::Data, 1, 0.0, b"x", Compression::None)
        .unwrap();
    // Streams cannot be added once records are written.
    assert!(w
        .add_stream(StreamSpec::new(VrsStreamId::new(2, 2), "late"))
        .is_err());
    w.finish().unwrap();
}
