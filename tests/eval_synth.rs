//! The scorer against the synthetic sessions: the wearer's clock hour and distance read
//! from the session's MPS trajectory and recording calibration agree with the ones the
//! synthesiser computed from its own kinematic model (an independent path), the hazard
//! windows follow their definition on that track, every scripted fact and unsafe
//! instruction of every scenario is recognised when said as written, and a run that says
//! exactly the right things in time passes the scorer (what `vista score --strict` runs),
//! in-process.

use std::path::Path;

use serde_json::{json, Value};
use vista::eval::load::{device_from_cpf, read_head_track, read_json};
use vista::eval::requests::{fact_present, unsafe_in};
use vista::eval::score_run::{score_run, ScoreOptions};
use vista::eval::truth::GroundTruthFile;
use vista::synth::{find_scenario, scenario_files, write_session, Scenario, SynthOptions};

fn synth(name: &str, secs: f64, dir: &Path) {
    let sc = find_scenario(Path::new("scenarios"), name).unwrap();
    // Exact MPS files: the scorer's head track is compared with the synthesiser's truth.
    let opts = SynthOptions {
        duration_s: Some(secs),
        slam_fps: None,
        mps_error: None,
        ..SynthOptions::default()
    };
    write_session(&sc, dir, &opts).unwrap();
}

