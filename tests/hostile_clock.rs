//! Hostile timestamps and device-clock restarts (issue 25): one corrupt capture time never
//! becomes the session's "now" (its stream goes on, the speech WAV stays the session's
//! length), in the runtime, in replay and on the live link; a device whose clock restarts
//! with a new connection continues the session clock.

#[path = "common/cli.rs"]
mod cli;

use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

use cli::{json, synth, vista};
use vista::runtime::{run, ClockMode, RuntimeConfig, StopReason};
use vista::sample::{ImuSample, Payload, Sample, StreamId};
use vista::source::live::protocol::{encode_frame, Frame, Hello};
use vista::source::live::{LiveConfig, LiveSource};
use vista::source::VecSource;
use vista::time::{DeviceTime, HostTime};

/// A capture time no device reaches: ~31.7 years of uptime.
const HUGE_NS: i64 = 1_000_000_000_000_000_000;

fn imu(stream: StreamId, t: i64) -> Sample {
    Sample {
        stream,
        capture: DeviceTime(t),
        arrival: HostTime(0),
        seq: 0,
        payload: Payload::Imu(ImuSample::default()),
    }
}

/// Two IMUs at 1 kHz for 2 s; one sample of imu-left at +1e18 ns in the middle.
#[test]
fn one_corrupt_timestamp_does_not_kill_its_stream_in_the_runtime() {
    let mut samples = Vec::new();
    for i in 0..2000i64 {
        let t = 1_000_000_000 + i * 1_000_000;
        samples.push(imu(StreamId::ImuLeft, t));
        samples.push(imu(StreamId::ImuRight, t + 500_000));
    }
    if let Some(s) = samples.get_mut(1000) {
        s.capture = DeviceTime(HUGE_NS);
    }
    let report = run(
        Box::new(VecSource::new(samples)),
        RuntimeConfig::new(ClockMode::Virtual),
        Vec::new(),
    )
    .unwrap();
    assert_eq!(report.stop_reason, StopReason::EndOfSource);
    let left = &report.profile.streams["imu-left"];
    assert_eq!(left.delivered, 1999, "{left:?}");
    assert_eq!(left.implausible_dropped, 1);
    assert_eq!(left.out_of_order_dropped, 0);
    assert_eq!(report.profile.streams["imu-right"].delivered, 2000);
    assert!(left.last_capture_ns.unwrap() < 4_000_000_000);
}

/// A real gap (every stream jumps on together) still moves the session clock on.
#[test]
fn a_gap_of_every_stream_moves_the_session_clock_on() {
    let mut samples = Vec::new();
    for i in 0..1000i64 {
        let t = if i < 500 { i } else { i + 60_000 } * 1_000_000;
        samples.push(imu(StreamId::ImuLeft, t));
        samples.push(imu(StreamId::ImuRight, t + 500_000));
    }
    let report = run(
        Box::new(VecSource::new(samples)),
        RuntimeConfig::new(ClockMode::Virtual),
        Vec::new(),
    )
    .unwrap();
    let delivered: u64 = ["imu-left", "imu-right"]
        .iter()
        .map(|s| report.profile.streams[*s].delivered)
        .sum();
    // Nothing is lost: the samples that confirmed the gap were held, then delivered.
    assert_eq!(delivered, 2000);
    assert!(report.profile.streams["imu-left"].last_capture_ns.unwrap() > 60_000_000_000);
}

fn find_file(dir: &Path, name: &str) -> Option<PathBuf> {
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let p = e.path();
        if p.is_dir() {
            if let Some(f) = find_file(&p, name) {
                return Some(f);
            }
        } else if p.file_name().is_some_and(|n| n == name) {
            return Some(p);
        }
    }
    None
}

/// The WAV file's data bytes, checking that its RIFF header agrees with the file.
fn wav_data_bytes(path: &Path) -> u64 {
    let bytes = std::fs::read(path).unwrap();
    assert!(bytes.len() >= 12 && &bytes[0..4] == b"RIFF" && &bytes[8..12] == b"WAVE");
    let riff = u32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
    assert_eq!(riff + 8, bytes.len(), "{}: RIFF size", path.display());
    let mut at = 12;
    while at + 8 <= bytes.len() {
        let id = &bytes[at..at + 4];
        let len = u32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
        if id == b"data" {
            assert_eq!(at + 8 + len, bytes.len(), "{}: data size", path.display());
            return len as u64;
        }
        at += 8 + len + (len & 1);
    }
    panic!("{}: no data chunk", path.display());
}

