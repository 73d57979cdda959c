//! Hearing the wearer: real speech (the `moonshine-cpp` package's own 10 s clip) through the
//! voice detector and the recogniser as a stream, the same speech in other file forms, and
//! audio that holds no request (silence, noise, wind, babble) giving none; the same speech
//! captured from a microphone (ALSA's file plugin as the default capture device, through
//! `cpal`). Needs the models from `models/fetch` (CI runs it through `scripts/setup.sh`).

use std::path::Path;

use vista::infer::ModelFile;
use vista::listen::{
    hear_clip, read_wav_16k, word_errors, ListenConfig, ListenError, Moonshine, MoonshineConfig,
    Outcome, Recogniser, SileroVad, WordErrors,
};

/// What the clip says, sentence by sentence.
const BECKETT: [&str; 6] = [
    "Ever tried.",
    "Ever failed.",
    "No matter.",
    "Try again.",
    "Fail again.",
    "Fail better.",
];

fn models() -> (SileroVad, Moonshine) {
    let vad = SileroVad::load_default()
        .unwrap_or_else(|e| panic!("the voice detector is needed (run models/fetch): {e}"));
    let asr = Moonshine::load_default()
        .unwrap_or_else(|e| panic!("the recogniser is needed (run models/fetch): {e}"));
    (vad, asr)
}

fn beckett() -> Vec<f32> {
    read_wav_16k(&ModelFile::MoonshineClip.path())
        .unwrap_or_else(|e| panic!("run models/fetch: {e}"))
        .samples
}

fn texts(samples: &[f32]) -> Vec<String> {
    let (vad, asr) = models();
    let r = hear_clip(samples, vad, asr, ListenConfig::default()).unwrap();
    r.heard
        .iter()
        .filter_map(|h| h.text().map(str::to_string))
        .collect()
}

fn corpus_errors(heard: &[String]) -> WordErrors {
    word_errors(&BECKETT.join(" "), &heard.join(" "))
}

/// Each sentence is one utterance, recognised within 10 % word error rate, in order, at its
/// place in the clip.
#[test]
fn real_speech_is_heard_sentence_by_sentence() {
    let samples = beckett();
    let (vad, asr) = models();
    let r = hear_clip(&samples, vad, asr, ListenConfig::default()).unwrap();
    let heard: Vec<String> = r
        .heard
        .iter()
        .filter_map(|h| h.text().map(str::to_string))
        .collect();
    assert_eq!(heard.len(), BECKETT.len(), "{heard:?}");
    let e = corpus_errors(&heard);
    assert!(
        e.rate() <= 0.10,
        "word error rate {:.2}: {heard:?}",
        e.rate()
    );
    for w in r.heard.windows(2) {
        assert!(w[0].end_sample < w[1].start_sample);
    }
    let first = &r.heard[0];
    assert!(first.start_s() > 0.1 && first.end_s() < 2.0, "{first:?}");
    assert!(r
        .heard
        .iter()
        .all(|h| !h.cut && h.decided_sample > h.end_sample));
}

/// The same speech at 48 kHz in two channels (one silent), and clipped hard, is heard the same.
#[test]
fn other_rates_channels_and_clipping_hear_the_same_words() {
    let samples = beckett();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("48k-stereo.wav");
    let spec = hound::WavSpec {
        channels: 2,
        sample_rate: 48_000,
        bits_per_sample: 32,
        sample_format: hound::SampleFormat::Float,
    };
    let mut w = hound::WavWriter::create(&p, spec).unwrap();
    for pair in samples.windows(2) {
        for k in 0..3 {
            let v = pair[0] + (pair[1] - pair[0]) * k as f32 / 3.0;
            w.write_sample(v).unwrap();
            w.write_sample(0.0f32).unwrap();
        }
    }
    w.finalize().unwrap();
    let clip = read_wav_16k(&p).unwrap();
    assert_eq!((clip.source_rate_hz, clip.channels), (48_000, 2));
    // Averaging the silent channel in halves the level: still heard.
    let heard = texts(&clip.samples);
    assert!(corpus_errors(&heard).rate() <= 0.10, "{heard:?}");
    let clipped: Vec<f32> = samples
        .iter()
        .map(|v| (v * 10.0).clamp(-0.5, 0.5))
        .collect();
    let heard = texts(&clipped);
    assert!(corpus_errors(&heard).rate() <= 0.10, "{heard:?}");
}

/// A deterministic noise source (xorshift), −1..1.
fn noise(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        })
        .collect()
}

