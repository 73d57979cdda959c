//! Live and replay transcripts of the same session agree (issue 7), and a live run's trace
//! is valid Chrome trace JSON with the runtime's stages and counter tracks (issue 8).
//!
//! A 10 s `pole_to_door` session (no RGB, so no text reading: its timing would differ from
//! run to run) is played by `vista device-sim` into `vista live --speak --map S --truth S`
//! in real time, and replayed by `vista replay S --speak` in real time.
//!
//! **Agreement**, as asserted here:
//! * *Alerts*: the two runs' alert decisions pair up one to one such that each pair has the
//!   same hazard kind, hazard positions in the world within [`SAME_THING_M`] of each other
//!   (the same thing), and evidence capture times (device clock, which both runs share)
//!   within [`ALERT_TOLERANCE_NS`]; the ground-truth outcome of every hazard is the same.
//! * *Requests*: every scripted request is answered exactly once in each run, with the
//!   same text (byte for byte), decided on evidence captured within [`ALERT_TOLERANCE_NS`].
//! * Everything decided was spoken or interrupted by an alert in both runs (the transcript
//!   has one entry per decided text).
//!
//! **Inherent differences** (not compared): host times (decided, first audio) are on each
//! run's own clock; live samples carry link delay, and live perception ticks when samples
//! arrive rather than on the replay clock, so a tick can see a few ms more or less of the
//! IMU (hence the time tolerance: 5 perception ticks of 50 ms). Live input has no MPS
//! streams: `--map` merges the session's pose and eye gaze in by capture time, each
//! delivered with the first live sample captured after it (≤ 1 ms late at the IMU rate).

#[path = "common/cli.rs"]
mod cli;

use std::process::Stdio;

use cli::{assert_trace_is_valid, free_port, gen1_vrs, json, jsonl, synth, vista};

/// Evidence times of paired decisions may differ by this much (5 perception ticks).
const ALERT_TOLERANCE_NS: i64 = 250_000_000;
/// Hazards this close in the world are the same thing.
const SAME_THING_M: f64 = 0.5;

fn of_kind<'a>(d: &'a [serde_json::Value], kind: &str) -> Vec<&'a serde_json::Value> {
    d.iter().filter(|x| x["kind"] == kind).collect()
}

fn world(d: &serde_json::Value) -> [f64; 3] {
    let w = &d["hazard"]["world_m"];
    [0, 1, 2].map(|i| w[i].as_f64().unwrap())
}

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// The alerts pair up one to one (greedy on the closest evidence time is enough: alerts of
/// one thing are seconds apart).
fn assert_alerts_agree(live: &[&serde_json::Value], replay: &[&serde_json::Value]) {
    assert_eq!(
        live.len(),
        replay.len(),
        "alert counts differ:\nlive {live:#?}\nreplay {replay:#?}"
    );
    let mut used = vec![false; replay.len()];
    for a in live {
        let t = a["capture_ns"].as_i64().unwrap();
        let found = replay.iter().enumerate().position(|(i, b)| {
            !used[i]
                && b["hazard"]["kind"] == a["hazard"]["kind"]
                && dist(world(a), world(b)) <= SAME_THING_M
                && (b["capture_ns"].as_i64().unwrap() - t).abs() <= ALERT_TOLERANCE_NS
        });
        match found {
            Some(i) => used[i] = true,
            None => panic!("live alert {a} has no match in replay {replay:#?}"),
        }
    }
}

