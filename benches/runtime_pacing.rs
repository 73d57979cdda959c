//! Real-time pacing and ingest cost on a synthetic Aria Gen1 session (not a criterion
//! bench: it measures host timing, so it runs once, in real time, and prints).
//!
//! `cargo bench --bench runtime_pacing` replays `VISTA_PACING_SECS` (default 10) seconds
//! of IMU right 1 kHz, IMU left 800 Hz, barometer 50 Hz, magnetometer 10 Hz, four cameras
//! at 10 Hz and audio blocks at ~11.7 Hz at rate 1 with one consumer draining everything,
//! then prints the pacing error per stream (targets for IMU streams: p99 ≤ 1 ms,
//! max ≤ 5 ms) and the ingest thread's CPU use (target ≤ 2 % of a core).
//! `VISTA_PACING_GRANULARITY_US` sets [`RuntimeConfig::pacing_granularity_ns`] (default 0).

use vista::buffer::Reader;
use vista::runtime::{run, ClockMode, Consumer, ConsumerError, RuntimeConfig};
use vista::sample::{ImageEncoding, ImageFrame, ImuSample, Payload, Sample, StreamId};
use vista::source::VecSource;
use vista::time::{DeviceTime, HostTime};

fn session(secs: f64) -> Vec<Sample> {
    let jpeg = bytes::Bytes::from(vec![0u8; 100_000]);
    let mut v = Vec::new();
    for s in [
        StreamId::ImuRight,
        StreamId::ImuLeft,
        StreamId::Barometer,
        StreamId::Magnetometer,
        StreamId::CameraRgb,
        StreamId::CameraSlamLeft,
        StreamId::CameraSlamRight,
        StreamId::CameraEt,
        StreamId::Audio,
    ] {
        let period_ns = 1e9 / s.nominal_rate_hz();
        let n = (secs * s.nominal_rate_hz()) as u64;
        for i in 0..n {
            let payload = if s.is_camera() {
                Payload::Image(ImageFrame {
                    width: 1408,
                    height: 1408,
                    encoding: ImageEncoding::Jpeg,
                    data: jpeg.clone(),
                    frame_number: i,
                    exposure_s: 0.005,
                    gain: 1.0,
                })
            } else {
                Payload::Imu(ImuSample::default())
            };
            v.push(Sample {
                stream: s,
                capture: DeviceTime((i as f64 * period_ns) as i64 + s.index() as i64 * 1_000),
                arrival: HostTime(0),
                seq: i,
                payload,
            });
        }
    }
    v.sort_by_key(|s| s.capture);
    v
}

struct DrainAll;

impl Consumer for DrainAll {
    fn name(&self) -> &str {
        "drain-all"
    }
    fn on_samples(&mut self, reader: &mut Reader, _now: HostTime) -> Result<(), ConsumerError> {
        reader.drain_all_new(|s| {
            std::hint::black_box(s.seq);
        });
        Ok(())
    }
}

fn main() {
    let secs: f64 = std::env::var("VISTA_PACING_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10.0);
    let granularity_us: i64 = std::env::var("VISTA_PACING_GRANULARITY_US")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let samples = session(secs);
    let n = samples.len();
    let mut config = RuntimeConfig::new(ClockMode::RealTime { rate: 1.0 });
    config.pacing_granularity_ns = granularity_us.saturating_mul(1_000);
    println!("{secs} s at rate 1, pacing granularity {granularity_us} µs");
    let report = match run(
        Box::new(VecSource::new(samples)),
        config,
        vec![Box::new(DrainAll)],
    ) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("run failed: {e}");
            std::process::exit(1);
        }
    };
    println!("{}", report.profile.to_table());
    let wall = report.profile.wall_time_s;
    if let Some(cpu) = report.ingest_cpu_s {
        println!(
            "ingest CPU: {:.3} s over {:.3} s wall = {:.2} % of a core ({} samples, {:.2} µs/sample)",
            cpu,
            wall,
            100.0 * cpu / wall,
            n,
            cpu * 1e6 / n as f64
        );
    }
    for s in ["imu-right", "imu-left"] {
        if let Some(r) = report.profile.streams.get(s) {
            println!(
                "{s}: pacing p50 {:.0} µs, p99 {:.0} µs, max {:.0} µs, early {}",
                r.pacing_us.p50, r.pacing_us.p99, r.pacing_us.max, r.early
            );
        }
    }
}
