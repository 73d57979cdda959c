//! Honest drop accounting and coalesced pacing wake-ups in real-time runs:
//! * a consumer is accounted only for the streams it reads (its subscription): a camera it
//!   never reads, overwritten many times in a tiny buffer, is not "dropped" for it, while a
//!   consumer that does read the camera is accounted for it;
//! * samples of two streams due within the pacing slack share one ingest wake-up (never
//!   early), while a lone 1 kHz IMU is still delivered one sample per millisecond.

use std::sync::{Arc, Mutex};

use bytes::Bytes;
use vista::buffer::{BufferConfig, Reader};
use vista::runtime::{run, ClockMode, Consumer, ConsumerError, RuntimeConfig, StopReason};
use vista::sample::{ImageEncoding, ImageFrame, ImuSample, Payload, Sample, StreamId};
use vista::source::VecSource;
use vista::time::{DeviceTime, HostTime};

const T0: i64 = 5_000_000_000;

fn imu(stream: StreamId, seq: u64, t_ns: i64) -> Sample {
    Sample {
        stream,
        capture: DeviceTime(T0 + t_ns),
        arrival: HostTime(0),
        seq,
        payload: Payload::Imu(ImuSample::default()),
    }
}

fn frame(seq: u64, t_ns: i64) -> Sample {
    Sample {
        stream: StreamId::CameraSlamLeft,
        capture: DeviceTime(T0 + t_ns),
        arrival: HostTime(0),
        seq,
        payload: Payload::Image(ImageFrame {
            width: 8,
            height: 8,
            encoding: ImageEncoding::Jpeg,
            data: Bytes::from_static(b"not really a jpeg"),
            frame_number: seq,
            exposure_s: 0.01,
            gain: 1.0,
        }),
    }
}

/// What a consumer drained: (stream, capture, arrival) per sample.
type Seen = Arc<Mutex<Vec<(StreamId, i64, i64)>>>;

/// Reads `streams` and records what it drains.
struct Reads {
    name: &'static str,
    streams: Vec<StreamId>,
    seen: Seen,
}

impl Consumer for Reads {
    fn name(&self) -> &str {
        self.name
    }
    fn wants(&self, stream: StreamId) -> bool {
        self.streams.contains(&stream)
    }
    fn on_samples(&mut self, reader: &mut Reader, _now: HostTime) -> Result<(), ConsumerError> {
        let mut seen = self.seen.lock().unwrap();
        for &s in &self.streams {
            reader.drain_new(s, |x| seen.push((x.stream, x.capture.ns(), x.arrival.ns())));
        }
        Ok(())
    }
}

fn reads(name: &'static str, streams: &[StreamId]) -> (Box<dyn Consumer>, Seen) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let c = Reads {
        name,
        streams: streams.to_vec(),
        seen: seen.clone(),
    };
    (Box::new(c), seen)
}

#[test]
fn a_stream_a_consumer_never_reads_is_not_dropped_for_it() {
    // 200 ms of a 1 kHz IMU and a 100 Hz camera whose buffer holds only 2 frames, at rate 4.
    let mut input = Vec::new();
    for i in 0..200u64 {
        input.push(imu(StreamId::ImuRight, i, i as i64 * 1_000_000));
        if i % 10 == 0 {
            input.push(frame(i / 10, i as i64 * 1_000_000 + 500_000));
        }
    }
    let mut config = RuntimeConfig::new(ClockMode::RealTime { rate: 4.0 });
    config.buffer = BufferConfig::default().with_capacity(StreamId::CameraSlamLeft, 2);
    let (imu_only, _) = reads("imu-only", &[StreamId::ImuRight]);
    let (both, seen_both) = reads("both", &[StreamId::ImuRight, StreamId::CameraSlamLeft]);
    let report = run(
        Box::new(VecSource::new(input)),
        config,
        vec![imu_only, both],
    )
    .unwrap();
    assert_eq!(report.stop_reason, StopReason::EndOfSource);
    report.buffers.check().unwrap();

    // The camera buffer was overwritten 18 times (20 frames, 2 slots)...
    let cam = report.buffers.streams["camera-slam-left"];
    assert_eq!((cam.produced, cam.evicted), (20, 18));
    // ...but the IMU-only consumer is accounted for the IMU alone, with nothing lost.
    let imu_only = &report.buffers.consumers["imu-only"];
    assert_eq!(imu_only.keys().collect::<Vec<_>>(), ["imu-right"]);
    assert_eq!(
        (
            imu_only["imu-right"].delivered,
            imu_only["imu-right"].dropped
        ),
        (200, 0)
    );
    // The consumer that reads the camera is accounted for it: every frame delivered or
    // dropped, matching what it actually saw.
    let both = &report.buffers.consumers["both"];
    let c = both["camera-slam-left"];
    let frames_seen = seen_both
        .lock()
        .unwrap()
        .iter()
        .filter(|s| s.0 == StreamId::CameraSlamLeft)
        .count() as u64;
    assert_eq!(c.delivered, frames_seen);
    assert_eq!(c.delivered + c.dropped + c.pending, 20);
}

