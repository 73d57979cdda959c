//! `vista replay --speak DIR` end to end through the binary: on the real Aria sample (no
//! ground truth: transcript, decisions, profile and trace, and the missing streams named) and
//! on a short synthetic session (with ground truth: score, picture, and the pole alerted).

use std::path::Path;
use std::process::Command;

fn vista() -> Command {
    Command::new(env!("CARGO_BIN_EXE_vista"))
}

fn json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn a_real_recording_is_replayed_with_the_assistant_and_its_outputs_are_written() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("run");
    let status = vista()
        .args([
            "replay",
            "tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs",
        ])
        .args(["--asap", "-q", "--no-ocr", "--speak"])
        .arg(&dir)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .unwrap();
    assert!(status.success());
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
    let status = vista()
        .args([
            "synth",
            "pole_to_door",
            "--duration",
            "10",
            "--rgb-fps",
            "0",
            "--out",
        ])
        .arg(&session)
        .status()
        .unwrap();
    assert!(status.success());
    let dir = out.path().join("run");
    let status = vista()
        .arg("replay")
        .arg(&session)
        .args(["--asap", "-q", "--speak"])
        .arg(&dir)
        .status()
        .unwrap();
    assert!(status.success());
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
