//! The pipeline driven in-process (no binary): a lock-step run of a synthetic session with
//! the assistant writes every output and says which mode it ran; two runs in one process
//! give the same transcript and decisions (the run's process-wide profiling is reset between
//! them); a real-time run stopped through its stop handle ends in order with every output
//! and a governed CPU budget (lock step: not governed); options that cannot be used (a CPU
//! budget below the safety path's among them) are typed errors before anything starts.

use std::path::{Path, PathBuf};
use std::time::Duration;

use vista::pipeline::{
    AssistantOptions, Input, LiveInput, LmOptions, Pace, Pipeline, PipelineError, ReplayInput,
};
use vista::runtime::StopReason;
use vista::synth::{find_scenario, write_session, SynthOptions};

/// `scenario`'s first `duration_s` seconds, without RGB frames, written into `dir/s`.
fn session(dir: &Path, scenario: &str, duration_s: f64) -> PathBuf {
    let sc = find_scenario(Path::new("scenarios"), scenario).unwrap();
    let out = dir.join("s");
    let opts = SynthOptions {
        duration_s: Some(duration_s),
        rgb_fps: Some(0.0),
        ..SynthOptions::default()
    };
    write_session(&sc, &out, &opts).unwrap();
    out
}

/// The assistant without PP-OCR or the language model (both have their own tests), into
/// `out`.
fn assistant(out: &Path) -> AssistantOptions {
    let mut o = AssistantOptions::new(out);
    o.sight.read_text = false;
    o.lm = LmOptions {
        choice: vista::assistant::lm::setup::LmChoice::Off,
        ..LmOptions::default()
    };
    o
}

fn lock_step(session: &Path, recorded_only: bool) -> Input {
    Input::Replay(ReplayInput {
        pace: Pace::LockStep,
        recorded_only,
        ..ReplayInput::new(session)
    })
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn a_lock_step_run_writes_every_output_and_repeats_in_one_process() {
    let tmp = tempfile::tempdir().unwrap();
    let s = session(tmp.path(), "pole_to_door", 10.0);
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let one = Pipeline::new(lock_step(&s, true))
        .with_assistant(assistant(&a))
        .run()
        .unwrap();
    assert_eq!(one.stop_reason, StopReason::EndOfSource, "{one:?}");
    for f in [
        "speech.wav",
        "transcript.jsonl",
        "decisions.jsonl",
        "session_clock.json",
        "run.json",
        "profile.json",
        "trace.json",
        "latency.svg",
        "score.json",
    ] {
        assert!(a.join(f).is_file(), "{f} missing");
    }
    let run: serde_json::Value = serde_json::from_str(&read(&a.join("run.json"))).unwrap();
    assert_eq!(run["mode"], "live", "{run}");
    let report = one.assistant_report.as_deref().unwrap_or_default();
    assert!(report.starts_with("mode: live"), "{report}");
    assert!(
        read(&a.join("decisions.jsonl")).contains("\"alert\""),
        "the pole is alerted"
    );
    let base = one.profile.base();
    assert_eq!(base.mode, "asap");
    assert!(base.streams.values().map(|s| s.delivered).sum::<u64>() > 10_000);

    // Again in the same process: the same decisions, and the same words at the same
    // capture and decision times. (How long each is heard may differ by a few pitch periods:
    // eSpeak NG carries waveform state from one utterance to the next, within a process.)
    let two = Pipeline::new(lock_step(&s, true))
        .with_assistant(assistant(&b))
        .run()
        .unwrap();
    assert_eq!(two.stop_reason, StopReason::EndOfSource);
    assert_eq!(
        read(&a.join("decisions.jsonl")),
        read(&b.join("decisions.jsonl"))
    );
    let said = |dir: &Path| -> Vec<(String, i64, i64)> {
        read(&dir.join("transcript.jsonl"))
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (
                    v["text"].as_str().unwrap_or_default().to_string(),
                    v["capture_ns"].as_i64().unwrap_or_default(),
                    v["decided_ns"].as_i64().unwrap_or_default(),
                )
            })
            .collect()
    };
    assert_eq!(said(&a), said(&b));
    // The second run's trace holds its own spans, not the first run's too.
    let p1: serde_json::Value = serde_json::from_str(&read(&a.join("profile.json"))).unwrap();
    let p2: serde_json::Value = serde_json::from_str(&read(&b.join("profile.json"))).unwrap();
    assert_eq!(
        p1["assistant"]["trace"]["spans"], p2["assistant"]["trace"]["spans"],
        "{} vs {}",
        p1["assistant"]["trace"], p2["assistant"]["trace"]
    );
    // Lock step has no wall time to keep: the budget is not governed.
    assert_eq!(p1["budget"]["governed"], false, "{}", p1["budget"]);
    assert_eq!(p1["budget"]["budget_cores"], 0.5, "{}", p1["budget"]);
    // Perception's counters are in the profile, the same in both runs (lock step).
    let perception = &p1["assistant"]["perception"];
    assert!(
        perception["engine"]["ticks"].as_u64().unwrap_or(0) > 0,
        "{perception}"
    );
    assert!(
        perception["engine"]["samples"].as_u64().unwrap_or(0) > 0,
        "{perception}"
    );
    assert_eq!(perception, &p2["assistant"]["perception"]);
}

