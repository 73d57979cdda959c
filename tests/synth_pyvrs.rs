//! A synthetic recording reads the same in our reader as in Meta's: the session of
//! `pole_to_door`, seed 1, 6 s is regenerated and compared with what pyvrs and
//! projectaria_tools read from it (`scripts/ref_synth_pyvrs.py`, committed JSON): record
//! counts, every capture timestamp (sums for the IMUs), the first decoded values, and the
//! first SLAM and RGB frames as projectaria_tools decodes them.

use std::path::Path;

use serde_json::Value;
use vista::aria::recording::{decode_image, AriaRecording};
use vista::aria::vrs::{RecordType, VrsReader, VrsStreamId};
use vista::sample::{Payload, StreamId};
use vista::synth::{find_scenario, write_session, SynthOptions};

const REFERENCE: &str = "tests/data/reference/synth_pole_to_door_seed1_6s.json";

#[test]
fn synthetic_recording_matches_pyvrs() {
    let reference: Value =
        serde_json::from_str(&std::fs::read_to_string(REFERENCE).unwrap()).unwrap();
    let t = tempfile::tempdir().unwrap();
    let sc = find_scenario(Path::new("scenarios"), "pole_to_door").unwrap();
    let opts = SynthOptions {
        seed: 1,
        duration_s: Some(6.0),
        rgb_fps: Some(2.0),
        // The reference predates the eye-tracking camera (checked against pyvrs by hand,
        // see the synth ET commit); it stays valid without it.
        et_fps: None,
        ..SynthOptions::default()
    };
    write_session(&sc, t.path(), &opts).unwrap();
    let path = t.path().join("recording.vrs");
    let vrs = VrsReader::open(&path).unwrap();
    assert_eq!(
        vrs.index().len() as u64,
        reference["records"].as_u64().unwrap()
    );

    let streams = reference["streams"].as_object().unwrap();
    assert_eq!(streams.len(), vrs.streams().len());
    for (sid, want) in streams {
        let id = vrs
            .streams()
            .iter()
            .map(|s| s.id)
            .find(|i| &i.to_string() == sid)
            .unwrap();
        let count = |rt: RecordType| {
            vrs.index()
                .iter()
                .filter(|e| e.stream == id && e.record_type == rt)
                .count() as u64
        };
        assert_eq!(
            count(RecordType::Configuration),
            want["configuration_records"].as_u64().unwrap(),
            "{sid}"
        );
        assert_eq!(
            count(RecordType::Data),
            want["data_records"].as_u64().unwrap(),
            "{sid}"
        );
        assert_eq!(
            vrs.stream(id).unwrap().recordable_name(),
            want["recordable_name"].as_str(),
            "{sid}"
        );
        // projectaria_tools' data provider sees the same number of samples.
        assert_eq!(
            count(RecordType::Data),
            reference["projectaria_tools_num_data"][sid]
                .as_u64()
                .unwrap()
        );
    }

    // Capture timestamps and first values through the typed layer.
    let rec = AriaRecording::open(&path).unwrap();
    let mut per: std::collections::BTreeMap<VrsStreamId, Vec<(i64, Payload)>> = Default::default();
    for s in rec.samples() {
        let (stream, time, payload) = s.unwrap();
        let (ty, inst) = stream.vrs_id().unwrap();
        per.entry(VrsStreamId::new(ty, inst))
            .or_default()
            .push((time.ns(), payload));
    }
    for (sid, want) in streams {
        let got = per
            .iter()
            .find(|(k, _)| &k.to_string() == sid)
            .map(|(_, v)| v)
            .unwrap();
        let ts: Vec<i64> = got.iter().map(|(t, _)| *t).collect();
        assert_eq!(
            ts.first().copied(),
            want["capture_ns_first"].as_i64(),
            "{sid}"
        );
        assert_eq!(
            ts.last().copied(),
            want["capture_ns_last"].as_i64(),
            "{sid}"
        );
        assert_eq!(
            ts.iter().map(|&t| t as i128).sum::<i128>(),
            want["capture_ns_sum"].as_i64().unwrap() as i128,
            "{sid}"
        );
        if let Some(all) = want["capture_ns"].as_array() {
            let all: Vec<i64> = all.iter().map(|v| v.as_i64().unwrap()).collect();
            assert_eq!(ts, all, "{sid}");
        }
        for (i, w) in want["first_data"].as_array().unwrap().iter().enumerate() {
            let close = |a: f64, b: &Value, tol: f64| {
                let b = b.as_f64().unwrap();
                assert!(
                    (a - b).abs() <= tol * b.abs().max(1.0),
                    "{sid} record {i}: {a} vs {b}"
                );
            };
            match &got[i].1 {
                Payload::Imu(m) => {
                    for k in 0..3 {
                        close(m.accel_mps2[k] as f64, &w["accelerometer"][k], 1e-6);
                        close(m.gyro_radps[k] as f64, &w["gyroscope"][k], 1e-6);
                    }
                }
                // Our reader converts Gen1 µT to tesla.
                Payload::Magnetometer(m) => {
                    for k in 0..3 {
                        close(m.field_t[k] as f64 * 1e6, &w["magnetometer"][k], 1e-5);
                    }
                }
                Payload::Barometer(b) => close(b.pressure_pa, &w["pressure"], 1e-12),
                Payload::Image(f) => {
                    assert_eq!(Some(f.frame_number), w["frame_number"].as_u64(), "{sid}");
                    let rgb = sid == "214-1";
                    let size = if rgb { (1408, 1408) } else { (640, 480) };
                    assert_eq!((f.width, f.height), size, "{sid}");
                    if i == 0 {
                        // projectaria_tools decoded the same JPEG to the same picture (IDCTs
                        // and colour conversions may differ by a level here and there).
                        let want = &reference["projectaria_tools_first_images"][sid];
                        let img = decode_image(f).unwrap();
                        let shape = if rgb {
                            serde_json::json!([img.height, img.width, img.channels])
                        } else {
                            serde_json::json!([img.height, img.width])
                        };
                        assert_eq!(want["shape"], shape, "{sid}");
                        let mean = img.pixels.iter().map(|&p| p as f64).sum::<f64>()
                            / img.pixels.len() as f64;
                        close(mean, &want["mean"], 0.01);
                    }
                }
                other => panic!("{sid}: unexpected payload {}", other.kind()),
            }
        }
    }
    assert!(per
        .keys()
        .any(|k| StreamId::from_vrs_id(k.type_id, k.instance) == Some(StreamId::ImuLeft)));
}
