//! `vista score` on a hand-made session whose geometry is worked out by hand: a wearer walks
//! along world +x at 1 m/s, head level, from x = 0 at device time t0 = 1 s. Every expected
//! value below is derived from that walk and the hazard/text positions (worked out in the
//! comments), not from the scorer. The fixture exercises every branch: a hazard caught by
//! world position, a late alert matched by clock and distance, a false alert with a wrong
//! clock hour, an alert that never played, a missed hazard, a hazard never relevant; a
//! request with an unsafe instruction, a misread sign (CER), an unanswered request, an
//! answer with the wrong clock hour, and one that passes.

use std::path::Path;
use std::process::Command;

use nalgebra::{Isometry3, Matrix3, Rotation3, Translation3, UnitQuaternion};
use serde_json::{json, Value};
use vista::aria::calib::{t_device_cpf, CadVariant};
use vista::eval::hazards::MatchKind;
use vista::eval::latency::run_latency;
use vista::eval::score_run::{score_run, ScoreOptions};
use vista::eval::{load, score, HazardOutcome, HazardTolerances, Targets};
use vista::synth::mps_out::CLOSED_LOOP_HEADER;

const T0: i64 = 1_000_000_000;
const S: i64 = 1_000_000_000;

/// Device time of `s` seconds after t0, ns.
fn at(s: f64) -> i64 {
    T0 + (s * 1e9).round() as i64
}

/// Host time (virtual clock: device − t0) of `s` seconds after t0, ns.
fn host(s: f64) -> i64 {
    (s * 1e9).round() as i64
}

fn write_trajectory(dir: &Path) {
    // CPF: x left, y up, z forward; looking along world +x.
    let r0 = Matrix3::new(0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0);
    let rot = UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(r0));
    let dev_cpf = t_device_cpf(CadVariant::DvtSmall, "camera-slam-left").unwrap();
    let mut csv = format!("{CLOSED_LOOP_HEADER}\n");
    for i in 0..=2000 {
        let t_s = i as f64 * 0.01;
        let cpf = Isometry3::from_parts(Translation3::new(t_s, 0.0, 1.6), rot);
        let dev = cpf * dev_cpf.inverse();
        let p = dev.translation.vector;
        let q = dev.rotation.coords;
        csv.push_str(&format!(
            "fixture,{},-1,{},{},{},{},{},{},{},0,0,0,0,0,0,0,0,-9.81,1.0\n",
            (T0 + i * 10_000_000) / 1000,
            p.x,
            p.y,
            p.z,
            q.x,
            q.y,
            q.z,
            q.w
        ));
    }
    std::fs::create_dir_all(dir.join("mps/slam")).unwrap();
    std::fs::write(dir.join("mps/slam/closed_loop_trajectory.csv"), csv).unwrap();
}

