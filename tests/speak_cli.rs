//! `vista replay --speak DIR` end to end through the binary: on the real Aria sample (no
//! ground truth: transcript, decisions, profile and trace, and the missing streams named) and
//! on a short synthetic session (with ground truth: score, picture, and the pole alerted).

#[path = "common/cli.rs"]
mod cli;

use cli::{gen1_vrs, json, replay_speak, synth, vista};

#[test]
fn a_real_recording_is_replayed_with_the_assistant_and_its_outputs_are_written() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("run");
    replay_speak(&gen1_vrs(), &dir, &["--no-ocr"]);
    for f in [
        "speech.wav",
        "transcript.jsonl",
        "decisions.jsonl",
        "session_clock.json",
    ] {
        assert!(dir.join(f).is_file(), "{f} missing");
    }
    let trace = json(&dir.join("trace.json"));
    assert!(trace["traceEvents"].is_array());
    let profile = json(&dir.join("profile.json"));
    assert!(profile["replay"]["streams"].is_object());
    assert!(profile["assistant"]["counters"]["alerts"].is_u64());
    let notes = profile["assistant"]["notes"].as_array().unwrap();
    assert!(
        notes
            .iter()
            .any(|n| n.as_str().unwrap().contains("semi-dense")
                || n.as_str().unwrap().contains("MPS")
                || n.as_str().unwrap().contains("--no-ocr")),
        "{notes:?}"
    );
}

#[test]
fn a_synthetic_session_is_alerted_answered_and_scored() {
    let out = tempfile::tempdir().unwrap();
    let session = out.path().join("session");
    synth(
        "pole_to_door",
        &["--duration", "10", "--rgb-fps", "0"],
        &session,
    );
    let dir = out.path().join("run");
    replay_speak(&session, &dir, &[]);
    let score = json(&dir.join("score.json"));
    // The pole is the scenario's hazard; perception must catch it in its useful window.
    let hazards = score["hazards"].as_array().unwrap();
    let pole = hazards
        .iter()
        .find(|h| h["label"] == "metal pole")
        .expect("pole in ground truth");
    assert_eq!(pole["outcome"], "caught", "{pole}");
    assert_eq!(score["summary"]["unsafe_spoken"], 0, "{score}");
    let svg = std::fs::read_to_string(dir.join("latency.svg")).unwrap();
    assert!(svg.starts_with("<svg") || svg.starts_with("<?xml"));
    // Every request got a decision, in order, and the transcript has what was said.
    let decisions = std::fs::read_to_string(dir.join("decisions.jsonl")).unwrap();
    assert!(decisions.lines().any(|l| l.contains("\"kind\":\"answer\"")));
    assert!(decisions.lines().any(|l| l.contains("\"kind\":\"alert\"")));
}

