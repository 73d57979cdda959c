//! Live input over a real loopback socket: device-sim → LiveSource delivers the same samples
//! (stream, capture time, payload, per-stream sequence) as a replay of the same session;
//! a dropped link and a truncated frame reconnect without ending the stream; a token is
//! enforced; hostile frames close only their connection.

use std::io::Write;
use std::net::TcpListener;
use std::thread;
use std::time::Duration;

use vista::runtime::StopHandle;
use vista::sample::{Payload, Sample, StreamId};
use vista::source::live::link::Listener;
use vista::source::live::protocol::{encode_frame, Frame, Hello};
use vista::source::live::sim::{serve, Faults, SimConfig, SimReport};
use vista::source::live::{LiveConfig, LiveSource};
use vista::source::replay::{ReplayOptions, ReplaySource};
use vista::source::Source;
use vista::time::DeviceTime;

const VRS: &str = "tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs";

fn replay() -> ReplaySource {
    let options = ReplayOptions {
        recorded_only: true,
        ..Default::default()
    };
    ReplaySource::open(std::path::Path::new(VRS), options).unwrap()
}

fn replay_samples() -> Vec<Sample> {
    let mut r = replay();
    let mut out = Vec::new();
    while let Some(s) = r.next_sample() {
        out.push(s.unwrap());
    }
    out
}

fn sim_config(faults: Faults, token: Option<&str>) -> SimConfig {
    let calib = replay()
        .recording()
        .calib_json()
        .unwrap_or_default()
        .to_string();
    SimConfig {
        rate: None,
        hello: Hello::new("1WM09380041283", "recording", calib),
        token: token.map(str::to_string),
        heartbeat_ns: 200_000_000,
        faults,
        limits: Default::default(),
    }
}

/// Starts a simulator on an ephemeral loopback port; returns its address and join handle.
fn start_sim(config: SimConfig) -> (String, thread::JoinHandle<SimReport>, StopHandle) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let stop = StopHandle::new();
    let s2 = stop.clone();
    let listener = Listener::Tcp(listener);
    let h = thread::spawn(move || serve(&listener, Box::new(replay()), &config, &s2).unwrap());
    (addr, h, stop)
}

fn live_config(addr: &str) -> LiveConfig {
    let mut c = LiveConfig::new(addr);
    c.reconnect_for = Duration::from_secs(5);
    c
}

fn drain(src: &mut LiveSource) -> Vec<Sample> {
    let mut out = Vec::new();
    // Bounded: the session has a few thousand samples.
    for _ in 0..1_000_000 {
        match src.next_sample() {
            Some(Ok(s)) => out.push(s),
            Some(Err(e)) => panic!("{e}"),
            None => return out,
        }
    }
    panic!("live source did not end");
}

type Key = (StreamId, i64, u64);

/// Payload equality with floats compared bit for bit (IMU temperature is NaN when unknown).
fn same_payload(a: &Payload, b: &Payload) -> bool {
    match (a, b) {
        (Payload::Imu(x), Payload::Imu(y)) => {
            let bits = |s: &vista::sample::ImuSample| {
                let mut v: Vec<u32> = s.accel_mps2.iter().map(|f| f.to_bits()).collect();
                v.extend(s.gyro_radps.iter().map(|f| f.to_bits()));
                v.push(s.temperature_c.to_bits());
                (v, s.accel_valid, s.gyro_valid)
            };
            bits(x) == bits(y)
        }
        (Payload::Barometer(x), Payload::Barometer(y)) => {
            x.pressure_pa.to_bits() == y.pressure_pa.to_bits()
                && x.temperature_c.to_bits() == y.temperature_c.to_bits()
        }
        _ => a == b,
    }
}

fn key(s: &Sample) -> Key {
    (s.stream, s.capture.ns(), s.seq)
}