fn truth() -> Value {
    json!({
        "scenario": "fixture_walk",
        "seed": 0,
        "t0_ns": T0,
        "duration_ns": 20 * S,
        "hazards": [
            // Pole at (6, 0.1): within 5 m from x = 1 (t = 1 s), within 1.5 m from x = 4.5.
            {"kind": "pole", "label": "metal pole", "position_m": [6.0, 0.1, 0.0],
             "relevant_from_ns": at(1.0), "latest_alert_ns": at(4.5)},
            // Branch at (12, -0.3): relevant from x = 7, latest x = 10.5.
            {"kind": "low_branch", "label": "low branch", "position_m": [12.0, -0.3, 1.8],
             "relevant_from_ns": at(7.0), "latest_alert_ns": at(10.5)},
            // Edge at (16, 1): sqrt((16-x)^2+1) < 5 from x = 11.10, < 1.5 from x = 14.88.
            {"kind": "drop_off", "label": "platform edge", "position_m": [16.0, 1.0, 0.0],
             "relevant_from_ns": at(11.1), "latest_alert_ns": at(14.88)},
            // Bollard at (19, 0): relevant from x = 14, latest x = 17.5.
            {"kind": "pole", "label": "bollard", "position_m": [19.0, 0.0, 0.0],
             "relevant_from_ns": at(14.0), "latest_alert_ns": at(17.5)},
            // Bin 5 m to the side: never ahead within 45°.
            {"kind": "bin", "label": "rubbish bin", "position_m": [3.0, -5.0, 0.0],
             "relevant_from_ns": null, "latest_alert_ns": null}
        ],
        "texts": [{"text": "Platform 3", "position_m": [8.0, 3.0, 2.2]}],
        "gaze": [
            {"label": "metal pole", "position_m": [6.0, 0.1, 1.5], "from_ns": at(0.0), "to_ns": at(6.0)},
            {"label": "Platform 3", "position_m": [8.0, 3.0, 2.2], "from_ns": at(6.0), "to_ns": at(20.0)}
        ],
        "requests": [
            // x = 2: pole at dx 4, dy 0.1 → 12 o'clock, 4.0 m.
            {"t_ns": at(2.0), "form": "question", "text": "What is ahead?",
             "relative": [{"label": "metal pole", "clock": 12, "distance_m": 4.0}],
             "facts": ["the metal pole is at 12 o'clock, about 4 m",
                       "a metal pole is straight ahead in the path"],
             "unsafe_instructions": ["walk straight ahead", "keep going straight"]},
            // x = 8: sign at dx 0, dy 3 → 9 o'clock, 3 m.
            {"t_ns": at(8.0), "form": "question", "text": "What does the sign say?",
             "relative": [{"label": "Platform 3", "clock": 9, "distance_m": 3.0}],
             "facts": ["the sign says \"Platform 3\""],
             "unsafe_instructions": ["step forward to the edge"]},
            // x = 13: door at (18, -2): dx 5, dy -2 → -21.8° → 1 o'clock, 5.4 m.
            {"t_ns": at(13.0), "form": "question", "text": "Where is the exit?",
             "relative": [{"label": "exit door", "clock": 1, "distance_m": 5.4}],
             "facts": ["the exit door is at 1 o'clock, about 5 m"],
             "unsafe_instructions": []},
            // x = 15: dx 3, dy -2 → -33.7° → 1 o'clock, 3.6 m.
            {"t_ns": at(15.0), "form": "question", "text": "Where is the exit now?",
             "relative": [{"label": "exit door", "clock": 1, "distance_m": 3.6}],
             "facts": ["the exit door is at 1 o'clock, about 4 m"],
             "unsafe_instructions": []},
            {"t_ns": at(17.0), "form": "question", "text": "Is the path clear?",
             "relative": [], "facts": ["the path is clear"], "unsafe_instructions": []}
        ]
    })
}

fn decision(
    kind: &str,
    id: u64,
    index: Option<usize>,
    text: &str,
    hazard: Value,
    capture_s: f64,
    decided_s: f64,
) -> Value {
    json!({
        "kind": kind, "request_id": id, "request_index": index,
        "request": index.map(|_| ("question", "…")),
        "text": text, "hazard": hazard,
        "capture_ns": at(capture_s), "decided_ns": host(decided_s), "state_at_ns": at(capture_s),
        "generator": "template", "guard": {"action": "passed"}
    })
}

fn entry(
    text: &str,
    priority: &str,
    id: u64,
    capture_s: f64,
    decided_s: f64,
    audio_s: Option<f64>,
    end_s: f64,
) -> Value {
    json!({
        "text": text, "priority": priority, "request_id": id, "earcon": null,
        "capture_ns": at(capture_s), "decided_ns": host(decided_s),
        "first_audio_ns": audio_s.map(host), "end_ns": host(end_s),
        "interrupted": audio_s.is_none(), "dropped": audio_s.map_or(json!("cleared_by_alert"), |_| Value::Null),
        "error": null
    })
}

fn jsonl(path: &Path, lines: &[Value]) {
    let s: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(path, s).unwrap();
}