#[test]
fn live_and_replay_of_one_session_alert_and_answer_alike() {
    let tmp = tempfile::tempdir().unwrap();
    let session = tmp.path().join("session");
    // Known failure on textured images (docs/synthetic.md, "Camera images"): stereo
    // phantoms on the textured walls come and go with the live run's timing, so the two
    // runs' alerts differ; checked there only with VISTA_KNOWN_FAILURES, on the
    // flat-coloured, noiseless images it was written for otherwise.
    let mut args = vec!["--duration", "10", "--rgb-fps", "0"];
    if std::env::var_os("VISTA_KNOWN_FAILURES").is_none() {
        args.push("--plain-surfaces");
    }
    synth("pole_to_door", &args, &session);

    // Live: device-sim plays the session in real time into `live --speak`.
    let addr = format!("127.0.0.1:{}", free_port());
    let mut sim = vista()
        .arg("device-sim")
        .arg(&session)
        .args(["--listen", &addr])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let live_dir = tmp.path().join("live");
    let live = vista()
        .args(["live", "--connect", &addr, "--speak"])
        .arg(&live_dir)
        .arg("--map")
        .arg(&session)
        .arg("--truth")
        .arg(&session)
        .arg("--profile")
        .arg(tmp.path().join("live_profile.json"))
        .output()
        .unwrap();
    let sim_ok = sim.wait().unwrap();
    assert!(
        live.status.success(),
        "{}",
        String::from_utf8_lossy(&live.stderr)
    );
    assert!(sim_ok.success());

    // Replay of the same session in real time.
    let replay_dir = tmp.path().join("replay");
    let ok = vista()
        .arg("replay")
        .arg(&session)
        .args(["-q", "--speak"])
        .arg(&replay_dir)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(ok.success());

    for f in [
        "speech.wav",
        "transcript.jsonl",
        "decisions.jsonl",
        "session_clock.json",
        "profile.json",
        "trace.json",
        "latency.svg",
        "score.json",
    ] {
        assert!(live_dir.join(f).is_file(), "live run: {f} missing");
    }
    // The link went through one connection and ended with the device's goodbye.
    let lp = json(&tmp.path().join("live_profile.json"));
    assert_eq!(lp["link"]["goodbyes"], 1, "{}", lp["link"]);
    assert_eq!(lp["stop_reason"], "EndOfSource");

    let ld = jsonl(&live_dir.join("decisions.jsonl"));
    let rd = jsonl(&replay_dir.join("decisions.jsonl"));
    assert_alerts_agree(&of_kind(&ld, "alert"), &of_kind(&rd, "alert"));
    assert!(
        !of_kind(&ld, "alert").is_empty(),
        "the pole must be alerted"
    );

    // Every scripted request answered in each run alike: as often (an answer an alert cuts
    // is answered again after it, in both), with the same texts.
    let requests = std::fs::read_to_string(session.join("requests.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count();
    assert!(requests >= 2);
    for i in 0..requests {
        let pick = |d: &[serde_json::Value]| -> Vec<serde_json::Value> {
            let a: Vec<_> = d
                .iter()
                .filter(|x| x["kind"] == "answer" && x["request_index"] == i)
                .cloned()
                .collect();
            assert!(!a.is_empty(), "request {i} not answered");
            a
        };
        let (l, r) = (pick(&ld), pick(&rd));
        assert_eq!(l.len(), r.len(), "request {i}: live {l:?}, replay {r:?}");
        for (l, r) in l.iter().zip(&r) {
            assert_eq!(l["text"], r["text"], "request {i}");
            let dt = l["capture_ns"].as_i64().unwrap() - r["capture_ns"].as_i64().unwrap();
            assert!(dt.abs() <= ALERT_TOLERANCE_NS, "request {i}: {dt} ns");
        }
    }

    // Each decision reached the transcript in both runs.
    for dir in [&live_dir, &replay_dir] {
        let d = jsonl(&dir.join("decisions.jsonl"));
        let t = jsonl(&dir.join("transcript.jsonl"));
        for x in &d {
            assert!(
                t.iter().any(|e| e["request_id"] == x["request_id"]),
                "{}: decision {x} not in the transcript",
                dir.display()
            );
        }
    }

    // The same ground-truth outcome for every hazard.
    let ls = json(&live_dir.join("score.json"));
    let rs = json(&replay_dir.join("score.json"));
    let outcomes = |s: &serde_json::Value| -> Vec<(String, String)> {
        s["hazards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| (h["label"].to_string(), h["outcome"].to_string()))
            .collect()
    };
    assert_eq!(outcomes(&ls), outcomes(&rs));

    assert_trace_is_valid(&live_dir.join("trace.json"), true);
    assert_trace_is_valid(&replay_dir.join("trace.json"), false);
    let profile = json(&live_dir.join("profile.json"));
    assert_eq!(profile["assistant"]["trace"]["spans_dropped"], 0);
    assert!(profile["assistant"]["trace"]["spans"].as_u64().unwrap() > 1000);
}

/// `live --listen` with `device-sim --connect` (the device opens the link): every recorded
/// sample of the real Aria sample arrives, as many per stream as `replay --recorded-only`
/// delivers from the file itself (plus the device pose the run derives from the IMU), and
/// the spoken run ends cleanly on the goodbye. The
/// assistant's models load before the link is offered (the first second was delivered late
/// while they loaded after it).
#[test]
fn live_listens_and_the_device_connects() {
    let tmp = tempfile::tempdir().unwrap();
    let vrs = gen1_vrs();
    let sock = format!("unix:{}", tmp.path().join("live.sock").display());
    let out = tmp.path().join("run");
    let profile = tmp.path().join("live.json");
    let live = vista()
        .args(["live", "--listen", &sock, "--no-ocr", "--speak"])
        .arg(&out)
        .arg("--profile")
        .arg(&profile)
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let sim = vista()
        .arg("device-sim")
        .arg(&vrs)
        .args(["--connect", &sock])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(sim.success());
    let live = live.wait_with_output().unwrap();
    let log = String::from_utf8_lossy(&live.stderr);
    assert!(live.status.success(), "{log}");
    // The assistant's models were loaded before the link was offered to the device, so
    // the first seconds of the stream never wait behind them.
    let at = |needle: &str| {
        log.find(needle)
            .unwrap_or_else(|| panic!("no {needle:?} in the log:\n{log}"))
    };
    assert!(
        at("assistant models loaded") < at("live: waiting for the device"),
        "{log}"
    );
    let replay_profile = tmp.path().join("replay.json");
    let ok = vista()
        .arg("replay")
        .arg(&vrs)
        .args(["--asap", "-q", "--recorded-only", "--profile"])
        .arg(&replay_profile)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(ok.success());
    let l = json(&profile);
    let r = json(&replay_profile);
    assert_eq!(l["link"]["connections"], 1);
    assert_eq!(l["link"]["goodbyes"], 1);
    let delivered = |p: &serde_json::Value| -> Vec<(String, u64)> {
        p["streams"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v["delivered"].as_u64().unwrap()))
            .collect()
    };
    // The live run has no trajectory: it derives the device pose from the IMU (100 Hz after
    // the first 0.1 s of imu-right), a stream the recording does not have.
    let mut live_streams = delivered(&l);
    let derived = live_streams
        .iter()
        .position(|(k, _)| k == "device-pose")
        .map(|i| live_streams.remove(i));
    assert!(matches!(derived, Some((_, n)) if n >= 1), "{derived:?}");
    assert_eq!(live_streams, delivered(&r));
    assert!(out.join("profile.json").is_file() && out.join("trace.json").is_file());
    // The socket file is removed when the run ends.
    assert!(!tmp.path().join("live.sock").exists());
}
