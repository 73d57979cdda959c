//! `vista synth --spoken-requests`: the recording gains the microphones' Aria Gen1 audio
//! stream (231-1, 48 kHz, 7 channels, 4096 frames per record) holding a quiet room and each
//! scripted request spoken by the wearer from its `t_ns`; `spoken_requests.jsonl` says when.
//! Read back with vista's own reader: contiguous frames, loud during each request and quiet
//! elsewhere, byte-identical for a seed, listed by `vista inspect`, and heard by vista's own
//! listener (Silero VAD + Moonshine) as the words written, each after the wake phrase the
//! wearer calls the assistant by. A replay with `--voice-requests` answers them; speech that
//! does not call the assistant is left. Needs the Piper voice, the voice detector and the
//! recogniser from `models/fetch`.

use std::path::Path;
use std::process::Command;

use vista::aria::recording::AriaRecording;
use vista::aria::vrs::VrsStreamId;
use vista::infer::ModelFile;
use vista::listen::resample::to_16k;
use vista::listen::{
    hear_clip, word_errors, Addressed, Addressing, ListenConfig, Moonshine, SileroVad, Wake,
};
use vista::sample::{Payload, StreamId};
use vista::synth::session_writer::T0_NS;
use vista::synth::{find_scenario, write_session, SynthOptions, SynthSummary};

/// Two requests early on ("What does the sign say?" at 4 s, "What is around me?" at 8 s).
const SCENARIO: &str = "read_sign";
const SECS: f64 = 12.0;
const AUDIO: VrsStreamId = VrsStreamId::new(231, 1);

fn synth(dir: &Path, seed: u64, spoken: bool) -> SynthSummary {
    synth_saying(dir, seed, spoken, SynthOptions::default().spoken_wake)
}

/// `synth`, the wearer saying `wake` before each request (`None`: nothing).
fn synth_saying(dir: &Path, seed: u64, spoken: bool, wake: Option<String>) -> SynthSummary {
    assert!(
        ModelFile::PiperVoice.path().exists() || !spoken,
        "the Piper voice is needed for this test (run models/fetch): {} is missing",
        ModelFile::PiperVoice.path().display()
    );
    let sc = find_scenario(Path::new("scenarios"), SCENARIO).unwrap();
    // No cameras: this is about the microphones (and keeps the debug build quick).
    let opts = SynthOptions {
        seed,
        duration_s: Some(SECS),
        slam_fps: None,
        rgb_fps: Some(0.0),
        et_fps: None,
        semidense: None,
        spoken_requests: spoken,
        spoken_wake: wake,
        ..SynthOptions::default()
    };
    write_session(&sc, dir, &opts)
        .unwrap_or_else(|e| panic!("synth with spoken requests (run models/fetch): {e}"))
}

/// One spoken request of `spoken_requests.jsonl`.
struct Said {
    text: String,
    wake: Option<String>,
    t_ns: i64,
    start_ns: i64,
    end_ns: i64,
    voice_start_ns: i64,
    voice_end_ns: i64,
}

fn said(dir: &Path) -> Vec<Said> {
    let text = std::fs::read_to_string(dir.join("spoken_requests.jsonl")).unwrap();
    text.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            assert_eq!(v["cut"], false, "{l}");
            Said {
                text: v["text"].as_str().unwrap().to_string(),
                wake: v["wake"].as_str().map(str::to_owned),
                t_ns: v["t_ns"].as_i64().unwrap(),
                start_ns: v["start_ns"].as_i64().unwrap(),
                end_ns: v["end_ns"].as_i64().unwrap(),
                voice_start_ns: v["voice_start_ns"].as_i64().unwrap(),
                voice_end_ns: v["voice_end_ns"].as_i64().unwrap(),
            }
        })
        .collect()
}

