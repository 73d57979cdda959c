//! The window builder as a runtime consumer (lock-step replay): every window it hands out
//! is bit-identical to the offline window over the whole clip at the same end.

use std::sync::{Arc, Mutex};

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use vista::runtime::{run, ClockMode, Consumer, RuntimeConfig};
use vista::sample::{ImuSample, Payload, PoseSample, Sample, StreamId};
use vista::source::VecSource;
use vista::time::{DeviceTime, HostTime};
use vista::window::{
    window_at, ImuResampler, ImuWindow, ImuWindowConfig, SensorWindow, WindowBuilder, WindowConfig,
    WindowConsumer,
};

fn clip() -> Vec<Sample> {
    let mut v = Vec::new();
    for ms in 0..3_000i64 {
        let t = ms * 1_000_000 + 17;
        let x = (ms as f32 * 0.01).sin();
        for stream in [StreamId::ImuRight, StreamId::ImuLeft] {
            if stream == StreamId::ImuLeft && ms % 5 == 4 {
                continue;
            }
            v.push(Sample {
                stream,
                capture: DeviceTime(t),
                arrival: HostTime(0),
                seq: ms as u64,
                payload: Payload::Imu(ImuSample {
                    accel_mps2: [x, 0.1, 9.8],
                    gyro_radps: [0.0, x, 0.0],
                    accel_valid: true,
                    gyro_valid: ms % 97 != 0,
                    temperature_c: 30.0,
                }),
            });
        }
        if ms % 3 == 0 {
            v.push(Sample {
                stream: StreamId::DevicePose,
                capture: DeviceTime(t),
                arrival: HostTime(0),
                seq: ms as u64,
                payload: Payload::Pose(PoseSample {
                    t_world_device: Isometry3::from_parts(
                        Translation3::new(ms as f64 * 1e-3, 0.0, 0.0),
                        UnitQuaternion::from_axis_angle(&Vector3::z_axis(), ms as f64 * 1e-3),
                    ),
                    linear_velocity_mps: [1.0, 0.0, 0.0],
                    angular_velocity_radps: [0.0, 0.0, 1.0],
                    quality: 1.0,
                }),
            });
        }
    }
    v
}

#[test]
fn consumer_windows_match_offline_windows() {
    let cfg = WindowConfig::default();
    let got: Arc<Mutex<Vec<SensorWindow>>> = Arc::default();
    let sink_got = Arc::clone(&got);
    let imu_windows: Arc<Mutex<Vec<ImuWindow>>> = Arc::default();
    let sink_imu = Arc::clone(&imu_windows);
    let consumer = WindowConsumer::new(
        WindowBuilder::new(cfg).unwrap(),
        100_000_000,
        Box::new(move |u| {
            sink_got.lock().unwrap().push(u.window.clone());
            sink_imu.lock().unwrap().push(u.imu.unwrap().clone());
        }),
    )
    .with_imu_window(ImuResampler::new(ImuWindowConfig::default()).unwrap());
    let consumers: Vec<Box<dyn Consumer>> = vec![Box::new(consumer)];
    let mut config = RuntimeConfig::new(ClockMode::Virtual);
    config.lockstep_tick_ns = 10_000_000;
    let samples = clip();
    run(Box::new(VecSource::new(samples.clone())), config, consumers).unwrap();
    let got = got.lock().unwrap();
    // ~3 s at 10 Hz.
    assert!(got.len() >= 25, "{} windows", got.len());
    for w in got.iter() {
        let offline = window_at(&samples, w.t_end, cfg, None).unwrap();
        assert_eq!(*w, offline, "window at {}", w.t_end);
    }
    // The IMU windows equal a resampler fed the clip offline up to the same end.
    let imu_windows = imu_windows.lock().unwrap();
    assert_eq!(imu_windows.len(), got.len());
    for iw in imu_windows.iter() {
        let mut r = ImuResampler::new(ImuWindowConfig::default()).unwrap();
        samples
            .iter()
            .filter(|s| s.capture <= iw.t_end)
            .for_each(|s| r.push(s));
        let mut want = r.new_window();
        r.resample(iw.t_end, &mut want);
        assert_eq!(*iw, want);
    }
    assert!(imu_windows.last().unwrap().mask.iter().any(|&m| m));
    let last = got.last().unwrap();
    assert!(last.stream(vista::window::GridStream::Imu).valid_bins() >= 29);
    assert!(
        last.stream(vista::window::GridStream::Trajectory)
            .valid_bins()
            >= 29
    );
}

#[test]
fn two_consumers_share_each_decoded_frame() {
    use vista::aria::recording::AriaRecording;
    use vista::window::{FrameCache, FrameSampling, WindowFrame};

    let vrs = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs");
    let rec = AriaRecording::open(&vrs).unwrap();
    let mut samples: Vec<Sample> = rec
        .samples()
        .filter_map(|r| r.ok())
        .map(|(stream, capture, payload)| Sample {
            stream,
            capture,
            arrival: HostTime(0),
            seq: 0,
            payload,
        })
        .collect();
    samples.sort_by_key(|s| s.capture);
    let n_rgb = samples
        .iter()
        .filter(|s| s.stream == StreamId::CameraRgb)
        .count();
    assert_eq!(n_rgb, 4);
    let cache = FrameCache::new(64, 32).shared();
    type Seen = Arc<Mutex<Vec<Vec<Arc<WindowFrame>>>>>;
    let mut consumers: Vec<Box<dyn Consumer>> = Vec::new();
    let mut seen: Vec<Seen> = Vec::new();
    for sampling in [FrameSampling::Causal { stride: 1 }, FrameSampling::Uniform] {
        let got: Seen = Arc::default();
        let g = Arc::clone(&got);
        seen.push(got);
        // 10 ms bins and updates: the 0.15 s recording gives several updates.
        let c = WindowConsumer::new(
            WindowBuilder::new(WindowConfig { bin_ns: 10_000_000 }).unwrap(),
            10_000_000,
            Box::new(move |u| g.lock().unwrap().push(u.frames.to_vec())),
        )
        .with_frames(Arc::clone(&cache), sampling);
        consumers.push(Box::new(c));
    }
    let mut config = RuntimeConfig::new(ClockMode::Virtual);
    config.lockstep_tick_ns = 5_000_000;
    run(Box::new(VecSource::new(samples)), config, consumers).unwrap();
    let causal = seen[0].lock().unwrap();
    let uniform = seen[1].lock().unwrap();
    let last_causal = causal.last().unwrap();
    assert_eq!(last_causal.len(), 4, "all 4 frames, newest last");
    assert!(last_causal
        .windows(2)
        .all(|w| w[0].capture_ns < w[1].capture_ns));
    assert_eq!(uniform.last().unwrap().len(), 8);
    // Every frame handed to either consumer is one of the 4 shared decodes.
    let all: Vec<&Arc<WindowFrame>> = causal.iter().chain(uniform.iter()).flatten().collect();
    for f in &all {
        let same = last_causal
            .iter()
            .find(|g| g.capture_ns == f.capture_ns)
            .unwrap();
        assert!(Arc::ptr_eq(f, same));
        assert_eq!(f.rgb.len(), 64 * 64 * 3);
    }
    assert_eq!(cache.lock().unwrap().decoded(), 4);
}
