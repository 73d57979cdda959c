//! Text reading in the profile of `replay --speak` (issue 8): a short `read_sign` session
//! with RGB, replayed deterministically with PP-OCR on. The counts in `profile.json` are
//! checked against what the run independently reports (RGB frames delivered by the replay)
//! and against the throttle's rule (at most one read per second of device time), and every
//! read appears as an `ocr read` span in `trace.json`.

#[path = "common/cli.rs"]
mod cli;

use cli::{json, replay_speak, synth};

#[test]
fn text_reads_are_counted_timed_and_traced() {
    let tmp = tempfile::tempdir().unwrap();
    let session = tmp.path().join("session");
    synth("read_sign", &["--duration", "3"], &session);
    let dir = tmp.path().join("run");
    let out = replay_speak(&session, &dir, &[]);
    let profile = json(&dir.join("profile.json"));
    let t = &profile["assistant"]["text_reads"];
    assert!(
        t.is_object(),
        "no text_reads (OCR models missing?): {profile}"
    );
    let n = |k: &str| t[k].as_u64().unwrap_or_else(|| panic!("{k}: {t}"));
    // Every RGB frame the replay delivered was offered to the reader.
    let rgb = profile["replay"]["streams"]["camera-rgb"]["delivered"]
        .as_u64()
        .unwrap();
    assert_eq!(n("frames_offered"), rgb);
    // Every offered frame was read or skipped, and nothing is skipped as busy in lock step.
    assert_eq!(n("reads") + n("skipped_throttle") + n("skipped_busy"), rgb);
    assert_eq!(n("skipped_busy"), 0);
    // 3 s of device time, at most one read per second: 3 reads (0, 1, 2 s after the first
    // frame), or 4 when the last frame falls exactly 3 s after the first.
    assert!((3..=4).contains(&n("reads")), "{t}");
    // The sign's text is in view from the start: some read finds it.
    assert!(n("reads_with_text") >= 1, "{t}");
    assert_eq!(t["read_us"]["count"].as_u64(), Some(n("reads")));
    assert!(t["read_us"]["p50"].as_f64().unwrap() > 0.0);
    // The printed table has the line.
    assert!(String::from_utf8_lossy(&out.stdout).contains("text reads"));
    // Each read is a span on the timeline.
    let trace = json(&dir.join("trace.json"));
    let spans = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X" && e["name"] == "ocr read")
        .count() as u64;
    assert_eq!(spans, n("reads"));
}