/// One trajectory row at +1e18 ns: the replay's device pose goes on, and `speech.wav` stays
/// the session's length (it followed the session clock to 1e18 ns: ~300 MB/s to a full
/// disk). The run is watched: over 200 MB of WAV or 180 s fails it (and stops it).
#[test]
fn a_corrupt_trajectory_row_neither_kills_the_pose_nor_floods_the_disk() {
    let tmp = tempfile::tempdir().unwrap();
    let session = tmp.path().join("s");
    synth(
        "pole_to_door",
        &["--duration", "4", "--rgb-fps", "0"],
        &session,
    );
    let csv = find_file(&session, "closed_loop_trajectory.csv").expect("a trajectory");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let rows = lines.len() - 1;
    let i = 1 + rows / 2;
    let mut cols: Vec<String> = lines[i].split(',').map(str::to_string).collect();
    cols[1] = (HUGE_NS / 1000).to_string(); // tracking_timestamp_us
    lines[i] = cols.join(",");
    std::fs::write(&csv, lines.join("\n") + "\n").unwrap();

    let out = tmp.path().join("run");
    let profile = tmp.path().join("profile.json");
    let mut child = vista()
        .arg("replay")
        .arg(&session)
        .args(["--asap", "-q", "--no-ocr", "--profile"])
        .arg(&profile)
        .arg("--speak")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let wav = out.join("speech.wav");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        let size = std::fs::metadata(&wav).map_or(0, |m| m.len());
        if size > 200 << 20 || start.elapsed() > Duration::from_secs(180) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("speech.wav at {size} bytes after {:?}", start.elapsed());
        }
        thread::sleep(Duration::from_millis(100));
    };
    assert!(status.success());
    let p = json(&profile);
    let pose = &p["streams"]["device-pose"];
    assert_eq!(pose["dropped"], 1, "{pose}");
    assert_eq!(pose["delivered"].as_u64().unwrap(), rows as u64 - 1);
    // At most twice the session's 4 s of audio at up to 48 kHz, in frames (a frame holds a
    // 16-bit sample per channel: speech is stereo).
    let data = wav_data_bytes(&wav);
    let spec = hound::WavReader::open(&wav).unwrap().spec();
    assert_eq!(spec.bits_per_sample, 16);
    let frames = data / (2 * u64::from(spec.channels));
    assert!(frames <= 2 * 4 * 48_000, "{frames} frames of audio");
}

fn hello() -> Frame {
    Frame::Hello(Hello::new("restarts", String::new(), String::new()))
}

fn baro(t: i64) -> Frame {
    Frame::Sample {
        stream: StreamId::Barometer,
        capture: DeviceTime(t),
        payload: Payload::Barometer(Default::default()),
    }
}

/// Serves each connection's frames in turn, at 10 ms per frame.
fn device(conns: Vec<Vec<Frame>>) -> (String, thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let h = thread::spawn(move || {
        for frames in conns {
            let (mut s, _) = listener.accept().unwrap();
            for f in &frames {
                let mut buf = Vec::new();
                encode_frame(f, &mut buf).unwrap();
                s.write_all(&buf).unwrap();
                thread::sleep(Duration::from_millis(10));
            }
        }
    });
    (addr, h)
}

/// The device restarts between connections (its clock starts again at the same times): the
/// second connection's samples continue the session clock and are all delivered; a lone
/// sample at +1e18 ns on the link is left out and counted without taking its stream down.
#[test]
fn a_restarted_device_clock_continues_the_session_and_a_lone_jump_is_left_out() {
    let pass = |spike: bool| -> Vec<Frame> {
        let mut f = vec![hello()];
        for i in 0..100i64 {
            f.push(baro(if spike && i == 50 {
                HUGE_NS
            } else {
                5_000_000_000 + i * 30_000_000
            }));
        }
        f.push(Frame::Goodbye {
            reason: "restart".into(),
        });
        f
    };
    let (addr, dev) = device(vec![pass(true), pass(false)]);
    let mut config = LiveConfig::new(&addr);
    config.stay = true;
    let stop = vista::runtime::StopHandle::new();
    config.stop = Some(stop.clone());
    let live = LiveSource::new(config);
    let stats = live.stats();
    let stopper = {
        let stats = stats.clone();
        thread::spawn(move || {
            let t0 = Instant::now();
            while stats.report().goodbyes < 2 && t0.elapsed() < Duration::from_secs(20) {
                thread::sleep(Duration::from_millis(20));
            }
            stop.stop();
        })
    };
    let report = run(
        Box::new(live),
        RuntimeConfig::new(ClockMode::Live),
        Vec::new(),
    )
    .unwrap();
    dev.join().unwrap();
    stopper.join().unwrap();
    let baro = &report.profile.streams["barometer"];
    assert_eq!(baro.delivered, 199, "{baro:?}");
    assert_eq!(baro.out_of_order_dropped, 0);
    let link = stats.report();
    assert_eq!(link.implausible_timestamps, 1, "{link:?}");
    assert_eq!(link.rebased_connections, 1, "{link:?}");
    // The session clock went on: the second pass (2.97 s of device time) lies after the
    // first, which ended at 7.97 s.
    assert!(baro.last_capture_ns.unwrap() > 10_000_000_000, "{baro:?}");
}
