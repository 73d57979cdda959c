//! A run as a Rerun recording (feature `rerun`), read back with Rerun's own reader (the
//! `rerun-sdk` Python package, through `scripts/rrd_summary.py`): the entity paths a run
//! logs, one camera frame per frame delivered at its capture time, one speech line per
//! transcript entry and one decision line per decision, the ground truth when the session
//! has one; an unwritable path fails the run before it starts, naming the path; a viewer that
//! is not there costs the run nothing.
//!
//! The reader's Python is `VISTA_RERUN_PYTHON`, else the set-up's venv (`scripts/setup.sh
//! --rerun` installs `rerun-sdk` there).
#![cfg(feature = "rerun")]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use vista::pipeline::{AssistantOptions, Input, LmOptions, Pace, Pipeline, ReplayInput};
use vista::runtime::StopReason;
use vista::synth::{find_scenario, write_session, SynthOptions};
use vista::view::ViewTarget;

fn python() -> PathBuf {
    std::env::var_os("VISTA_RERUN_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let home = std::env::var_os("HOME").unwrap_or_default();
            PathBuf::from(home).join(".cache/vista/venv/bin/python")
        })
}

/// The recording's summary, as Rerun's reader sees it.
fn summary(rrd: &Path) -> serde_json::Value {
    let out = Command::new(python())
        .arg("scripts/rrd_summary.py")
        .arg(rrd)
        .arg("--texts")
        .output()
        .unwrap_or_else(|e| panic!("{}: {e} (set VISTA_RERUN_PYTHON)", python().display()));
    assert!(
        out.status.success(),
        "rrd_summary.py failed (is rerun-sdk installed? scripts/setup.sh --rerun): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn session(dir: &Path, scenario: &str, duration_s: f64) -> PathBuf {
    let sc = find_scenario(Path::new("scenarios"), scenario).unwrap();
    let out = dir.join("s");
    let opts = SynthOptions {
        duration_s: Some(duration_s),
        rgb_fps: Some(2.0),
        ..SynthOptions::default()
    };
    write_session(&sc, &out, &opts).unwrap();
    out
}

fn assistant(out: &Path) -> AssistantOptions {
    let mut o = AssistantOptions::new(out);
    o.sight.read_text = false;
    o.sight.objects = false;
    o.lm = LmOptions {
        choice: vista::assistant::lm::setup::LmChoice::Off,
        ..LmOptions::default()
    };
    o
}

fn lock_step(session: &Path) -> Input {
    Input::Replay(ReplayInput {
        pace: Pace::LockStep,
        ..ReplayInput::new(session)
    })
}

fn lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn ns_set(v: &serde_json::Value) -> BTreeSet<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .filter_map(|x| x.as_i64())
        .collect()
}

#[test]
fn a_run_read_back_with_rerun_holds_its_frames_pose_things_decisions_and_speech() {
    let tmp = tempfile::tempdir().unwrap();
    let s = session(tmp.path(), "pole_to_door", 8.0);
    let (out, rrd) = (tmp.path().join("run"), tmp.path().join("run.rrd"));
    let run = Pipeline::new(lock_step(&s))
        .with_assistant(assistant(&out))
        .with_view(Some(ViewTarget::File(rrd.clone())))
        .run()
        .unwrap();
    assert_eq!(run.stop_reason, StopReason::EndOfSource);
    let report = run
        .profile
        .base()
        .rerun
        .clone()
        .expect("the profile counts the recording");
    assert!(report.logged > 100, "{report:?}");
    assert_eq!(report.failed, 0, "{report:?}");
    let profile: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("profile.json")).unwrap()).unwrap();
    assert_eq!(profile["replay"]["rerun"]["logged"], report.logged);

    let rrd_summary = summary(&rrd);
    let entity = |p: &str| {
        rrd_summary
            .get(p)
            .unwrap_or_else(|| panic!("{p} missing: {:?}", rrd_summary.as_object().unwrap().keys()))
    };
    for p in [
        "/world",
        "/world/device",
        "/world/device/cpf",
        "/world/trajectory",
        "/world/things",
        "/world/map",
        "/cameras/camera-rgb",
        "/cameras/camera-slam-left",
        "/cameras/camera-slam-right",
        "/state/text",
        "/events/decisions",
        "/speech",
        "/truth/hazards",
        "/truth/windows",
    ] {
        entity(p);
    }
    assert_eq!(entity("/world/map")["static"], true);
    assert_eq!(
        entity("/cameras/camera-rgb")["columns"],
        serde_json::json!(["EncodedImage:blob", "EncodedImage:media_type"])
    );

    // Every frame delivered is in the recording, at its capture time, unless the run says
    // items were dropped behind.
    let streams = &run.profile.base().streams;
    for (name, entity_path) in [
        ("camera-rgb", "/cameras/camera-rgb"),
        ("camera-slam-left", "/cameras/camera-slam-left"),
    ] {
        let delivered = streams[name].delivered;
        let rows = entity(entity_path)["rows"].as_u64().unwrap();
        if report.dropped == 0 {
            assert_eq!(rows, delivered, "{name}");
        } else {
            assert!(
                rows <= delivered && rows + report.dropped >= delivered,
                "{name}"
            );
        }
        let times = ns_set(&entity(entity_path)["device_ns"]);
        assert_eq!(
            times.len() as u64,
            rows,
            "{name}: one frame per capture time"
        );
        let p = ns_set(&entity(entity_path)["processing_ns"]);
        assert_eq!(
            p.len(),
            times.len(),
            "{name}: each frame has a processing time"
        );
    }

    // One speech line per transcript entry, one decision line per decision, in order.
    let transcript = lines(&out.join("transcript.jsonl"));
    let decisions = lines(&out.join("decisions.jsonl"));
    assert!(!decisions.is_empty() && !transcript.is_empty());
    let spoken: Vec<String> = entity("/speech")["texts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect();
    assert_eq!(spoken.len(), transcript.len());
    for (heard, entry) in spoken.iter().zip(&transcript) {
        assert!(
            heard.starts_with(entry["text"].as_str().unwrap()),
            "{heard:?} vs {entry}"
        );
    }
    let decided = entity("/events/decisions");
    assert_eq!(decided["rows"].as_u64().unwrap(), decisions.len() as u64);
    let decided_at = ns_set(&decided["processing_ns"]);
    for d in &decisions {
        assert!(
            decided_at.contains(&d["decided_ns"].as_i64().unwrap()),
            "{d}"
        );
    }
    // The alert for the pole is among the hazards and on the device timeline no later than
    // the state it was decided from.
    let hazards = entity("/events/hazards");
    assert!(hazards["rows"].as_u64().unwrap() >= 1);
    let truth: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(s.join("ground_truth.json")).unwrap())
            .unwrap();
    let windows = entity("/truth/windows")["texts"].as_array().unwrap().len();
    let expected: usize = truth["hazards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            usize::from(h["relevant_from_ns"].is_i64()) + usize::from(h["latest_alert_ns"].is_i64())
        })
        .sum();
    assert_eq!(windows, expected);
}

