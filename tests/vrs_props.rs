//! Property tests: encoders and parsers agree on arbitrary values, and parsers given
//! arbitrary bytes return errors instead of panicking.

use proptest::prelude::*;
use vista::aria::vrs::description::Description;
use vista::aria::vrs::index::{encode_classic, parse_classic, parse_split, DiskRecordInfo};
use vista::aria::vrs::{
    Compression, DataLayout, DataLayoutBuilder, DataLayoutEncoder, FileHeader, RecordFormat,
    RecordHeader, RecordType, VrsStreamId,
};

fn record_type() -> impl Strategy<Value = RecordType> {
    (0u8..=4).prop_map(|v| RecordType::from_u8(v).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn record_header_round_trips(size in any::<u32>(), prev in any::<u32>(), t in any::<i32>(),
                                 inst in any::<u16>(), ver in any::<u32>(), ts in any::<f64>(),
                                 rt in record_type(), c in 0u8..3, unc in any::<u32>()) {
        let h = RecordHeader {
            record_size: size, previous_record_size: prev, stream: VrsStreamId::new(t, inst),
            format_version: ver, timestamp_s: ts, record_type: rt,
            compression: Compression::from_u8(c).unwrap(), uncompressed_size: unc,
        };
        let back = RecordHeader::parse(&h.encode()).unwrap();
        // Compare bit patterns so NaN timestamps count as equal.
        prop_assert_eq!(back.timestamp_s.to_bits(), ts.to_bits());
        prop_assert_eq!(back.encode(), h.encode());
    }

    #[test]
    fn file_header_round_trips(id in any::<u64>(), index in 0i64..i64::MAX, first in 0i64..i64::MAX) {
        let mut h = FileHeader::new_vrs1(id);
        h.index_record_offset = index;
        h.first_user_record_offset = first;
        prop_assert_eq!(FileHeader::parse(&h.encode()).unwrap(), h);
    }

    #[test]
    fn data_layout_values_round_trip(a in any::<i64>(), b in any::<f64>(), c in any::<u8>(),
                                     v in proptest::collection::vec(any::<i64>(), 0..40),
                                     f in proptest::array::uniform3(any::<f32>()),
                                     s in ".{0,40}", tail in proptest::collection::vec(any::<u8>(), 0..16)) {
        let dl = DataLayoutBuilder::new()
            .value::<i64>("a").value::<f64>("b").value::<u8>("c").array::<f32>("f", 3)
            .vector::<i64>("v").string("s").build().unwrap();
        let dl = DataLayout::from_json(&dl.to_json()).unwrap();
        let mut e = DataLayoutEncoder::new(&dl);
        e.set("a", a).unwrap();
        e.set("b", b).unwrap();
        e.set("c", c).unwrap();
        e.set_array("f", &f).unwrap();
        e.set_vector("v", &v).unwrap();
        e.set_string("s", &s).unwrap();
        let mut bytes = e.encode();
        let n = bytes.len();
        bytes.extend_from_slice(&tail);
        prop_assert_eq!(dl.total_size(&bytes), Some(n));
        prop_assert_eq!(dl.value::<i64>(&bytes, "a"), Some(a));
        prop_assert_eq!(dl.value::<f64>(&bytes, "b").map(f64::to_bits), Some(b.to_bits()));
        prop_assert_eq!(dl.value::<u8>(&bytes, "c"), Some(c));
        prop_assert_eq!(dl.array::<f32, 3>(&bytes, "f").map(|x| x.map(f32::to_bits)), Some(f.map(f32::to_bits)));
        prop_assert_eq!(dl.vector::<i64>(&bytes, "v"), Some(v));
        prop_assert_eq!(dl.string(&bytes, "s"), Some(s.as_str()));
        // Any cut inside the layout makes the var pieces unreadable, never a panic.
        for cut in 0..n {
            prop_assert!(dl.total_size(&bytes[..cut]).is_none());
            let _ = dl.string(&bytes[..cut], "s");
            let _ = dl.vector::<i64>(&bytes[..cut], "v");
        }
    }

    #[test]
    fn classic_index_round_trips(recs in proptest::collection::vec(
        (any::<f64>(), any::<u32>(), record_type(), any::<i32>(), any::<u16>()), 0..50)) {
        let infos: Vec<DiskRecordInfo> = recs.iter().map(|&(t, s, rt, ty, i)| DiskRecordInfo {
            timestamp_s: t, record_size: s, record_type: rt, stream: VrsStreamId::new(ty, i),
        }).collect();
        let streams = vec![VrsStreamId::new(1, 2)];
        let bytes = encode_classic(&streams, &infos);
        let (s, back) = parse_classic(&bytes, 0).unwrap();
        prop_assert_eq!(s, streams);
        prop_assert_eq!(back.len(), infos.len());
        for (x, y) in back.iter().zip(&infos) {
            prop_assert_eq!(x.timestamp_s.to_bits(), y.timestamp_s.to_bits());
            prop_assert_eq!((x.record_size, x.record_type, x.stream), (y.record_size, y.record_type, y.stream));
        }
    }

    #[test]
    fn parsers_survive_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512),
                                       unc in any::<u32>(), text in ".{0,60}") {
        let _ = Description::parse(&bytes);
        let _ = parse_classic(&bytes, unc);
        let _ = parse_split(&bytes, unc % 100_000);
        let _ = RecordHeader::parse(&bytes);
        let _ = FileHeader::parse(&bytes);
        let _ = RecordFormat::parse(&text);
        if let Ok(rf) = RecordFormat::parse(&text) {
            let _ = rf.split(&bytes, |_| None);
        }
        let _ = DataLayout::from_json(&text);
        let _ = DataLayout::from_json(&String::from_utf8_lossy(&bytes));
    }
}