#[test]
fn live_delivers_the_same_samples_as_replay() {
    let expected = replay_samples();
    assert!(expected.len() > 100, "{}", expected.len());
    let (addr, sim, _stop) = start_sim(sim_config(Faults::default(), None));
    let mut live = LiveSource::new(live_config(&addr));
    let hello = live.connect().unwrap().clone();
    let got = drain(&mut live);
    let report = sim.join().unwrap();

    assert_eq!(hello.device_serial, "1WM09380041283");
    assert_eq!(
        Some(hello.calib_json.as_str()),
        replay().recording().calib_json()
    );
    assert_eq!(got.len(), expected.len());
    for (g, e) in got.iter().zip(&expected) {
        assert_eq!(key(g), key(e));
        assert!(
            same_payload(&g.payload, &e.payload),
            "payload of {:?}",
            key(e)
        );
    }
    assert!(report.goodbye_sent);
    assert_eq!(report.connections, 1);
    let link = live.stats().report();
    assert_eq!(
        (link.connections, link.goodbyes, link.link_drops),
        (1, 1, 0)
    );
    let n: u64 = link.latency.values().map(|l| l.count).sum();
    assert_eq!(n as usize, expected.len());
}

/// Samples received after faults are exactly the replay's samples with the lost ones left
/// out (same content, in order); per-stream sequence numbers stay dense on the live side.
fn assert_subsequence(got: &[Sample], expected: &[Sample]) {
    let mut it = expected.iter();
    for g in got {
        let found = it
            .by_ref()
            .find(|e| e.stream == g.stream && e.capture == g.capture);
        let e = found.unwrap_or_else(|| panic!("{:?} not in replay order", key(g)));
        assert!(
            same_payload(&g.payload, &e.payload),
            "payload of {:?}",
            key(e)
        );
    }
}

#[test]
fn dropped_link_reconnects_without_ending_the_stream() {
    let expected = replay_samples();
    let faults = Faults {
        drop_after_frames: Some(200),
        drop_gap_ns: 100_000_000,
        ..Default::default()
    };
    let (addr, sim, _stop) = start_sim(sim_config(faults, None));
    let mut live = LiveSource::new(live_config(&addr));
    let got = drain(&mut live);
    let report = sim.join().unwrap();
    assert_eq!(report.connections, 2);
    assert!(report.goodbye_sent);
    let link = live.stats().report();
    assert_eq!(
        (link.connections, link.link_drops, link.goodbyes),
        (2, 1, 1)
    );
    assert_eq!(
        got.len() as u64 + report.samples_lost,
        expected.len() as u64
    );
    assert!(report.samples_lost > 1, "the gap loses samples");
    assert_subsequence(&got, &expected);
    // The first 200 samples arrived before the drop, unchanged.
    for (g, e) in got.iter().zip(&expected).take(200) {
        assert_eq!(key(g), key(e));
    }
}

#[test]
fn truncated_frame_closes_only_that_connection() {
    let expected = replay_samples();
    let faults = Faults {
        truncate_after_frames: Some(50),
        ..Default::default()
    };
    let (addr, sim, _stop) = start_sim(sim_config(faults, None));
    let mut live = LiveSource::new(live_config(&addr));
    let got = drain(&mut live);
    let report = sim.join().unwrap();
    assert_eq!(report.connections, 2);
    assert_eq!(report.samples_lost, 1);
    assert_eq!(got.len(), expected.len() - 1);
    assert_subsequence(&got, &expected);
    assert_eq!(live.stats().report().link_drops, 1);
}

#[test]
fn token_is_required_when_set() {
    let (addr, sim, _stop) = start_sim(sim_config(Faults::default(), Some("s3cret")));
    // Wrong token: refused (the connection closes before a hello).
    let mut bad = live_config(&addr);
    bad.token = Some("guess".into());
    bad.reconnect_for = Duration::from_millis(300);
    let mut live = LiveSource::new(bad);
    assert!(live.connect().is_err());
    // Right token: served.
    let mut good = live_config(&addr);
    good.token = Some("s3cret".into());
    let mut live = LiveSource::new(good);
    let got = drain(&mut live);
    let report = sim.join().unwrap();
    assert!(report.refused >= 1);
    assert_eq!(got.len(), replay_samples().len());
}

