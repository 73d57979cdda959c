//! The Piper neural voice (`en_US-joe-medium`, VITS on ONNX Runtime, phonemised by eSpeak
//! NG) on real text, through `vista say --engine piper`, and on missing and broken files.
//! Needs the voice from `models/fetch`.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use vista::infer::ModelFile;
use vista::speech::piper::{PiperConfig, PiperError, PiperScales, PiperVoice};

fn voice() -> PiperVoice {
    PiperVoice::load_default().unwrap_or_else(|e| {
        panic!("the Piper voice is needed for this test (run models/fetch): {e}")
    })
}

fn rms(samples: &[i16]) -> f64 {
    let sum: f64 = samples.iter().map(|&s| f64::from(s) * f64::from(s)).sum();
    (sum / samples.len().max(1) as f64).sqrt()
}

/// A short question comes out as 0.6–3 s of real speech at 22 050 Hz, with the voice's own
/// (noisy) scales.
#[test]
fn a_question_is_a_second_or_two_of_speech() {
    let mut v = voice();
    assert_eq!(v.sample_rate_hz(), 22_050);
    let scales = PiperScales::from_config(v.config());
    assert_eq!(
        scales,
        PiperScales {
            noise: 0.667,
            length: 1.0,
            noise_w: 0.8
        }
    );
    let audio = v.synthesize("Where is the car?", scales).unwrap();
    let seconds = audio.len() as f64 / 22_050.0;
    assert!((0.6..=3.0).contains(&seconds), "{seconds:.2} s");
    let level = rms(&audio);
    assert!(level > 500.0, "RMS {level:.0}");
    let peak = audio.iter().map(|s| s.unsigned_abs()).max().unwrap_or(0);
    assert!(peak > 5_000, "peak {peak}");
    assert_eq!(v.skipped_phonemes(), 0, "every phoneme has an id");
}

/// The phonemes keep the clause punctuation and stress marks, as Piper's do.
#[test]
fn phonemes_keep_punctuation_and_stress() {
    let v = voice();
    let sentences = v
        .phonemize("Where is the car? I think, it is near the door.")
        .unwrap();
    assert_eq!(sentences.len(), 2, "{sentences:?}");
    assert!(sentences[0].ends_with('?'), "{sentences:?}");
    assert!(sentences[0].contains('ˈ'), "{sentences:?}");
    assert!(sentences[1].contains(", "), "{sentences:?}");
    assert!(sentences[1].ends_with('.'), "{sentences:?}");
    assert!(v.phonemize("  ").unwrap().is_empty());
}

/// Without noise the same text is the same samples; with the voice's noise it is not.
#[test]
fn zero_noise_is_deterministic() {
    let mut v = voice();
    let text = "Where is the car?";
    let a = v.synthesize(text, PiperScales::deterministic()).unwrap();
    let b = v.synthesize(text, PiperScales::deterministic()).unwrap();
    assert!(!a.is_empty());
    assert_eq!(a, b, "deterministic scales give the same samples");
    let noisy = PiperScales::from_config(v.config());
    let c = v.synthesize(text, noisy).unwrap();
    let d = v.synthesize(text, noisy).unwrap();
    assert_ne!(c, d, "the voice's noise scales draw random noise");
}

/// Two sentences are two inferences 0.2 s apart; a slower length scale is longer.
#[test]
fn sentences_and_length_scale() {
    let mut v = voice();
    let det = PiperScales::deterministic();
    let one = v.synthesize("Where is the car?", det).unwrap();
    let two = v
        .synthesize("Where is the car? Where is the car?", det)
        .unwrap();
    assert_eq!(two.len(), 2 * one.len() + 4_410);
    let slow = v
        .synthesize("Where is the car?", det.with_length_factor(1.5))
        .unwrap();
    assert!(slow.len() as f64 > 1.3 * one.len() as f64);
    assert!(v.synthesize("", det).unwrap().is_empty());
}

