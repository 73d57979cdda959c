//! Lock-step (virtual clock) runs: determinism, complete delivery, backwards timestamps,
//! source and consumer failures.

use std::sync::{Arc, Mutex};

use vista::buffer::Reader;
use vista::runtime::{run, ClockMode, Consumer, ConsumerError, RuntimeConfig, StopReason};
use vista::sample::{ImageEncoding, ImageFrame, ImuSample, MagSample, Payload, Sample, StreamId};
use vista::source::{Source, SourceError, VecSource};
use vista::time::{DeviceTime, HostTime};

fn sample(stream: StreamId, seq: u64, t_ns: i64) -> Sample {
    let payload = match stream {
        StreamId::CameraRgb => Payload::Image(ImageFrame {
            width: 4,
            height: 4,
            encoding: ImageEncoding::Jpeg,
            data: bytes::Bytes::from_static(b"not really a jpeg"),
            frame_number: seq,
            exposure_s: 0.01,
            gain: 1.0,
        }),
        StreamId::Magnetometer => Payload::Magnetometer(MagSample::default()),
        _ => Payload::Imu(ImuSample {
            accel_mps2: [seq as f32, 0.0, 9.81],
            ..ImuSample::default()
        }),
    };
    Sample {
        stream,
        capture: DeviceTime(t_ns),
        arrival: HostTime(0),
        seq,
        payload,
    }
}

/// A 2-second multi-stream session in capture order: IMU right 1 kHz, IMU left 800 Hz,
/// RGB 10 Hz, magnetometer 10 Hz.
fn session() -> Vec<Sample> {
    let mut v = Vec::new();
    let streams = [
        (StreamId::ImuRight, 1_000_000i64),
        (StreamId::ImuLeft, 1_250_000),
        (StreamId::CameraRgb, 100_000_000),
        (StreamId::Magnetometer, 100_000_000),
    ];
    for (s, period) in streams {
        let n = 2_000_000_000 / period;
        for i in 0..n {
            // Offsets so that streams interleave without ties.
            v.push(sample(
                s,
                i as u64,
                1_000_000_000 + i * period + s.index() as i64 * 7,
            ));
        }
    }
    v.sort_by_key(|s| s.capture);
    v
}

type Log = Arc<Mutex<Vec<String>>>;

/// Logs everything it observes: `now`, each new sample, and a 50 ms IMU window summary.
/// `work_us` makes it slow (sleep) so real threads interleave differently between runs.
struct Recorder {
    name: String,
    log: Log,
    work_us: u64,
    calls: u64,
}

impl Consumer for Recorder {
    fn name(&self) -> &str {
        &self.name
    }
    fn on_samples(&mut self, reader: &mut Reader, now: HostTime) -> Result<(), ConsumerError> {
        self.calls += 1;
        let mut log = self.log.lock().unwrap();
        log.push(format!("now {}", now.ns()));
        reader.drain_all_new(|s| {
            log.push(format!("{} {} {}", s.stream, s.seq, s.capture.ns()));
        });
        if let Some(t1) = reader.newest_capture() {
            let mut n = 0;
            let mut first = None;
            reader.read_window(StreamId::ImuRight, t1.add_ns(-50_000_000), t1, |s| {
                n += 1;
                first.get_or_insert(s.seq);
            });
            log.push(format!("window {n} {first:?}"));
        }
        drop(log);
        if self.work_us > 0 && self.calls % 7 == 0 {
            std::thread::sleep(std::time::Duration::from_micros(self.work_us));
        }
        Ok(())
    }
}

fn run_once(
    work_us: [u64; 2],
    tick_ns: i64,
) -> (Vec<String>, Vec<String>, vista::runtime::RunReport) {
    let a: Log = Arc::default();
    let b: Log = Arc::default();
    let consumers: Vec<Box<dyn Consumer>> = vec![
        Box::new(Recorder {
            name: "a".into(),
            log: a.clone(),
            work_us: work_us[0],
            calls: 0,
        }),
        Box::new(Recorder {
            name: "b".into(),
            log: b.clone(),
            work_us: work_us[1],
            calls: 0,
        }),
    ];
    let mut config = RuntimeConfig::new(ClockMode::Virtual);
    config.lockstep_tick_ns = tick_ns;
    let report = run(Box::new(VecSource::new(session())), config, consumers).unwrap();
    let a = a.lock().unwrap().clone();
    let b = b.lock().unwrap().clone();
    (a, b, report)
}

