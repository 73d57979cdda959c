//! Incremental and identical: a builder fed sample by sample (streams interleaved the way
//! a consumer drains them, one stream's batch after another) gives bit-identical tensors to
//! the offline function over the whole clip, on random streams with gaps, NaN, duplicate
//! timestamps and dropped samples.

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use proptest::prelude::*;
use vista::sample::{
    BaroSample, EyeGazeSample, HandSample, ImuSample, MagSample, Payload, PoseSample, Sample,
    StreamId, WristPalm,
};
use vista::time::{DeviceTime, HostTime};
use vista::window::{window_at, SensorWindow, WindowBuilder, WindowConfig};

const SOURCES: [StreamId; 7] = [
    StreamId::ImuRight,
    StreamId::ImuLeft,
    StreamId::Magnetometer,
    StreamId::Barometer,
    StreamId::EyeGaze,
    StreamId::HandTracking,
    StreamId::DevicePose,
];

fn payload(stream: StreamId, v: f32, flag: bool) -> Payload {
    let v3 = [v, v * 0.5 + 1.0, -v];
    match stream {
        StreamId::ImuRight | StreamId::ImuLeft => Payload::Imu(ImuSample {
            accel_mps2: v3,
            gyro_radps: [v * 0.1, 0.2, v],
            accel_valid: true,
            gyro_valid: flag,
            temperature_c: 30.0,
        }),
        StreamId::Magnetometer => Payload::Magnetometer(MagSample {
            field_t: v3.map(|x| x * 1e-5),
        }),
        StreamId::Barometer => Payload::Barometer(BaroSample {
            pressure_pa: 100_000.0 + f64::from(v),
            temperature_c: 20.0,
        }),
        StreamId::EyeGaze => Payload::EyeGaze(EyeGazeSample {
            yaw_rad: v * 0.05,
            pitch_rad: -v * 0.03,
            depth_m: flag.then_some(v.abs() + 0.5),
        }),
        StreamId::HandTracking => {
            let h = WristPalm {
                confidence: (v.abs() / 10.0).min(1.0),
                wrist_m: v3,
                palm_m: [v, v, v],
            };
            Payload::Hands(HandSample {
                left: flag.then_some(h),
                right: Some(h),
            })
        }
        _ => Payload::Pose(PoseSample {
            t_world_device: Isometry3::from_parts(
                Translation3::new(f64::from(v), 1.0, 2.0),
                UnitQuaternion::from_axis_angle(&Vector3::z_axis(), f64::from(v) * 0.1),
            ),
            linear_velocity_mps: v3,
            angular_velocity_radps: v3,
            quality: 1.0,
        }),
    }
}

/// Random per-stream sample times: duplicates (dt = 0), ordinary steps, long gaps; values
/// with NaN; some samples dropped (seq numbers skip).
fn clip(events: &[(usize, u32, bool, f32, u8)]) -> Vec<Sample> {
    let mut t = [0i64; 7];
    let mut seq = [0u64; 7];
    let mut out = Vec::new();
    for &(s, dt, flag, v, kind) in events {
        let s = s % 7;
        let stream = SOURCES[s];
        t[s] += match dt {
            0..=9 => 0,
            10..=94 => i64::from(dt) * 1_000_000,
            _ => 1_500_000_000,
        };
        seq[s] += 1;
        if kind < 20 {
            continue; // dropped
        }
        let v = if kind > 240 { f32::NAN } else { v };
        out.push(Sample {
            stream,
            capture: DeviceTime(t[s]),
            arrival: HostTime(0),
            seq: seq[s],
            payload: payload(stream, v, flag),
        });
    }
    out.sort_by_key(|s| s.capture); // stable: duplicates keep their order
    out
}

fn same_bits(a: &SensorWindow, b: &SensorWindow) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.first_bin_start_ns, b.first_bin_start_ns);
    for (x, y) in a.streams.iter().zip(&b.streams) {
        prop_assert_eq!(x.mask, y.mask, "{}", x.stream);
        prop_assert_eq!(x.observed, y.observed, "{}", x.stream);
        let xb: Vec<u32> = x.values.iter().map(|v| v.to_bits()).collect();
        let yb: Vec<u32> = y.values.iter().map(|v| v.to_bits()).collect();
        prop_assert_eq!(xb, yb, "{}", x.stream);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn incremental_equals_offline(
        events in prop::collection::vec(
            (0usize..7, 0u32..100, any::<bool>(), -10.0f32..10.0, any::<u8>()),
            1..1500,
        ),
        checkpoints in prop::collection::vec(0u32..1000, 1..6),
        bin_ms in 1i64..150,
    ) {
        let samples = clip(&events);
        let last = samples.last().map_or(0, |s| s.capture.ns());
        let mut ends: Vec<i64> = checkpoints
            .iter()
            .map(|&c| last * i64::from(c) / 1000)
            .collect();
        ends.push(last);
        ends.sort();
        let cfg = WindowConfig { bin_ns: bin_ms * 1_000_000 };
        let mut b = WindowBuilder::new(cfg).unwrap();
        let mut w = SensorWindow::new();
        let mut next = 0;
        for &t_end in &ends {
            // Drain like a consumer: everything new up to t_end, one stream at a time.
            let upto = samples[next..].iter().take_while(|s| s.capture.ns() <= t_end).count();
            let batch = &samples[next..next + upto];
            for stream in SOURCES.iter().rev() {
                batch.iter().filter(|s| s.stream == *stream).for_each(|s| b.push(s));
            }
            next += upto;
            b.snapshot(DeviceTime(t_end), &mut w).unwrap();
            let offline = window_at(&samples, DeviceTime(t_end), cfg, None).unwrap();
            same_bits(&w, &offline)?;
            // Nothing unobserved is presented as a value.
            for t in &w.streams {
                for bin in 0..64 {
                    for ch in 0..t.stream.channel_count() {
                        if !t.observed(bin, ch) {
                            prop_assert_eq!(t.get(bin, ch), Some(0.0));
                        }
                        prop_assert!(t.get(bin, ch).unwrap().is_finite());
                    }
                    if !t.mask[bin] {
                        prop_assert_eq!(t.observed[bin], 0);
                    }
                }
            }
        }
    }
}
