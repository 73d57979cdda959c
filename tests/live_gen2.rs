//! Aria Gen2 live: `vista device-sim` on the real Gen2 sample announces every stream the
//! recording holds (four SLAM cameras, both eye cameras, the glasses' own pose, VIO, eye gaze
//! and hands) and the live source delivers exactly what a replay of the file delivers; a
//! device that numbers its SLAM cameras differently from the calibration's stereo pair is
//! routed by the calibration, so depth always reads the pair.

use std::net::TcpListener;
use std::path::Path;
use std::thread;
use std::time::Duration;

use vista::runtime::StopHandle;
use vista::sample::{Payload, Sample, StreamId};
use vista::source::live::link::Listener;
use vista::source::live::protocol::Hello;
use vista::source::live::sim::{serve, SimConfig};
use vista::source::live::sim_serve::{serve_session, DeviceSimOptions, SimLink};
use vista::source::live::wire_streams::WireStream;
use vista::source::live::{LiveConfig, LiveSource};
use vista::source::replay::{ReplayOptions, ReplaySource};
use vista::source::{Source, SourceError};

const VRS: &str = "tests/data/gen2/aria_gen2_unit_test_sequence_with_bluetooth.vrs";

fn replay() -> ReplaySource {
    let options = ReplayOptions {
        recorded_only: true,
        ..Default::default()
    };
    ReplaySource::open(Path::new(VRS), options).unwrap()
}

fn drain(src: &mut dyn Source) -> Vec<Sample> {
    let mut out = Vec::new();
    for _ in 0..1_000_000 {
        match src.next_sample() {
            Some(Ok(s)) => out.push(s),
            Some(Err(e)) => panic!("{e}"),
            None => return out,
        }
    }
    panic!("source did not end");
}

fn live_config(addr: &str) -> LiveConfig {
    let mut c = LiveConfig::new(addr);
    c.reconnect_for = Duration::from_secs(10);
    c
}

/// Same stream, capture time, sequence and payload (floats bit for bit; NaN IMU
/// temperatures compare equal).
fn assert_same(got: &[Sample], want: &[Sample]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert_eq!(
            (g.stream, g.capture, g.seq),
            (w.stream, w.capture, w.seq),
            "{g:?}"
        );
        match (&g.payload, &w.payload) {
            (Payload::Imu(a), Payload::Imu(b)) => {
                assert_eq!(a.accel_mps2, b.accel_mps2);
                assert_eq!(a.gyro_radps, b.gyro_radps);
                assert_eq!(a.temperature_c.to_bits(), b.temperature_c.to_bits());
            }
            (Payload::Barometer(a), Payload::Barometer(b)) => {
                assert_eq!(a.pressure_pa.to_bits(), b.pressure_pa.to_bits());
            }
            (a, b) => assert_eq!(a, b, "{}", g.stream),
        }
    }
}

#[test]
fn device_sim_carries_every_gen2_stream_as_replay_reads_it() {
    let want = drain(&mut replay());
    let sock = std::env::temp_dir().join(format!("vista-gen2-{}.sock", std::process::id()));
    let _ = std::fs::remove_file(&sock);
    let addr = format!("unix:{}", sock.display());
    let options = DeviceSimOptions {
        session: VRS.into(),
        rate: None,
        link: SimLink::Listen {
            addr: addr.clone(),
            allow_remote: false,
        },
        token: None,
        serial: "1M0YCN3G8V0062".into(),
        faults: Default::default(),
    };
    let stop = StopHandle::new();
    let sim = thread::spawn(move || serve_session(&options, &stop).unwrap());
    let mut live = LiveSource::new(live_config(&addr));
    let hello = live.connect().unwrap().clone();
    let got = drain(&mut live);
    let report = sim.join().unwrap();
    assert_eq!(report.samples_lost, 0);

    // The hello announces what the recording holds, cameras under their calibration labels.
    let announced = hello.known_streams();
    for s in [
        StreamId::CameraSlamLeft,
        StreamId::CameraSlamRight,
        StreamId::CameraSlamSideLeft,
        StreamId::CameraSlamSideRight,
        StreamId::CameraEt,
        StreamId::CameraEtRight,
        StreamId::CameraRgb,
        StreamId::DevicePose,
        StreamId::DeviceVio,
        StreamId::EyeGaze,
        StreamId::HandTracking,
        StreamId::Audio,
    ] {
        assert!(announced.contains(&s), "{s} not in {announced:?}");
    }
    assert_eq!(announced, live.streams());
    assert_eq!(
        hello.label_of(StreamId::CameraSlamLeft),
        Some("slam-front-left")
    );
    assert_eq!(
        hello.label_of(StreamId::CameraSlamSideRight),
        Some("slam-side-right")
    );
    assert_same(&got, &want);
    let n = |s| got.iter().filter(|x| x.stream == s).count();
    assert_eq!(n(StreamId::DevicePose), 237);
    assert_eq!(n(StreamId::EyeGaze), 9);
    assert_eq!(n(StreamId::HandTracking), 9);
}

/// The replay with two SLAM cameras swapped, as a device might number them.
struct Swapped(ReplaySource);

fn swap(s: StreamId) -> StreamId {
    match s {
        StreamId::CameraSlamLeft => StreamId::CameraSlamSideLeft,
        StreamId::CameraSlamSideLeft => StreamId::CameraSlamLeft,
        s => s,
    }
}

impl Source for Swapped {
    fn describe(&self) -> String {
        "swapped".into()
    }
    fn streams(&self) -> Vec<StreamId> {
        self.0.streams().into_iter().map(swap).collect()
    }
    fn next_sample(&mut self) -> Option<Result<Sample, SourceError>> {
        self.0.next_sample().map(|r| {
            r.map(|mut s| {
                s.stream = swap(s.stream);
                s
            })
        })
    }
}

#[test]
fn slam_cameras_numbered_otherwise_are_routed_by_the_calibration() {
    let want = drain(&mut replay());
    let rec = replay();
    let calib = rec.recording().calib_json().unwrap().to_string();
    // Sent as 1201-1: the side-left camera; as 1201-3: the front-left one. The labels say so.
    let streams = rec
        .streams()
        .into_iter()
        .filter_map(|s| {
            let label = rec.recording().sensor_label(s).unwrap_or(s.name());
            WireStream::new(swap(s), label)
        })
        .collect();
    let config = SimConfig {
        rate: None,
        hello: Hello::new("1M0YCN3G8V0062", "profile9", calib).with_streams(streams),
        token: None,
        heartbeat_ns: 200_000_000,
        faults: Default::default(),
        limits: Default::default(),
    };
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let listener = Listener::Tcp(listener);
    let stop = StopHandle::new();
    let sim = thread::spawn(move || {
        serve(&listener, Box::new(Swapped(replay())), &config, &stop).unwrap()
    });
    let mut live = LiveSource::new(live_config(&addr));
    let hello = live.connect().unwrap().clone();
    assert_eq!(
        hello.label_of(StreamId::CameraSlamLeft),
        Some("slam-front-left"),
        "the hello reads as the host uses it"
    );
    let got = drain(&mut live);
    sim.join().unwrap();
    // Routed back: the front-left camera's frames are camera-slam-left again.
    assert_same(&got, &want);
}
