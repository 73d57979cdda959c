//! Shared set-up of the tests that run the `vista` binary end to end (`speak_cli`,
//! `live_speak`, `profile_text_reads`, `assistant_cli`): the command, JSON and JSON-lines
//! readers, a synthetic session, a free loopback port, and the checks of a run's
//! `trace.json`. Each test binary includes it with
//! `#[path = "common/cli.rs"] mod cli;` and uses what it needs.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The `vista` binary of this build, run from the crate root (so `tests/data/...` paths
/// resolve).
pub fn vista() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vista"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

/// The real Aria Gen1 unit-test recording (0.15 s, with calibration, no MPS).
pub fn gen1_vrs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/gen1/aria_unit_test_timecode_sequence_calib.vrs")
}

/// A JSON file, parsed (panics naming the file).
pub fn json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A JSON-lines file, one value per non-empty line.
pub fn jsonl(path: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .collect()
}

/// Writes the synthetic session `scenario` into `out` with the extra `synth` options
/// `args` (e.g. `["--duration", "10", "--rgb-fps", "0"]`); panics when `synth` fails.
pub fn synth(scenario: &str, args: &[&str], out: &Path) {
    let o = vista()
        .args(["synth", scenario])
        .args(args)
        .arg("--out")
        .arg(out)
        .stdout(Stdio::null())
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "synth {scenario}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// `vista replay SESSION --asap -q --speak DIR` with `extra` options; returns the output
/// and panics (with its standard error) when the run fails.
pub fn replay_speak(session: &Path, dir: &Path, extra: &[&str]) -> std::process::Output {
    let o = vista()
        .arg("replay")
        .arg(session)
        .args(["--asap", "-q", "--speak"])
        .arg(dir)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "replay --speak {}: {}",
        session.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// A free TCP port on the loopback interface.
pub fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// Checks that `path` is a valid Chrome trace of a spoken run: complete spans have a
/// non-negative duration, begin/end pairs balance per track, counters have arguments; the
/// runtime's stages (`ingest`, `perception`, `speak`) and the `perception queue` and
/// `assistant` counter tracks are there, and the `link` track exactly when `live`.
pub fn assert_trace_is_valid(path: &Path, live: bool) {
    let trace = json(path);
    let events = trace["traceEvents"].as_array().expect("traceEvents");
    let mut open: std::collections::HashMap<(u64, u64), i64> = Default::default();
    for e in events {
        let ph = e["ph"].as_str().expect("ph");
        assert!(e["pid"].is_u64(), "{e}");
        match ph {
            "X" => {
                assert!(
                    e["ts"].is_number() && e["dur"].as_f64().unwrap() >= 0.0,
                    "{e}"
                );
            }
            "B" | "E" => {
                let k = (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap());
                *open.entry(k).or_default() += if ph == "B" { 1 } else { -1 };
                assert!(open[&k] >= 0, "E without B: {e}");
            }
            "C" => assert!(e["args"].is_object(), "{e}"),
            "M" | "i" => {}
            other => panic!("unexpected phase {other}: {e}"),
        }
    }
    assert!(open.values().all(|&n| n == 0), "unbalanced B/E: {open:?}");
    let x_named = |n: &str| events.iter().any(|e| e["ph"] == "X" && e["name"] == n);
    // The runtime's stages, not only utterances.
    for stage in ["ingest", "perception", "speak"] {
        assert!(x_named(stage), "no {stage} span");
    }
    let counter = |n: &str| events.iter().any(|e| e["ph"] == "C" && e["name"] == n);
    for c in ["perception queue", "assistant"] {
        assert!(counter(c), "no {c} counter track");
    }
    assert_eq!(counter("link"), live, "the link track is live input's");
    // A perception span lasts no longer than the whole run.
    let perception_us: f64 = events
        .iter()
        .filter(|e| e["ph"] == "X" && e["name"] == "perception")
        .map(|e| e["dur"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert!(perception_us < 60e6, "{perception_us}");
}

/// The names of the trace's threads (`thread_name` metadata), for track checks.
pub fn thread_names(trace: &serde_json::Value) -> Vec<String> {
    trace["traceEvents"]
        .as_array()
        .expect("traceEvents")
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .filter_map(|e| e["args"]["name"].as_str().map(str::to_string))
        .collect()
}