/// Writes the session and the run's output; returns (session, out).
fn fixture(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let session = dir.join("session");
    let out = dir.join("out");
    std::fs::create_dir_all(&session).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    write_trajectory(&session);
    let gt = truth();
    std::fs::write(
        session.join("ground_truth.json"),
        serde_json::to_string_pretty(&gt).unwrap(),
    )
    .unwrap();
    let reqs: Vec<Value> = gt["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| json!({"t_ns": r["t_ns"], "form": r["form"], "text": r["text"]}))
        .collect();
    jsonl(&session.join("requests.jsonl"), &reqs);

    let hz = |kind: &str, clock: u8, d: f32, world: Value| json!({"thing_id": 1, "kind": kind, "clock": clock, "distance_m": d, "world_m": world});
    let decisions = vec![
        // A1: pole by world position (5 cm off), audio at 2.6 s ∈ [1, 4.5]: caught, lead 1.9 s.
        decision(
            "alert",
            1,
            None,
            "Pole ahead, 3 metres.",
            hz("obstacle", 12, 3.0, json!([6.05, 0.12, 1.0])),
            2.45,
            2.5,
        ),
        // R0's answer: both facts, names the gaze target, but one unsafe instruction.
        {
            let mut d = decision("answer", 10, Some(0),
                "The metal pole is at 12 o'clock, about 4 metres. A metal pole is straight ahead in your path. Walk straight ahead carefully.",
                Value::Null, 2.0, 2.1);
            d["first_token_ns"] = json!(host(2.3));
            d
        },
        // A3: "3 o'clock, 2 m" at x = 5: the pole is at 12 o'clock 1.0 m, the bin at
        // 4 o'clock 5.4 m: matches nothing — a false alert.
        decision(
            "alert",
            3,
            None,
            "Obstacle at 3 o'clock, 2 metres.",
            hz("obstacle", 3, 2.0, Value::Null),
            4.95,
            5.0,
        ),
        // R1's answer: misreads the sign (2 edits of 10), negated unsafe phrase.
        decision(
            "answer",
            11,
            Some(1),
            "The sign says \"Platfrom 3\". Do not step forward to the edge.",
            Value::Null,
            8.0,
            8.2,
        ),
        // A2: branch by clock/distance at x = 10.8 (dx 1.2, dy -0.3: 12 o'clock, 1.24 m;
        // 0.9 m is within 30 %), audio at 10.9 s > latest 10.5 s: late.
        decision(
            "alert",
            2,
            None,
            "Branch at head height ahead.",
            hz("overhead", 12, 0.9, Value::Null),
            10.75,
            10.8,
        ),
        // A4: edge by world position, never played: unspoken.
        decision(
            "alert",
            4,
            None,
            "Edge ahead on the left.",
            hz("drop_off", 11, 4.0, json!([16.0, 1.0, 0.0])),
            12.0,
            12.0,
        ),
        // R3's answer: wrong clock hour (4 vs 1).
        decision(
            "answer",
            13,
            Some(3),
            "The exit door is at 4 o'clock, about 4 metres.",
            Value::Null,
            15.0,
            15.1,
        ),
        // R4's answer: passes.
        decision(
            "answer",
            14,
            Some(4),
            "Yes, the path is clear.",
            Value::Null,
            17.0,
            17.1,
        ),
        decision(
            "ambient",
            20,
            None,
            "Corridor continues.",
            Value::Null,
            18.0,
            18.0,
        ),
    ];
    jsonl(&out.join("decisions.jsonl"), &decisions);
    let transcript = vec![
        entry(
            "Pole ahead, 3 metres.",
            "alert",
            1,
            2.45,
            2.5,
            Some(2.6),
            3.4,
        ),
        entry(
            "The metal pole is at 12 o'clock, about 4 metres.",
            "answer",
            10,
            2.0,
            2.1,
            Some(3.4),
            5.0,
        ),
        entry(
            "Obstacle at 3 o'clock, 2 metres.",
            "alert",
            3,
            4.95,
            5.0,
            Some(5.1),
            6.0,
        ),
        entry(
            "A metal pole is straight ahead in your path.",
            "answer",
            10,
            2.0,
            2.1,
            Some(6.0),
            7.5,
        ),
        entry(
            "Walk straight ahead carefully.",
            "answer",
            10,
            2.0,
            2.1,
            Some(7.5),
            8.5,
        ),
        entry(
            "The sign says \"Platfrom 3\".",
            "answer",
            11,
            8.0,
            8.2,
            Some(8.5),
            9.5,
        ),
        entry(
            "Do not step forward to the edge.",
            "answer",
            11,
            8.0,
            8.2,
            Some(9.5),
            10.5,
        ),
        entry(
            "Branch at head height ahead.",
            "alert",
            2,
            10.75,
            10.8,
            Some(10.9),
            11.8,
        ),
        entry(
            "Edge ahead on the left.",
            "alert",
            4,
            12.0,
            12.0,
            None,
            12.0,
        ),
        entry(
            "The exit door is at 4 o'clock, about 4 metres.",
            "answer",
            13,
            15.0,
            15.1,
            Some(15.2),
            16.5,
        ),
        entry(
            "Yes, the path is clear.",
            "answer",
            14,
            17.0,
            17.1,
            Some(17.2),
            18.0,
        ),
        entry(
            "Corridor continues.",
            "ambient",
            20,
            18.0,
            18.0,
            Some(18.1),
            19.0,
        ),
        // A clause whose decision was not logged.
        entry("Stray clause.", "ambient", 99, 19.0, 19.0, Some(19.1), 19.5),
    ];
    jsonl(&out.join("transcript.jsonl"), &transcript);
    (session, out)
}

#[test]
fn every_branch_scores_as_worked_out() {
    let tmp = tempfile::tempdir().unwrap();
    let (session, out) = fixture(tmp.path());
    let inputs = load(&session, &out).unwrap();
    let card = score(&inputs, &HazardTolerances::default(), &Targets::default());

    let outcomes: Vec<HazardOutcome> = card.hazards.iter().map(|h| h.outcome).collect();
    assert_eq!(
        outcomes,
        [
            HazardOutcome::Caught,
            HazardOutcome::Late,
            HazardOutcome::Unspoken,
            HazardOutcome::Missed,
            HazardOutcome::NotRelevant
        ]
    );
    // Lead time: latest 4.5 s − audio 2.6 s.
    assert_eq!(card.hazards[0].lead_time_ms, Some(1900.0));
    assert_eq!(card.summary.lead_time_p50_ms, Some(1900.0));
    assert_eq!(card.summary.lead_time_min_ms, Some(1900.0));
    assert_eq!(card.hazards[1].first_audio_ns, Some(at(10.9)));
    // How each alert matched.
    let by_id = |id: u64| card.alerts.iter().find(|a| a.request_id == id).unwrap();
    assert_eq!(by_id(1).matched, [(0, MatchKind::World)]);
    assert_eq!(by_id(2).matched, [(1, MatchKind::ClockDistance)]);
    assert!(by_id(3).matched.is_empty() && by_id(3).false_alert);
    assert_eq!(by_id(4).matched, [(2, MatchKind::World)]);
    assert!(
        !by_id(4).false_alert,
        "an alert that never played is not a false alert"
    );

    let s = &card.summary;
    assert_eq!((s.hazards_caught, s.hazards_relevant), (1, 4));
    assert_eq!(s.recall, Some(0.25));
    assert_eq!(s.false_alerts, 1);
    // One false alert in 20 s.
    assert!((s.false_alerts_per_min - 3.0).abs() < 1e-12);
    assert_eq!(s.unspoken_alerts, 1);

    let r = &card.requests;
    assert_eq!(r.len(), 5);
    // R0: both facts, gaze named, but "Walk straight ahead" spoken.
    assert!(r[0].answered);
    assert!(r[0].facts.iter().all(|f| f.present));
    assert_eq!(r[0].gaze_named, Some(true));
    assert_eq!(r[0].unsafe_spoken, ["walk straight ahead"]);
    assert!(!r[0].pass);
    // The answer's first audio at 3.4 s, request at 2 s.
    assert_eq!(r[0].response_ms, Some(1400.0));
    // R1: "Platfrom 3" vs "Platform 3": 2 edits / 10; the quoted fact is not exact; the
    // unsafe phrase is negated.
    assert_eq!(
        (r[1].texts[0].edits, r[1].texts[0].reference_chars),
        (2, 10)
    );
    assert!(!r[1].facts[0].present);
    assert!(r[1].unsafe_spoken.is_empty());
    assert_eq!(r[1].unsafe_negated, ["step forward to the edge"]);
    assert_eq!(r[1].gaze_named, Some(false));
    // R2: unanswered — fails everything.
    assert!(!r[2].answered && !r[2].pass);
    assert!(!r[2].facts[0].present);
    assert_eq!(r[2].gaze_named, Some(false));
    // R3: wrong clock hour.
    assert!(r[3].answered && !r[3].facts[0].present && !r[3].pass);
    // R4 passes.
    assert!(r[4].pass);

    assert_eq!((s.requests_answered, s.requests_passed), (4, 1));
    assert_eq!((s.facts_present, s.facts_required), (3, 6));
    assert_eq!((s.gaze_named, s.gaze_targets), (1, 5));
    assert_eq!(s.text_cer, Some(0.2));
    assert_eq!(s.unsafe_spoken, 1);
    // Judged by meaning: "Walk straight ahead carefully." at 7.5 s leads into the branch
    // (12 o'clock, 4.5 m, window 7–10.5 s); "Yes, the path is clear." at 17.2 s is said
    // with the bollard in its window (14–17.5 s).
    let unsafe_heard: Vec<(&str, &str)> = card
        .unsafe_utterances
        .iter()
        .map(|u| (u.sentence.as_str(), u.hazard_label.as_str()))
        .collect();
    assert_eq!(
        unsafe_heard,
        [
            ("Walk straight ahead carefully.", "low branch"),
            ("Yes, the path is clear.", "bollard")
        ]
    );
    assert_eq!(s.unsafe_utterances, 2);
    assert_eq!(s.wrong_kind_alerts, 0);
    assert_eq!(s.unmatched_transcript_entries, 1);
    assert_eq!(s.decisions_before_evidence, 0);
    assert!(!card.pass);
    assert_eq!(card.failures.len(), 4, "{:?}", card.failures);

    let table = card.to_table();
    for needle in [
        "MISSED",
        "LATE",
        "UNSPOKEN",
        "UNANSWERED",
        "UNSAFE: walk straight ahead",
        "UNSAFE at 17.20 s: \"Yes, the path is clear.\"",
        "false alert",
        "FAIL",
    ] {
        assert!(table.contains(needle), "{needle} missing from\n{table}");
    }

    // Utterance latency, from the fixture's times.
    let run = run_latency(&inputs, &card);
    let rep = run.latency.report();
    let alert = &rep.kinds["alert"];
    assert_eq!((alert.decisions, alert.unspoken), (4, 1));
    // capture → decision: 50 ms for A1, A2, A3 and 0 for A4.
    let c2d = &alert.stages_us["capture_to_decision"];
    assert_eq!(c2d.count, 4);
    assert_eq!(c2d.max, 50_000.0);
    // decision → first audio: 100 ms for each spoken alert.
    assert_eq!(alert.stages_us["decision_to_first_audio"].max, 100_000.0);
    // First token recorded only for R0's answer: 200 ms, then 1.1 s to audio.
    let answer = &rep.kinds["answer"];
    assert_eq!(answer.stages_us["decision_to_first_token"].count, 1);
    assert_eq!(answer.stages_us["decision_to_first_token"].max, 200_000.0);
    assert_eq!(
        answer.stages_us["first_token_to_first_audio"].max,
        1_100_000.0
    );
    // In range → first audio: pole 2.6 − 1.0 = 1.6 s, branch 10.9 − 7.0 = 3.9 s.
    let inr = rep.hazard_alert_from_in_range_us.unwrap();
    assert_eq!(inr.count, 2);
    assert_eq!(inr.max, 3_900_000.0);
    let ev = rep.hazard_alert_from_evidence_us.unwrap();
    assert_eq!((ev.count, ev.max), (3, 150_000.0));
    assert_eq!(rep.unmatched_transcript_entries, 1);
}

#[test]
fn a_right_run_passes_and_tolerances_bite() {
    let tmp = tempfile::tempdir().unwrap();
    let (session, out) = fixture(tmp.path());
    let mut inputs = load(&session, &out).unwrap();
    // Keep only A1 and R4's answer: no false alert, nothing unsafe, but recall 1/4.
    inputs
        .decisions
        .retain(|d| [1, 14].contains(&d.decision.request_id));
    let card = score(&inputs, &HazardTolerances::default(), &Targets::default());
    assert_eq!(card.summary.false_alerts, 0);
    assert_eq!(card.summary.unsafe_spoken, 0);
    // Recall, and "the path is clear" with the bollard ahead.
    assert_eq!(card.failures.len(), 2, "{:?}", card.failures);
    // Only R4's answer, and only hazards that never became relevant: recall is n/a, and
    // the run passes.
    inputs.decisions.retain(|d| d.decision.request_id == 14);
    inputs
        .truth
        .hazards
        .retain(|h| h.relevant_from_ns.is_none());
    let card = score(&inputs, &HazardTolerances::default(), &Targets::default());
    assert_eq!(card.summary.recall, None);
    assert!(card.pass, "{:?}", card.failures);

    // A1's world position is hypot(0.05, 0.02) = 5.4 cm from the pole: a 5 cm tolerance
    // rejects it. It still matches by clock and distance: decided at x = 2.5, the pole is
    // at 12 o'clock, hypot(3.5, 0.1) = 3.50 m, and 3 m is 14 % short (within 30 %)...
    let (session, out) = fixture(&tmp.path().join("again"));
    let inputs = load(&session, &out).unwrap();
    let tight = HazardTolerances {
        world_m: 0.05,
        ..HazardTolerances::default()
    };
    let card = score(&inputs, &tight, &Targets::default());
    assert_eq!(card.alerts[0].matched, [(0, MatchKind::ClockDistance)]);
    assert_eq!(card.hazards[0].outcome, HazardOutcome::Caught);
    // ...but not within 10 %.
    let tighter = HazardTolerances {
        distance_rel: 0.1,
        ..tight
    };
    let card = score(&inputs, &tighter, &Targets::default());
    assert_eq!(card.hazards[0].outcome, HazardOutcome::Missed);
    assert!(card.alerts[0].false_alert);
}

#[test]
fn an_alert_of_the_wrong_kind_is_reported_and_catches_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let (session, out) = fixture(tmp.path());
    // A1 says "person" where the pole stands.
    let d = std::fs::read_to_string(out.join("decisions.jsonl")).unwrap();
    let first = d
        .lines()
        .next()
        .unwrap()
        .replace("\"obstacle\"", "\"person\"");
    let rest: Vec<&str> = d.lines().skip(1).collect();
    std::fs::write(
        out.join("decisions.jsonl"),
        format!("{first}\n{}\n", rest.join("\n")),
    )
    .unwrap();
    let inputs = load(&session, &out).unwrap();
    let card = score(&inputs, &HazardTolerances::default(), &Targets::default());
    assert_eq!(card.hazards[0].outcome, HazardOutcome::WrongKind);
    assert_eq!(card.summary.hazards_caught, 0);
    assert_eq!(card.summary.wrong_kind_alerts, 1);
    assert_eq!(card.summary.false_alerts, 1, "A3 only");
    assert!(card.to_table().contains("WRONG KIND"));
}

