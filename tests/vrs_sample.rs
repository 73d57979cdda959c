//! The native reader on the real Aria Gen1 sample, compared with values produced by Meta's
//! own readers (pyvrs, projectaria_tools) in `tests/data/reference/vrs_sample.json`
//! (regenerate with `scripts/ref_vrs.py`).

use std::collections::BTreeMap;

use serde_json::Value;
use vista::aria::recording::{decode_image, AriaRecording};
use vista::aria::vrs::{
    DataLayout, IndexSource, PieceKind, RecordType, Scalar, VrsReader, VrsStreamId,
};
use vista::sample::{Payload, StreamId};

const SAMPLE: &str = "tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs";

fn reference() -> Value {
    let text = std::fs::read_to_string("tests/data/reference/vrs_sample.json").unwrap();
    serde_json::from_str(&text).unwrap()
}

fn rt_name(rt: RecordType) -> &'static str {
    rt.tag_name()
}

#[test]
fn header_index_and_streams_match_pyvrs() {
    let r = VrsReader::open(SAMPLE).unwrap();
    let want = reference();
    assert_eq!(r.header().version_str(), "VRS2");
    assert_eq!(r.recovery().index_source, IndexSource::FromIndex);
    assert_eq!(r.recovery().bytes_lost, 0);
    let keys: Vec<&String> = r.file_tags().keys().collect();
    let want_keys: Vec<String> = serde_json::from_value(want["file_tag_keys"].clone()).unwrap();
    assert_eq!(keys, want_keys.iter().collect::<Vec<_>>());
    assert_eq!(
        r.file_tags()["calib_json"].len() as u64,
        want["calib_json_len"].as_u64().unwrap()
    );

    // Every record: stream, type, timestamp, in order.
    let idx = want["index"].as_array().unwrap();
    assert_eq!(r.index().len(), idx.len());
    for (e, w) in r.index().iter().zip(idx) {
        assert_eq!(e.stream.to_string(), w[0].as_str().unwrap());
        assert_eq!(rt_name(e.record_type), w[1].as_str().unwrap());
        assert_eq!(e.timestamp_s, w[2].as_f64().unwrap(), "{e:?}");
    }

    // Streams: names and counts per record type.
    let streams = want["streams"].as_object().unwrap();
    assert_eq!(r.streams().len(), streams.len());
    for (sid, w) in streams {
        let id: VrsStreamId = sid.parse().unwrap();
        let s = r.stream(id).unwrap();
        assert_eq!(s.recordable_name(), w["recordable_name"].as_str());
        for (rt, key) in [
            (RecordType::Configuration, "configuration_records"),
            (RecordType::State, "state_records"),
            (RecordType::Data, "data_records"),
        ] {
            let n = r
                .index()
                .iter()
                .filter(|e| e.stream == id && e.record_type == rt)
                .count() as u64;
            assert_eq!(n, w[key].as_u64().unwrap(), "{sid} {key}");
        }
    }
}

/// Compares every field pyvrs decoded with our by-name, by-type lookup.
fn assert_layout_matches(
    dl: &DataLayout,
    bytes: &[u8],
    want: &serde_json::Map<String, Value>,
    ctx: &str,
) {
    for (name, w) in want {
        let p = dl
            .piece(name)
            .unwrap_or_else(|| panic!("{ctx}: no piece {name}"));
        let num = |got: Option<f64>| {
            let got = got.unwrap_or_else(|| panic!("{ctx}: {name} unreadable"));
            match w.as_f64() {
                Some(x) => assert_eq!(got, x, "{ctx}: {name}"),
                None => assert!(w.is_null() && got.is_nan(), "{ctx}: {name}: {got} vs {w}"),
            }
        };
        match &p.kind {
            PieceKind::Value { elem, .. } => match elem.scalar {
                Scalar::I64 => {
                    assert_eq!(dl.value::<i64>(bytes, name), w.as_i64(), "{ctx}: {name}")
                }
                Scalar::U64 => {
                    assert_eq!(dl.value::<u64>(bytes, name), w.as_u64(), "{ctx}: {name}")
                }
                Scalar::U32 => assert_eq!(
                    dl.value::<u32>(bytes, name).map(u64::from),
                    w.as_u64(),
                    "{ctx}: {name}"
                ),
                Scalar::Bool => {
                    assert_eq!(dl.value::<bool>(bytes, name), w.as_bool(), "{ctx}: {name}")
                }
                Scalar::F64 => num(dl.value::<f64>(bytes, name)),
                Scalar::F32 => num(dl.value::<f32>(bytes, name).map(f64::from)),
                other => panic!("{ctx}: {name}: unexpected {other:?}"),
            },
            PieceKind::Array { elem, count, .. } => {
                assert_eq!((elem.scalar, *count), (Scalar::F32, 3), "{ctx}: {name}");
                let got = dl.array::<f32, 3>(bytes, name).unwrap();
                // Compared as f32 (the stored type): exact, and immune to the last-digit
                // rounding of serde_json's f64 parser.
                let w: Vec<f32> = serde_json::from_value::<Vec<f64>>(w.clone())
                    .unwrap()
                    .into_iter()
                    .map(|v| v as f32)
                    .collect();
                assert_eq!(got.to_vec(), w, "{ctx}: {name}");
            }
            PieceKind::String { .. } => {
                assert_eq!(dl.string(bytes, name), w.as_str(), "{ctx}: {name}")
            }
            other => panic!("{ctx}: {name}: unexpected {other:?}"),
        }
    }
}

