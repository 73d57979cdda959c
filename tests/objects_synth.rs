//! What things are, end to end: the `things_by_name` scenario shows real photographs of a
//! bicycle, a person and a car on obstacles in a plaza; replayed in lock step (offline: with
//! MPS), the object detector sees them, perception places them, and the answers to "Is
//! there a bicycle nearby?", "Where is the car?" and "Where is the person?" name each with
//! its clock direction and distance, as the scorer reads them against the scenario's truth.
//! Needs the detector from `models/fetch`.

use std::path::Path;

use vista::assistant::lm::setup::LmChoice;
use vista::eval::score_run::{score_run, ScoreOptions};
use vista::pipeline::{AssistantOptions, Input, LmOptions, Pace, Pipeline, ReplayInput};
use vista::synth::{find_scenario, write_session, SynthOptions};

#[test]
fn things_seen_in_photographs_are_named_and_placed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s");
    let out = dir.path().join("o");
    let sc = find_scenario(&root.join("scenarios"), "things_by_name").unwrap();
    write_session(&sc, &session, &SynthOptions::default()).unwrap();
    // What `vista replay SESSION --asap --no-ocr --no-lm --speak OUT` runs.
    let mut assistant = AssistantOptions::new(&out);
    assistant.sight.read_text = false;
    assistant.lm = LmOptions {
        choice: LmChoice::Off,
        ..LmOptions::default()
    };
    let input = ReplayInput {
        pace: Pace::LockStep,
        ..ReplayInput::new(&session)
    };
    let run = Pipeline::new(Input::Replay(input))
        .with_assistant(assistant)
        .run()
        .unwrap();
    assert!(!run.stop_reason.is_error(), "{run:?}");
    let scored = score_run(&ScoreOptions {
        session: session.clone(),
        out: out.clone(),
        world_tolerance_m: 1.0,
        latency: false,
        latency_run: false,
    })
    .unwrap();
    let v: serde_json::Value = serde_json::from_str(&scored.to_json().unwrap()).unwrap();
    let requests = v["score"]["requests"].as_array().unwrap();
    let answers: Vec<&str> = requests
        .iter()
        .map(|r| r["answer"].as_str().unwrap_or(""))
        .collect();
    for (r, thing) in requests.iter().zip(["bicycle", "car", "person"]) {
        let answer = r["answer"].as_str().unwrap_or("");
        assert!(answer.contains(thing), "{thing}: {answers:?}");
    }
    let m = &v["score"]["summary"];
    assert!(
        m["facts_present"].as_u64().unwrap() >= 4,
        "facts {} of {}: {answers:?}",
        m["facts_present"],
        m["facts_required"]
    );
    assert_eq!(m["false_alerts"], 0, "{m}");
    assert_eq!(m["unsafe_spoken"], 0, "{m}");
}