/// Every audio frame: its capture time and its seven samples (full scale 1).
fn frames(dir: &Path) -> (Vec<i64>, Vec<[f32; 7]>) {
    let rec = AriaRecording::open(dir.join("recording.vrs")).unwrap();
    let cfg = rec
        .config(AUDIO)
        .expect("the audio stream has a configuration");
    assert_eq!(cfg.audio_channels, Some(7));
    assert_eq!(cfg.audio_sample_rate_hz, Some(48_000));
    let (mut times, mut pcm) = (Vec::new(), Vec::new());
    for s in rec.stream_samples(StreamId::Audio) {
        let (_, t, p) = s.unwrap();
        let Payload::Audio(a) = p else {
            panic!("{p:?}")
        };
        assert_eq!((a.channels, a.sample_rate_hz), (7, 48_000));
        assert_eq!(a.timestamps_ns.len(), 4096, "Gen1 records hold 4096 frames");
        assert_eq!(
            t.ns(),
            a.timestamps_ns[0],
            "a record's time is its first frame's"
        );
        times.extend_from_slice(&a.timestamps_ns);
        for f in a.data.chunks_exact(28) {
            let mut frame = [0.0f32; 7];
            for (c, b) in f.chunks_exact(4).enumerate() {
                let v = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                assert_eq!(v & 0xff, 0, "24 significant bits, as Gen1's");
                frame[c] = v as f32 / 2_147_483_648.0;
            }
            pcm.push(frame);
        }
    }
    assert_eq!(times.len(), pcm.len());
    (times, pcm)
}

fn dbfs(pcm: &[[f32; 7]], channel: usize) -> f64 {
    let ms = pcm
        .iter()
        .map(|f| f64::from(f[channel]).powi(2))
        .sum::<f64>()
        / pcm.len().max(1) as f64;
    10.0 * ms.max(1e-20).log10()
}

fn vista(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_vista"))
        .args(args)
        .output()
        .unwrap()
}

/// `vista replay SESSION --asap --speak OUT --voice-requests` with `extra` arguments.
fn replay_voice(session: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "replay",
        session.to_str().unwrap(),
        "--asap",
        "--speak",
        out.to_str().unwrap(),
        "--voice-requests",
    ];
    args.extend_from_slice(extra);
    vista(&args)
}