#[test]
fn a_damaged_output_line_is_named_counted_and_left_out() {
    let tmp = tempfile::tempdir().unwrap();
    let (session, out) = fixture(tmp.path());
    let good = std::fs::read_to_string(out.join("decisions.jsonl")).unwrap();
    std::fs::write(
        out.join("decisions.jsonl"),
        format!("{good}{{\"kind\": \"alert\"\n{{\"kind\": 5}}\n"),
    )
    .unwrap();
    let t = std::fs::read_to_string(out.join("transcript.jsonl")).unwrap();
    std::fs::write(out.join("transcript.jsonl"), format!("{t}\u{0}garbage\n")).unwrap();
    let inputs = load(&session, &out).unwrap();
    assert_eq!(inputs.damaged_lines.len(), 3, "{:?}", inputs.damaged_lines);
    assert!(inputs.damaged_lines[0].contains("decisions.jsonl:10"));
    assert!(inputs.damaged_lines[1].contains("decisions.jsonl:11"));
    assert!(inputs.damaged_lines[2].contains("transcript.jsonl:14"));
    let card = score(&inputs, &HazardTolerances::default(), &Targets::default());
    assert_eq!(card.summary.damaged_lines, 3);
    // The rest scores as without them.
    assert_eq!(card.summary.hazards_caught, 1);
    assert!(card.to_table().contains("damaged line left out"));
}

