//! Shutdown by signal (issue 25): SIGINT and SIGTERM sent to the `vista` binary end the run
//! in order, with every output written and valid (profile, trace, transcript, score when
//! the session has ground truth, a WAV whose header agrees with its data); and a live run
//! whose device restarts (its clock starts again with each connection) alerts in the second
//! pass as in the first.
//!
//! Each run is watched: a process still running 5 s after the signal (the bound on a hang)
//! is killed and the test fails. The time each one took is printed.

#[path = "common/cli.rs"]
mod cli;

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use cli::{free_port, gen1_vrs, json, jsonl, synth, vista};

/// The runs here are real time (live and paced replay): one at a time, so that they do not
/// take each other's cores and see a different world than on an idle machine.
static REAL_TIME: Mutex<()> = Mutex::new(());

/// Holds [`REAL_TIME`] for the test (a test that failed while holding it does not fail the
/// others).
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    REAL_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// Sends `signal` (`INT`, `TERM`) to `child`, waits at most 5 s for it to end, and returns
/// how long it took.
fn signal_and_wait(child: &mut Child, signal: &str) -> Duration {
    let pid = child.id().to_string();
    let sent = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &pid])
        .status()
        .unwrap();
    assert!(sent.success(), "kill -{signal} {pid}");
    let t0 = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let took = t0.elapsed();
            eprintln!("SIG{signal}: ended in {took:?} with {status}");
            assert!(
                status.success() || status.code() == Some(130),
                "SIG{signal}: {status}"
            );
            return took;
        }
        if t0.elapsed() > Duration::from_secs(5) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("SIG{signal}: still running 5 s after the signal");
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// The WAV file's header agrees with the file (RIFF and data sizes); returns data bytes.
fn assert_wav_valid(path: &Path) -> u64 {
    let bytes = std::fs::read(path).unwrap();
    assert!(
        bytes.len() >= 44 && &bytes[0..4] == b"RIFF" && &bytes[8..12] == b"WAVE",
        "{}: {} bytes, not a WAV",
        path.display(),
        bytes.len()
    );
    let riff = u32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
    assert_eq!(riff + 8, bytes.len(), "{}: RIFF size", path.display());
    let mut at = 12;
    while at + 8 <= bytes.len() {
        let len = u32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
        if &bytes[at..at + 4] == b"data" {
            assert_eq!(at + 8 + len, bytes.len(), "{}: data size", path.display());
            return len as u64;
        }
        at += 8 + len + (len & 1);
    }
    panic!("{}: no data chunk", path.display());
}

/// Every output of a spoken run is there and parses.
fn assert_outputs_valid(dir: &Path, scored: bool) {
    json(&dir.join("profile.json"));
    let trace = json(&dir.join("trace.json"));
    assert!(trace["traceEvents"].is_array());
    jsonl(&dir.join("transcript.jsonl"));
    jsonl(&dir.join("decisions.jsonl"));
    assert_wav_valid(&dir.join("speech.wav"));
    if scored {
        json(&dir.join("score.json"));
    }
}

/// Spawns `vista live --listen ADDR --stay --speak DIR` (no OCR, no language model).
fn live_stay(addr: &str, dir: &Path, log: &Path) -> Child {
    vista()
        .args([
            "live", "--listen", addr, "--stay", "--no-ocr", "--no-lm", "--speak",
        ])
        .arg(dir)
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap()
}

/// `device-sim SESSION --connect ADDR` (optionally as fast as possible) to its goodbye.
fn device_pass(session: &Path, addr: &str, asap: bool) {
    let mut c = vista();
    c.arg("device-sim")
        .arg(session)
        .args(["--connect", addr, "--connect-retry-s", "60"]);
    if asap {
        c.arg("--asap");
    }
    let ok = c.stdout(Stdio::null()).status().unwrap();
    assert!(ok.success());
}

/// `live --stay` after the device's goodbye: the first SIGINT ends the run (it was ignored,
/// and the second exited 130 with no profile or trace and a 0-byte WAV).
#[test]
fn live_stay_after_a_goodbye_ends_on_the_first_sigint_with_every_output() {
    let _serial = one_at_a_time();
    let tmp = tempfile::tempdir().unwrap();
    let addr = format!("127.0.0.1:{}", free_port());
    let out = tmp.path().join("run");
    let mut live = live_stay(&addr, &out, &tmp.path().join("live.log"));
    device_pass(&gen1_vrs(), &addr, true);
    thread::sleep(Duration::from_millis(500));
    signal_and_wait(&mut live, "INT");
    assert_outputs_valid(&out, false);
}

/// `pole_to_door`, its first 10 s, without RGB, written into `dir/s`.
fn pole_to_door_10s(dir: &Path) -> PathBuf {
    let session = dir.join("s");
    synth(
        "pole_to_door",
        &["--duration", "10", "--rgb-fps", "0"],
        &session,
    );
    session
}

