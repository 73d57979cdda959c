//! eSpeak NG through vista's own FFI, in the worker process `vista` runs it in: speech is
//! produced, its length follows the rate and matches the `espeak-ng` command-line tool, an
//! utterance can be interrupted, and odd text never stops the engine.

use vista::speech::tts::{use_worker_process, WorkerCommand};
use vista::speech::{Flow, Tts, TtsError, VoiceParams};

/// Every test of this file speaks through a `vista tts-worker` process, as `vista` does.
fn in_worker() {
    use_worker_process(WorkerCommand {
        program: env!("CARGO_BIN_EXE_vista").into(),
        args: vec!["tts-worker".into()],
    });
}

fn reference() -> serde_json::Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/reference/speech_espeak_cli.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn tts(rate_wpm: u32) -> Tts {
    in_worker();
    Tts::new(VoiceParams {
        rate_wpm,
        ..VoiceParams::default()
    })
    .unwrap()
}

const SENTENCE: &str = "Door ahead, about three metres, slightly to your left.";

#[test]
fn speech_is_not_empty_and_has_energy() {
    let t = tts(175);
    assert_eq!(t.sample_rate_hz(), 22_050);
    let samples = t.synthesize_to_vec(SENTENCE).unwrap();
    let secs = samples.len() as f64 / 22_050.0;
    assert!(secs > 1.0 && secs < 6.0, "{secs} s");
    let rms =
        (samples.iter().map(|&s| (s as f64).powi(2)).sum::<f64>() / samples.len() as f64).sqrt();
    assert!(rms > 300.0, "rms {rms}");
}

#[test]
fn duration_scales_inversely_with_rate() {
    let slow = tts(175).synthesize_to_vec(SENTENCE).unwrap().len() as f64;
    let fast = tts(350).synthesize_to_vec(SENTENCE).unwrap().len() as f64;
    let ratio = slow / fast;
    assert!(
        ratio > 1.6 && ratio < 2.4,
        "175/350 wpm length ratio {ratio}"
    );
}

#[test]
fn stop_interrupts_mid_utterance() {
    let t = tts(175);
    let full = t.synthesize_to_vec(SENTENCE).unwrap().len();
    let mut calls = 0;
    let mut first_chunk = 0;
    let report = t
        .synthesize(SENTENCE, |s| {
            calls += 1;
            first_chunk = s.len();
            Flow::Stop
        })
        .unwrap();
    assert!(report.stopped);
    assert_eq!(calls, 1);
    assert_eq!(report.samples, first_chunk);
    assert!(report.samples * 4 < full, "{} of {full}", report.samples);
    // The engine is usable again at once, and whole (eSpeak NG's lengths vary by up to ~2%
    // from one utterance to the next: state carried inside the library).
    let again = t.synthesize_to_vec(SENTENCE).unwrap().len() as f64;
    assert!(
        (again / full as f64 - 1.0).abs() < 0.025,
        "{again} vs {full}"
    );
}

#[test]
fn unknown_voice_and_bad_rate_are_errors() {
    in_worker();
    let t = Tts::new(VoiceParams {
        voice: "no-such-voice-xx".into(),
        ..VoiceParams::default()
    })
    .unwrap();
    assert!(matches!(
        t.synthesize_to_vec("hello"),
        Err(TtsError::Espeak(_))
    ));
    assert!(matches!(
        Tts::new(VoiceParams {
            rate_wpm: 20,
            ..VoiceParams::default()
        }),
        Err(TtsError::OutOfRange { .. })
    ));
    // A good voice still works after a bad one.
    assert!(!tts(175).synthesize_to_vec("hello").unwrap().is_empty());
}

/// Lengths match the `espeak-ng` tool (scripts/speech_reference.sh) at every rate, within
/// eSpeak NG's own utterance-to-utterance variation (measured ≤ 2%; the first utterance of a
/// process matches exactly, see tests/speech_tts_first.rs).
#[test]
fn lengths_match_the_espeak_ng_tool_at_every_rate() {
    let reference = reference();
    assert_eq!(reference["text"], SENTENCE);
    let by_rate = reference["samples_by_rate_wpm"].as_object().unwrap();
    assert_eq!(by_rate.len(), 6);
    in_worker();
    for (rate, expected) in by_rate {
        let t = Tts::new(VoiceParams {
            rate_wpm: rate.parse().unwrap(),
            end_pause: true,
            ..VoiceParams::default()
        })
        .unwrap();
        let got = t.synthesize_to_vec(SENTENCE).unwrap().len() as f64;
        let expected = expected.as_f64().unwrap();
        assert!(
            (got / expected - 1.0).abs() < 0.025,
            "{rate} wpm: {got} samples, espeak-ng tool {expected}"
        );
    }
}

/// Odd text is spoken (or, where eSpeak NG 1.51 itself crashes on it, lost alone: the
/// worker is replaced), and the engine speaks whole afterwards.
#[test]
fn odd_text_never_stops_the_engine() {
    let t = tts(450);
    let spoken = |text: &str| match t.synthesize_to_vec(text) {
        Ok(_) => true,
        Err(TtsError::Worker(e)) => {
            eprintln!("eSpeak NG's worker crashed on {text:?}: {e}");
            false
        }
        Err(e) => panic!("{text:?}: {e}"),
    };
    let long_number = "9".repeat(400);
    let cases = [
        "",
        " ",
        "\0",
        "a\0b",
        "<speak>not ssml</speak> & < > \"",
        "\u{1F600}\u{200B}\u{FEFF} émigré naïve 東京",
        "\n\r\t",
        long_number.as_str(),
        "....!!!???,,,;;;",
        "[[h@'loU]] %s %n %d",
    ];
    let mut lost = 0;
    for text in cases {
        lost += usize::from(!spoken(text));
    }
    // Anything printable or not, in a few random mixes.
    let mut seed = 0x2545_f491_u64;
    for _ in 0..30 {
        let s: String = (0..60)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                char::from_u32((seed % 0x3000) as u32).unwrap_or(' ')
            })
            .collect();
        lost += usize::from(!spoken(&s));
    }
    assert!(lost <= 2, "{lost} of 40 odd texts lost");
    let after = t.synthesize_to_vec(SENTENCE).unwrap();
    assert!(after.len() > 22_050, "{} samples", after.len());
}

/// The estimate the alerter waits by (`speech::pace`) holds on the real engine, on alert
/// phrasings other than those it was fitted on, at every rate a wearer may choose.
#[test]
fn the_length_estimate_holds_on_the_engine() {
    use vista::speech::pace::spoken_ns;
    let phrases = [
        "Stop. Obstacle ahead, 2 metres.",
        "Step down in 4 metres.",
        "Person at 10 o'clock, 3 metres.",
        "Head height obstacle, 1 o'clock, 2.5 metres.",
        "Vehicle coming from the right, 8 metres.",
        "Step up at 2 o'clock, 1 metre.",
    ];
    for rate in [150, 175, 250, 350, 450] {
        let t = tts(rate);
        for p in phrases {
            let real_s = t.synthesize_to_vec(p).unwrap().len() as f64 / 22_050.0;
            let est_s = spoken_ns(p, rate) as f64 * 1e-9;
            let err = (est_s - real_s) / real_s;
            assert!(
                err.abs() <= 0.2,
                "{p:?} at {rate} wpm: estimated {est_s:.2} s, said in {real_s:.2} s"
            );
        }
    }
}
