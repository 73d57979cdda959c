//! Perception's cost per tick: `cargo bench --bench perception`.
//!
//! * `tick`: one tick alone (motion, heading, elevation, gaze, corridor analysis over a
//!   dense synthetic map — a 40 m × 6 m floor every 10 cm, boxes, a wall, about 30 k
//!   points —, tracking, hazard gating, state snapshot). Target: well under 1 ms.
//! * `samples_50ms_and_tick`: 50 ms of Aria Gen1 streams (1 kHz + 800 Hz IMU, 1 kHz
//!   poses, 50 Hz barometer, 10 Hz magnetometer and gaze) folded in, then one tick.
//! * `tick_with_depth`: one tick with 0.5 s of depth points held beside the map (5 frames
//!   of two people and a wall patch, about 3 k points each), as the stereo stage gives.
//! * `live_map_frame`: one depth frame folded into a live map (`--live-map`): the free-space
//!   test, the insertion and the snapshot. At 10 frames a second, its median × 10 is the
//!   share of one core the live map takes.

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use vista::perception::live_map::{LiveMap, LiveMapConfig};
use vista::perception::points::MapPoint;
use vista::perception::stereo::filter::GEN1_SLAM_FOCAL_BASELINE_PX_M;
use vista::perception::{Perception, PerceptionConfig, PointMap, SensorModels};
use vista::sample::{
    BaroSample, EyeGazeSample, ImuSample, MagSample, Payload, PoseSample, Sample, StreamId,
};
use vista::time::{DeviceTime, HostTime};

fn grid(out: &mut Vec<MapPoint>, x: (f32, f32), y: (f32, f32), z: (f32, f32), step: f32) {
    let n = |a: f32, b: f32| ((b - a) / step).round().max(0.0) as usize;
    for i in 0..=n(x.0, x.1) {
        for j in 0..=n(y.0, y.1) {
            for k in 0..=n(z.0, z.1) {
                out.push(MapPoint {
                    p: [
                        x.0 + i as f32 * step,
                        y.0 + j as f32 * step,
                        z.0 + k as f32 * step,
                    ],
                    first_seen_ns: i64::MIN,
                });
            }
        }
    }
}

fn map() -> PointMap {
    let mut p = Vec::new();
    grid(&mut p, (-2.0, 38.0), (-3.0, 3.0), (0.0, 0.0), 0.1);
    grid(&mut p, (-2.0, 38.0), (-2.0, -2.0), (0.0, 3.0), 0.1);
    for x in [4.0f32, 8.0, 12.0, 16.0, 20.0] {
        grid(&mut p, (x, x + 0.5), (0.15, 0.65), (0.0, 0.4), 0.05);
    }
    grid(&mut p, (9.4, 10.6), (-0.05, 0.05), (1.7, 1.8), 0.05);
    PointMap::new(p, false)
}

fn s(stream: StreamId, t: i64, payload: Payload) -> Sample {
    Sample {
        stream,
        capture: DeviceTime(t),
        arrival: HostTime(0),
        seq: 0,
        payload,
    }
}

/// A pose walking along +x at 1.2 m/s, CPF-like axes (z forward, y up).
fn pose(t_ns: i64) -> PoseSample {
    // Around a 24 m loop of the map, so any number of iterations stays on it.
    let x = (t_ns as f64 * 1e-9 * 1.2).rem_euclid(24.0);
    let r = UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::FRAC_PI_2)
        * UnitQuaternion::from_axis_angle(&Vector3::y_axis(), std::f64::consts::FRAC_PI_2);
    PoseSample {
        t_world_device: Isometry3::from_parts(Translation3::new(x, 0.0, 1.6), r),
        linear_velocity_mps: [1.2, 0.0, 0.0],
        angular_velocity_radps: [0.0; 3],
        quality: 1.0,
    }
}

fn samples(from_ns: i64, to_ns: i64) -> Vec<Sample> {
    let mut v = Vec::new();
    let mut t = from_ns;
    while t < to_ns {
        let ph = t as f32 * 1e-9 * std::f32::consts::TAU * 1.7;
        let imu = ImuSample {
            accel_mps2: [0.0, 9.81 + 2.0 * ph.sin(), 0.0],
            gyro_radps: [0.0, 0.01, 0.0],
            accel_valid: true,
            gyro_valid: true,
            temperature_c: 30.0,
        };
        v.push(s(StreamId::ImuRight, t, Payload::Imu(imu)));
        v.push(s(StreamId::DevicePose, t, Payload::Pose(pose(t))));
        if t % 1_250_000 == 0 {
            v.push(s(StreamId::ImuLeft, t, Payload::Imu(imu)));
        }
        if t % 20_000_000 == 0 {
            let b = BaroSample {
                pressure_pa: 100_000.0,
                temperature_c: 20.0,
            };
            v.push(s(StreamId::Barometer, t, Payload::Barometer(b)));
        }
        if t % 100_000_000 == 0 {
            let m = MagSample {
                field_t: [20e-6, -44e-6, 1e-6],
            };
            v.push(s(StreamId::Magnetometer, t, Payload::Magnetometer(m)));
            let g = EyeGazeSample {
                yaw_rad: 0.05,
                pitch_rad: -0.1,
                depth_m: Some(2.0),
            };
            v.push(s(StreamId::EyeGaze, t, Payload::EyeGaze(g)));
        }
        t += 1_000_000;
    }
    v
}

