//! Steady state allocates nothing: pushing samples of every grid stream and rebuilding the
//! window (with normalisation) at 10 Hz, counted by a global allocator on the thread that
//! does it.

use std::sync::atomic::Ordering;

use nalgebra::Isometry3;
use vista::sample::{
    BaroSample, EyeGazeSample, HandSample, ImuSample, MagSample, Payload, PoseSample, Sample,
    StreamId, WristPalm,
};
use vista::time::{DeviceTime, HostTime};
use vista::window::{SensorWindow, StatsAccumulator, WindowBuilder, WindowConfig};

#[path = "common/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::{count_this_thread_only, ALLOCS, COUNTING};

#[global_allocator]
static GLOBAL: counting_alloc::Counting = counting_alloc::Counting;

fn s(stream: StreamId, t: i64, payload: Payload) -> Sample {
    Sample {
        stream,
        capture: DeviceTime(t),
        arrival: HostTime(0),
        seq: 0,
        payload,
    }
}

/// 100 ms of every grid stream at Aria Gen1 rates, starting at `t0`.
fn tick(t0: i64, out: &mut Vec<Sample>) {
    out.clear();
    let imu = Payload::Imu(ImuSample {
        accel_mps2: [0.1, 0.2, 9.8],
        gyro_radps: [0.01, 0.0, 0.0],
        accel_valid: true,
        gyro_valid: true,
        temperature_c: 30.0,
    });
    for i in 0..100 {
        out.push(s(StreamId::ImuRight, t0 + i * 1_000_000, imu.clone()));
        out.push(s(StreamId::DevicePose, t0 + i * 1_000_000, pose()));
    }
    for i in 0..80 {
        out.push(s(StreamId::ImuLeft, t0 + i * 1_250_000, imu.clone()));
    }
    for i in 0..5 {
        let b = Payload::Barometer(BaroSample {
            pressure_pa: 101_000.0 + i as f64,
            temperature_c: 20.0,
        });
        out.push(s(StreamId::Barometer, t0 + i * 20_000_000, b));
    }
    let m = Payload::Magnetometer(MagSample {
        field_t: [2e-5, 1e-5, -3e-5],
    });
    out.push(s(StreamId::Magnetometer, t0 + 5_000_000, m));
    let g = Payload::EyeGaze(EyeGazeSample {
        yaw_rad: 0.1,
        pitch_rad: 0.0,
        depth_m: Some(1.0),
    });
    out.push(s(StreamId::EyeGaze, t0 + 7_000_000, g));
    let h = WristPalm {
        confidence: 0.9,
        wrist_m: [0.1, 0.2, 0.3],
        palm_m: [0.1, 0.2, 0.4],
    };
    let h = Payload::Hands(HandSample {
        left: Some(h),
        right: None,
    });
    out.push(s(StreamId::HandTracking, t0 + 9_000_000, h));
}

fn pose() -> Payload {
    Payload::Pose(PoseSample {
        t_world_device: Isometry3::identity(),
        linear_velocity_mps: [0.0; 3],
        angular_velocity_radps: [0.0; 3],
        quality: 1.0,
    })
}

#[test]
fn steady_state_window_updates_do_not_allocate() {
    let cfg = WindowConfig::default();
    // Statistics from a first pass, so the measured loop also normalises.
    let mut b = WindowBuilder::new(cfg).unwrap();
    let mut w = SensorWindow::new();
    let mut batch = Vec::with_capacity(512);
    let mut acc = StatsAccumulator::new(cfg.bin_ns);
    for k in 0..70 {
        tick(k * 100_000_000, &mut batch);
        batch.iter().for_each(|x| b.push(x));
        b.snapshot(DeviceTime(k * 100_000_000 + 99_999_999), &mut w)
            .unwrap();
    }
    acc.add_window(&w);
    let stats = acc.finish();
    let mut b = b.with_norm(&stats).unwrap();
    let mut batches: Vec<Vec<Sample>> = (70..170)
        .map(|k| {
            let mut v = Vec::new();
            tick(k * 100_000_000, &mut v);
            v
        })
        .collect();
    // The window is built on this thread; the harness's threads are not measured.
    count_this_thread_only();
    COUNTING.store(true, Ordering::SeqCst);
    for (i, batch) in batches.iter_mut().enumerate() {
        batch.iter().for_each(|x| b.push(x));
        let t_end = (70 + i as i64) * 100_000_000 + 99_999_999;
        b.snapshot(DeviceTime(t_end), &mut w).unwrap();
    }
    COUNTING.store(false, Ordering::SeqCst);
    assert_eq!(ALLOCS.load(Ordering::SeqCst), 0);
    assert!(w.normalised);
    assert!(w.streams.iter().all(|t| t.valid_bins() == 64));
}