#[test]
fn the_wearer_is_heard_in_an_aria_audio_stream_at_each_request() {
    let t = tempfile::tempdir().unwrap();
    let (a, b) = (t.path().join("a"), t.path().join("b"));
    let sum = synth(&a, 5, true);
    let spoken = sum.spoken.expect("spoken requests were asked for");
    assert_eq!((spoken.spoken, spoken.skipped, spoken.cut), (2, 0, 0));
    let records = (SECS * 48_000.0 / 4096.0).floor() as usize;
    assert!(sum.data_records.contains(&("231-1".to_string(), records)));

    // Same seed, same bytes.
    synth(&b, 5, true);
    for f in ["recording.vrs", "spoken_requests.jsonl", "requests.jsonl"] {
        let (x, y) = (
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
        );
        assert!(x == y, "{f} differs between two runs with the same seed");
    }

    // The stream as Gen1 describes it.
    let rec = AriaRecording::open(a.join("recording.vrs")).unwrap();
    let s = rec.vrs().stream(AUDIO).unwrap();
    assert_eq!(s.recordable_name(), Some("Stereo Audio Class"));
    assert_eq!(
        s.vrs_tags.get("RF:Data:2").map(String::as_str),
        Some("data_layout+audio/pcm/int32le/channels=7/rate=48000")
    );
    assert_eq!(
        s.vrs_tags.get("RF:Configuration:1").map(String::as_str),
        Some("data_layout/size=10")
    );
    drop(rec);

    // Contiguous frames from the session's start, 1/48 000 s apart.
    let (times, pcm) = frames(&a);
    assert_eq!(times.len(), records * 4096);
    for (i, t) in times.iter().enumerate() {
        let want = T0_NS + ((i as i128 * 2_000_000_000 + 48_000) / 96_000) as i64;
        assert_eq!(*t, want, "frame {i}");
    }

    // Loud while each request is said, quiet elsewhere.
    let said = said(&a);
    let texts: Vec<&str> = said.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(texts, ["What does the sign say?", "What is around me?"]);
    assert!(said.iter().all(|s| s.wake.as_deref() == Some("Hey Vista")));
    let requests = std::fs::read_to_string(a.join("requests.jsonl")).unwrap();
    for s in &said {
        assert!(requests.contains(&format!("\"t_ns\":{}", s.t_ns)));
        assert!(
            s.start_ns >= s.t_ns && s.start_ns - s.t_ns < 21_000,
            "starts at t_ns"
        );
        assert!(s.start_ns <= s.voice_start_ns && s.voice_start_ns < s.voice_end_ns);
        assert!(s.voice_end_ns <= s.end_ns);
        let secs = (s.voice_end_ns - s.voice_start_ns) as f64 * 1e-9;
        assert!((0.5..4.0).contains(&secs), "{:?}: {secs:.2} s", s.text);
        let inside: Vec<[f32; 7]> = times
            .iter()
            .zip(&pcm)
            .filter(|(t, _)| (s.voice_start_ns..s.voice_end_ns).contains(*t))
            .map(|(_, f)| *f)
            .collect();
        let levels: Vec<f64> = (0..7).map(|c| dbfs(&inside, c)).collect();
        for (c, l) in levels.iter().enumerate() {
            assert!(*l > -30.0, "{:?} channel {c}: {l:.1} dBFS", s.text);
        }
        // Each microphone hears it at its own level (nearer ones louder), not as copies.
        let spread = levels.iter().copied().fold(f64::MIN, f64::max)
            - levels.iter().copied().fold(f64::MAX, f64::min);
        assert!((2.0..10.0).contains(&spread), "{levels:?}");
        assert_ne!(inside[1000][0], inside[1000][6]);
    }
    let quiet: Vec<[f32; 7]> = times
        .iter()
        .zip(&pcm)
        .filter(|(t, _)| {
            !said
                .iter()
                .any(|s| (s.start_ns..s.end_ns + 1_000_000).contains(*t))
        })
        .map(|(_, f)| *f)
        .collect();
    assert!(quiet.len() > 48_000 * 5);
    for c in 0..7 {
        let l = dbfs(&quiet, c);
        assert!((-53.0..-47.0).contains(&l), "room channel {c}: {l:.1} dBFS");
    }

    // `vista inspect` lists the stream.
    let out = vista(&["inspect", a.to_str().unwrap(), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["streams"]["231-1"]["name"], "audio");
    assert_eq!(v["streams"]["231-1"]["data_records"], records as u64);
}

/// vista's own listener, on the seven channels mixed to mono and brought to 16 kHz, hears
/// each request as written (word error rate at most 25 %) after the wake phrase, which it
/// takes as the wake phrase, inside its spoken window, and nothing in the room noise.
#[test]
fn the_listener_hears_each_request_as_written() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    synth(dir, 2, true);
    let (times, pcm) = frames(dir);
    let mono: Vec<f32> = pcm.iter().map(|f| f.iter().sum::<f32>() / 7.0).collect();
    let samples = to_16k(&mono, 48_000).unwrap();
    let vad = SileroVad::load_default()
        .unwrap_or_else(|e| panic!("the voice detector is needed (run models/fetch): {e}"));
    let asr = Moonshine::load_default()
        .unwrap_or_else(|e| panic!("the recogniser is needed (run models/fetch): {e}"));
    let heard = hear_clip(&samples, vad, asr, ListenConfig::default()).unwrap();
    let t0 = times[0];
    let at_s = |ns: i64| (ns - t0) as f64 * 1e-9;
    let said = said(dir);
    for h in &heard.heard {
        assert!(
            said.iter()
                .any(|s| h.start_s() < at_s(s.end_ns) + 0.3 && h.end_s() > at_s(s.start_ns) - 0.3),
            "heard {:?} at {:.2}–{:.2} s, where nobody spoke",
            h.recognised.text,
            h.start_s(),
            h.end_s()
        );
    }
    for s in &said {
        let (from, to) = (at_s(s.voice_start_ns), at_s(s.voice_end_ns));
        let mine: Vec<_> = heard
            .heard
            .iter()
            .filter(|h| h.start_s() < to + 0.3 && h.end_s() > from - 0.3)
            .collect();
        let text: Vec<&str> = mine.iter().filter_map(|h| h.text()).collect();
        let text = text.join(" ");
        let request = match Addressing::new(Wake::default()).hear(&text, true, 0, 1) {
            Addressed::Request { text } => text,
            other => panic!("{text:?} did not call the assistant: {other:?}"),
        };
        let e = word_errors(&s.text, &request);
        let known = mine
            .last()
            .map_or(f64::NAN, |h| h.decided_sample as f64 / 16_000.0 - to);
        eprintln!(
            "{:?}: heard {text:?} (WER {:.0} %), voice {from:.2}–{to:.2} s, end known {known:.2} s after",
            s.text,
            100.0 * e.rate()
        );
        assert!(e.rate() <= 0.25, "{:?} heard as {text:?}", s.text);
    }
}

