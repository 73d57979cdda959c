//! Frame selection (uniform over the window, causal at a stride) against brute-force
//! definitions, bilinear resizing properties, and the shared decode cache on a real frame.

use std::path::Path;
use std::sync::Arc;

use proptest::prelude::*;
use vista::aria::recording::AriaRecording;
use vista::sample::{Sample, StreamId};
use vista::time::HostTime;
use vista::window::frames::{causal_indices, uniform_indices, FrameCache};
use vista::window::resize::resize_bilinear;

fn brute_uniform(times: &[i64], t0: i64, t1: i64, n: usize) -> Vec<i64> {
    let inside: Vec<i64> = times
        .iter()
        .copied()
        .filter(|&t| t >= t0 && t <= t1)
        .collect();
    if inside.is_empty() {
        return vec![];
    }
    (0..n)
        .map(|i| {
            let c = t0 as f64 + (t1 - t0) as f64 * (i as f64 + 0.5) / n as f64;
            // First frame with the smallest distance (earlier wins ties).
            *inside
                .iter()
                .min_by(|a, b| {
                    let da = (**a as f64 - c).abs();
                    let db = (**b as f64 - c).abs();
                    da.partial_cmp(&db).unwrap()
                })
                .unwrap()
        })
        .collect()
}

proptest! {
    #[test]
    fn uniform_matches_brute_force(
        mut times in prop::collection::vec(0i64..10_000_000, 0..200),
        t0 in 0i64..5_000_000,
        len in 1i64..8_000_000,
    ) {
        times.sort();
        times.dedup();
        let got: Vec<i64> = uniform_indices(&times, t0, t0 + len, 8)
            .into_iter()
            .map(|i| times[i])
            .collect();
        prop_assert_eq!(got, brute_uniform(&times, t0, t0 + len, 8));
    }

    #[test]
    fn causal_is_newest_at_stride(
        mut times in prop::collection::vec(0i64..1_000_000, 0..100),
        t_end in 0i64..1_000_000,
        stride in 1usize..6,
    ) {
        times.sort();
        let got: Vec<i64> = causal_indices(&times, t_end, 8, stride)
            .into_iter()
            .map(|i| times[i])
            .collect();
        let upto: Vec<i64> = times.iter().copied().filter(|&t| t <= t_end).collect();
        let mut want: Vec<i64> = upto.iter().rev().step_by(stride).take(8).copied().collect();
        want.reverse();
        prop_assert_eq!(got, want);
    }
}

#[test]
fn uniform_frames_of_a_30_hz_window_are_spread_over_it() {
    let times: Vec<i64> = (0..300).map(|i| i * 33_333_333).collect();
    let idx = uniform_indices(&times, 1_000_000_000, 7_400_000_000, 8);
    // Segment centres 1.4 s, 2.2 s, …, 7.0 s → nearest 30 Hz frames.
    let want: Vec<usize> = (0..8)
        .map(|i| ((1.4 + 0.8 * i as f64) * 30.0).round() as usize)
        .collect();
    assert_eq!(idx, want);
    assert!(uniform_indices(&times, 20_000_000_000, 21_000_000_000, 8).is_empty());
}

fn reference() -> serde_json::Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/reference/window_gen1.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// The synthetic image of `scripts/ref_window.py`.
fn pattern(w: usize, h: usize, c: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(w * h * c);
    for y in 0..h {
        for x in 0..w {
            for k in 0..c {
                v.push(((x * 37 + y * 91 + k * 53 + (x * y) % 17 * 11) % 256) as u8);
            }
        }
    }
    v
}

#[test]
fn resize_matches_pil_bilinear() {
    let r = reference();
    for case in r["resize"]["synthetic"].as_array().unwrap() {
        let src: Vec<usize> = case["src"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as usize)
            .collect();
        let dst: Vec<u32> = case["dst"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as u32)
            .collect();
        let img = pattern(src[0], src[1], src[2]);
        let got = resize_bilinear(
            &img,
            src[0] as u32,
            src[1] as u32,
            src[2] as u8,
            dst[0],
            dst[1],
        )
        .unwrap();
        let want: Vec<u8> = case["rgb"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as u8)
            .collect();
        assert_eq!(got.len(), want.len());
        // PIL works in fixed point: allow one grey level.
        let worst = got
            .iter()
            .zip(&want)
            .map(|(a, b)| a.abs_diff(*b))
            .max()
            .unwrap();
        assert!(worst <= 1, "{src:?} -> {dst:?}: off by {worst}");
        if src[0] == dst[0] as usize && src[1] == dst[1] as usize {
            assert_eq!(got, img, "same size is the identity");
        }
    }
    // Bad input is an error, not a panic.
    let src = vec![0u8; 16];
    assert!(resize_bilinear(&src, 5, 4, 1, 2, 2).is_err());
    assert!(resize_bilinear(&src, 4, 4, 2, 2, 2).is_err());
    assert!(resize_bilinear(&src, 4, 4, 1, 0, 2).is_err());
}

#[test]
fn real_frame_is_decoded_once_and_shared() {
    let vrs = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs");
    let rec = AriaRecording::open(&vrs).unwrap();
    let sample = |s: StreamId| {
        let (stream, capture, payload) = rec.stream_samples(s).next().unwrap().unwrap();
        Sample {
            stream,
            capture,
            arrival: HostTime(0),
            seq: 0,
            payload,
        }
    };
    let first = sample(StreamId::CameraRgb);
    let mut cache = FrameCache::new(448, 16);
    let a = cache.get(&first).unwrap();
    let b = cache.get(&first).unwrap();
    assert!(Arc::ptr_eq(&a, &b));
    assert_eq!(cache.decoded(), 1);
    assert_eq!((a.width, a.height, a.rgb.len()), (448, 448, 448 * 448 * 3));
    // projectaria_tools' decode resized by PIL: same mean and pixels, up to the two JPEG
    // decoders' differences (zune-jpeg vs libjpeg-turbo: the full-resolution means differ
    // by ~0.15, see tests/vrs_sample.rs, which allows 0.5).
    let r = reference();
    let want = &r["resize"]["rgb_frame_448"];
    let mean = a.rgb.iter().map(|&v| f64::from(v)).sum::<f64>() / a.rgb.len() as f64;
    assert!(
        (mean - want["mean"].as_f64().unwrap()).abs() < 0.5,
        "{mean}"
    );
    for s in want["samples"].as_array().unwrap() {
        let (y, x) = (
            s[0].as_u64().unwrap() as usize,
            s[1].as_u64().unwrap() as usize,
        );
        for k in 0..3 {
            let w = s[2][k].as_u64().unwrap() as u8;
            let g = a.rgb[(y * 448 + x) * 3 + k];
            assert!(
                g.abs_diff(w) <= 3,
                "pixel ({x}, {y}) channel {k}: {g} vs {w}"
            );
        }
    }
    // A non-image sample is an error.
    let imu = sample(StreamId::ImuRight);
    assert!(cache.get(&imu).is_err());
}
