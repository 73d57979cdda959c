//! The sensor window's cost: `cargo bench --bench window`.
//!
//! * `update_10hz`: one 10 Hz update — push 100 ms of every grid stream at Aria Gen1 rates
//!   (1 kHz + 800 Hz IMU, 1 kHz poses, 50 Hz barometer, 10 Hz magnetometer, gaze, hands)
//!   and rebuild every stream's normalised 64-bin window. Target ≤ 0.5 ms on one core.
//! * `snapshot`: the rebuild alone; `imu_resample_200hz_5s`: the PRIMUS-style IMU window.
//! * `frame_decode` / `frame_resize_448`: one real 1408×1408 RGB JPEG frame decoded, then
//!   resized (reported separately, excluded from the target).

use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use nalgebra::Isometry3;
use vista::aria::recording::{decode_image, AriaRecording};
use vista::sample::{
    BaroSample, EyeGazeSample, HandSample, ImuSample, MagSample, Payload, PoseSample, Sample,
    StreamId, WristPalm,
};
use vista::time::{DeviceTime, HostTime};
use vista::window::resize::resize_bilinear;
use vista::window::{
    ImuResampler, ImuWindowConfig, SensorWindow, StatsAccumulator, WindowBuilder, WindowConfig,
};

fn s(stream: StreamId, t: i64, payload: Payload) -> Sample {
    Sample {
        stream,
        capture: DeviceTime(t),
        arrival: HostTime(0),
        seq: 0,
        payload,
    }
}

/// 100 ms of every grid stream starting at `t0`.
fn tick(t0: i64, out: &mut Vec<Sample>) {
    out.clear();
    let k = (t0 / 100_000_000) as f32;
    let imu = |x: f32| {
        Payload::Imu(ImuSample {
            accel_mps2: [0.1 * x, 0.2, 9.8],
            gyro_radps: [0.01, x * 0.001, 0.0],
            accel_valid: true,
            gyro_valid: true,
            temperature_c: 30.0,
        })
    };
    for i in 0..100 {
        let t = t0 + i * 1_000_000;
        out.push(s(StreamId::ImuRight, t, imu(k + i as f32)));
        out.push(s(
            StreamId::DevicePose,
            t,
            Payload::Pose(PoseSample {
                t_world_device: Isometry3::translation(t as f64 * 1e-9, 0.0, 1.6),
                linear_velocity_mps: [1.0, 0.0, 0.0],
                angular_velocity_radps: [0.0; 3],
                quality: 1.0,
            }),
        ));
    }
    for i in 0..80 {
        out.push(s(StreamId::ImuLeft, t0 + i * 1_250_000, imu(k)));
    }
    for i in 0..5 {
        let b = Payload::Barometer(BaroSample {
            pressure_pa: 101_000.0 + f64::from(k) + i as f64,
            temperature_c: 20.0,
        });
        out.push(s(StreamId::Barometer, t0 + i * 20_000_000, b));
    }
    out.push(s(
        StreamId::Magnetometer,
        t0 + 5_000_000,
        Payload::Magnetometer(MagSample {
            field_t: [2e-5, 1e-5 * k.sin(), -3e-5],
        }),
    ));
    out.push(s(
        StreamId::EyeGaze,
        t0 + 7_000_000,
        Payload::EyeGaze(EyeGazeSample {
            yaw_rad: 0.1,
            pitch_rad: 0.0,
            depth_m: Some(1.0),
        }),
    ));
    let h = WristPalm {
        confidence: 0.9,
        wrist_m: [0.1, 0.2, 0.3],
        palm_m: [0.1, 0.2, 0.4],
    };
    out.push(s(
        StreamId::HandTracking,
        t0 + 9_000_000,
        Payload::Hands(HandSample {
            left: Some(h),
            right: Some(h),
        }),
    ));
    out.sort_by_key(|x| x.capture);
}

fn warm_builder() -> (WindowBuilder, i64) {
    let cfg = WindowConfig::default();
    let mut b = WindowBuilder::new(cfg).unwrap();
    let mut w = SensorWindow::new();
    let mut batch = Vec::new();
    let mut acc = StatsAccumulator::new(cfg.bin_ns);
    for k in 0..64 {
        tick(k * 100_000_000, &mut batch);
        batch.iter().for_each(|x| b.push(x));
    }
    b.snapshot(DeviceTime(64 * 100_000_000 - 1), &mut w)
        .unwrap();
    acc.add_window(&w);
    (b.with_norm(&acc.finish()).unwrap(), 64)
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("window");
    g.sample_size(50);

    let (mut b, mut k) = warm_builder();
    let mut w = SensorWindow::new();
    let mut batch = Vec::with_capacity(512);
    g.bench_function("update_10hz", |bench| {
        bench.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                tick(k * 100_000_000, &mut batch); // input generation: not timed
                let start = Instant::now();
                batch.iter().for_each(|x| b.push(x));
                b.snapshot(DeviceTime((k + 1) * 100_000_000 - 1), &mut w)
                    .unwrap();
                total += start.elapsed();
                k += 1;
            }
            total
        })
    });

    let (b2, k2) = warm_builder();
    g.bench_function("snapshot", |bench| {
        bench.iter(|| b2.snapshot(DeviceTime(k2 * 100_000_000 - 1), &mut w))
    });

    let mut rs = ImuResampler::new(ImuWindowConfig::default()).unwrap();
    for k in 0..60 {
        tick(k * 100_000_000, &mut batch);
        batch.iter().for_each(|x| rs.push(x));
    }
    let mut iw = rs.new_window();
    g.bench_function("imu_resample_200hz_5s", |bench| {
        bench.iter(|| rs.resample(DeviceTime(5_999_000_000), &mut iw))
    });

    let vrs = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs");
    let rec = AriaRecording::open(&vrs).unwrap();
    if let Some(Ok((_, _, Payload::Image(frame)))) = rec.stream_samples(StreamId::CameraRgb).next()
    {
        g.sample_size(20);
        g.bench_function("frame_decode_1408", |bench| {
            bench.iter(|| decode_image(&frame).unwrap().pixels.len())
        });
        let d = decode_image(&frame).unwrap();
        g.bench_function("frame_resize_1408_to_448", |bench| {
            bench.iter(|| {
                resize_bilinear(&d.pixels, d.width, d.height, d.channels, 448, 448)
                    .unwrap()
                    .len()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