#[test]
fn an_unwritable_path_fails_before_the_run_naming_it_and_a_missing_viewer_costs_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let s = session(tmp.path(), "pole_to_door", 2.0);
    let bad = tmp.path().join("no/such/dir/run.rrd");
    let err = Pipeline::new(lock_step(&s))
        .with_assistant(assistant(&tmp.path().join("a")))
        .with_view(Some(ViewTarget::File(bad.clone())))
        .run()
        .unwrap_err();
    assert!(
        err.to_string().contains(&bad.display().to_string()),
        "{err}"
    );
    assert!(
        !tmp.path().join("a/decisions.jsonl").exists(),
        "nothing ran"
    );

    // Nothing listens on this port: the run goes on and ends in order.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let run = Pipeline::new(lock_step(&s))
        .with_assistant(assistant(&tmp.path().join("b")))
        .with_view(Some(ViewTarget::Connect(format!("127.0.0.1:{port}"))))
        .run()
        .unwrap();
    assert_eq!(run.stop_reason, StopReason::EndOfSource);
    assert!(tmp.path().join("b/decisions.jsonl").is_file());
}

/// A real Aria Gen2 recording (H.265 cameras, the glasses' own pose): its frames are decoded
/// and kept as JPEG, at most twice a second per camera, on the device timeline within the
/// recording; the device pose is there.
#[test]
fn a_gen2_recording_is_shown_with_its_h265_frames_as_jpeg() {
    const VRS: &str = "tests/data/gen2/aria_gen2_unit_test_sequence_with_bluetooth.vrs";
    let tmp = tempfile::tempdir().unwrap();
    let rrd = tmp.path().join("gen2.rrd");
    let run = Pipeline::new(lock_step(Path::new(VRS)))
        .with_view(Some(ViewTarget::File(rrd.clone())))
        .run()
        .unwrap();
    assert_eq!(run.stop_reason, StopReason::EndOfSource);
    let report = run.profile.base().rerun.clone().unwrap();
    assert_eq!((report.dropped, report.failed), (0, 0), "{report:?}");
    let summary = summary(&rrd);
    let rgb = &summary["/cameras/camera-rgb"];
    assert_eq!(
        rgb["columns"],
        serde_json::json!(["EncodedImage:blob", "EncodedImage:media_type"])
    );
    let times: Vec<i64> = ns_set(&rgb["device_ns"]).into_iter().collect();
    let delivered = run.profile.base().streams["camera-rgb"].delivered as usize;
    assert!(!times.is_empty() && times.len() <= delivered, "{times:?}");
    for w in times.windows(2) {
        assert!(w[1] - w[0] >= 500_000_000, "at most twice a second: {w:?}");
    }
    assert!(
        summary.get("/world/device").is_some(),
        "the glasses' own pose"
    );
}

/// A recorder dropped without being finished (a run that failed) ends its thread at once,
/// and what it logged is a readable recording.
#[test]
fn a_recorder_dropped_unfinished_ends_and_leaves_a_readable_recording() {
    use vista::view::{Stamp, ViewItem, ViewRecorder};
    let tmp = tempfile::tempdir().unwrap();
    let rrd = tmp.path().join("cut.rrd");
    let (recorder, log) = ViewRecorder::start(&ViewTarget::File(rrd.clone())).unwrap();
    log.send(ViewItem::Start {
        label: "cut".into(),
        device_from_cpf: None,
    });
    for i in 0..10 {
        log.send(ViewItem::Pose {
            stamp: Stamp {
                device_ns: i * 100_000_000,
                host_ns: i * 100_000_000,
            },
            world_from_device: nalgebra::Isometry3::translation(i as f64 * 0.1, 0.0, 1.6),
            quality: 1.0,
        });
    }
    let t0 = std::time::Instant::now();
    drop(recorder);
    assert!(t0.elapsed() < std::time::Duration::from_secs(30));
    // Items offered afterwards are dropped, not queued for ever.
    log.send(ViewItem::Start {
        label: "late".into(),
        device_from_cpf: None,
    });
    let s = summary(&rrd);
    assert!(s.get("/session").is_some(), "{s}");
}