#[test]
fn hostile_frames_close_only_their_connection() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let server = thread::spawn(move || {
        let hello = Frame::Hello(Hello::new("evil", String::new(), String::new()));
        let good = Frame::Sample {
            stream: StreamId::Barometer,
            capture: DeviceTime(1_000),
            payload: Payload::Barometer(Default::default()),
        };
        let hostile: Vec<Vec<u8>> = vec![
            u32::MAX.to_le_bytes().to_vec(),         // claims 4 GiB
            vec![5, 0, 0, 0, 99, 1, 2, 3, 4],        // unknown frame kind
            vec![7, 0, 0, 0, 2, 214, 0, 0, 0, 1, 0], // RGB sample cut after its stream id
        ];
        for h in &hostile {
            let (mut s, _) = listener.accept().unwrap();
            let mut buf = Vec::new();
            encode_frame(&hello, &mut buf).unwrap();
            encode_frame(&good, &mut buf).unwrap();
            buf.extend_from_slice(h);
            let _ = s.write_all(&buf);
            // Hold the connection open: the client must close it itself.
            thread::sleep(Duration::from_millis(50));
        }
        let (mut s, _) = listener.accept().unwrap();
        let mut buf = Vec::new();
        encode_frame(&hello, &mut buf).unwrap();
        encode_frame(&good, &mut buf).unwrap();
        // A newer device's stream 285-1: skipped and counted, the connection stays.
        buf.extend_from_slice(&[11, 0, 0, 0, 2, 29, 1, 0, 0, 1, 0, 42, 42, 42, 42]);
        encode_frame(&good, &mut buf).unwrap();
        encode_frame(
            &Frame::Goodbye {
                reason: "bye".into(),
            },
            &mut buf,
        )
        .unwrap();
        s.write_all(&buf).unwrap();
    });
    let mut live = LiveSource::new(live_config(&addr));
    let got = drain(&mut live);
    server.join().unwrap();
    assert_eq!(
        got.len(),
        5,
        "one good sample per bad connection, two on the last"
    );
    let link = live.stats().report();
    assert_eq!(
        (
            link.connections,
            link.bad_frames,
            link.goodbyes,
            link.unknown_stream_samples
        ),
        (4, 3, 1, 1)
    );
    let seqs: Vec<u64> = got.iter().map(|s| s.seq).collect();
    assert_eq!(seqs, vec![0, 1, 2, 3, 4]);
}

#[test]
fn injected_jitter_shows_in_link_latency() {
    // Real timing (the session is 0.15 s long): every frame gets 0–40 ms of extra delay.
    let mut config = sim_config(
        Faults {
            jitter_ns: 40_000_000,
            seed: 7,
            ..Default::default()
        },
        None,
    );
    config.rate = Some(1.0);
    let (addr, sim, _stop) = start_sim(config);
    let mut live = LiveSource::new(live_config(&addr));
    let got = drain(&mut live);
    sim.join().unwrap();
    assert_eq!(got.len(), replay_samples().len());
    let link = live.stats().report();
    let max_us = link
        .latency
        .values()
        .map(|l| l.max_us)
        .fold(0.0f64, f64::max);
    // The offset is the fastest delivery so far; jitter of up to 40 ms must show as
    // ≥ 10 ms of excess latency on some sample. Frames leave in order, so one delayed frame
    // holds back the next ones and the latencies bunch near the largest recent delay: the
    // excess seen is about the jitter's range less the first frame's delay (with 20 ms of
    // jitter that was 9.9 ms on a loaded machine).
    assert!(max_us >= 10_000.0, "{link:?}");
    assert!(link.offset_ns.is_some());
}