/// SIGTERM on a real-time `replay --speak` of a session with ground truth: profile, trace,
/// transcript, score and a valid WAV (none of them were written, and the WAV's header was
/// left unfinished).
#[test]
fn sigterm_on_a_real_time_spoken_replay_writes_every_output() {
    let _serial = one_at_a_time();
    let tmp = tempfile::tempdir().unwrap();
    let session = pole_to_door_10s(tmp.path());
    let out = tmp.path().join("run");
    let mut replay = vista()
        .arg("replay")
        .arg(&session)
        .args(["-q", "--no-ocr", "--no-lm", "--speak"])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Into the run: the decisions file is created when the assistant is set up.
    let t0 = Instant::now();
    while !out.join("decisions.jsonl").exists() && t0.elapsed() < Duration::from_secs(60) {
        thread::sleep(Duration::from_millis(50));
    }
    thread::sleep(Duration::from_secs(2));
    signal_and_wait(&mut replay, "TERM");
    assert_outputs_valid(&out, true);
    let profile = json(&out.join("profile.json"));
    assert_eq!(profile["replay"]["stop_reason"], "Interrupted", "{profile}");
}

/// The device restarts between two passes of one session into one `live --stay --speak`
/// run (its clock starts again at the session's first capture time): the second pass is
/// delivered (99 % of its samples were dropped as going backwards) and alerts on the pole
/// ahead as the first, at the same range and the same point of the walk.
#[test]
fn a_device_restart_in_a_live_run_alerts_in_the_second_pass_as_in_the_first() {
    let _serial = one_at_a_time();
    let tmp = tempfile::tempdir().unwrap();
    let session = pole_to_door_10s(tmp.path());
    let addr = format!("127.0.0.1:{}", free_port());
    let out = tmp.path().join("run");
    let mut live = live_stay(&addr, &out, &tmp.path().join("live.log"));
    device_pass(&session, &addr, false);
    thread::sleep(Duration::from_millis(300));
    device_pass(&session, &addr, false);
    // The run may still be working through the second pass (a loaded machine): wait until
    // no decision has been added for 2 s (at most 15 s), then stop it.
    let t0 = Instant::now();
    let (mut last_len, mut still_since) = (0, Instant::now());
    while t0.elapsed() < Duration::from_secs(15) && still_since.elapsed() < Duration::from_secs(2) {
        let len = std::fs::metadata(out.join("decisions.jsonl")).map_or(0, |m| m.len());
        if len != last_len {
            (last_len, still_since) = (len, Instant::now());
        }
        thread::sleep(Duration::from_millis(100));
    }
    signal_and_wait(&mut live, "INT");
    assert_outputs_valid(&out, false);

    let profile = json(&out.join("profile.json"));
    let streams = profile["replay"]["streams"].as_object().unwrap();
    let (mut delivered, mut backwards) = (0, 0);
    for s in streams.values() {
        delivered += s["delivered"].as_u64().unwrap();
        backwards += s["dropped_out_of_order"].as_u64().unwrap();
    }
    assert!(
        backwards * 100 <= delivered,
        "{backwards} of {delivered} dropped"
    );
    // The pass boundary: the second pass continues the session clock after the first,
    // which began at the run's origin and lasted 10 s.
    let origin = json(&out.join("session_clock.json"))["origin_device_ns"]
        .as_i64()
        .unwrap();
    let first_pass_end = origin + 10_500_000_000;
    let decisions = jsonl(&out.join("decisions.jsonl"));
    // (capture ns, text, clock hour, distance m) of every alert.
    let alerts: Vec<(i64, String, i64, f64)> = decisions
        .iter()
        .filter(|d| d["kind"] == "alert")
        .map(|d| {
            (
                d["capture_ns"].as_i64().unwrap(),
                d["text"].as_str().unwrap_or_default().to_string(),
                d["hazard"]["clock"].as_i64().unwrap_or(-1),
                d["hazard"]["distance_m"].as_f64().unwrap_or(f64::NAN),
            )
        })
        .collect();
    let (one, two): (Vec<_>, Vec<_>) = alerts.iter().partition(|a| a.0 < first_pass_end);
    // The pole: the first alert of each pass, ahead, at the same range at the same point of
    // the walk (the second pass is shifted by where the session clock stood when it began).
    // What the pole is called is not compared: live sight names it from the frames that
    // arrived in time, and on a loaded machine the two passes do not get the same frames
    // (CI heard "Obstacle ahead" in one pass and "Person ahead" in the other). Perception
    // keeps what it has alerted across the restart, so a phantom it alerted once in the
    // first pass need not come again: only the pole's alert is compared.
    let (Some(a), Some(b)) = (one.first(), two.first()) else {
        panic!("the pole must be alerted in both passes: first {one:?}, second {two:?}");
    };
    for x in [a, b] {
        assert!(
            [11, 12, 1].contains(&x.2),
            "the pole is ahead: {x:?}; first {one:?}, second {two:?}"
        );
    }
    assert!(
        (a.3 - b.3).abs() <= 1.0,
        "the pole is alerted at the same range in both passes: first {one:?}, second {two:?}"
    );
    let shift_ns = b.0 - a.0;
    assert!(
        (shift_ns - 10_000_000_000).abs() < 1_000_000_000,
        "the second pass's pole alert comes {shift_ns} ns after the first's: first {one:?}, second {two:?}"
    );
}