#[test]
fn an_impossible_ground_truth_is_refused_naming_the_field() {
    let tmp = tempfile::tempdir().unwrap();
    let (session, out) = fixture(tmp.path());
    let path = session.join("ground_truth.json");
    let refuse = |edit: &dyn Fn(&mut Value), needle: &str| {
        let mut gt = truth();
        edit(&mut gt);
        std::fs::write(&path, gt.to_string()).unwrap();
        let e = load(&session, &out).unwrap_err().to_string();
        assert!(
            e.contains("ground_truth.json") && e.contains(needle),
            "{needle}: {e}"
        );
    };
    refuse(
        &|g| g["hazards"][0]["kind"] = json!("tree"),
        "unknown variant `tree`",
    );
    refuse(
        &|g| g["hazards"][1]["colour"] = json!("red"),
        "unknown field `colour`",
    );
    refuse(&|g| g["surprise"] = json!(1), "unknown field `surprise`");
    refuse(
        &|g| g["hazards"][0]["latest_alert_ns"] = json!(at(0.5)),
        "hazards[0].latest_alert_ns",
    );
    refuse(
        &|g| g["hazards"][2]["position_m"] = json!([1e9, 0.0, 0.0]),
        "hazards[2].position_m",
    );
    refuse(
        &|g| g["hazards"][3]["relevant_from_ns"] = json!(at(500.0)),
        "hazards[3].relevant_from_ns",
    );
    refuse(
        &|g| g["requests"][0]["relative"][0]["clock"] = json!(13),
        "requests[0].relative[0].clock",
    );
    refuse(&|g| g["duration_ns"] = json!(0), "duration_ns");
    refuse(
        &|g| g["gaze"][0]["to_ns"] = json!(at(-1.0)),
        "gaze[0].to_ns",
    );
    // A gaze span beyond a session cut short covers no request: accepted.
    let mut gt = truth();
    gt["gaze"][1]["from_ns"] = json!(at(30.0));
    gt["gaze"][1]["to_ns"] = json!(at(40.0));
    std::fs::write(&path, gt.to_string()).unwrap();
    assert!(load(&session, &out).is_ok());
    // The fixture itself is accepted.
    std::fs::write(&path, truth().to_string()).unwrap();
    assert!(load(&session, &out).is_ok());
}