/// Ten words on one thread: load and synthesis times, printed (`--nocapture`).
#[test]
fn timing_of_a_ten_word_sentence() {
    let t0 = Instant::now();
    let mut v = voice();
    let load_s = t0.elapsed().as_secs_f64();
    let text = "The door to the kitchen is two steps ahead, on your left.";
    v.synthesize("Warm up.", PiperScales::deterministic())
        .unwrap();
    let t1 = Instant::now();
    let audio = v
        .synthesize(text, PiperScales::from_config(v.config()))
        .unwrap();
    let synth_s = t1.elapsed().as_secs_f64();
    let audio_s = audio.len() as f64 / 22_050.0;
    println!(
        "piper: load {load_s:.2} s; 10 words: {synth_s:.3} s for {audio_s:.2} s of audio \
         (real-time factor {:.3}), one thread",
        synth_s / audio_s
    );
    assert!(audio_s > 1.5, "{audio_s:.2} s");
}

#[test]
fn missing_files_are_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    let config = ModelFile::PiperVoiceConfig.path();
    let missing = dir.path().join("none.onnx");
    let e = PiperVoice::load(&missing, &config).unwrap_err();
    assert!(
        matches!(&e, PiperError::NotFound { path } if path == &missing),
        "{e}"
    );
    assert!(e.to_string().contains("none.onnx"), "{e}");
    let e =
        PiperVoice::load(&ModelFile::PiperVoice.path(), &dir.path().join("none.json")).unwrap_err();
    assert!(matches!(e, PiperError::NotFound { .. }), "{e}");
}

#[test]
fn a_broken_config_is_a_typed_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let model = ModelFile::PiperVoice.path();
    let broken = dir.path().join("broken.onnx.json");
    std::fs::write(&broken, b"{\"audio\": {\"sample_rate\": 22050},").unwrap();
    let e = PiperVoice::load(&model, &broken).unwrap_err();
    assert!(matches!(e, PiperError::ConfigJson { .. }), "{e}");
    assert!(e.to_string().contains("broken.onnx.json"), "{e}");

    // Valid JSON without the phoneme map.
    let real: serde_json::Value =
        serde_json::from_slice(&std::fs::read(ModelFile::PiperVoiceConfig.path()).unwrap())
            .unwrap();
    let mut no_map = real.clone();
    no_map.as_object_mut().unwrap().remove("phoneme_id_map");
    std::fs::write(&broken, serde_json::to_vec(&no_map).unwrap()).unwrap();
    let e = PiperVoice::load(&model, &broken).unwrap_err();
    assert!(matches!(e, PiperError::Config { .. }), "{e}");
    assert!(e.to_string().contains("phoneme_id_map"), "{e}");

    let mut no_rate = real;
    no_rate["audio"]
        .as_object_mut()
        .unwrap()
        .remove("sample_rate");
    std::fs::write(&broken, serde_json::to_vec(&no_rate).unwrap()).unwrap();
    let e = PiperConfig::load(&broken).unwrap_err();
    assert!(e.to_string().contains("sample_rate"), "{e}");
}

/// A model that is not a Piper voice (the object detector) is refused by its inputs.
#[test]
fn a_model_without_piper_inputs_is_refused() {
    let e = PiperVoice::load(
        &ModelFile::Detector.path(),
        &ModelFile::PiperVoiceConfig.path(),
    )
    .unwrap_err();
    assert!(matches!(e, PiperError::ModelInputs { .. }), "{e}");
}

/// Text longer than the limit is refused before any work.
#[test]
fn a_text_too_long_is_refused() {
    let mut v = voice();
    let text = "word ".repeat(500);
    let e = v
        .synthesize(&text, PiperScales::deterministic())
        .unwrap_err();
    assert!(
        matches!(e, PiperError::TextTooLong { chars: 2500, .. }),
        "{e}"
    );
    assert!(Path::new(&ModelFile::PiperVoice.path()).is_file());
}

