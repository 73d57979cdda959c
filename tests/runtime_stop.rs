//! Stopping: a stop request ends a run promptly, with every thread joined and every
//! consumer finished, even while ingest waits for a far-off sample.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use vista::buffer::Reader;
use vista::runtime::{
    ClockMode, Consumer, ConsumerError, ProgressSnapshot, Runtime, RuntimeConfig, StopReason,
};
use vista::sample::{ImuSample, Payload, Sample, StreamId};
use vista::source::{Source, SourceError};
use vista::time::{DeviceTime, HostTime};

/// An endless 1 kHz IMU, optionally with one long pause after the 10th sample.
struct Endless {
    n: u64,
    pause_ns: i64,
}

impl Source for Endless {
    fn describe(&self) -> String {
        "endless".into()
    }
    fn streams(&self) -> Vec<StreamId> {
        vec![StreamId::ImuRight]
    }
    fn next_sample(&mut self) -> Option<Result<Sample, SourceError>> {
        let n = self.n;
        self.n += 1;
        let pause = if n >= 10 { self.pause_ns } else { 0 };
        Some(Ok(Sample {
            stream: StreamId::ImuRight,
            capture: DeviceTime(n as i64 * 1_000_000 + pause),
            arrival: HostTime(0),
            seq: n,
            payload: Payload::Imu(ImuSample::default()),
        }))
    }
}

struct Counting {
    got: Arc<AtomicU64>,
    finished: Arc<AtomicBool>,
}

impl Consumer for Counting {
    fn name(&self) -> &str {
        "counting"
    }
    fn on_samples(&mut self, reader: &mut Reader, _now: HostTime) -> Result<(), ConsumerError> {
        let n = reader.drain_all_new(|_| {});
        self.got.fetch_add(n as u64, Ordering::Relaxed);
        Ok(())
    }
    fn finish(&mut self) {
        self.finished.store(true, Ordering::Release);
    }
}

fn stop_after(
    mode: ClockMode,
    pause_ns: i64,
    after: Duration,
) -> (Duration, vista::runtime::RunReport, u64, bool) {
    let got = Arc::new(AtomicU64::new(0));
    let finished = Arc::new(AtomicBool::new(false));
    let progress_calls = Arc::new(AtomicU64::new(0));
    let mut config = RuntimeConfig::new(mode);
    let pc = progress_calls.clone();
    config.progress = Some(Box::new(move |_: &ProgressSnapshot| {
        pc.fetch_add(1, Ordering::Relaxed);
    }));
    let runtime = Runtime::new(config);
    let stop = runtime.stop_handle();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(after);
        stop.stop();
        Instant::now()
    });
    let report = runtime
        .run(
            Box::new(Endless { n: 0, pause_ns }),
            vec![Box::new(Counting {
                got: got.clone(),
                finished: finished.clone(),
            })],
        )
        .unwrap();
    let returned = Instant::now();
    let stopped_at = stopper.join().unwrap();
    assert!(progress_calls.load(Ordering::Relaxed) >= 1);
    (
        returned.saturating_duration_since(stopped_at),
        report,
        got.load(Ordering::Relaxed),
        finished.load(Ordering::Acquire),
    )
}

#[test]
fn stop_handle_ends_a_real_time_run_promptly() {
    let (latency, report, got, finished) = stop_after(
        ClockMode::RealTime { rate: 1.0 },
        0,
        Duration::from_millis(150),
    );
    assert_eq!(report.stop_reason, StopReason::Stopped);
    assert!(finished, "consumer finished");
    // Threads joined within a few pacing slices of the request.
    assert!(latency < Duration::from_millis(500), "{latency:?}");
    // ~150 samples at 1 kHz real time; all drained by the final call.
    let st = report.buffers.consumers["counting"]["imu-right"];
    assert_eq!((st.delivered, st.pending), (got, 0));
    report.buffers.check().unwrap();
    assert!(got > 20, "{got}");
}

#[test]
fn stop_interrupts_a_long_wait_for_the_next_sample() {
    // After 10 samples the next one is due in an hour.
    let (latency, report, got, finished) = stop_after(
        ClockMode::RealTime { rate: 1.0 },
        3_600_000_000_000,
        Duration::from_millis(100),
    );
    assert_eq!(report.stop_reason, StopReason::Stopped);
    assert!(finished);
    assert_eq!(got, 10);
    assert!(latency < Duration::from_millis(500), "{latency:?}");
}

#[test]
fn stop_handle_ends_a_virtual_run() {
    let (latency, report, got, finished) =
        stop_after(ClockMode::Virtual, 0, Duration::from_millis(100));
    assert_eq!(report.stop_reason, StopReason::Stopped);
    assert!(finished);
    assert!(got > 0);
    assert!(latency < Duration::from_millis(500), "{latency:?}");
    report.buffers.check().unwrap();
}
