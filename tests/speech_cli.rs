//! `vista say`: speaks clause by clause into a WAV file with a transcript, rejects bad
//! settings with an error, and falls back from a missing device without failing.

use std::process::Command;

use vista::speech::transcript::read_transcript;

fn vista() -> Command {
    Command::new(env!("CARGO_BIN_EXE_vista"))
}

#[test]
fn say_to_wav_writes_clauses_on_one_timeline() {
    let dir = tempfile::tempdir().unwrap();
    let wav = dir.path().join("say.wav");
    let jsonl = dir.path().join("say.jsonl");
    let out = vista()
        .args([
            "say",
            "Hello there. The door is ahead, about three metres, on your left.",
        ])
        .args(["--rate", "300", "--out"])
        .arg(&wav)
        .arg("--transcript")
        .arg(&jsonl)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let t = read_transcript(&jsonl).unwrap();
    let texts: Vec<&str> = t.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Hello there.",
            "The door is ahead,",
            "about three metres,",
            "on your left."
        ]
    );
    for w in t.windows(2) {
        // Clauses follow each other without gaps or overlaps.
        assert_eq!(w[1].first_audio_ns, Some(w[0].end_ns));
    }
    for e in &t {
        assert!(e.first_audio_ns.unwrap() >= e.decided_ns);
        assert!(!e.interrupted);
    }
    let reader = hound::WavReader::open(&wav).unwrap();
    let secs = reader.duration() as f64 / 22_050.0;
    let end_secs = t.last().unwrap().end_ns as f64 * 1e-9;
    // The file ends with the last clause (timeline origin at start-up, within 1 ms).
    assert!(
        end_secs - secs < 1e-3 && end_secs >= secs - 1e-4,
        "{secs} vs {end_secs}"
    );
}

#[test]
fn say_rejects_bad_settings() {
    let out = vista()
        .args(["say", "hi", "--rate", "20", "--audio", "null"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("rate_wpm = 20"));
    let out = vista()
        .args(["say", "hi", "--audio", "wav"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--out"));
}

#[test]
fn say_falls_back_when_the_device_does_not_play() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join(".asoundrc"),
        "pcm.!default { type hw card 31 }\n",
    )
    .unwrap();
    let wav = home.path().join("fallback.wav");
    let out = vista()
        .env("HOME", home.path())
        .args(["say", "Fallback works.", "--audio", "device", "--out"])
        .arg(&wav)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    // One clear line, no ALSA noise.
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(lines[0].contains("no working audio device"));
    assert!(String::from_utf8_lossy(&out.stdout).contains("to wav"));
    assert!(hound::WavReader::open(&wav).unwrap().duration() > 5_000);
}

#[test]
fn say_speaks_standard_input_clause_by_clause() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("t.jsonl");
    let mut child = vista()
        .args(["say", "-", "--audio", "wav", "--out"])
        .arg(dir.path().join("s.wav"))
        .arg("--transcript")
        .arg(&jsonl)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // "é" split across two writes must survive.
    stdin.write_all(b"Caf\xc3").unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(50));
    stdin
        .write_all(b"\xa9 on the corner, open until nine.")
        .unwrap();
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let t = read_transcript(&jsonl).unwrap();
    let texts: Vec<&str> = t.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(texts, ["Café on the corner,", "open until nine."]);
}

#[test]
fn say_standard_input_drops_no_clause_when_the_queue_is_full() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("t.jsonl");
    let mut child = vista()
        .args(["say", "-", "--audio", "wav", "--rate", "900", "--out"])
        .arg(dir.path().join("s.wav"))
        .arg("--transcript")
        .arg(&jsonl)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Far more clauses at once than the speaker's queue holds (64): the rest used to be
    // refused and never spoken.
    let n = 200;
    let text: String = (1..=n).map(|i| format!("Line {i}. ")).collect();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(text.as_bytes()).unwrap();
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let t = read_transcript(&jsonl).unwrap();
    let spoken: String = t.iter().map(|e| format!("{} ", e.text)).collect();
    for i in 1..=n {
        assert!(
            spoken.contains(&format!("Line {i}.")),
            "Line {i} missing: {spoken}"
        );
    }
}