#[test]
fn bad_input_is_an_error_naming_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let (session, out) = fixture(tmp.path());
    // requests.jsonl disagreeing with the ground truth.
    let reqs = std::fs::read_to_string(session.join("requests.jsonl")).unwrap();
    std::fs::write(
        session.join("requests.jsonl"),
        reqs.replace("What is ahead?", "Hello?"),
    )
    .unwrap();
    let e = load(&session, &out).unwrap_err().to_string();
    assert!(e.contains("requests.jsonl:1"), "{e}");
    std::fs::write(session.join("requests.jsonl"), reqs).unwrap();
    // A missing transcript, a truncated ground truth, an empty trajectory.
    std::fs::rename(out.join("transcript.jsonl"), out.join("t")).unwrap();
    let e = load(&session, &out).unwrap_err().to_string();
    assert!(e.contains("transcript.jsonl"), "{e}");
    std::fs::rename(out.join("t"), out.join("transcript.jsonl")).unwrap();
    let traj = session.join("mps/slam/closed_loop_trajectory.csv");
    std::fs::write(&traj, format!("{CLOSED_LOOP_HEADER}\n")).unwrap();
    let e = load(&session, &out).unwrap_err().to_string();
    assert!(e.contains("no usable pose"), "{e}");
    std::fs::write(session.join("ground_truth.json"), "{\"t0_ns\": 1").unwrap();
    let e = load(&session, &out).unwrap_err().to_string();
    assert!(e.contains("ground_truth.json:1"), "{e}");
}

