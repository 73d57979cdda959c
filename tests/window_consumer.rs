//! The window builder as a runtime consumer (lock-step replay): every window it hands out
//! is bit-identical to the offline window over the whole clip at the same end.

use std::sync::{Arc, Mutex};

use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use vista::runtime::{run, ClockMode, Consumer, RuntimeConfig};
use vista::sample::{ImuSample, Payload, PoseSample, Sample, StreamId};
use vista::source::VecSource;
use vista::time::{DeviceTime, HostTime};
use vista::window::{window_at, SensorWindow, WindowBuilder, WindowConfig, WindowConsumer};

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
    let consumer = WindowConsumer::new(
        WindowBuilder::new(cfg).unwrap(),
        100_000_000,
        Box::new(move |w| sink_got.lock().unwrap().push(w.clone())),
    );
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
    let last = got.last().unwrap();
    assert!(last.stream(vista::window::GridStream::Imu).valid_bins() >= 29);
    assert!(
        last.stream(vista::window::GridStream::Trajectory)
            .valid_bins()
            >= 29
    );
}