#[test]
fn two_virtual_runs_observe_identical_sequences() {
    let (a1, b1, r1) = run_once([0, 300], 10_000_000);
    let (a2, b2, r2) = run_once([300, 0], 10_000_000);
    assert_eq!(r1.stop_reason, StopReason::EndOfSource);
    assert_eq!(a1, a2);
    assert_eq!(b1, b2);
    // Both consumers see the same thing within a run, too.
    assert_eq!(a1, b1);
    assert_eq!(r1.lockstep_rounds, r2.lockstep_rounds);
    // 2 s of device time in 10 ms ticks: one round per tick.
    assert_eq!(r1.lockstep_rounds, 200);
}

#[test]
fn every_sample_is_delivered_once_in_order() {
    let (a, _, report) = run_once([0, 0], 10_000_000);
    let input = session();
    let delivered: Vec<&String> = a
        .iter()
        .filter(|l| !l.starts_with("now") && !l.starts_with("window"))
        .collect();
    assert_eq!(delivered.len(), input.len());
    for stream in [StreamId::ImuRight, StreamId::ImuLeft, StreamId::CameraRgb] {
        let want: Vec<String> = input
            .iter()
            .filter(|s| s.stream == stream)
            .map(|s| format!("{} {} {}", s.stream, s.seq, s.capture.ns()))
            .collect();
        let got: Vec<String> = delivered
            .iter()
            .filter(|l| l.starts_with(&format!("{stream} ")))
            .map(|l| l.to_string())
            .collect();
        assert_eq!(got, want, "{stream}");
    }
    report.buffers.check().unwrap();
    let imu = &report.buffers.consumers["a"]["imu-right"];
    assert_eq!((imu.delivered, imu.dropped, imu.pending), (2000, 0, 0));
    assert_eq!(report.profile.streams["imu-right"].delivered, 2000);
    // The virtual `now` is the due time of the newest pushed sample: never decreasing.
    let nows: Vec<i64> = a
        .iter()
        .filter_map(|l| l.strip_prefix("now "))
        .map(|n| n.parse().unwrap())
        .collect();
    assert!(nows.windows(2).all(|w| w[0] <= w[1]));
    // A full 50 ms IMU window (51 samples at 1 kHz, both ends inclusive) once warmed up.
    assert!(
        a.iter().any(|l| l.starts_with("window 51 ")),
        "{:?}",
        &a[..20]
    );
}

#[test]
fn per_sample_rounds_with_zero_tick() {
    let (a, _, report) = run_once([0, 0], 0);
    assert_eq!(report.lockstep_rounds, session().len() as u64);
    // One round per sample: each call drains exactly one sample.
    let mut counts = Vec::new();
    let mut n = 0;
    for l in &a {
        if l.starts_with("now") {
            counts.push(n);
            n = 0;
        } else if !l.starts_with("window") {
            n += 1;
        }
    }
    counts.push(n);
    assert!(counts[1..].iter().all(|&c| c == 1), "{counts:?}");
}

#[test]
fn a_round_runs_before_a_buffer_would_overrun() {
    // Capacity 3 for imu-right with 10 ms ticks (10 samples per tick): lock step must still
    // deliver every sample, by running extra rounds.
    let log: Log = Arc::default();
    let mut config = RuntimeConfig::new(ClockMode::Virtual);
    config.buffer = config.buffer.clone().with_capacity(StreamId::ImuRight, 3);
    let report = run(
        Box::new(VecSource::new(session())),
        config,
        vec![Box::new(Recorder {
            name: "r".into(),
            log,
            work_us: 0,
            calls: 0,
        })],
    )
    .unwrap();
    let st = &report.buffers.consumers["r"]["imu-right"];
    assert_eq!((st.delivered, st.dropped), (2000, 0));
    assert!(report.buffers.streams["imu-right"].evicted > 0);
    assert!(report.lockstep_rounds > 600, "{}", report.lockstep_rounds);
}