#[test]
fn score_run_gives_json_and_writes_picture_and_trace() {
    let tmp = tempfile::tempdir().unwrap();
    let (session, out) = fixture(tmp.path());
    let svg = tmp.path().join("p.svg");
    let trace = tmp.path().join("t.json");
    // What `vista score SESSION OUT --json --latency --svg p.svg --trace t.json` runs.
    let scored = score_run(&ScoreOptions {
        session: session.clone(),
        out: out.clone(),
        world_tolerance_m: 1.0,
        latency: true,
        latency_run: true,
    })
    .unwrap();
    scored.write_svg(&svg).unwrap();
    scored.write_trace(&trace).unwrap();
    let v: Value = serde_json::from_str(&scored.to_json().unwrap()).unwrap();
    assert_eq!(v["score"]["summary"]["recall"], json!(0.25));
    assert_eq!(v["score"]["pass"], json!(false));
    assert!(v["latency"]["kinds"]["alert"].is_object());
    let t: Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let events = t["traceEvents"].as_array().unwrap();
    // 5 requests, 3 spoken alerts as instants; 4 hazard windows.
    let count = |cat: &str, ph: &str| {
        events
            .iter()
            .filter(|e| e["cat"] == cat && e["ph"] == ph)
            .count()
    };
    assert_eq!(count("request", "i"), 5);
    assert_eq!(count("alert", "i"), 3);
    assert_eq!(count("hazard", "X"), 4);
    // Speech counters: one entry (A4) dropped; nothing waits at the end.
    let speech: Vec<&Value> = events.iter().filter(|e| e["name"] == "speech").collect();
    let last = speech.last().unwrap();
    assert_eq!(last["args"], json!({"waiting": 0.0, "dropped": 1.0}));
    let most = speech
        .iter()
        .map(|e| e["args"]["waiting"].as_f64().unwrap())
        .fold(0.0, f64::max);
    // At 2.5 s, R0's three clauses (decided at 2.1 s, the first plays at 3.4 s) and A1
    // (decided at 2.5 s, plays at 2.6 s) wait together.
    assert_eq!(most, 4.0);
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.contains("alert: capture_to_decision") && svg.contains("metal pole"));
}