/// `vista say --engine piper` speaks clause by clause into a 22 050 Hz WAV file (the
/// speaker's session file: stereo, as with eSpeak NG); a missing voice is an error naming it.
#[test]
fn vista_say_speaks_with_piper_into_a_wav_file() {
    let dir = tempfile::tempdir().unwrap();
    let wav = dir.path().join("piper.wav");
    let out = Command::new(env!("CARGO_BIN_EXE_vista"))
        .args([
            "say",
            "--engine",
            "piper",
            "Where is the car? It is on your left.",
        ])
        .arg("--out")
        .arg(&wav)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("spoke 2 clause(s)"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let mut reader = hound::WavReader::open(&wav).unwrap();
    let spec = reader.spec();
    assert_eq!((spec.sample_rate, spec.bits_per_sample), (22_050, 16));
    let samples: Vec<i16> = reader.samples::<i16>().map(Result::unwrap).collect();
    let seconds = samples.len() as f64 / f64::from(spec.channels) / 22_050.0;
    assert!((1.2..=5.0).contains(&seconds), "{seconds:.2} s");
    assert!(rms(&samples) > 500.0, "RMS {:.0}", rms(&samples));

    let out = Command::new(env!("CARGO_BIN_EXE_vista"))
        .args(["say", "--engine", "piper", "Hello."])
        .arg("--piper-model")
        .arg(dir.path().join("none.onnx"))
        .arg("--out")
        .arg(dir.path().join("x.wav"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("none.onnx"), "{err}");
}

/// With `PiperSays::Answers`, the speaker says an answer in the Piper voice and an alert in
/// eSpeak NG on one timeline (the same words last as long as each engine makes them), and on
/// a virtual clock (lock step, noise off) the same answer gives the same audio.
#[test]
fn answers_in_the_piper_voice_and_alerts_in_espeak_ng_on_one_timeline() {
    use std::sync::Arc;
    use vista::speech::sink::WavSink;
    use vista::speech::transcript::read_transcript;
    use vista::speech::{
        Pan, PiperFiles, PiperSays, Priority, Speaker, SpeakerConfig, Tts, Utterance, VoiceParams,
    };
    use vista::time::{DeviceTime, HostTime, VirtualClock};

    let text = "Where is the car?";
    let said = |priority: Priority, request_id: u64, at_ms: i64| Utterance {
        text: text.into(),
        priority,
        request_id,
        capture: DeviceTime(0),
        decided: HostTime(at_ms * 1_000_000),
        earcon: None,
        cue: None,
        pan: Pan::CENTRE,
        urgent: true,
    };
    let run = |dir: &Path| -> (Vec<(Priority, i64)>, Vec<u8>) {
        let wav = dir.join("speech.wav");
        let speaker = Speaker::start(
            SpeakerConfig {
                piper: Some(PiperFiles::fetched()),
                piper_says: PiperSays::Answers,
                transcript: Some(dir.join("transcript.jsonl")),
                ..SpeakerConfig::default()
            },
            Box::new(WavSink::create(&wav, 22_050).unwrap()),
            Arc::new(VirtualClock::new(DeviceTime(0))),
        )
        .unwrap();
        speaker.say(said(Priority::Answer, 1, 0)).unwrap();
        speaker.say(said(Priority::Alert, 2, 5_000)).unwrap();
        speaker.finish(Some(HostTime(8_000_000_000))).unwrap();
        let spans = read_transcript(&dir.join("transcript.jsonl"))
            .unwrap()
            .iter()
            .map(|e| (e.priority, e.end_ns - e.first_audio_ns.unwrap()))
            .collect();
        (spans, std::fs::read(&wav).unwrap())
    };
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (spans, wav) = run(a.path());
    let samples_ns = |n: usize| n as i64 * 1_000_000_000 / 22_050;
    let piper_ns = samples_ns(
        voice()
            .synthesize(text, PiperScales::deterministic())
            .unwrap()
            .len(),
    );
    let espeak_ns = samples_ns(
        Tts::new(VoiceParams::default())
            .unwrap()
            .synthesize_to_vec(text)
            .unwrap()
            .len(),
    );
    assert!(
        (piper_ns - espeak_ns).abs() > 50_000_000,
        "{piper_ns} vs {espeak_ns}"
    );
    assert_eq!(spans.len(), 2, "{spans:?}");
    let near = |got: i64, want: i64| (got - want).abs() <= 2_000_000;
    assert!(
        spans[0].0 == Priority::Answer && near(spans[0].1, piper_ns),
        "{spans:?} vs {piper_ns}"
    );
    assert!(
        spans[1].0 == Priority::Alert && near(spans[1].1, espeak_ns),
        "{spans:?} vs {espeak_ns}"
    );
    // The Piper voice speaks without noise on a virtual clock: the answer is the same
    // samples again (eSpeak NG's own output may differ by a few samples after other
    // synthesis in the process, so the alert's part is not compared).
    let (spans_again, again) = run(b.path());
    assert_eq!(spans_again[0], spans[0]);
    let header = wav.len() - 8 * 22_050 * 4;
    let alert_at = header + 5 * 22_050 * 4;
    assert!(wav[..alert_at] == again[..alert_at], "the answer repeats");
}