#[test]
fn data_layout_values_match_pyvrs() {
    let r = VrsReader::open(SAMPLE).unwrap();
    let want = reference();
    let mut checked = 0;
    for (sid, w) in want["streams"].as_object().unwrap() {
        let id: VrsStreamId = sid.parse().unwrap();
        let data: Vec<_> = r
            .index()
            .iter()
            .filter(|e| e.stream == id && e.record_type == RecordType::Data)
            .collect();
        let conf = r
            .index()
            .iter()
            .find(|e| e.stream == id && e.record_type == RecordType::Configuration)
            .unwrap();
        let mut cases = vec![(conf, "config")];
        if let (Some(f), Some(l)) = (data.first(), data.last()) {
            cases.push((f, "first_data"));
            cases.push((l, "last_data"));
        }
        for (e, key) in cases {
            let rec = r.read_record(e).unwrap();
            let blocks = r.split_record(e.offset, &rec.header, &rec.payload).unwrap();
            let dl = r
                .data_layout(id, e.record_type, rec.header.format_version, 0)
                .unwrap();
            let meta = &rec.payload[blocks[0].clone()];
            assert_layout_matches(
                dl,
                meta,
                w[key].as_object().unwrap(),
                &format!("{sid} {key}"),
            );
            checked += 1;
            if let Some(n) = w.get("first_image_bytes").filter(|_| key == "first_data") {
                assert_eq!(blocks[1].len() as u64, n.as_u64().unwrap(), "{sid}");
                assert_eq!(
                    &rec.payload[blocks[1].start..blocks[1].start + 3],
                    &[0xFF, 0xD8, 0xFF]
                );
            }
        }
    }
    assert!(checked >= 28, "{checked}");
}

#[test]
fn linear_scan_rebuilds_the_same_index() {
    let mut bytes = std::fs::read(SAMPLE).unwrap();
    let from_index = VrsReader::open(SAMPLE).unwrap();
    // Zero the header's indexRecordOffset: the reader must scan.
    bytes[24..32].copy_from_slice(&0i64.to_le_bytes());
    let scanned = VrsReader::from_bytes("no-index.vrs", bytes.into()).unwrap();
    assert!(matches!(
        scanned.recovery().index_source,
        IndexSource::Rebuilt { .. }
    ));
    assert_eq!(scanned.recovery().bytes_lost, 0);
    assert_eq!(scanned.recovery().records_skipped, 0);
    assert_eq!(scanned.index(), from_index.index());
}

