//! Normalisation statistics: Welford against a two-pass computation (NaN skipped), the
//! accumulator over windows, the statistics file (round trip, errors naming file and
//! line) and their application by the builder.

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use proptest::prelude::*;
use vista::sample::{ImuSample, Payload, PoseSample, Sample, StreamId};
use vista::time::{DeviceTime, HostTime};
use vista::window::{
    window_at, GridStream, NormStats, StatsAccumulator, Welford, WindowConfig, WindowError,
};

fn two_pass(xs: &[f64]) -> (f64, f64, u64) {
    let v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    (mean, var.sqrt(), v.len() as u64)
}

proptest! {
    #[test]
    fn welford_matches_two_pass(
        xs in prop::collection::vec(prop_oneof![9 => -1e3f64..1e3, 1 => Just(f64::NAN)], 2..500)
    ) {
        let mut w = Welford::default();
        xs.iter().for_each(|&x| w.add(x));
        let (mean, std, n) = two_pass(&xs);
        prop_assert_eq!(w.count, n);
        prop_assert_eq!(w.skipped, xs.len() as u64 - n);
        if n >= 2 {
            prop_assert!((w.mean - mean).abs() <= 1e-9 * mean.abs().max(1.0));
            prop_assert!((w.std() - std).abs() <= 1e-9 * std.max(1.0));
        }
    }
}

fn clip() -> Vec<Sample> {
    let mut v = Vec::new();
    for ms in 0..20_000i64 {
        let t = ms * 1_000_000;
        let x = ((ms as f64) * 0.003).sin() as f32 * 3.0 + 1.0;
        for s in [StreamId::ImuRight, StreamId::ImuLeft] {
            let nan = s == StreamId::ImuLeft && ms % 13 == 0;
            v.push(Sample {
                stream: s,
                capture: DeviceTime(t),
                arrival: HostTime(0),
                seq: 0,
                payload: Payload::Imu(ImuSample {
                    accel_mps2: [if nan { f32::NAN } else { x }, 0.5 * x, 9.8],
                    gyro_radps: [0.0, x, -x],
                    accel_valid: true,
                    gyro_valid: true,
                    temperature_c: 30.0,
                }),
            });
        }
        if ms % 5 == 0 {
            v.push(Sample {
                stream: StreamId::DevicePose,
                capture: DeviceTime(t),
                arrival: HostTime(0),
                seq: 0,
                payload: Payload::Pose(PoseSample {
                    t_world_device: Isometry3::from_parts(
                        Translation3::new(ms as f64 * 1e-3, 0.0, 0.0),
                        UnitQuaternion::from_axis_angle(&Vector3::y_axis(), ms as f64 * 1e-4),
                    ),
                    linear_velocity_mps: [1.0, 0.0, 0.0],
                    angular_velocity_radps: [0.0, 0.1, 0.0],
                    quality: 1.0,
                }),
            });
        }
    }
    v
}

#[test]
fn statistics_over_windows_and_their_application() {
    let cfg = WindowConfig::default();
    let samples = clip();
    let ends = [6_399_999_999i64, 12_799_999_999, 19_199_999_999];
    let windows: Vec<_> = ends
        .iter()
        .map(|&t| window_at(&samples, DeviceTime(t), cfg, None).unwrap())
        .collect();
    let mut acc = StatsAccumulator::new(cfg.bin_ns);
    windows.iter().for_each(|w| acc.add_window(w));
    let stats = acc.finish();
    assert_eq!(stats.windows, 3);
    // Two-pass over the same observed values.
    for gs in [GridStream::Imu, GridStream::Trajectory] {
        let st = &stats.streams[gs.name()];
        for c in 0..gs.channel_count() {
            let vals: Vec<f64> = windows
                .iter()
                .flat_map(|w| {
                    let t = w.stream(gs);
                    (0..64)
                        .filter(move |&b| t.observed(b, c))
                        .map(move |b| f64::from(t.get(b, c).unwrap()))
                })
                .collect();
            let (mean, std, n) = two_pass(&vals);
            assert_eq!(st.count[c], n, "{gs} {c}");
            assert!((st.mean[c] - mean).abs() <= 1e-9 * mean.abs().max(1.0));
            assert!((st.std[c] - std).abs() <= 1e-9 * std.max(1.0));
        }
    }
    assert_eq!(stats.streams["eye_gaze"].count, vec![0; 5]);

    // Round trip through a file, then normalise.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("norm_stats.json");
    std::fs::write(&path, serde_json::to_string_pretty(&stats).unwrap()).unwrap();
    let loaded = NormStats::load(&path).unwrap();
    assert_eq!(loaded, stats);
    let raw = &windows[1];
    let norm = window_at(&samples, DeviceTime(ends[1]), cfg, Some(&loaded)).unwrap();
    assert!(norm.normalised);
    let st = &stats.streams["imu"];
    let (ri, ni) = (raw.stream(GridStream::Imu), norm.stream(GridStream::Imu));
    assert_eq!(ri.mask, ni.mask);
    for b in 0..64 {
        for c in 0..12 {
            let r = f64::from(ri.get(b, c).unwrap());
            let n = f64::from(ni.get(b, c).unwrap());
            let sd = if st.std[c] > 1e-9 { st.std[c] } else { 1.0 };
            let want = if ri.mask[b] {
                (r - st.mean[c]) / sd
            } else {
                0.0
            };
            assert!(
                (n - want).abs() <= 1e-4 * want.abs().max(1.0),
                "{b} {c}: {n} vs {want}"
            );
        }
    }
    // Constant channel (accel z = 9.8): std 0 → divided by 1, centred.
    assert_eq!(st.std[2], 0.0);
}

#[test]
fn bad_statistics_files_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.json");
    std::fs::write(&p, "{\n  \"format\": \"vista-norm-stats/1\",\n  oops\n}").unwrap();
    let e = NormStats::load(&p).unwrap_err();
    assert!(matches!(e, WindowError::NormFile { line: 3, .. }), "{e}");
    assert!(e.to_string().contains("bad.json:3"), "{e}");

    let mut st = StatsAccumulator::new(100_000_000).finish();
    st.streams.get_mut("hands").unwrap().channels[0] = "left_conf".into();
    std::fs::write(&p, serde_json::to_string(&st).unwrap()).unwrap();
    let e = NormStats::load(&p).unwrap_err();
    assert!(e.to_string().contains("hands"), "{e}");
    assert!(NormStats::load(&dir.path().join("missing.json")).is_err());
}