#[test]
fn backwards_timestamps_are_dropped_and_counted() {
    let v = vec![
        sample(StreamId::ImuRight, 0, 1_000),
        sample(StreamId::ImuRight, 1, 2_000),
        sample(StreamId::ImuLeft, 0, 2_500),
        sample(StreamId::ImuRight, 2, 1_500), // backwards
        sample(StreamId::ImuRight, 3, 3_000),
        sample(StreamId::ImuLeft, 1, 2_000), // backwards on its own stream
        sample(StreamId::ImuRight, 4, 2_999), // backwards
        sample(StreamId::ImuRight, 5, 3_000), // equal: kept
    ];
    let log: Log = Arc::default();
    let report = run(
        Box::new(VecSource::new(v)),
        RuntimeConfig::new(ClockMode::Virtual),
        vec![Box::new(Recorder {
            name: "r".into(),
            log: log.clone(),
            work_us: 0,
            calls: 0,
        })],
    )
    .unwrap();
    let seqs: Vec<String> = log
        .lock()
        .unwrap()
        .iter()
        .filter(|l| l.starts_with("imu-right "))
        .cloned()
        .collect();
    assert_eq!(
        seqs,
        [
            "imu-right 0 1000",
            "imu-right 1 2000",
            "imu-right 3 3000",
            "imu-right 5 3000"
        ]
    );
    let r = &report.profile.streams["imu-right"];
    assert_eq!((r.delivered, r.out_of_order_dropped, r.dropped), (4, 2, 2));
    let l = &report.profile.streams["imu-left"];
    assert_eq!((l.delivered, l.out_of_order_dropped), (1, 1));
}

/// Yields some samples, a recoverable error, more samples, then a fatal error.
struct Failing {
    n: u64,
}

impl Source for Failing {
    fn describe(&self) -> String {
        "failing".into()
    }
    fn streams(&self) -> Vec<StreamId> {
        vec![StreamId::ImuRight]
    }
    fn next_sample(&mut self) -> Option<Result<Sample, SourceError>> {
        self.n += 1;
        Some(match self.n {
            5 => Err(SourceError::Skipped {
                stream: "imu-right".into(),
                message: "bad record at byte 1234".into(),
            }),
            10 => Err(SourceError::Fatal("truncated file at byte 9999".into())),
            n => Ok(sample(StreamId::ImuRight, n, n as i64 * 1_000_000)),
        })
    }
}

#[test]
fn a_fatal_source_error_stops_in_order_after_delivering_what_came_before() {
    let log: Log = Arc::default();
    let report = run(
        Box::new(Failing { n: 0 }),
        RuntimeConfig::new(ClockMode::Virtual),
        vec![Box::new(Recorder {
            name: "r".into(),
            log: log.clone(),
            work_us: 0,
            calls: 0,
        })],
    )
    .unwrap();
    assert!(
        matches!(&report.stop_reason, StopReason::SourceFailed { message } if message.contains("byte 9999"))
    );
    assert!(report.stop_reason.is_error());
    let r = &report.profile.streams["imu-right"];
    assert_eq!((r.delivered, r.skipped), (8, 1));
    assert_eq!(report.buffers.consumers["r"]["imu-right"].delivered, 8);
}

struct FailAfter {
    calls: u32,
    panic: bool,
    finished: Arc<Mutex<bool>>,
}

impl Consumer for FailAfter {
    fn name(&self) -> &str {
        "fragile"
    }
    fn on_samples(&mut self, reader: &mut Reader, _now: HostTime) -> Result<(), ConsumerError> {
        reader.drain_all_new(|_| {});
        self.calls += 1;
        if self.calls == 3 {
            if self.panic {
                panic!("deliberate test panic");
            }
            return Err("model file missing".into());
        }
        Ok(())
    }
    fn finish(&mut self) {
        *self.finished.lock().unwrap() = true;
    }
}

#[test]
fn a_consumer_error_or_panic_stops_the_run() {
    for (mode, panic) in [
        (ClockMode::Virtual, false),
        (ClockMode::Virtual, true),
        (ClockMode::RealTime { rate: 2.0 }, false),
        (ClockMode::RealTime { rate: 2.0 }, true),
    ] {
        let finished = Arc::new(Mutex::new(false));
        let report = run(
            Box::new(VecSource::new(session())),
            RuntimeConfig::new(mode),
            vec![Box::new(FailAfter {
                calls: 0,
                panic,
                finished: finished.clone(),
            })],
        )
        .unwrap();
        match &report.stop_reason {
            StopReason::ConsumerFailed { consumer, message } => {
                assert_eq!(consumer, "fragile");
                let want = if panic {
                    "deliberate test panic"
                } else {
                    "model file missing"
                };
                assert!(message.contains(want), "{message}");
            }
            other => panic!("{mode:?}: {other:?}"),
        }
        assert!(*finished.lock().unwrap(), "finish() called");
        // It stopped early: far fewer than all samples were ingested.
        let delivered: u64 = report.profile.streams.values().map(|s| s.delivered).sum();
        assert!(
            delivered < session().len() as u64 / 2,
            "{mode:?}: {delivered}"
        );
    }
}

