//! Fixed-rate IMU windows: exact on linear signals, gaps and the edges masked (never
//! extrapolated), NaN and invalid samples skipped, bounded memory.

use vista::sample::{ImuSample, Payload, Sample, StreamId};
use vista::time::{DeviceTime, HostTime};
use vista::window::{ImuResampler, ImuWindowConfig};

fn imu(t: i64, a: f32, valid: bool) -> Sample {
    Sample {
        stream: StreamId::ImuRight,
        capture: DeviceTime(t),
        arrival: HostTime(0),
        seq: 0,
        payload: Payload::Imu(ImuSample {
            accel_mps2: [a, 2.0 * a, -a],
            gyro_radps: [0.5, a, 0.0],
            accel_valid: valid,
            gyro_valid: true,
            temperature_c: 30.0,
        }),
    }
}

#[test]
fn linear_signal_is_reproduced_and_gaps_are_masked() {
    let cfg = ImuWindowConfig::default(); // 200 Hz × 1000 points
    let mut r = ImuResampler::new(cfg).unwrap();
    // 1 kHz with jittered timestamps; a(t) = t in seconds; a 50 ms dropout at 3.00–3.05 s;
    // one NaN and one invalid sample.
    for i in 0..6_000i64 {
        let t = i * 1_000_000 + (i * 7919 % 300) * 1_000;
        if (3_000..3_050).contains(&i) {
            continue;
        }
        let a = t as f32 * 1e-9;
        let a = if i == 4_000 { f32::NAN } else { a };
        r.push(&imu(t, a, i != 4_500));
    }
    let mut w = r.new_window();
    let t_end = DeviceTime(5_990_000_000);
    r.resample(t_end, &mut w);
    assert_eq!(w.values.len(), 6_000);
    for i in 0..1000 {
        let t = 5_990_000_000 - (999 - i as i64) * 5_000_000;
        let in_gap = (2_999_000_000..3_050_300_000).contains(&t);
        if in_gap {
            assert!(!w.mask[i], "point {i} at {t} ns lies in the dropout");
            continue;
        }
        assert!(w.mask[i], "point {i} at {t}");
        let want = t as f64 * 1e-9;
        assert!((f64::from(w.values[i * 6]) - want).abs() < 1e-5, "{i}");
        assert!((f64::from(w.values[i * 6 + 1]) - 2.0 * want).abs() < 2e-5);
        assert_eq!(w.values[i * 6 + 3], 0.5);
    }
    // After the newest sample: masked, not extrapolated.
    r.resample(DeviceTime(7_000_000_000), &mut w);
    assert!(!w.mask[999]);
    assert_eq!(w.values[999 * 6], 0.0);
}

#[test]
fn bad_configuration_is_an_error() {
    let bad = ImuWindowConfig {
        rate_hz: 0.0,
        ..ImuWindowConfig::default()
    };
    assert!(ImuResampler::new(bad).is_err());
    let bad = ImuWindowConfig {
        points: 0,
        ..ImuWindowConfig::default()
    };
    assert!(ImuResampler::new(bad).is_err());
}