#[test]
fn silent_link_times_out_and_reconnects() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let server = thread::spawn(move || {
        let hello = Frame::Hello(Hello::new("quiet", String::new(), String::new()));
        let mut buf = Vec::new();
        encode_frame(&hello, &mut buf).unwrap();
        // First connection: a hello, then silence (no samples, no heartbeats), held open.
        let (mut silent, _) = listener.accept().unwrap();
        silent.write_all(&buf).unwrap();
        // The client gives up on it after its read timeout and reconnects.
        let (mut s, _) = listener.accept().unwrap();
        let bye = Frame::Goodbye {
            reason: "bye".into(),
        };
        encode_frame(&bye, &mut buf).unwrap();
        s.write_all(&buf).unwrap();
        drop(silent);
    });
    let mut config = live_config(&addr);
    config.read_timeout = Duration::from_millis(200);
    let mut live = LiveSource::new(config);
    let got = drain(&mut live);
    server.join().unwrap();
    assert!(got.is_empty());
    let link = live.stats().report();
    assert_eq!(
        (link.connections, link.link_drops, link.goodbyes),
        (2, 1, 1)
    );
}

#[test]
fn bursts_deliver_everything_late_together() {
    let expected = replay_samples();
    let mut config = sim_config(
        Faults {
            burst_frames: Some(60),
            ..Default::default()
        },
        None,
    );
    config.rate = Some(1.0);
    let (addr, sim, _stop) = start_sim(config);
    let mut live = LiveSource::new(live_config(&addr));
    let got = drain(&mut live);
    let report = sim.join().unwrap();
    assert_eq!(report.frames_sent as usize, expected.len());
    assert_eq!(got.len(), expected.len());
    for (g, e) in got.iter().zip(&expected) {
        assert_eq!(key(g), key(e));
    }
    // 60 frames span ~30 ms of this session: the first of each burst waits ≥ 10 ms.
    let link = live.stats().report();
    let max_us = link
        .latency
        .values()
        .map(|l| l.max_us)
        .fold(0.0f64, f64::max);
    assert!(max_us >= 10_000.0, "{link:?}");
}

/// A scripted device: serves `conns` connections in turn, writing each one's frames.
fn scripted_device(conns: Vec<Vec<Frame>>) -> (String, thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let h = thread::spawn(move || {
        for frames in conns {
            let (mut s, _) = listener.accept().unwrap();
            let mut buf = Vec::new();
            for f in &frames {
                encode_frame(f, &mut buf).unwrap();
            }
            s.write_all(&buf).unwrap();
        }
    });
    (addr, h)
}

fn test_hello() -> Frame {
    Frame::Hello(Hello::new("scripted", "profile18", String::new()))
}

#[test]
fn imu_batches_become_samples_in_order() {
    use vista::source::live::protocol::TimedImu;
    let samples: Vec<TimedImu> = (0..5)
        .map(|i| TimedImu {
            capture: DeviceTime(1_000 + i * 1_000_000),
            imu: vista::sample::ImuSample {
                accel_mps2: [i as f32, 0.0, 9.81],
                ..Default::default()
            },
        })
        .collect();
    let (addr, server) = scripted_device(vec![vec![
        test_hello(),
        Frame::ImuBatch {
            stream: StreamId::ImuLeft,
            samples: samples.clone(),
        },
        Frame::Goodbye {
            reason: String::new(),
        },
    ]]);
    let mut live = LiveSource::new(live_config(&addr));
    let got = drain(&mut live);
    server.join().unwrap();
    assert_eq!(got.len(), 5);
    for (i, (g, e)) in got.iter().zip(&samples).enumerate() {
        assert_eq!(g.stream, StreamId::ImuLeft);
        assert_eq!(g.capture, e.capture);
        assert_eq!(g.seq, i as u64);
        assert_eq!(g.payload, Payload::Imu(e.imu));
    }
}