/// Silence, steady noise, gusting wind and babble (the clip's speech reversed and overlaid six
/// times) give no request.
#[test]
fn audio_without_a_request_gives_none() {
    let n = 16_000 * 20;
    let silence = vec![0.0f32; n];
    let white: Vec<f32> = noise(n, 7).iter().map(|v| v * 0.3).collect();
    let raw = noise(n, 11);
    let wind: Vec<f32> = (0..n)
        .map(|i| {
            let lo = raw[i.saturating_sub(63)..=i].iter().sum::<f32>() / 64.0;
            let gust = 0.5 + 0.5 * (i as f32 / 16_000.0 * std::f32::consts::TAU * 0.3).sin();
            lo * gust * 4.0
        })
        .collect();
    let speech = beckett();
    let mut babble = vec![0.0f32; n];
    for k in 0..6 {
        for (i, v) in babble.iter_mut().enumerate() {
            let j = (i + k * 9_000) % speech.len();
            *v += speech[speech.len() - 1 - j] / 3.0;
        }
    }
    for (name, audio) in [
        ("silence", silence),
        ("white noise", white),
        ("wind", wind),
        ("babble", babble),
    ] {
        let (vad, asr) = models();
        let r = hear_clip(&audio, vad, asr, ListenConfig::default()).unwrap();
        let said: Vec<&str> = r.heard.iter().filter_map(|h| h.text()).collect();
        assert!(said.is_empty(), "{name}: heard {said:?}");
        assert!(
            r.heard
                .iter()
                .all(|h| matches!(h.outcome, Outcome::NotCaught { .. })),
            "{name}"
        );
    }
}

/// A hint that is the right text costs one decoder pass; a wrong hint changes nothing.
#[test]
fn a_hint_is_checked_not_trusted() {
    let samples = beckett();
    let (_, mut asr) = models();
    let first = &samples[..16_000 * 2];
    let plain = asr.recognise(first, &[]).unwrap();
    assert!(!plain.tokens.is_empty());
    assert_eq!(plain.passes, plain.tokens.len() + 1);
    let hinted = asr.recognise(first, &plain.tokens).unwrap();
    assert_eq!(hinted.text, plain.text);
    assert_eq!((hinted.passes, hinted.reused), (1, plain.tokens.len()));
    let wrong: Vec<u32> = plain.tokens.iter().rev().map(|t| t + 1).collect();
    let misled = asr.recognise(first, &wrong).unwrap();
    assert_eq!(misled.text, plain.text);
    assert_eq!(misled.reused, 0);
    // Too short for the encoder: nothing, not an error.
    assert!(asr
        .recognise(&samples[..800], &[])
        .unwrap()
        .tokens
        .is_empty());
}

/// Missing and damaged model files are errors that name the file.
#[test]
fn bad_model_files_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none.onnx");
    let e = SileroVad::load(&missing).unwrap_err();
    assert!(e.to_string().contains("none.onnx"), "{e}");
    let junk = dir.path().join("junk.ort");
    std::fs::write(&junk, b"not a model").unwrap();
    let e = Moonshine::load(&MoonshineConfig {
        decoder: junk.clone(),
        ..MoonshineConfig::default()
    })
    .unwrap_err();
    assert!(e.to_string().contains("junk.ort"), "{e}");
    let tok = dir.path().join("tokenizer.bin");
    std::fs::write(&tok, [9u8, b'a']).unwrap();
    let e = Moonshine::load(&MoonshineConfig {
        tokenizer: tok,
        ..MoonshineConfig::default()
    })
    .unwrap_err();
    assert!(matches!(e, ListenError::Model { .. }), "{e}");
    assert!(e.to_string().contains("tokenizer.bin"), "{e}");
    // The voice detector given the recogniser's file is refused, not run.
    let e = SileroVad::load(Path::new(&ModelFile::MoonshineEncoder.path())).unwrap_err();
    assert!(e.to_string().contains("encoder_model.ort"), "{e}");
}