fn bench(c: &mut Criterion) {
    let map = Arc::new(map());
    let mut engine = Perception::new(
        PerceptionConfig::default(),
        SensorModels::default(),
        Some(Arc::clone(&map)),
    );
    // Warm up: 3 s of walking.
    let warm = samples(0, 3_000_000_000);
    for x in &warm {
        engine.on_sample(x);
    }
    let at = DeviceTime(3_000_000_000);
    let (st, _) = engine.tick(at, HostTime(0));
    assert!(
        !st.things.is_empty(),
        "the bench map must give things to track"
    );
    c.bench_function("perception/tick", |b| {
        b.iter(|| engine.tick(at, HostTime(0)));
    });
    let mut next = 3_000_000_000i64;
    c.bench_function("perception/samples_50ms_and_tick", |b| {
        b.iter_batched(
            || {
                let from = next;
                next += 50_000_000;
                (samples(from, next), next)
            },
            |(batch, end)| {
                for x in &batch {
                    engine.on_sample(x);
                }
                engine.tick(DeviceTime(end), HostTime(0))
            },
            BatchSize::SmallInput,
        );
    });
}

/// One frame of depth points around `x`: two people (cylinders r = 0.25 m) and a wall patch.
fn depth_frame(x: f32) -> Vec<[f32; 3]> {
    let mut out = Vec::new();
    for (cx, cy) in [(x + 3.0, 0.8), (x + 4.5, -1.0)] {
        for k in 0..36 {
            let a = k as f32 * 10f32.to_radians();
            for j in 0..34 {
                out.push([cx + 0.25 * a.cos(), cy + 0.25 * a.sin(), 0.05 * j as f32]);
            }
        }
    }
    for i in 0..40 {
        for j in 0..43 {
            out.push([x + 1.0 + 0.05 * i as f32, -2.0, 0.05 * j as f32]);
        }
    }
    out
}

fn bench_depth(c: &mut Criterion) {
    let map = Arc::new(map());
    let mut engine = Perception::new(
        PerceptionConfig::default(),
        SensorModels::default(),
        Some(Arc::clone(&map)),
    );
    for x in &samples(0, 3_000_000_000) {
        engine.on_sample(x);
    }
    let x = (3.0f32 * 1.2).rem_euclid(24.0);
    for k in 0..5i64 {
        engine.on_depth_points(2_550_000_000 + k * 100_000_000, &depth_frame(x));
    }
    let at = DeviceTime(3_000_000_000);
    c.bench_function("perception/tick_with_depth", |b| {
        b.iter(|| engine.tick(at, HostTime(0)));
    });
}

/// One depth frame of a walk down a corridor (floor within 3.5 m and both walls within
/// 6 m, every 8 cm: about 4 k points), seen from 10 cm farther on than the last.
fn corridor_frame(x: f32) -> Vec<[f32; 3]> {
    let mut pts = Vec::new();
    for i in 0..=37 {
        for j in 0..=25 {
            pts.push([x + 0.5 + 0.08 * i as f32, -1.0 + 0.08 * j as f32, 0.0]);
        }
    }
    for y in [-1.5f32, 1.5] {
        for i in 0..=68 {
            for k in 0..=25 {
                pts.push([x + 0.5 + 0.08 * i as f32, y, 0.08 * k as f32]);
            }
        }
    }
    pts
}

/// `live_map_frame`: one depth frame folded into a live map that holds 10 s of such a
/// walk at 10 frames a second (the free-space test over every voxel, the insertion, and the
/// snapshot the corridor analysis reads), as `--live-map` does per stereo pair.
fn bench_live_map(c: &mut Criterion) {
    let mut live = LiveMap::new(LiveMapConfig::default());
    for f in 0..100i64 {
        let x = f as f32 * 0.1;
        let pts = corridor_frame(x);
        live.see_through([x, 0.0, 1.6], &pts, GEN1_SLAM_FOCAL_BASELINE_PX_M);
        live.insert(f * 100_000_000, [x, 0.0, 1.6], &pts);
    }
    let (x, pts) = (10.0f32, corridor_frame(10.0));
    c.bench_function("perception/live_map_frame", |b| {
        b.iter_batched(
            || live.clone(),
            |mut m| {
                m.see_through([x, 0.0, 1.6], &pts, GEN1_SLAM_FOCAL_BASELINE_PX_M);
                m.insert(10_000_000_000, [x, 0.0, 1.6], &pts);
                m.snapshot()
            },
            BatchSize::LargeInput,
        );
    });
}

criterion_group!(benches, bench, bench_depth, bench_live_map);
criterion_main!(benches);
