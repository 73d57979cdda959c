//! Local clients cannot hold or kill the links (issue 25), over loopback only: a hello
//! trickled a byte at a time gives up its hold on `live --listen` at the handshake deadline;
//! a token trickled to `device-sim` likewise; wrong tokens back off exponentially; a bad
//! calibration in a hello is refused for that connection only (the run goes on).

#[path = "common/cli.rs"]
mod cli;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Stdio;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use cli::{free_port, json, vista};
use vista::runtime::StopHandle;
use vista::sample::{Payload, Sample, StreamId};
use vista::source::live::link::Listener;
use vista::source::live::protocol::{encode_frame, Frame, Hello};
use vista::source::live::sim::{serve, Faults, SimConfig, SimReport};
use vista::source::live::{LiveConfig, LiveSource};
use vista::source::{Source, VecSource};
use vista::time::{DeviceTime, HostTime};

fn hello(calib_json: &str) -> Frame {
    Frame::Hello(Hello::new("links", String::new(), calib_json))
}

fn baro(t: i64) -> Frame {
    Frame::Sample {
        stream: StreamId::Barometer,
        capture: DeviceTime(t),
        payload: Payload::Barometer(Default::default()),
    }
}

fn bytes(frames: &[Frame]) -> Vec<u8> {
    let mut buf = Vec::new();
    for f in frames {
        encode_frame(f, &mut buf).unwrap();
    }
    buf
}

/// Writes `data` one byte every `every`, for at most `for_at_most` (or until the peer
/// closes).
fn trickle(mut s: TcpStream, data: Vec<u8>, every: Duration, for_at_most: Duration) {
    let t0 = Instant::now();
    for b in data {
        if t0.elapsed() > for_at_most || s.write_all(&[b]).is_err() {
            return;
        }
        thread::sleep(every);
    }
}

/// Connects to `addr`, retrying for up to `within`.
fn connect(addr: &str, within: Duration) -> TcpStream {
    let t0 = Instant::now();
    loop {
        match TcpStream::connect(addr) {
            Ok(s) => return s,
            Err(e) if t0.elapsed() > within => panic!("{addr}: {e}"),
            Err(_) => thread::sleep(Duration::from_millis(50)),
        }
    }
}

/// A client trickling its hello at 3 bytes/s is dropped at the handshake deadline, and the
/// real device behind it is served (the 3 s timeout was per read: the trickle held the
/// link for as long as it went on, here 15 s).
#[test]
fn a_trickled_hello_cannot_hold_live_listen() {
    let port = free_port();
    let addr = format!("127.0.0.1:{port}");
    let mut config = LiveConfig::new(&addr);
    config.listen = true;
    config.reconnect_for = Duration::from_secs(20);
    let (tx, rx) = mpsc::channel();
    let reader = thread::spawn(move || {
        let mut live = LiveSource::new(config);
        let first = live.next_sample();
        let _ = tx.send(first.map(|r| r.map(|s| s.capture)).map(|r| r.is_ok()));
        drop(live);
    });
    let a = addr.clone();
    let trickler = thread::spawn(move || {
        let s = connect(&a, Duration::from_secs(10));
        let data = bytes(&[hello(&"x".repeat(200))]);
        trickle(s, data, Duration::from_millis(330), Duration::from_secs(15));
    });
    thread::sleep(Duration::from_millis(500));
    let t0 = Instant::now();
    let mut device = connect(&addr, Duration::from_secs(10));
    device
        .write_all(&bytes(&[hello(""), baro(1_000), baro(2_000)]))
        .unwrap();
    let got = rx.recv_timeout(Duration::from_secs(7));
    eprintln!("the device was served after {:?}", t0.elapsed());
    assert_eq!(
        got,
        Ok(Some(true)),
        "the device behind the trickler was not served"
    );
    let _ = device.write_all(&bytes(&[Frame::Goodbye {
        reason: "done".into(),
    }]));
    drop(device);
    reader.join().unwrap();
    trickler.join().unwrap();
}

fn one_sample_source() -> Box<dyn Source> {
    Box::new(VecSource::new(vec![Sample {
        stream: StreamId::Barometer,
        capture: DeviceTime(1_000),
        arrival: HostTime(0),
        seq: 0,
        payload: Payload::Barometer(Default::default()),
    }]))
}