/// The wake phrase yardstick (`vista listen --spoken FILE --wake PHRASE`): requests said after
/// "Hey Vista" by the Piper voice are taken as requests, their words after it scored; the
/// same words said without it are not said to the assistant.
#[test]
fn requests_said_after_the_wake_phrase_are_requests_and_without_it_are_left() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("requests.tsv");
    std::fs::write(
        &file,
        "# category\tsplit\ttext\ntext\tdev\tWhat does the sign say?\nscene\theld\tWhat is around me?\n",
    )
    .unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_vista"))
        .args(["listen", "--spoken"])
        .arg(&file)
        .args(["--wake", "hey vista", "--json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    for l in &lines {
        assert_eq!(l["called"]["kind"], "request", "{l}");
        assert_eq!(l["called"]["text"], l["heard"], "{l}");
        assert_eq!(l["plain"]["kind"], "not_addressed", "{l}");
        assert_eq!(l["errors"]["edits"], 0, "{l}");
    }
    assert_eq!(lines[0]["heard"], "What does the sign say?");
}

/// `vista listen --mic --seconds 2` and `args` with `HOME` holding `asoundrc` as
/// `.asoundrc`: its exit status, the lines printed, and standard error.
fn listen_mic_lines(asoundrc: &str, args: &[&str]) -> (bool, Vec<String>, String) {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join(".asoundrc"), asoundrc).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vista"))
        .args(["listen", "--mic", "--seconds", "2"])
        .args(args)
        .env("HOME", home.path())
        .env("VISTA_MODELS", vista::infer::models_dir())
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// [`listen_mic_lines`] with `--json`, each line parsed.
fn listen_mic(asoundrc: &str) -> (bool, Vec<serde_json::Value>, String) {
    let (ok, lines, err) = listen_mic_lines(asoundrc, &["--json"]);
    let lines = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    (ok, lines, err)
}

/// An `.asoundrc` whose default capture device reads the Beckett clip (16-bit mono) from
/// a raw file in `dir`.
fn clip_as_capture(dir: &Path) -> String {
    let raw = dir.join("in.raw");
    let bytes: Vec<u8> = beckett()
        .iter()
        .flat_map(|s| ((s.clamp(-1.0, 1.0) * 32_767.0) as i16).to_le_bytes())
        .collect();
    std::fs::write(&raw, bytes).unwrap();
    format!(
        "pcm.!default {{ type file slave.pcm \"null\" file \"/dev/null\" infile \"{}\" format \"raw\" }}\n",
        raw.display()
    )
}

#[test]
fn speech_at_the_microphone_is_heard_sentence_by_sentence() {
    // ALSA's default capture device reads the clip's samples from a raw file (16-bit mono:
    // the device offers 16 kHz mono, which the microphone asks for first). The file plugin
    // is not paced like a sound card: it delivers as fast as it is read, so the microphone's
    // ring keeps the first seconds and counts the rest as dropped.
    let dir = tempfile::tempdir().unwrap();
    let (ok, lines, err) = listen_mic(&clip_as_capture(dir.path()));
    assert!(ok, "{err}");
    assert!(err.contains("16000 Hz, 1 × i16"), "{err}");
    let heard: Vec<String> = lines
        .iter()
        .filter_map(|l| l["recognised"]["text"].as_str().map(str::to_string))
        .collect();
    let errors = corpus_errors(&heard);
    assert!(errors.rate() <= 0.10, "{heard:?}: {errors:?}");
    let summary = lines.last().unwrap();
    assert_eq!(summary["stats"]["heard"].as_u64(), Some(6), "{summary}");
    assert!(
        summary["dropped_samples"].as_u64().unwrap() > 0,
        "{summary}"
    );
}

#[test]
fn requests_heard_at_the_microphone_are_lines_for_a_run_and_the_rest_is_left() {
    let dir = tempfile::tempdir().unwrap();
    let rc = clip_as_capture(dir.path());
    // Every utterance a request: one line each, nothing else on standard output.
    let (ok, lines, err) = listen_mic_lines(&rc, &["--requests", "--wake", "none"]);
    assert!(ok, "{err}");
    let errors = corpus_errors(&lines);
    assert!(lines.len() == 6 && errors.rate() <= 0.10, "{lines:?}");
    // None of the clip starts with the wake phrase: no request, each utterance said to be
    // left.
    let (ok, lines, err) = listen_mic_lines(&rc, &["--requests"]);
    assert!(ok, "{err}");
    assert!(lines.is_empty(), "{lines:?}");
    assert_eq!(err.matches("not said to the assistant").count(), 6, "{err}");
}

#[test]
fn no_microphone_is_a_clear_error() {
    let (ok, lines, err) =
        listen_mic("pcm.!default { type hw card 31 }\nctl.!default { type hw card 31 }\n");
    assert!(!ok);
    assert!(lines.is_empty(), "{lines:?}");
    assert!(err.contains("error: microphone"), "{err}");
}