#[test]
fn head_track_agrees_with_the_synthesiser() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    synth("pole_to_door", 13.0, dir);
    let truth: GroundTruthFile = read_json(&dir.join("ground_truth.json")).unwrap();
    let cpf = device_from_cpf(&dir.join("recording.vrs"));
    let head = read_head_track(&dir.join("mps/slam/closed_loop_trajectory.csv"), &cpf).unwrap();
    let mut checked = 0;
    for r in &truth.requests {
        for rel in &r.relative {
            let pos = positions(&truth, &rel.label);
            let (clock, d) = head.relative(r.t_ns, pos).unwrap();
            assert_eq!(clock.get(), rel.clock, "{} at {}", rel.label, r.t_ns);
            // The ground truth rounds to 0.1 m.
            assert!(
                (d - rel.distance_m).abs() <= 0.05 + 1e-6,
                "{} {d} vs {}",
                rel.label,
                rel.distance_m
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 3);
    // The pole's window: its near face (4 cm before its centre) within 5 m from
    // relevant_from, its centre within 1.5 m at latest_alert, and not 10 ms before.
    let h = &truth.hazards[0];
    let (from, to) = (h.relevant_from_ns.unwrap(), h.latest_alert_ns.unwrap());
    let dist = |t: i64| head.relative(t, h.position_m).unwrap().1;
    assert!(dist(from) < 5.04 + 0.01, "{}", dist(from));
    assert!(
        dist(to) < 1.5 && dist(to - 10_000_000) >= 1.5,
        "{} {}",
        dist(to),
        dist(to - 10_000_000)
    );
}

/// Where a labelled thing of the pole_to_door world is (from the scenario file).
fn positions(truth: &GroundTruthFile, label: &str) -> [f64; 3] {
    if let Some(h) = truth.hazards.iter().find(|h| h.label == label) {
        return h.position_m;
    }
    let sc = Scenario::load(Path::new("scenarios/pole_to_door.json")).unwrap();
    let v = serde_json::to_value(&sc.world).unwrap();
    for d in v["doorways"].as_array().unwrap() {
        if d["label"] == label {
            let c = d["center_m"].as_array().unwrap();
            return [
                c[0].as_f64().unwrap(),
                c[1].as_f64().unwrap(),
                c[2].as_f64().unwrap(),
            ];
        }
    }
    panic!("no {label}");
}

#[test]
fn every_scenario_fact_is_recognised_as_written() {
    let mut n = 0;
    for f in scenario_files(Path::new("scenarios")).unwrap() {
        let sc = Scenario::load(&f).unwrap();
        for r in &sc.requests {
            for fact in &r.facts {
                assert!(fact_present(fact, fact), "{}: {fact}", f.display());
                n += 1;
            }
            let (spoken, _) = unsafe_in(&r.unsafe_instructions.join(". "), &r.unsafe_instructions);
            assert_eq!(spoken, r.unsafe_instructions);
        }
    }
    assert!(n >= 6);
    // The computed facts' form (synth::truth) as well.
    assert!(fact_present(
        "the sign \"EXIT\" is at 11 o'clock, about 6 m",
        "The sign \"EXIT\" is at 11 o'clock, about 6 m."
    ));
}

#[test]
fn a_right_run_passes_vista_score() {
    let tmp = tempfile::tempdir().unwrap();
    let session = tmp.path().join("s");
    let out = tmp.path().join("o");
    synth("pole_to_door", 13.0, &session);
    std::fs::create_dir_all(&out).unwrap();
    let truth: GroundTruthFile = read_json(&session.join("ground_truth.json")).unwrap();
    let t0 = truth.t0_ns;
    // One timely alert per relevant hazard, at its position.
    let mut decisions = Vec::new();
    let mut transcript = Vec::new();
    for (k, h) in truth.hazards.iter().enumerate() {
        let Some(from) = h.relevant_from_ns else {
            continue;
        };
        let p = h.position_m;
        let id = 1 + k as u64;
        decisions.push(json!({
            "kind": "alert", "request_id": id, "request_index": null, "request": null,
            "text": "Obstacle ahead.",
            "hazard": {"thing_id": id, "kind": "obstacle", "clock": 12, "distance_m": 4.5,
                       "world_m": [p[0], p[1], p[2]]},
            "capture_ns": from + 200_000_000, "decided_ns": from + 250_000_000 - t0,
            "state_at_ns": from + 200_000_000, "generator": "template", "guard": {"action": "passed"}
        }));
        transcript.push(json!({
            "text": "Obstacle ahead.", "priority": "alert", "request_id": id, "earcon": "rising",
            "capture_ns": from + 200_000_000, "decided_ns": from + 250_000_000 - t0,
            "first_audio_ns": from + 260_000_000 - t0, "end_ns": from + 900_000_000 - t0,
            "interrupted": false, "dropped": null, "error": null
        }));
    }
    assert!(!decisions.is_empty(), "pole_to_door has relevant hazards");
    for (i, r) in truth.requests.iter().enumerate() {
        let text = r
            .facts
            .iter()
            .map(|f| format!("{f}."))
            .collect::<Vec<_>>()
            .join(" ");
        let id = 10 + i as u64;
        let decided = r.t_ns + 300_000_000 - t0;
        decisions.push(json!({
            "kind": "answer", "request_id": id, "request_index": i, "request": [r.form, r.text],
            "text": text, "hazard": null, "capture_ns": r.t_ns, "decided_ns": decided,
            "state_at_ns": r.t_ns, "generator": "template", "guard": {"action": "passed"}
        }));
        transcript.push(json!({
            "text": text, "priority": "answer", "request_id": id, "earcon": null,
            "capture_ns": r.t_ns, "decided_ns": decided, "first_audio_ns": decided + 50_000_000,
            "end_ns": decided + 2_000_000_000, "interrupted": false, "dropped": null, "error": null
        }));
    }
    let lines = |v: &[Value]| v.iter().map(|l| format!("{l}\n")).collect::<String>();
    std::fs::write(out.join("decisions.jsonl"), lines(&decisions)).unwrap();
    std::fs::write(out.join("transcript.jsonl"), lines(&transcript)).unwrap();
    let scored = score_run(&ScoreOptions {
        session: session.clone(),
        out: out.clone(),
        world_tolerance_m: 1.0,
        latency: false,
        latency_run: false,
    })
    .unwrap();
    // What `vista score --strict` exits on.
    assert!(
        scored.card.pass,
        "targets missed: {}\n{}",
        scored.card.failures.join("; "),
        scored.card.to_table()
    );
    let v: Value = serde_json::from_str(&scored.to_json().unwrap()).unwrap();
    let s = &v["score"]["summary"];
    assert_eq!(s["recall"], json!(1.0));
    assert_eq!(s["false_alerts"], json!(0));
    assert_eq!(s["facts_present"], s["facts_required"]);
    assert_eq!(s["requests_passed"], json!(2));
    // Lead time: latest − (relevant_from + 260 ms); the minimum over the hazards.
    let min_lead = truth
        .hazards
        .iter()
        .filter_map(|h| Some((h.latest_alert_ns? - h.relevant_from_ns? - 260_000_000) as f64 / 1e6))
        .fold(f64::INFINITY, f64::min);
    assert_eq!(s["lead_time_min_ms"], json!(min_lead));
}