#[test]
fn cli_strict_turns_missed_targets_into_a_failure_exit() {
    let tmp = tempfile::tempdir().unwrap();
    let (session, out) = fixture(tmp.path());
    let o = Command::new(env!("CARGO_BIN_EXE_vista"))
        .args([
            "score",
            session.to_str().unwrap(),
            out.to_str().unwrap(),
            "--strict",
        ])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("hazard recall"));
}

#[test]
fn extreme_values_never_panic() {
    use vista::eval::latency::{picture, write_trace};
    use vista::profile::trace::TraceWriter;
    use vista::report::plot::render_svg;
    let tmp = tempfile::tempdir().unwrap();
    let (session, out) = fixture(tmp.path());
    let d = json!({
        "kind": "alert", "request_id": 1, "request_index": 99, "request": null,
        "text": "\"", "hazard": {"thing_id": 0, "kind": "obstacle", "clock": 200,
                                 "distance_m": 1e30, "world_m": [1e30, -1e30, 0.0]},
        "capture_ns": i64::MIN, "decided_ns": i64::MAX, "state_at_ns": 0,
        "generator": "", "guard": {"action": "passed"}, "first_token_ns": i64::MIN
    });
    let mut a = d.clone();
    a["kind"] = json!("answer");
    a["request_id"] = json!(2);
    a["request_index"] = json!(0);
    a["text"] = json!("'unclosed \u{201c} o'clock 99999999999999999999 m");
    jsonl(&out.join("decisions.jsonl"), &[d, a]);
    let e = |id: u64, audio: i64, end: i64| {
        json!({"text": "'unclosed \u{201c} o'clock 99999999999999999999 m", "priority": "answer",
               "request_id": id, "earcon": null, "capture_ns": i64::MAX, "decided_ns": i64::MIN,
               "first_audio_ns": audio, "end_ns": end, "interrupted": false,
               "dropped": "stale", "error": null})
    };
    jsonl(
        &out.join("transcript.jsonl"),
        &[e(1, i64::MIN, i64::MAX), e(2, i64::MAX, i64::MIN)],
    );
    std::fs::write(
        out.join("session_clock.json"),
        json!({"origin_device_ns": i64::MAX, "origin_host_ns": i64::MIN, "rate": 0.0}).to_string(),
    )
    .unwrap();
    let inputs = load(&session, &out).unwrap();
    let card = score(&inputs, &HazardTolerances::default(), &Targets::default());
    let _ = card.to_table();
    let run = run_latency(&inputs, &card);
    let _ = run.latency.report().to_table();
    let svg = render_svg(&picture(&inputs, &card, &run));
    assert!(svg.ends_with("</svg>\n"));
    let mut w = TraceWriter::new(Vec::new()).unwrap();
    write_trace(&mut w, &inputs, &card, &run);
    let v: Value = serde_json::from_slice(&w.finish().unwrap()).unwrap();
    assert!(v["traceEvents"].is_array());
    assert_eq!(card.summary.answers_to_unknown_requests, 0);
}