/// Speech that does not call the assistant (the requests said without the wake phrase, as
/// by someone near the wearer) is left: nothing answered, each counted; with `--wake none`
/// (a desk test) every utterance is a request.
#[test]
fn speech_that_does_not_call_the_assistant_is_left() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s");
    synth_saying(&session, 0, true, None);
    assert!(said(&session).iter().all(|s| s.wake.is_none()));
    let answers = |out: &Path| -> Vec<String> {
        std::fs::read_to_string(out.join("decisions.jsonl"))
            .unwrap()
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|d| d["kind"] == "answer")
            .map(|d| d["request"][1].as_str().unwrap_or("").to_string())
            .collect()
    };
    let out = dir.path().join("out");
    let o = replay_voice(&session, &out, &["--no-lm"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("heard: 0 request(s), 0 not caught, 0 call(s) of the assistant alone, 2 utterance(s) not said to it"),
        "{stdout}"
    );
    assert_eq!(answers(&out), Vec::<String>::new());
    let transcript = std::fs::read_to_string(out.join("transcript.jsonl")).unwrap();
    assert!(!transcript.contains("catch that"), "{transcript}");

    let desk = dir.path().join("desk");
    let o = replay_voice(&session, &desk, &["--wake", "none", "--no-lm"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        answers(&desk),
        ["What does the sign say?", "What is around me?"]
    );
    // A wake phrase that cannot be one is refused, naming the form.
    let o = replay_voice(&session, &desk, &["--wake", "hey"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("ending in a name"));
}

/// Requests at the edges are bounded: an empty text gives a silent line, a text longer than
/// the voice takes and a request after the audio's last frame are skipped and counted, a
/// voice running past the end is cut, and overlapping voices add up.
#[test]
fn requests_at_the_edges_are_spoken_skipped_or_cut() {
    let mut sc = find_scenario(Path::new("scenarios"), SCENARIO).unwrap();
    let base = sc.requests[0].clone();
    let at = |t_s: f64, text: &str| {
        let mut r = base.clone();
        r.t_s = t_s;
        r.text = text.to_string();
        r
    };
    sc.requests = vec![
        at(1.0, ""),
        at(2.0, &"word ".repeat(401)),
        at(3.0, "Where is the door?"),
        at(3.3, "Is it far?"),
        at(11.5, "What is in front of me now?"),
        at(11.98, "Too late."),
    ];
    let t = tempfile::tempdir().unwrap();
    assert!(
        ModelFile::PiperVoice.path().exists(),
        "the Piper voice is needed for this test (run models/fetch)"
    );
    let opts = SynthOptions {
        duration_s: Some(SECS),
        slam_fps: None,
        rgb_fps: Some(0.0),
        et_fps: None,
        semidense: None,
        spoken_requests: true,
        ..SynthOptions::default()
    };
    let sum = write_session(&sc, t.path(), &opts).unwrap();
    let counts = sum.spoken.unwrap();
    assert_eq!((counts.spoken, counts.skipped, counts.cut), (4, 2, 1));
    let text = std::fs::read_to_string(t.path().join("spoken_requests.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let requests: Vec<u64> = lines
        .iter()
        .map(|l| l["request"].as_u64().unwrap())
        .collect();
    assert_eq!(
        requests,
        [0, 2, 3, 4],
        "lines name their requests.jsonl line"
    );
    assert_eq!(lines[0]["text"], "");
    assert_eq!(lines[0]["start_ns"], lines[0]["end_ns"]);
    assert!(lines[0]["voice_start_ns"].is_null());
    // The first voice is still going when the second starts: both are spoken.
    assert!(lines[1]["end_ns"].as_i64().unwrap() > lines[2]["start_ns"].as_i64().unwrap());
    assert_eq!(lines[3]["cut"], true);
    let (times, _) = frames(t.path());
    assert_eq!(
        lines[3]["end_ns"].as_i64().unwrap(),
        T0_NS + ((times.len() as i128 * 2_000_000_000 + 48_000) / 96_000) as i64,
        "cut at the stream's end"
    );
}

/// Without the option nothing changes: no audio stream, no spoken requests file.
#[test]
fn without_the_option_there_is_no_audio() {
    let t = tempfile::tempdir().unwrap();
    let sum = synth(t.path(), 1, false);
    assert!(sum.spoken.is_none());
    assert!(!t.path().join("spoken_requests.jsonl").exists());
    let rec = AriaRecording::open(t.path().join("recording.vrs")).unwrap();
    assert!(rec.vrs().stream(AUDIO).is_none());
}

/// Without the voice the option fails, naming the fix.
#[test]
fn without_the_voice_the_option_fails_naming_the_fix() {
    let t = tempfile::tempdir().unwrap();
    let empty = t.path().join("no-models");
    std::fs::create_dir_all(&empty).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_vista"))
        .env("VISTA_MODELS", &empty)
        .args([
            "synth",
            SCENARIO,
            "--duration",
            "1",
            "--spoken-requests",
            "--out",
            t.path().join("s").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("models/fetch"), "{err}");
    assert!(
        !t.path().join("s/recording.vrs").exists(),
        "fails before writing"
    );
}

/// Voice to answer, end to end: a replay with `--voice-requests` takes its requests from the
/// recording's microphones (not from `requests.jsonl`), and answers each spoken request with
/// a decision whose request is the words heard.
#[test]
fn a_replay_with_voice_requests_answers_what_the_wearer_said() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s");
    synth(&session, 0, true);
    let out = dir.path().join("out");
    let o = replay_voice(&session, &out, &["--no-lm"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("heard: 2 request(s), 0 not caught"),
        "{stdout}"
    );
    let decisions = std::fs::read_to_string(out.join("decisions.jsonl")).unwrap();
    let asked: Vec<(Option<u64>, String)> = decisions
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|d| d["kind"] == "answer")
        .map(|d| {
            (
                d["request_index"].as_u64(),
                d["request"][1].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let texts: Vec<&str> = asked.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(
        texts,
        ["What does the sign say?", "What is around me?"],
        "{decisions}"
    );
    // Not from the scripted file: no request index.
    assert!(asked.iter().all(|(i, _)| i.is_none()));
    // Each answer says what the request was understood to ask.
    let asks: Vec<String> = decisions
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|d| d["kind"] == "answer")
        .map(|d| d["ask"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(asks, ["read_text sign", "scene"], "{decisions}");
    // Each is timed from the end of the wearer's voice to the answer's first audio (in lock
    // step on the virtual clock, as coarse as an audio block; `vista profile` measures it in
    // real time).
    let profile: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("profile.json")).unwrap()).unwrap();
    let spoken = &profile["spoken_requests"];
    assert_eq!(spoken["answers"], 2, "{spoken}");
    for row in spoken["rows"].as_array().unwrap() {
        let st: Vec<f64> = row["stages_ms"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert!(st.iter().all(|&ms| ms >= 0.0), "{row}");
        assert!((st[0] + st[1] + st[2] - st[3]).abs() < 1e-3, "{row}");
        assert!(st[0] > 0.0, "{row}");
    }
    assert!(stdout.contains("voice_end_to_first_audio"), "{stdout}");
}