#[test]
fn a_real_time_run_stopped_by_its_handle_writes_every_output() {
    let tmp = tempfile::tempdir().unwrap();
    let s = session(tmp.path(), "pole_to_door", 10.0);
    let out = tmp.path().join("run");
    let input = Input::Replay(ReplayInput::new(&s));
    let pipeline = Pipeline::new(input).with_assistant(assistant(&out));
    let stop = pipeline.stop_handle();
    let run = std::thread::spawn(move || pipeline.run());
    // Into the run: the decisions file is made when the assistant is set up.
    let t0 = std::time::Instant::now();
    while !out.join("decisions.jsonl").exists() && t0.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_secs(1));
    stop.stop();
    let outcome = run.join().unwrap().unwrap();
    assert_eq!(outcome.stop_reason, StopReason::Stopped, "{outcome:?}");
    // Stopped about 1 s into a 10 s session.
    assert!(outcome.profile.base().device_time_s < 8.0, "{outcome:?}");
    for f in ["profile.json", "trace.json", "score.json", "speech.wav"] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    // In real time the default budget of half a core is governed, and the report says
    // what the run used and at which levels.
    let p: serde_json::Value = serde_json::from_str(&read(&out.join("profile.json"))).unwrap();
    let b = &p["budget"];
    assert_eq!(b["governed"], true, "{b}");
    assert_eq!(b["budget_cores"], 0.5, "{b}");
    assert!(b["seconds"].as_f64().unwrap_or(0.0) > 0.5, "{b}");
    assert!(b["mean_cores"].as_f64().unwrap_or(-1.0) >= 0.0, "{b}");
    let at_levels: f64 = b["seconds_at_level"]
        .as_array()
        .map(|a| a.iter().filter_map(|s| s.as_f64()).sum())
        .unwrap_or(0.0);
    assert!(
        (at_levels - b["seconds"].as_f64().unwrap_or(0.0)).abs() < 0.01,
        "{b}"
    );
}

#[test]
fn options_that_cannot_be_used_are_errors_before_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    // A map without the assistant.
    let live = LiveInput {
        map: Some(tmp.path().to_path_buf()),
        ..LiveInput::new("127.0.0.1:9")
    };
    let e = Pipeline::new(Input::Live(live)).run().unwrap_err();
    assert!(matches!(e, PipelineError::Options(_)), "{e:?}");
    // Listening on an address another machine could reach.
    let listen = LiveInput {
        listen: true,
        ..LiveInput::new("0.0.0.0:7878")
    };
    let e = Pipeline::new(Input::Live(listen)).run().unwrap_err();
    assert!(e.to_string().contains("loopback"), "{e}");
    // A rate that is not a positive number.
    let replay = ReplayInput {
        pace: Pace::RealTime { rate: 0.0 },
        ..ReplayInput::new(tmp.path())
    };
    let e = Pipeline::new(Input::Replay(replay)).run().unwrap_err();
    assert!(e.to_string().contains("--rate"), "{e}");
    // A CPU budget below what the safety path needs names the minimum.
    let mut low = assistant(tmp.path());
    low.cpu_budget_cores = Some(0.1);
    let e = Pipeline::new(lock_step(tmp.path(), false))
        .with_assistant(low)
        .run()
        .unwrap_err();
    assert!(matches!(e, PipelineError::Options(_)), "{e:?}");
    assert!(
        e.to_string()
            .contains(&format!("{} cores", vista::pipeline::MIN_BUDGET_CORES)),
        "{e}"
    );
    // A session that is not there names it.
    let missing = tmp.path().join("nothing-here");
    let e = Pipeline::new(lock_step(&missing, false)).run().unwrap_err();
    assert!(matches!(e, PipelineError::OpenSession { .. }), "{e:?}");
    assert!(e.to_string().contains("nothing-here"), "{e}");
}

/// A build without the Rerun SDK refuses a recording before anything runs, saying how to
/// get one.
#[cfg(not(feature = "rerun"))]
#[test]
fn a_rerun_recording_without_the_feature_is_refused_before_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let s = session(tmp.path(), "pole_to_door", 1.0);
    let out = tmp.path().join("a");
    let err = Pipeline::new(lock_step(&s, true))
        .with_assistant(assistant(&out))
        .with_view(Some(vista::view::ViewTarget::File(
            tmp.path().join("run.rrd"),
        )))
        .run()
        .unwrap_err();
    assert!(err.to_string().contains("--features rerun"), "{err}");
    assert!(!out.join("decisions.jsonl").exists(), "nothing ran");
    assert!(!tmp.path().join("run.rrd").exists());
}