/// The answers of a run: `(request_index, form, request text, answer text)`.
fn answers(dir: &std::path::Path) -> Vec<(Option<u64>, String, String, String)> {
    cli::jsonl(&dir.join("decisions.jsonl"))
        .into_iter()
        .filter(|d| d["kind"] == "answer")
        .map(|d| {
            (
                d["request_index"].as_u64(),
                d["request"][0].as_str().unwrap_or_default().to_string(),
                d["request"][1].as_str().unwrap_or_default().to_string(),
                d["text"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// A session without ground truth still gets the latency picture and a trace with
/// utterance, hazard, runtime-stage and queue tracks; scene updates are off by default.
#[test]
fn a_run_without_ground_truth_gets_its_picture_and_every_trace_track() {
    let out = tempfile::tempdir().unwrap();
    let session = out.path().join("session");
    synth(
        "pole_to_door",
        &["--duration", "10", "--rgb-fps", "0"],
        &session,
    );
    std::fs::remove_file(session.join("ground_truth.json")).unwrap();
    let dir = out.path().join("run");
    replay_speak(&session, &dir, &["--no-lm"]);
    assert!(!dir.join("score.json").exists());
    let svg = std::fs::read_to_string(dir.join("latency.svg")).unwrap();
    assert!(svg.starts_with("<svg") || svg.starts_with("<?xml"));
    assert!(
        svg.contains("alert: capture_to_first_audio"),
        "no alert row"
    );
    assert!(svg.contains("stage: perception"), "no runtime stage row");
    // The answered requests are ticks on its timeline.
    let a = answers(&dir);
    assert!(!a.is_empty());
    assert!(
        svg.contains(&a[0].2),
        "request {:?} not on the timeline",
        a[0].2
    );
    let trace_path = dir.join("trace.json");
    cli::assert_trace_is_valid(&trace_path, false);
    let trace = json(&trace_path);
    let names = cli::thread_names(&trace);
    for t in ["alert", "answer", "hazards (evidence → first alert audio)"] {
        assert!(names.iter().any(|n| n == t), "no {t} track: {names:?}");
    }
    let events = trace["traceEvents"].as_array().unwrap();
    let alerts = cli::jsonl(&dir.join("decisions.jsonl"))
        .into_iter()
        .filter(|d| d["kind"] == "alert")
        .count();
    let hazard_spans = events
        .iter()
        .filter(|e| e["ph"] == "X" && e["cat"] == "hazard")
        .count();
    assert!(alerts >= 1 && hazard_spans >= 1 && hazard_spans <= alerts);
    assert!(events
        .iter()
        .any(|e| e["ph"] == "C" && e["name"] == "speech"));
    let ambient = cli::jsonl(&dir.join("decisions.jsonl"))
        .into_iter()
        .filter(|d| d["kind"] == "ambient")
        .count();
    assert_eq!(ambient, 0, "scene updates are off by default");
}

/// Requests typed on standard input and sent to the local socket while the run goes on in
/// real time are answered, and `--scene-every` adds periodic scene updates.
#[test]
fn live_requests_from_stdin_and_the_socket_are_answered_in_real_time() {
    use std::io::Write;
    let out = tempfile::tempdir().unwrap();
    let session = out.path().join("session");
    synth(
        "pole_to_door",
        &["--duration", "5", "--rgb-fps", "0"],
        &session,
    );
    let none = out.path().join("none.jsonl");
    std::fs::write(&none, "").unwrap();
    let dir = out.path().join("run");
    let port = cli::free_port();
    let mut child = cli::vista()
        .arg("replay")
        .arg(&session)
        .args(["-q", "--no-lm", "--stdin-requests", "--scene-every", "1.5"])
        .arg("--requests")
        .arg(&none)
        .args(["--requests-listen", &format!("127.0.0.1:{port}")])
        .arg("--speak")
        .arg(&dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "Is the path clear?").unwrap();
    // A newer request supersedes one not yet answered (barge-in): send the next only once
    // the typed one is answered (decisions are flushed line by line).
    let decisions = dir.join("decisions.jsonl");
    for _ in 0..1000 {
        let text = std::fs::read_to_string(&decisions).unwrap_or_default();
        if text.contains("Is the path clear?") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    // The socket opens once the run is set up.
    let mut sock = None;
    for _ in 0..100 {
        if let Ok(s) = std::net::TcpStream::connect(("127.0.0.1", port)) {
            sock = Some(s);
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let mut sock = sock.expect("the request socket never opened");
    writeln!(sock, "goal: take me to the door").unwrap();
    drop(sock);
    let status = child.wait().unwrap();
    drop(stdin);
    assert!(status.success());
    let a = answers(&dir);
    let typed = a
        .iter()
        .find(|x| x.2 == "Is the path clear?")
        .unwrap_or_else(|| panic!("stdin request not answered: {a:?}"));
    assert_eq!((typed.0, typed.1.as_str()), (None, "question"));
    assert!(!typed.3.is_empty());
    let socket = a
        .iter()
        .find(|x| x.2 == "take me to the door")
        .unwrap_or_else(|| panic!("socket request not answered: {a:?}"));
    assert_eq!((socket.0, socket.1.as_str()), (None, "goal"));
    let ambient = cli::jsonl(&dir.join("decisions.jsonl"))
        .into_iter()
        .filter(|d| d["kind"] == "ambient")
        .count();
    // 5 s at one update per 1.5 s: 2 or 3 (an update with nothing to say is not written).
    assert!((1..=4).contains(&ambient), "{ambient} scene updates");
}

/// A session with no RGB camera and no MPS runs with what it has, writes what it cannot
/// do in the run's notes, and says so when asked.
#[test]
fn a_session_without_rgb_or_mps_says_what_it_cannot_do() {
    let out = tempfile::tempdir().unwrap();
    let session = out.path().join("session");
    synth(
        "read_sign",
        &["--duration", "4", "--rgb-fps", "0"],
        &session,
    );
    std::fs::remove_dir_all(session.join("mps")).unwrap();
    let requests = out.path().join("requests.jsonl");
    std::fs::write(
        &requests,
        concat!(
            "{\"t_ns\": 0, \"form\": \"question\", \"text\": \"What does the sign say?\"}\n",
            "{\"t_ns\": 0, \"form\": \"question\", \"text\": \"Is the path clear?\"}\n",
        ),
    )
    .unwrap();
    // Request times are device ns: put them 2 s into the session.
    let t0 = json(&out.path().join("session/ground_truth.json"))["t0_ns"]
        .as_i64()
        .unwrap();
    let text = std::fs::read_to_string(&requests)
        .unwrap()
        .replace("\"t_ns\": 0", &format!("\"t_ns\": {}", t0 + 2_000_000_000));
    std::fs::write(&requests, text).unwrap();
    let dir = out.path().join("run");
    replay_speak(
        &session,
        &dir,
        &["--no-lm", "--requests", requests.to_str().unwrap()],
    );
    // Still scored against the wearer's true path (synth writes it beside MPS, so removing
    // MPS takes nothing from the yardstick), and the run says it was live: no MPS input.
    let score = json(&dir.join("score.json"));
    assert!(
        !score["notes"].to_string().contains("wearer track"),
        "{}",
        score["notes"]
    );
    assert_eq!(score["mode"], "live", "{}", score["mode"]);
    assert_eq!(json(&dir.join("run.json"))["mode"], "live");
    let profile = json(&dir.join("profile.json"));
    let notes: Vec<String> = profile["assistant"]["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect();
    assert!(
        notes.iter().any(|n| n.contains("no RGB camera")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("semi-dense") || n.contains("MPS")),
        "{notes:?}"
    );
    let a = answers(&dir);
    // Both requests answered (one may be answered again after an alert cut it).
    let asked: std::collections::BTreeSet<_> = a.iter().map(|x| x.0).collect();
    assert_eq!(asked.len(), 2, "{a:?}");
    let sign = &a
        .iter()
        .find(|x| x.2 == "What does the sign say?")
        .unwrap()
        .3;
    assert!(
        sign.contains("can't") && sign.contains("no RGB camera"),
        "{sign}"
    );
    // No trajectory: the device pose is derived from the IMU, so stereo depth still places
    // what is ahead (the wall straight ahead, the platform edge) and the path question is
    // answered from it, not refused.
    assert!(
        notes.iter().any(|n| n.contains("derived from the IMU")),
        "{notes:?}"
    );
    let path = &a.iter().find(|x| x.2 == "Is the path clear?").unwrap().3;
    assert!(
        path.contains("12 o'clock") && !path.contains("can't"),
        "the path question is answered from stereo depth: {path}"
    );
    assert!(
        profile["assistant"]["counters"]["unanswerable"]
            .as_u64()
            .unwrap()
            >= 1,
        "{}",
        profile["assistant"]["counters"]
    );
}

/// A sign read with PP-OCR gets a distance from the point map behind it: the answer to
/// "what does the sign say?" quotes it with its clock direction and metres, and the scorer
/// finds it placed where the ground truth has it (read_sign: "Platform 3" on the wall
/// about 2.5 m ahead once the wearer has walked 1.5 m). The wearer looks at it, so the
/// answer also names the gaze target.
#[test]
fn a_sign_is_read_with_its_direction_and_distance_and_scored() {
    let out = tempfile::tempdir().unwrap();
    let session = out.path().join("session");
    synth("read_sign", &["--duration", "5"], &session);
    let dir = out.path().join("run");
    replay_speak(&session, &dir, &["--no-lm"]);
    let score = json(&dir.join("score.json"));
    let r = &score["requests"][0];
    assert_eq!(r["text"], "What does the sign say?", "{r}");
    let answer = r["answer"].as_str().unwrap();
    assert!(answer.contains("Platform 3"), "{answer}");
    assert!(answer.contains("metre"), "no distance in {answer:?}");
    assert_eq!(r["texts"][0]["placed"], true, "{r}");
    assert_eq!(r["gaze_named"], true, "{r}");
    assert_eq!(score["summary"]["texts_placed"], 1, "{}", score["summary"]);
}

/// A speech rate, verbosity or CPU budget out of range is refused before anything runs, the
/// range, the choices or the safety path's minimum named.
#[test]
fn a_speech_rate_or_verbosity_out_of_range_is_refused_with_the_range_named() {
    let out = tempfile::tempdir().unwrap();
    for (flag, value, named) in [
        ("--speech-rate", "500", "150..=450"),
        ("--speech-rate", "90", "150..=450"),
        ("--verbosity", "chatty", "alerts, brief, full"),
        (
            "--cpu-budget",
            "0.1",
            "below the 0.35 cores the safety path needs",
        ),
        ("--cpu-budget", "lots", "not a number of cores"),
    ] {
        let o = vista()
            .args(["replay"])
            .arg(gen1_vrs())
            .args(["--asap", "--speak"])
            .arg(out.path().join("run"))
            .args([flag, value])
            .output()
            .unwrap();
        assert!(!o.status.success(), "{flag} {value} accepted");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(named), "{flag} {value}: {err}");
        assert!(
            !out.path().join("run").exists(),
            "{flag} {value} started a run"
        );
    }
}

/// The wearer's settings file sets the rate and verbosity a run starts with; the command
/// line wins over it; a value out of range or an unknown key is refused with the file, the
/// line or the range named, before anything runs.
#[test]
fn a_settings_file_sets_rate_and_verbosity_and_a_bad_one_is_refused() {
    let out = tempfile::tempdir().unwrap();
    let config = out.path().join("config.toml");
    let run = |extra: &[&str], dir: &str| {
        vista()
            .env_remove("VISTA_CONFIG")
            .env("XDG_CONFIG_HOME", out.path().join("none"))
            .args(["replay"])
            .arg(gen1_vrs())
            .args(["--asap", "--no-lm", "--no-ocr", "--no-depth", "--speak"])
            .arg(out.path().join(dir))
            .arg("--config")
            .arg(&config)
            .args(extra)
            .output()
            .unwrap()
    };
    std::fs::write(
        &config,
        "[speech]\nrate_wpm = 320\nverbosity = \"alerts\"\n",
    )
    .unwrap();
    let o = run(&[], "a");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("speech at 320 words a minute, verbosity alerts"),
        "{err}"
    );
    let o = run(&["--speech-rate", "200"], "b");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("speech at 200 words a minute, verbosity alerts"),
        "{err}"
    );
    for (text, named) in [
        ("[speech]\nrate_wpm = 600\n", "150 to 450"),
        ("[speech]\nrate_wpm = 300\nloudness = 3\n", "config.toml:3:"),
        ("[speech]\nverbosity = \"chatty\"\n", "config.toml:2:"),
    ] {
        std::fs::write(&config, text).unwrap();
        let o = run(&[], "c");
        assert!(!o.status.success(), "{text:?} accepted");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(named), "{text:?}: {err}");
        assert!(!out.path().join("c").exists(), "{text:?} started a run");
    }
}