#[test]
fn stay_waits_for_the_next_connection_after_goodbye() {
    let baro = |t| Frame::Sample {
        stream: StreamId::Barometer,
        capture: DeviceTime(t),
        payload: Payload::Barometer(Default::default()),
    };
    let bye = || Frame::Goodbye {
        reason: "session over".into(),
    };
    let (addr, server) = scripted_device(vec![
        vec![test_hello(), baro(1), bye()],
        vec![test_hello(), baro(2), bye()],
    ]);
    let stop = StopHandle::new();
    let mut config = live_config(&addr);
    config.stay = true;
    config.stop = Some(stop.clone());
    let mut live = LiveSource::new(config);
    let a = live.next_sample().unwrap().unwrap();
    let b = live.next_sample().unwrap().unwrap();
    server.join().unwrap();
    assert_eq!((a.capture, b.capture), (DeviceTime(1), DeviceTime(2)));
    assert_eq!((a.seq, b.seq), (0, 1));
    stop.stop();
    assert!(live.next_sample().is_none());
    // The second goodbye is never read: the stop came first.
    let link = live.stats().report();
    assert_eq!((link.connections, link.goodbyes), (2, 1));
}

#[test]
fn runtime_survives_a_dropped_link_and_a_hostile_frame() {
    use vista::runtime::{ClockMode, RuntimeConfig, StopReason};
    let baro = |t| Frame::Sample {
        stream: StreamId::Barometer,
        capture: DeviceTime(t),
        payload: Payload::Barometer(Default::default()),
    };
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let server = thread::spawn(move || {
        let mut first = Vec::new();
        for f in [test_hello(), baro(1_000), baro(2_000)] {
            encode_frame(&f, &mut first).unwrap();
        }
        first.extend_from_slice(&[200, 0, 0, 0, 2, 0xd6]); // a frame cut short by the link
        let mut second = Vec::new();
        for f in [test_hello(), baro(3_000)] {
            encode_frame(&f, &mut second).unwrap();
        }
        second.extend_from_slice(&[1, 0, 0, 0, 77]); // hostile: unknown frame kind
        let mut third = Vec::new();
        let bye = Frame::Goodbye {
            reason: String::new(),
        };
        for f in [test_hello(), baro(4_000), bye] {
            encode_frame(&f, &mut third).unwrap();
        }
        for bytes in [first, second, third] {
            let (mut s, _) = listener.accept().unwrap();
            s.write_all(&bytes).unwrap();
        }
    });
    let live = LiveSource::new(live_config(&addr));
    let stats = live.stats();
    let report = vista::runtime::run(
        Box::new(live),
        RuntimeConfig::new(ClockMode::Live),
        Vec::new(),
    )
    .unwrap();
    server.join().unwrap();
    assert_eq!(report.stop_reason, StopReason::EndOfSource);
    assert_eq!(report.profile.streams["barometer"].delivered, 4);
    let link = stats.report();
    assert_eq!(
        (
            link.connections,
            link.link_drops,
            link.bad_frames,
            link.goodbyes
        ),
        (3, 1, 1, 1)
    );
}

#[cfg(unix)]
#[test]
fn unix_socket_carries_the_same_samples() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("device.sock");
    let listener = Listener::Unix(std::os::unix::net::UnixListener::bind(&path).unwrap());
    let addr = listener.local_addr();
    assert_eq!(addr, format!("unix:{}", path.display()));
    let config = sim_config(Faults::default(), None);
    let stop = StopHandle::new();
    let sim = thread::spawn(move || serve(&listener, Box::new(replay()), &config, &stop).unwrap());
    let mut live = LiveSource::new(live_config(&addr));
    let got = drain(&mut live);
    let report = sim.join().unwrap();
    let expected = replay_samples();
    assert!(report.goodbye_sent);
    assert_eq!(got.len(), expected.len());
    for (g, e) in got.iter().zip(&expected) {
        assert_eq!(key(g), key(e));
        assert!(same_payload(&g.payload, &e.payload));
    }
}