#[test]
fn recording_summaries_and_samples_match_references() {
    let rec = AriaRecording::open(SAMPLE).unwrap();
    let want = reference();
    let streams = want["streams"].as_object().unwrap();
    assert!(rec.calib_json().unwrap().starts_with('{'));

    let summaries = rec.summaries();
    assert_eq!(summaries.len(), streams.len());
    for s in &summaries {
        let w = &streams[&s.vrs_id];
        assert_eq!(s.data_records, w["data_records"].as_u64().unwrap());
        let ts: Vec<i64> =
            serde_json::from_value(w["data_capture_timestamps_ns"].clone()).unwrap_or_default();
        if let (Some(first), Some(last)) = (ts.first(), ts.last()) {
            assert_eq!(s.first_ns, Some(*first), "{}", s.vrs_id);
            assert_eq!(s.last_ns, Some(*last), "{}", s.vrs_id);
        }
        let cfg = &w["config"];
        let rate = cfg
            .get("nominal_rate")
            .or(cfg.get("sample_rate"))
            .or(cfg.get("sample_rate_hz"))
            .and_then(Value::as_f64);
        assert_eq!(s.nominal_rate_hz, rate, "{}", s.vrs_id);
        if let Some(img) = want["aria"]["images"].get(&s.vrs_id) {
            let shape: Vec<u32> = serde_json::from_value(img["shape"].clone()).unwrap();
            assert_eq!(s.image_size, Some((shape[1], shape[0])), "{}", s.vrs_id);
        }
        match s.stream {
            Some(k) => assert_eq!(s.name, k.name()),
            None => assert_eq!(Some(s.name.as_str()), w["recordable_name"].as_str()),
        }
    }
    // RGB is 1408 × 1408 in this profile.
    assert_eq!(rec.image_size(StreamId::CameraRgb), Some((1408, 1408)));

    // Samples: per known stream, the capture times pyvrs read, in order.
    let mut got: BTreeMap<StreamId, Vec<i64>> = BTreeMap::new();
    let mut accel_norms = Vec::new();
    let mut first_mag = None;
    let mut first_baro = None;
    for s in rec.samples() {
        let (id, t, p) = s.unwrap();
        got.entry(id).or_default().push(t.ns());
        match p {
            Payload::Imu(i) => {
                assert!(i.accel_valid && i.gyro_valid);
                accel_norms.push(i.accel_mps2.iter().map(|v| v * v).sum::<f32>().sqrt());
            }
            Payload::Magnetometer(m) if first_mag.is_none() => first_mag = Some(m.field_t),
            Payload::Barometer(b) if first_baro.is_none() => first_baro = Some(b.pressure_pa),
            _ => {}
        }
    }
    for (sid, w) in streams {
        let id: VrsStreamId = sid.parse().unwrap();
        let Some(k) = StreamId::from_vrs_id(id.type_id, id.instance) else {
            continue;
        };
        let ts: Vec<i64> = serde_json::from_value(w["data_capture_timestamps_ns"].clone()).unwrap();
        assert_eq!(got.get(&k), Some(&ts), "{sid}");
        let one: Vec<i64> = rec.stream_samples(k).map(|s| s.unwrap().1.ns()).collect();
        assert_eq!(one, ts, "{sid}");
    }
    assert_eq!(got.len(), 8, "known streams with data: {:?}", got.keys());

    // Physical sanity: at rest |accel| ≈ g; pressure ≈ 1 atm; field tens of µT.
    let mean = accel_norms.iter().sum::<f32>() / accel_norms.len() as f32;
    assert!((9.6..10.0).contains(&mean), "{mean}");
    let p = first_baro.unwrap();
    assert_eq!(
        p,
        streams["247-1"]["first_data"]["pressure"].as_f64().unwrap()
    );
    assert!((9.0e4..1.1e5).contains(&p));
    let mag = first_mag.unwrap();
    let want_mag: Vec<f64> =
        serde_json::from_value(want["aria"]["magnetometer_first_tesla"].clone()).unwrap();
    for (g, w) in mag.iter().zip(&want_mag) {
        // f32 storage: relative error of one f32 ulp.
        assert!(((*g as f64) - w).abs() <= w.abs() * 2e-7, "{g} vs {w}");
    }
    let norm = mag.iter().map(|v| v * v).sum::<f32>().sqrt();
    assert!((20e-6..70e-6).contains(&norm), "{norm}");
}

#[test]
fn first_frames_decode_like_projectaria_tools() {
    let rec = AriaRecording::open(SAMPLE).unwrap();
    let want = reference();
    for (sid, w) in want["aria"]["images"].as_object().unwrap() {
        let id: VrsStreamId = sid.parse().unwrap();
        let k = StreamId::from_vrs_id(id.type_id, id.instance).unwrap();
        let (_, t, p) = rec.stream_samples(k).next().unwrap().unwrap();
        let Payload::Image(frame) = p else {
            panic!("{sid}: not an image")
        };
        assert_eq!(t.ns(), w["capture_timestamp_ns"].as_i64().unwrap());
        assert_eq!(frame.frame_number, w["frame_number"].as_u64().unwrap());
        let img = decode_image(&frame).unwrap();
        let shape: Vec<u32> = serde_json::from_value(w["shape"].clone()).unwrap();
        let channels = shape.get(2).copied().unwrap_or(1);
        assert_eq!(
            (img.height, img.width, u32::from(img.channels)),
            (shape[0], shape[1], channels)
        );
        assert_eq!((img.width, img.height), (frame.width, frame.height));
        // Different JPEG decoders (IDCT, chroma upsampling) differ by a fraction of a level.
        let mean = img.pixels.iter().map(|&v| f64::from(v)).sum::<f64>() / img.pixels.len() as f64;
        let want_mean = w["mean"].as_f64().unwrap();
        assert!(
            (mean - want_mean).abs() < 0.5,
            "{sid}: {mean} vs {want_mean}"
        );
    }
}

