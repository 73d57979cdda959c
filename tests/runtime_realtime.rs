//! Real-time (rate-scaled) runs: samples are paced by their capture times, never early,
//! never in clumps; a slow consumer loses only the oldest samples, and it is counted.

use std::sync::{Arc, Mutex};

use vista::buffer::Reader;
use vista::runtime::{run, ClockMode, Consumer, ConsumerError, RuntimeConfig, StopReason};
use vista::sample::{ImuSample, Payload, Sample, StreamId};
use vista::source::VecSource;
use vista::time::{DeviceTime, HostTime};

fn imu_session(n: usize, period_ns: i64) -> Vec<Sample> {
    (0..n)
        .map(|i| Sample {
            stream: StreamId::ImuRight,
            capture: DeviceTime(5_000_000_000 + i as i64 * period_ns),
            arrival: HostTime(0),
            seq: i as u64,
            payload: Payload::Imu(ImuSample::default()),
        })
        .collect()
}

/// Records (seq, capture, arrival) of every sample it drains.
struct Arrivals {
    seen: Arc<Mutex<Vec<(u64, i64, i64)>>>,
    work: std::time::Duration,
}

impl Consumer for Arrivals {
    fn name(&self) -> &str {
        "arrivals"
    }
    fn on_samples(&mut self, reader: &mut Reader, _now: HostTime) -> Result<(), ConsumerError> {
        let mut seen = self.seen.lock().unwrap();
        reader.drain_new(StreamId::ImuRight, |s| {
            seen.push((s.seq, s.capture.ns(), s.arrival.ns()))
        });
        drop(seen);
        if !self.work.is_zero() {
            std::thread::sleep(self.work);
        }
        Ok(())
    }
}

fn median(mut v: Vec<i64>) -> i64 {
    v.sort_unstable();
    v[v.len() / 2]
}

#[test]
fn rate_10_paces_a_1khz_imu_without_clumps() {
    const RATE: f64 = 10.0;
    let input = imu_session(2_000, 1_000_000); // 2 s of a 1 kHz IMU → 0.2 s at rate 10
    let seen = Arc::new(Mutex::new(Vec::new()));
    let started = HostTime::now();
    let report = run(
        Box::new(VecSource::new(input)),
        RuntimeConfig::new(ClockMode::RealTime { rate: RATE }),
        vec![Box::new(Arrivals {
            seen: seen.clone(),
            work: std::time::Duration::ZERO,
        })],
    )
    .unwrap();
    assert_eq!(report.stop_reason, StopReason::EndOfSource);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2_000);
    assert!(seen.iter().enumerate().all(|(i, s)| s.0 == i as u64));

    // Never early: the ingest stage measured every delivery against its due time.
    let imu = &report.profile.streams["imu-right"];
    assert_eq!(imu.early, 0);
    // Checked here too, independently of the runtime's own accounting: the replay clock
    // starts after `started`, so no sample may arrive before `started` plus its device
    // offset from the first sample / rate. (Comparing the last arrival with the first one
    // instead would fail whenever the first sample is itself delivered late.)
    let first_capture = seen[0].1;
    for &(seq, capture, arrival) in &seen {
        let due_after = started.ns() + ((capture - first_capture) as f64 / RATE) as i64;
        assert!(
            arrival >= due_after,
            "sample {seq} arrived at {arrival} ns, before {due_after} ns"
        );
    }

    // No clumps: 10 samples are 10 ms of device time = 1 ms of host time at rate 10. A
    // source delivered in 10 ms clumps would make most of these gaps ~0.
    let gaps: Vec<i64> = seen.windows(11).map(|w| w[10].2 - w[0].2).collect();
    let m = median(gaps);
    assert!(
        (500_000..=2_000_000).contains(&m),
        "median 10-sample gap {m} ns"
    );
    // Typical lateness is well under a millisecond (p50; the tail depends on the machine).
    assert!(imu.pacing_us.p50 < 1_000.0, "{:?}", imu.pacing_us);
    assert!((imu.rate_hz - 1_000.0).abs() < 1e-6, "{}", imu.rate_hz);
}