fn start_sim(token: &str) -> (String, thread::JoinHandle<SimReport>, StopHandle) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let config = SimConfig {
        rate: None,
        hello: Hello::new("sim", String::new(), String::new()),
        token: Some(token.into()),
        heartbeat_ns: 200_000_000,
        faults: Faults::default(),
        limits: Default::default(),
    };
    let stop = StopHandle::new();
    let s2 = stop.clone();
    let listener = Listener::Tcp(listener);
    let h = thread::spawn(move || serve(&listener, one_sample_source(), &config, &s2).unwrap());
    (addr, h, stop)
}

/// Sends `token` and reads the reply until the simulator closes or `within` passes; true
/// if a hello came back.
fn try_token(addr: &str, token: &str, within: Duration) -> bool {
    let mut s = connect(addr, Duration::from_secs(5));
    s.set_read_timeout(Some(within)).unwrap();
    let _ = s.write_all(&bytes(&[Frame::Auth {
        token: token.into(),
    }]));
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while let Ok(n) = s.read(&mut buf) {
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
        if got.len() > 64 {
            break;
        }
    }
    !got.is_empty()
}

/// Wrong tokens back off exponentially (~4,300 guesses/s were answered), and the right
/// token is still served afterwards.
#[test]
fn wrong_tokens_back_off_exponentially() {
    let (addr, sim, stop) = start_sim("s3cret");
    let t0 = Instant::now();
    let mut guesses = 0;
    while t0.elapsed() < Duration::from_millis(1500) {
        assert!(!try_token(&addr, "guess", Duration::from_secs(10)));
        guesses += 1;
    }
    eprintln!("{guesses} guesses answered in {:?}", t0.elapsed());
    assert!(guesses <= 8, "{guesses} guesses in 1.5 s");
    assert!(try_token(&addr, "s3cret", Duration::from_secs(10)));
    stop.stop();
    let report = sim.join().unwrap();
    assert_eq!(report.connections, 1);
    assert!(report.refused >= guesses);
}

/// A client trickling its token cannot stall the simulator before authentication: it is
/// dropped at the deadline and the next client is served.
#[test]
fn a_trickled_token_cannot_stall_device_sim() {
    let (addr, sim, stop) = start_sim("s3cret");
    let a = addr.clone();
    let trickler = thread::spawn(move || {
        let s = connect(&a, Duration::from_secs(5));
        let data = bytes(&[Frame::Auth {
            token: "s3cret".into(),
        }]);
        trickle(s, data, Duration::from_millis(400), Duration::from_secs(15));
    });
    thread::sleep(Duration::from_millis(300));
    let t0 = Instant::now();
    assert!(try_token(&addr, "s3cret", Duration::from_secs(8)));
    eprintln!("served after {:?}", t0.elapsed());
    stop.stop();
    sim.join().unwrap();
    trickler.join().unwrap();
}

/// A hello whose calibration does not parse is refused for that connection only: `live
/// --speak` goes on without it (nominal geometry, said so) and ends cleanly (it exited 1).
#[test]
fn a_bad_calibration_in_the_hello_is_refused_for_that_connection_only() {
    let tmp = tempfile::tempdir().unwrap();
    let addr = format!("127.0.0.1:{}", free_port());
    let out = tmp.path().join("run");
    let live = vista()
        .args(["live", "--listen", &addr, "--no-ocr", "--no-lm", "--speak"])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut device = connect(&addr, Duration::from_secs(120));
    let mut frames = vec![hello("{\"DeviceClassInfo\": {\"BuildVersion\": ")];
    frames.extend((0..20).map(|i| baro(1_000_000_000 + i * 50_000_000)));
    frames.push(Frame::Goodbye {
        reason: "done".into(),
    });
    device.write_all(&bytes(&frames)).unwrap();
    let o = live.wait_with_output().unwrap();
    let log = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{log}");
    assert!(log.contains("refused"), "{log}");
    let profile = json(&out.join("profile.json"));
    assert_eq!(
        profile["replay"]["link"]["bad_calibrations"], 1,
        "{profile}"
    );
}