#[test]
fn start_and_end_limit_the_session() {
    let log: Log = Arc::default();
    let mut config = RuntimeConfig::new(ClockMode::Virtual);
    config.start = Some(DeviceTime(1_500_000_000));
    config.end = Some(DeviceTime(2_000_000_000));
    let report = run(
        Box::new(VecSource::new(session())),
        config,
        vec![Box::new(Recorder {
            name: "r".into(),
            log,
            work_us: 0,
            calls: 0,
        })],
    )
    .unwrap();
    assert_eq!(report.stop_reason, StopReason::EndOfRange);
    let imu = &report.profile.streams["imu-right"];
    // Captures 1.5 s ..= 2.0 s at 1 kHz (+ a 4 ns offset): 1.5 s .. 1.999 s → 500 samples.
    assert_eq!(imu.delivered, 500);
    assert_eq!(imu.first_capture_ns, Some(1_500_000_000 + 4 * 7));
    assert!(report.filtered_before_start > 0);
}

#[test]
fn run_report_serialises_for_profile_json() {
    let (_, _, report) = run_once([0, 0], 10_000_000);
    let v = serde_json::to_value(&report).unwrap();
    assert_eq!(v["stop_reason"]["reason"], "end-of-source");
    let imu = &v["profile"]["streams"]["imu-right"];
    assert_eq!(imu["vrs_id"], "1202-1");
    assert_eq!(imu["delivered"], 2000);
    assert_eq!(imu["rate_hz"], 1000.0);
    // Virtual clock: no pacing lateness is recorded.
    assert_eq!(imu["pacing_us"]["count"], 0);
    assert_eq!(v["profile"]["streams"]["camera-rgb"]["rate_hz"], 10.0);
    // Both consumers are profiled as stages, and ingest too.
    for stage in ["a", "b", "ingest"] {
        assert!(
            v["profile"]["stages"][stage]["duration_us"]["count"]
                .as_u64()
                .unwrap()
                > 0
        );
    }
    assert_eq!(
        v["buffers"]["consumers"]["b"]["imu-left"]["delivered"],
        1600
    );
    assert_eq!(v["buffers"]["streams"]["imu-left"]["capacity"], 8000);
    assert!(v["profile"]["wall_time_s"].as_f64().unwrap() > 0.0);
    let table = report.profile.to_table();
    assert!(
        table.contains("imu-right") && table.contains("1202-1"),
        "{table}"
    );
}

/// A source with a bug: panics on its third sample.
struct Panicking(u64);

impl Source for Panicking {
    fn describe(&self) -> String {
        "panicking".into()
    }
    fn streams(&self) -> Vec<StreamId> {
        vec![StreamId::ImuRight]
    }
    fn next_sample(&mut self) -> Option<Result<Sample, SourceError>> {
        self.0 += 1;
        assert!(self.0 < 3, "deliberate source bug");
        Some(Ok(sample(StreamId::ImuRight, self.0, self.0 as i64)))
    }
}

#[test]
fn a_panicking_source_is_an_error_not_a_hang() {
    for mode in [ClockMode::Virtual, ClockMode::RealTime { rate: 1.0 }] {
        let finished = Arc::new(Mutex::new(false));
        let result = run(
            Box::new(Panicking(0)),
            RuntimeConfig::new(mode),
            vec![Box::new(FailAfter {
                calls: 0,
                panic: false,
                finished: finished.clone(),
            })],
        );
        match result {
            Err(vista::runtime::RuntimeError::Panicked { thread }) => {
                assert_eq!(thread, "vista-ingest")
            }
            other => panic!("{mode:?}: {other:?}"),
        }
        // The consumer thread was still shut down in order and joined.
        assert!(*finished.lock().unwrap());
    }
}