#[test]
fn a_slow_consumer_loses_only_the_oldest_and_accounting_holds() {
    // 300 samples at 1 kHz, rate 1 (0.3 s); the consumer sleeps 30 ms per call and its
    // buffer holds 8 samples, so it must lose most of them, oldest first.
    let input = imu_session(300, 1_000_000);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut config = RuntimeConfig::new(ClockMode::RealTime { rate: 1.0 });
    config.buffer = config.buffer.clone().with_capacity(StreamId::ImuRight, 8);
    let report = run(
        Box::new(VecSource::new(input)),
        config,
        vec![Box::new(Arrivals {
            seen: seen.clone(),
            work: std::time::Duration::from_millis(30),
        })],
    )
    .unwrap();
    report.buffers.check().unwrap();
    let st = report.buffers.consumers["arrivals"]["imu-right"];
    let seen = seen.lock().unwrap().clone();
    assert_eq!(st.delivered, seen.len() as u64);
    assert_eq!(st.pending, 0, "the final call drains everything left");
    assert!(st.dropped > 100, "{st:?}");
    assert_eq!(st.delivered + st.dropped, 300);
    // Delivered samples are strictly increasing and the newest ones always survive.
    assert!(seen.windows(2).all(|w| w[0].0 < w[1].0));
    assert_eq!(seen.last().map(|s| s.0), Some(299));
    assert!(report.coalesced["arrivals"] > 0);
    // The stream itself delivered everything (drops are per consumer).
    assert_eq!(report.profile.streams["imu-right"].delivered, 300);
}

#[test]
fn pacing_granularity_batches_wakeups_without_delivering_early() {
    // 300 samples of a 1 kHz IMU at rate 1, waking at most every 5 ms.
    let input = imu_session(300, 1_000_000);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut config = RuntimeConfig::new(ClockMode::RealTime { rate: 1.0 });
    config.pacing_granularity_ns = 5_000_000;
    let report = run(
        Box::new(VecSource::new(input)),
        config,
        vec![Box::new(Arrivals {
            seen: seen.clone(),
            work: std::time::Duration::ZERO,
        })],
    )
    .unwrap();
    let imu = &report.profile.streams["imu-right"];
    assert_eq!((imu.delivered, imu.early), (300, 0));
    // Deliveries come in bursts: count the gaps longer than 2.5 ms between consecutive
    // arrivals. Exact pacing would have none (1 ms apart); 5 ms granules give one per
    // granule, about 300 ms / 5 ms = 60.
    let seen = seen.lock().unwrap().clone();
    let long_gaps = seen
        .windows(2)
        .filter(|w| w[1].2 - w[0].2 > 2_500_000)
        .count();
    assert!((30..=80).contains(&long_gaps), "{long_gaps} long gaps");
    // Typical lateness is about half a granule (here p50 ≈ 2 ms, never beyond ~5 ms plus
    // scheduling delay).
    assert!(imu.pacing_us.p50 > 500.0, "{:?}", imu.pacing_us);
}

/// Wants only camera frames; counts its calls and what it drained.
struct CameraOnly {
    calls: Arc<Mutex<(u64, u64)>>,
}

impl Consumer for CameraOnly {
    fn name(&self) -> &str {
        "camera-only"
    }
    fn wants(&self, stream: StreamId) -> bool {
        stream == StreamId::CameraRgb
    }
    fn on_samples(&mut self, reader: &mut Reader, _now: HostTime) -> Result<(), ConsumerError> {
        let n = reader.drain_new(StreamId::CameraRgb, |_| {});
        let mut c = self.calls.lock().unwrap();
        c.0 += 1;
        c.1 += n as u64;
        Ok(())
    }
}

