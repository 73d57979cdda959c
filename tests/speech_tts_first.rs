//! The first utterance of a process is exactly as long as the `espeak-ng` tool's output for
//! the same text, voice and rate (reference from scripts/speech_reference.sh), here in the
//! worker process `vista` speaks through, relayed block by block. Kept alone in its own test
//! binary so that no earlier utterance changes the library's state.

use vista::speech::tts::{use_worker_process, WorkerCommand};
use vista::speech::{Tts, VoiceParams};

#[test]
fn first_utterance_matches_the_espeak_ng_tool_exactly() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/reference/speech_espeak_cli.json"
    ))
    .unwrap();
    let reference: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(use_worker_process(WorkerCommand {
        program: env!("CARGO_BIN_EXE_vista").into(),
        args: vec!["tts-worker".into()],
    }));
    let t = Tts::new(VoiceParams {
        rate_wpm: 175,
        end_pause: true,
        ..VoiceParams::default()
    })
    .unwrap();
    let samples = t
        .synthesize_to_vec(reference["text"].as_str().unwrap())
        .unwrap();
    assert_eq!(
        samples.len() as u64,
        reference["samples_by_rate_wpm"]["175"].as_u64().unwrap()
    );
}
