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

#[test]
fn resize_properties() {
    // Same size: identity.
    let img: Vec<u8> = (0..4 * 3 * 3).map(|i| (i * 7 % 256) as u8).collect();
    assert_eq!(resize_bilinear(&img, 4, 3, 3, 4, 3).unwrap(), img);
    // Exact 2× downscale (pixel centres aligned): the mean of each 2×2 block.
    let src: Vec<u8> = (0..16).map(|i| (i * 10) as u8).collect();
    let out = resize_bilinear(&src, 4, 4, 1, 2, 2).unwrap();
    let block = |x: usize, y: usize| {
        let p = |dx: usize, dy: usize| f64::from(src[(2 * y + dy) * 4 + 2 * x + dx]);
        ((p(0, 0) + p(1, 0) + p(0, 1) + p(1, 1)) / 4.0).round() as u8
    };
    for y in 0..2 {
        for x in 0..2 {
            for k in 0..3 {
                assert_eq!(out[(y * 2 + x) * 3 + k], block(x, y), "grey expands to RGB");
            }
        }
    }
    // Bad input is an error, not a panic.
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
    // projectaria_tools: the full 1408×1408 RGB frame has mean 58.4707
    // (tests/data/reference/vrs_sample.json); resizing keeps the mean close.
    let mean = a.rgb.iter().map(|&v| f64::from(v)).sum::<f64>() / a.rgb.len() as f64;
    assert!((mean - 58.4707).abs() < 1.0, "{mean}");
    // A non-image sample is an error.
    let imu = sample(StreamId::ImuRight);
    assert!(cache.get(&imu).is_err());
}