#[test]
fn consumers_are_woken_only_by_the_streams_they_want() {
    // 1 s of a 1 kHz IMU plus a 10 Hz camera, at rate 5.
    let mut input = imu_session(1_000, 1_000_000);
    for i in 0..10u64 {
        input.push(Sample {
            stream: StreamId::CameraRgb,
            capture: DeviceTime(5_000_000_000 + i as i64 * 100_000_000 + 500_000),
            arrival: HostTime(0),
            seq: i,
            payload: Payload::Imu(ImuSample::default()),
        });
    }
    input.sort_by_key(|s| s.capture);
    let calls = Arc::new(Mutex::new((0, 0)));
    let report = run(
        Box::new(VecSource::new(input)),
        RuntimeConfig::new(ClockMode::RealTime { rate: 5.0 }),
        vec![Box::new(CameraOnly {
            calls: calls.clone(),
        })],
    )
    .unwrap();
    let (n_calls, n_frames) = *calls.lock().unwrap();
    assert_eq!(n_frames, 10);
    // One wake-up per frame (at most) plus the final call, not one per IMU sample.
    assert!(n_calls <= 11, "{n_calls} calls");
    assert_eq!(report.profile.streams["imu-right"].delivered, 1_000);
}

/// Counts its calls, and for every camera frame it drains, how long after the frame's
/// arrival it got it.
struct Counting {
    calls: Arc<Mutex<u64>>,
    imu: Arc<Mutex<u64>>,
    frame_delays_ns: Arc<Mutex<Vec<i64>>>,
}

impl Consumer for Counting {
    fn name(&self) -> &str {
        "counting"
    }
    fn on_samples(&mut self, reader: &mut Reader, _now: HostTime) -> Result<(), ConsumerError> {
        *self.calls.lock().unwrap() += 1;
        let n = reader.drain_new(StreamId::ImuRight, |_| {});
        *self.imu.lock().unwrap() += n as u64;
        let now = HostTime::now();
        let mut delays = self.frame_delays_ns.lock().unwrap();
        reader.drain_new(StreamId::CameraRgb, |s| delays.push(now.since(s.arrival)));
        Ok(())
    }
}

#[test]
fn motion_samples_wake_a_consumer_at_most_once_per_interval_frames_at_once() {
    // 0.5 s of a 1 kHz IMU and five camera frames at rate 1; motion wake-ups at most every
    // 50 ms: about 10 calls for the IMU instead of one per sleep (~500), each frame seen
    // within about a millisecond of its arrival rather than up to 50 ms later.
    let mut input = imu_session(500, 1_000_000);
    for i in 0..5u64 {
        input.push(Sample {
            stream: StreamId::CameraRgb,
            capture: DeviceTime(5_000_000_000 + i as i64 * 100_000_000 + 20_500_000),
            arrival: HostTime(0),
            seq: i,
            payload: Payload::Imu(ImuSample::default()),
        });
    }
    input.sort_by_key(|s| s.capture);
    let calls = Arc::new(Mutex::new(0));
    let imu = Arc::new(Mutex::new(0));
    let delays = Arc::new(Mutex::new(Vec::new()));
    let mut config = RuntimeConfig::new(ClockMode::RealTime { rate: 1.0 });
    config.consumer_wake_interval_ns = 50_000_000;
    let report = run(
        Box::new(VecSource::new(input)),
        config,
        vec![Box::new(Counting {
            calls: calls.clone(),
            imu: imu.clone(),
            frame_delays_ns: delays.clone(),
        })],
    )
    .unwrap();
    assert_eq!(report.stop_reason, StopReason::EndOfSource);
    assert_eq!(*imu.lock().unwrap(), 500, "every IMU sample delivered");
    let calls = *calls.lock().unwrap();
    // ≤ 10 interval wake-ups + 5 frames + the final call (+ slack for a late sleep).
    assert!(calls <= 20, "{calls} calls");
    let delays = delays.lock().unwrap().clone();
    assert_eq!(delays.len(), 5);
    // A frame waiting for the motion interval would be seen ~30 ms after it arrived.
    assert!(median(delays.clone()) < 10_000_000, "{delays:?}");
}