#[test]
fn time_domain_mappings_match_pyvrs() {
    let rec = AriaRecording::open(SAMPLE).unwrap();
    let want = reference();
    let maps: Vec<_> = rec
        .time_domain_mappings()
        .into_iter()
        .map(Result::unwrap)
        .collect();
    for sid in ["285-1", "285-2"] {
        let w = &want["streams"][sid];
        let mine: Vec<_> = maps
            .iter()
            .filter(|m| m.vrs_id.to_string() == sid)
            .collect();
        assert_eq!(mine.len() as u64, w["data_records"].as_u64().unwrap());
        let first = mine[0];
        assert_eq!(
            first.device_ns,
            w["first_data"]["monotonic_timestamp_ns"].as_i64().unwrap()
        );
        assert_eq!(
            first.real_ns,
            w["first_data"]["real_timestamp_ns"].as_i64().unwrap()
        );
        assert_eq!(first.mode.as_deref(), w["config"]["mode"].as_str());
    }
}

#[test]
fn reader_is_shared_across_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<VrsReader>();
    send_sync::<AriaRecording>();
    let r = VrsReader::open(SAMPLE).unwrap();
    let single: Vec<_> = r
        .index()
        .iter()
        .map(|e| r.read_record(e).unwrap())
        .collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|k| {
                let r = &r;
                s.spawn(move || {
                    // Each thread walks the index from a different start.
                    let n = r.index().len();
                    let mut buf = Vec::new();
                    (0..n)
                        .map(|i| {
                            let e = &r.index()[(i + k * 37) % n];
                            r.read_record_into(e, &mut buf).unwrap();
                            ((i + k * 37) % n, buf.clone())
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            for (i, payload) in h.join().unwrap() {
                assert_eq!(payload, single[i].payload.as_ref());
            }
        }
    });
}

#[test]
fn split_index_v3_is_read_and_a_short_one_triggers_a_scan() {
    // Turn the sample's classic index into a split (v3) one: the zstd frame of
    // DiskRecordInfo[] without the stream prelude, zero-padded to the same record size.
    let full = VrsReader::open(SAMPLE).unwrap();
    let mut bytes = std::fs::read(SAMPLE).unwrap();
    let at = full.header().index_record_offset as usize;
    let size = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let n_streams = u32::from_le_bytes(bytes[at + 32..at + 36].try_into().unwrap()) as usize;
    let prelude = 4 + 6 * n_streams + 4;
    let count = u32::from_le_bytes(
        bytes[at + 32 + prelude - 4..at + 32 + prelude]
            .try_into()
            .unwrap(),
    ) as usize;
    let frame = bytes[at + 32 + prelude..at + size].to_vec();
    let payload = &mut bytes[at + 32..at + size];
    payload.fill(0);
    payload[..frame.len()].copy_from_slice(&frame);
    bytes[at + 12..at + 16].copy_from_slice(&3u32.to_le_bytes()); // formatVersion 3
    bytes[at + 28..at + 32].copy_from_slice(&((count * 19) as u32).to_le_bytes());
    let r = VrsReader::from_bytes("split.vrs", bytes.clone().into()).unwrap();
    assert_eq!(r.recovery().index_source, IndexSource::FromIndex);
    assert_eq!(r.index(), full.index());

    // A split index cut short (interrupted recording) lists fewer records than the file
    // holds: the reader scans and still finds them all.
    bytes[at + 28..at + 32].copy_from_slice(&((count - 10) as u32 * 19).to_le_bytes());
    let r = VrsReader::from_bytes("short-split.vrs", bytes.into()).unwrap();
    assert!(matches!(
        r.recovery().index_source,
        IndexSource::Rebuilt { .. }
    ));
    assert_eq!(r.index(), full.index());
}