fn median(mut v: Vec<i64>) -> i64 {
    v.sort_unstable();
    v[v.len() / 2]
}

#[test]
fn samples_due_within_the_slack_share_one_wakeup() {
    // Two IMUs at 1 kHz, the left one 100 µs after the right: 100 pairs at rate 1.
    let mut input = Vec::new();
    for i in 0..100u64 {
        let t = i as i64 * 1_000_000;
        input.push(imu(StreamId::ImuRight, i, t));
        input.push(imu(StreamId::ImuLeft, i, t + 100_000));
    }
    let config = RuntimeConfig::new(ClockMode::RealTime { rate: 1.0 });
    assert!(config.pacing_slack_ns > 100_000);
    let (c, seen) = reads("pairs", &[StreamId::ImuRight, StreamId::ImuLeft]);
    let report = run(Box::new(VecSource::new(input)), config, vec![c]).unwrap();
    for s in ["imu-right", "imu-left"] {
        let st = &report.profile.streams[s];
        assert_eq!((st.delivered, st.early), (100, 0), "{s}");
    }
    // Each sleep ends after both samples of a pair are due: at most one per pair.
    assert!(
        report.ingest_sleeps <= 100,
        "{} sleeps",
        report.ingest_sleeps
    );
    // The two samples of a pair arrive together, not 100 µs apart.
    let seen = seen.lock().unwrap().clone();
    let arrival = |stream: StreamId| -> Vec<i64> {
        let mut v: Vec<(i64, i64)> = seen
            .iter()
            .filter(|s| s.0 == stream)
            .map(|s| (s.1, s.2))
            .collect();
        v.sort_unstable();
        v.into_iter().map(|s| s.1).collect()
    };
    let (r, l) = (arrival(StreamId::ImuRight), arrival(StreamId::ImuLeft));
    assert_eq!((r.len(), l.len()), (100, 100));
    let gaps: Vec<i64> = r.iter().zip(&l).map(|(a, b)| b - a).collect();
    assert!(gaps.iter().all(|&g| g >= 0));
    assert!(
        median(gaps) < 50_000,
        "pair arrivals apart by a median of more than 50 µs"
    );
}

#[test]
fn a_lone_1khz_imu_still_arrives_one_sample_per_millisecond() {
    let input: Vec<Sample> = (0..300u64)
        .map(|i| imu(StreamId::ImuRight, i, i as i64 * 1_000_000))
        .collect();
    let (c, seen) = reads("imu", &[StreamId::ImuRight]);
    let report = run(
        Box::new(VecSource::new(input)),
        RuntimeConfig::new(ClockMode::RealTime { rate: 1.0 }),
        vec![c],
    )
    .unwrap();
    assert_eq!(report.profile.streams["imu-right"].early, 0);
    let seen = seen.lock().unwrap().clone();
    let gaps: Vec<i64> = seen.windows(2).map(|w| w[1].2 - w[0].2).collect();
    let m = median(gaps);
    assert!((800_000..=1_200_000).contains(&m), "median gap {m} ns");
}
