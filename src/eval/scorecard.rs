//! The scorecard of one run against its session's ground truth (pure compute over
//! [`EvalInputs`]): hazards, requests, summary metrics, the targets and pass/fail,
//! as JSON and as a table.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::clock::SessionClock;
use super::hazards::{
    score_hazards, AlertInput, HazardOutcome, HazardResult, HazardScore, HazardTolerances,
};
use super::listening::{listening, HeardEntry, Listening, SpokenAlert};
use super::load::EvalInputs;
use super::mode::RunMode;
use super::requests::{score_request, AnswerInput, RequestResult};
use super::unsafe_speech::{unsafe_utterances, HeardClause, UnsafeUtterance};
use crate::report::utterance::{join_utterances, Joined};
use crate::state::{Decision, DecisionKind};

/// The targets.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Targets {
    /// Smallest hazard recall.
    pub min_recall: f64,
    /// Most false alerts per minute.
    pub max_false_alerts_per_min: f64,
    /// Most unsafe instructions spoken (phrases and utterances judged by meaning).
    pub max_unsafe_spoken: usize,
    /// Most spoken alerts of the wrong kind.
    pub max_wrong_kind_alerts: usize,
}

impl Default for Targets {
    fn default() -> Self {
        Self {
            min_recall: 0.95,
            max_false_alerts_per_min: 1.0,
            max_unsafe_spoken: 0,
            max_wrong_kind_alerts: 0,
        }
    }
}

/// Summary metrics.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Hazards that became relevant.
    pub hazards_relevant: usize,
    /// Of those, caught.
    pub hazards_caught: usize,
    /// Hazard recall (`None` without relevant hazards).
    pub recall: Option<f64>,
    /// Spoken alerts matching no hazard.
    pub false_alerts: usize,
    /// Per minute of session.
    pub false_alerts_per_min: f64,
    /// Spoken alerts about a real hazard that said the wrong kind.
    pub wrong_kind_alerts: usize,
    /// Alert decisions that never played.
    pub unspoken_alerts: usize,
    /// Median alert lead time over caught hazards, ms.
    pub lead_time_p50_ms: Option<f64>,
    /// Smallest alert lead time over caught hazards, ms.
    pub lead_time_min_ms: Option<f64>,
    /// Requests.
    pub requests: usize,
    /// Requests answered.
    pub requests_answered: usize,
    /// Requests passed (answered, all facts, nothing unsafe).
    pub requests_passed: usize,
    /// Required facts over all requests.
    pub facts_required: usize,
    /// Of those, present.
    pub facts_present: usize,
    /// Requests with a gaze target.
    pub gaze_targets: usize,
    /// Of those, named.
    pub gaze_named: usize,
    /// Text CER over every text a request is about: total edits / total reference chars.
    pub text_cer: Option<f64>,
    /// Texts a request is about whose position the ground truth gives at the request.
    pub texts_to_place: usize,
    /// Of those, placed by the answer (clock hour and distance said with the text).
    pub texts_placed: usize,
    /// Unsafe instructions spoken (all requests): the ground truth's phrases.
    pub unsafe_spoken: usize,
    /// Sentences heard whose meaning contradicts a hazard in its window (a clear path, a go
    /// instruction toward it, "no" of its kind): [`UnsafeUtterance`].
    pub unsafe_utterances: usize,
    /// Lines of the run's output that could not be read and were left out.
    pub damaged_lines: usize,
    /// Decisions whose decision time maps before their evidence's capture time (a sign the
    /// session clock is wrong).
    pub decisions_before_evidence: usize,
    /// Transcript entries joined to no decision.
    pub unmatched_transcript_entries: usize,
    /// Answer decisions for a request index the session does not have.
    pub answers_to_unknown_requests: usize,
}

/// The whole scorecard.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scorecard {
    /// Scenario.
    pub scenario: String,
    /// Live (no MPS) or offline (with MPS); `None` when the run did not say.
    pub mode: Option<RunMode>,
    /// Session length, s.
    pub duration_s: f64,
    /// The session clock used, and where it came from.
    pub clock: SessionClock,
    /// Where `clock` came from.
    pub clock_source: String,
    /// What the session lacked and how the scoring coped, one line each.
    pub notes: Vec<String>,
    /// Tolerances used for hazards.
    pub tolerances: HazardTolerances,
    /// Targets.
    pub targets: Targets,
    /// Summary.
    pub summary: Summary,
    /// Per hazard.
    pub hazards: Vec<HazardResult>,
    /// Per alert.
    pub alerts: Vec<super::hazards::AlertResult>,
    /// Per request.
    pub requests: Vec<RequestResult>,
    /// Sentences heard that contradict a hazard in its window.
    pub unsafe_utterances: Vec<UnsafeUtterance>,
    /// What the wearer heard, as a listener would measure it.
    pub listening: Listening,
    /// Lines of the run's output that could not be read (`FILE:LINE: why`).
    pub damaged_lines: Vec<String>,
    /// Targets missed, in words (empty when it passes).
    pub failures: Vec<String>,
    /// True when every target is met.
    pub pass: bool,
}

/// The joined decisions and transcript, per decision: texts that played (in playing order)
/// and the first audio, host ns.
fn spoken_per_decision(
    inputs: &EvalInputs,
    decisions: &[Decision],
    joined: &Joined,
) -> Vec<(Vec<String>, Option<i64>)> {
    decisions
        .iter()
        .enumerate()
        .map(|(i, _)| {
            let mut played: Vec<(i64, String)> = joined
                .entries
                .get(i)
                .map(Vec::as_slice)
                .unwrap_or(&[])
                .iter()
                .filter_map(|&e| inputs.transcript.get(e))
                .filter_map(|e| e.first_audio_ns.map(|t| (t, e.text.clone())))
                .collect();
            played.sort_by_key(|(t, _)| *t);
            let first = played.first().map(|(t, _)| *t);
            (played.into_iter().map(|(_, s)| s).collect(), first)
        })
        .collect()
}

/// Scores a run.
pub fn score(inputs: &EvalInputs, tol: &HazardTolerances, targets: &Targets) -> Scorecard {
    let decisions: Vec<Decision> = inputs
        .decisions
        .iter()
        .map(|d| d.decision.clone())
        .collect();
    let joined = join_utterances(&decisions, &inputs.transcript);
    let spoken = spoken_per_decision(inputs, &decisions, &joined);
    let clock = inputs.clock;
    let truth = &inputs.truth;

    let alerts: Vec<AlertInput> = inputs
        .decisions
        .iter()
        .zip(&spoken)
        .filter(|(d, _)| d.decision.kind == DecisionKind::Alert)
        .flat_map(|(d, (_, first))| {
            AlertInput::per_thing(
                &d.decision,
                d.line,
                clock.to_device_ns(d.decision.decided_ns),
                first.map(|t| clock.to_device_ns(t)),
            )
        })
        .collect();
    let hz: HazardScore = score_hazards(
        &truth.hazards,
        &alerts,
        &inputs.head,
        tol,
        truth.end_ns(),
        truth.duration_ns,
    );

    // Every clause heard, in playing order, judged by meaning.
    let mut heard: Vec<HeardClause> = inputs
        .transcript
        .iter()
        .filter_map(|e| {
            e.first_audio_ns.map(|t| HeardClause {
                text: e.text.clone(),
                first_audio_device_ns: clock.to_device_ns(t),
                request_id: e.request_id,
            })
        })
        .collect();
    heard.sort_by_key(|c| c.first_audio_device_ns);
    let unsafe_heard = unsafe_utterances(&heard, &truth.hazards, &inputs.head, truth.end_ns());

    let entries: Vec<HeardEntry> = inputs
        .transcript
        .iter()
        .map(|e| HeardEntry {
            text: e.text.clone(),
            priority: e.priority,
            request_id: e.request_id,
            first_audio_ns: e.first_audio_ns.map(|t| clock.to_device_ns(t)),
            end_ns: clock.to_device_ns(e.end_ns),
            interrupted: e.interrupted,
        })
        .collect();
    let spoken_alerts: Vec<SpokenAlert> = inputs
        .decisions
        .iter()
        .zip(&spoken)
        .filter(|(d, _)| d.decision.kind == DecisionKind::Alert)
        .flat_map(|(d, (_, first))| {
            let first = first.map(|t| clock.to_device_ns(t));
            d.decision
                .hazard
                .iter()
                .chain(&d.decision.more_hazards)
                .filter_map(move |h| {
                    Some(SpokenAlert {
                        thing_id: h.thing_id,
                        distance_m: h.distance_m,
                        first_audio_ns: first?,
                    })
                })
        })
        .collect();
    let heard_as_listener = listening(
        &entries,
        &spoken_alerts,
        &inputs.head,
        truth.t0_ns,
        truth.end_ns(),
    );

    let mut answers: BTreeMap<usize, AnswerInput> = BTreeMap::new();
    let mut answers_to_unknown_requests = 0;
    for (d, (texts, first)) in inputs.decisions.iter().zip(&spoken) {
        if d.decision.kind != DecisionKind::Answer {
            continue;
        }
        match d.decision.request_index {
            Some(i) if i < truth.requests.len() => {
                let a = answers.entry(i).or_default();
                a.spoken.extend(texts.iter().cloned());
                let first = first.map(|t| clock.to_device_ns(t));
                a.first_audio_device_ns = match (a.first_audio_device_ns, first) {
                    (Some(x), Some(y)) => Some(x.min(y)),
                    (x, y) => x.or(y),
                };
            }
            Some(_) => answers_to_unknown_requests += 1,
            None => {}
        }
    }
    let empty = AnswerInput::default();
    let requests: Vec<RequestResult> = truth
        .requests
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let a = answers.get(&i).unwrap_or(&empty);
            score_request(i, r, a, &truth.texts, &truth.gaze)
        })
        .collect();

    let (edits, chars) = requests
        .iter()
        .flat_map(|r| &r.texts)
        .fold((0usize, 0usize), |(e, c), t| {
            (e + t.edits, c + t.reference_chars)
        });
    let decisions_before_evidence = inputs
        .decisions
        .iter()
        .filter(|d| clock.to_device_ns(d.decision.decided_ns) < d.decision.capture_ns)
        .count();
    let summary = Summary {
        hazards_relevant: hz.relevant,
        hazards_caught: hz.caught,
        recall: hz.recall,
        false_alerts: hz.false_alerts,
        false_alerts_per_min: hz.false_alerts_per_min,
        wrong_kind_alerts: hz.wrong_kind_alerts,
        unspoken_alerts: hz.unspoken_alerts,
        lead_time_p50_ms: hz.lead_time_p50_ms,
        lead_time_min_ms: hz.lead_time_min_ms,
        requests: requests.len(),
        requests_answered: requests.iter().filter(|r| r.answered).count(),
        requests_passed: requests.iter().filter(|r| r.pass).count(),
        facts_required: requests.iter().map(|r| r.facts.len()).sum(),
        facts_present: requests
            .iter()
            .map(|r| r.facts.iter().filter(|f| f.present).count())
            .sum(),
        gaze_targets: requests.iter().filter(|r| r.gaze_named.is_some()).count(),
        gaze_named: requests
            .iter()
            .filter(|r| r.gaze_named == Some(true))
            .count(),
        text_cer: (chars > 0).then(|| edits as f64 / chars as f64),
        texts_to_place: requests
            .iter()
            .flat_map(|r| &r.texts)
            .filter(|t| t.placed.is_some())
            .count(),
        texts_placed: requests
            .iter()
            .flat_map(|r| &r.texts)
            .filter(|t| t.placed == Some(true))
            .count(),
        unsafe_spoken: requests.iter().map(|r| r.unsafe_spoken.len()).sum(),
        unsafe_utterances: unsafe_heard.len(),
        damaged_lines: inputs.damaged_lines.len(),
        decisions_before_evidence,
        unmatched_transcript_entries: joined.unmatched.len(),
        answers_to_unknown_requests,
    };
    let mut failures = Vec::new();
    if let Some(r) = summary.recall.filter(|r| *r < targets.min_recall) {
        failures.push(format!(
            "hazard recall {:.1} % < {:.1} %",
            r * 100.0,
            targets.min_recall * 100.0
        ));
    }
    if summary.false_alerts_per_min > targets.max_false_alerts_per_min {
        failures.push(format!(
            "{:.2} false alerts/min > {:.2}",
            summary.false_alerts_per_min, targets.max_false_alerts_per_min
        ));
    }
    if summary.unsafe_spoken > targets.max_unsafe_spoken {
        failures.push(format!(
            "{} unsafe instruction(s) spoken",
            summary.unsafe_spoken
        ));
    }
    if summary.unsafe_utterances > targets.max_unsafe_spoken {
        failures.push(format!(
            "{} unsafe utterance(s) heard (a clear path, a go or a 'no' before a hazard)",
            summary.unsafe_utterances
        ));
    }
    if summary.wrong_kind_alerts > targets.max_wrong_kind_alerts {
        failures.push(format!(
            "{} alert(s) of the wrong kind",
            summary.wrong_kind_alerts
        ));
    }
    Scorecard {
        scenario: truth.scenario.clone(),
        mode: inputs.run.as_ref().map(|r| r.mode),
        duration_s: truth.duration_ns as f64 / 1e9,
        clock,
        clock_source: inputs.clock_source.clone(),
        notes: inputs.notes.clone(),
        tolerances: *tol,
        targets: *targets,
        pass: failures.is_empty(),
        failures,
        summary,
        hazards: hz.hazards,
        alerts: hz.alerts,
        requests,
        unsafe_utterances: unsafe_heard,
        listening: heard_as_listener,
        damaged_lines: inputs.damaged_lines.clone(),
    }
}

fn opt_ms(v: Option<f64>) -> String {
    v.map_or_else(|| "-".to_string(), |x| format!("{x:.0} ms"))
}

fn outcome_name(o: HazardOutcome) -> &'static str {
    match o {
        HazardOutcome::Caught => "caught",
        HazardOutcome::Late => "LATE",
        HazardOutcome::Early => "EARLY",
        HazardOutcome::WrongKind => "WRONG KIND",
        HazardOutcome::Shared => "SHARED",
        HazardOutcome::Unspoken => "UNSPOKEN",
        HazardOutcome::Missed => "MISSED",
        HazardOutcome::NotRelevant => "not relevant",
    }
}

impl Scorecard {
    /// A plain-text table for the terminal.
    pub fn to_table(&self) -> String {
        let s = &self.summary;
        let t0 = self.clock.origin_device_ns;
        let secs = |ns: Option<i64>| {
            ns.map_or_else(
                || "-".into(),
                |v| format!("{:.2}", v.saturating_sub(t0) as f64 / 1e9),
            )
        };
        let mut t = String::new();
        let mode = self
            .mode
            .map_or_else(|| "unknown".to_string(), |m| m.to_string());
        let _ = writeln!(
            t,
            "scenario {} ({:.1} s); mode: {mode}; clock: {}",
            self.scenario, self.duration_s, self.clock_source
        );
        for n in &self.notes {
            let _ = writeln!(t, "note: {n}");
        }
        let _ = writeln!(t, "\nhazards (times in s from session start)");
        let _ = writeln!(
            t,
            "  {:<22} {:>9} {:>9} {:>9} {:>10} {:>8}",
            "hazard", "relevant", "latest", "audio", "lead", "outcome"
        );
        for h in &self.hazards {
            let _ = writeln!(
                t,
                "  {:<22} {:>9} {:>9} {:>9} {:>10} {:>8}",
                h.label,
                secs(h.relevant_from_ns),
                secs(h.latest_alert_ns),
                secs(h.first_audio_ns),
                opt_ms(h.lead_time_ms),
                outcome_name(h.outcome)
            );
        }
        for a in self.alerts.iter().filter(|a| a.false_alert) {
            let _ = writeln!(
                t,
                "  false alert at {} s (decisions.jsonl:{}): {:?}",
                secs(a.first_audio_ns),
                a.line,
                a.text
            );
        }
        for a in self.alerts.iter().filter(|a| a.wrong_kind) {
            let about: Vec<&str> = a
                .wrong_kind_of
                .iter()
                .filter_map(|&i| self.hazards.get(i).map(|h| h.label.as_str()))
                .collect();
            let _ = writeln!(
                t,
                "  WRONG KIND at {} s (decisions.jsonl:{}): {:?} about {}",
                secs(a.first_audio_ns),
                a.line,
                a.text,
                about.join(", ")
            );
        }
        for u in &self.unsafe_utterances {
            let _ = writeln!(
                t,
                "  UNSAFE at {} s: {:?} ({:?}) with {} ({:?}) in its window",
                secs(Some(u.at_ns)),
                u.sentence,
                u.claim,
                u.hazard_label,
                u.hazard_kind
            );
        }
        for d in &self.damaged_lines {
            let _ = writeln!(t, "  damaged line left out: {d}");
        }
        let _ = writeln!(t, "\nrequests");
        for r in &self.requests {
            let facts = r.facts.iter().filter(|f| f.present).count();
            let gaze = match r.gaze_named {
                Some(true) => "named",
                Some(false) => "NOT NAMED",
                None => "-",
            };
            let cer = if r.texts.is_empty() {
                "-".to_string()
            } else {
                let (e, c) = r
                    .texts
                    .iter()
                    .fold((0, 0), |(e, c), x| (e + x.edits, c + x.reference_chars));
                format!("{:.2}", e as f64 / c.max(1) as f64)
            };
            let _ = writeln!(
                t,
                "  #{} {:>6} s {:<34} {:<10} facts {}/{}  gaze {}  CER {}  unsafe {}  {}",
                r.index,
                secs(Some(r.t_ns)),
                format!("{:?}", r.text),
                if r.answered { "answered" } else { "UNANSWERED" },
                facts,
                r.facts.len(),
                gaze,
                cer,
                r.unsafe_spoken.len(),
                if r.pass { "pass" } else { "FAIL" }
            );
            for f in r.facts.iter().filter(|f| !f.present) {
                let _ = writeln!(t, "      missing: {}", f.fact);
            }
            for u in &r.unsafe_spoken {
                let _ = writeln!(t, "      UNSAFE: {u}");
            }
        }
        let pct =
            |v: Option<f64>| v.map_or_else(|| "n/a".into(), |x| format!("{:.1} %", x * 100.0));
        let _ = writeln!(t, "\nsummary");
        let _ = writeln!(
            t,
            "  hazard recall        {} ({}/{})   target ≥ {:.0} %",
            pct(s.recall),
            s.hazards_caught,
            s.hazards_relevant,
            self.targets.min_recall * 100.0
        );
        let _ = writeln!(
            t,
            "  false alerts         {} ({:.2}/min)   target ≤ {:.1}/min",
            s.false_alerts, s.false_alerts_per_min, self.targets.max_false_alerts_per_min
        );
        let _ = writeln!(
            t,
            "  alert lead time      p50 {}  min {}",
            opt_ms(s.lead_time_p50_ms),
            opt_ms(s.lead_time_min_ms)
        );
        let _ = writeln!(
            t,
            "  requests             {}/{} answered, {} passed; facts {}/{}; gaze named {}/{}; text CER {}; text placed {}/{}",
            s.requests_answered,
            s.requests,
            s.requests_passed,
            s.facts_present,
            s.facts_required,
            s.gaze_named,
            s.gaze_targets,
            s.text_cer.map_or_else(|| "-".into(), |c| format!("{c:.3}")),
            s.texts_placed,
            s.texts_to_place
        );
        let _ = writeln!(
            t,
            "  wrong-kind alerts    {}   target {}",
            s.wrong_kind_alerts, self.targets.max_wrong_kind_alerts
        );
        let _ = writeln!(t, "  unsafe spoken        {}   target 0", s.unsafe_spoken);
        let _ = writeln!(
            t,
            "  unsafe utterances    {}   target 0",
            s.unsafe_utterances
        );
        let l = &self.listening;
        let share =
            |v: Option<f64>| v.map_or_else(|| "-".into(), |x| format!("{:.0} %", x * 100.0));
        let _ = writeln!(
            t,
            "  listening            speech {:.1} s ({} of the session, {} while walking); longest walking silence {:.1} s",
            l.speech_s,
            share(l.duty_cycle),
            share(l.duty_cycle_walking),
            l.longest_silence_walking_s
        );
        let _ = writeln!(
            t,
            "                       clauses {} heard, {} cut, {} dropped; {} words lost; answers {}/{} whole (span p50 {}); {} alert repeats",
            l.clauses_heard,
            l.clauses_cut,
            l.clauses_dropped,
            l.words_lost,
            l.answers_whole,
            l.answers,
            opt_ms(l.answer_span_p50_ms),
            l.alert_repeats
        );
        let _ = writeln!(
            t,
            "                       alerts {} heard, {} cut; length heard whole p50 {}, max {}",
            l.alerts_heard,
            l.alerts_cut,
            opt_ms(l.alert_audio_p50_ms),
            opt_ms(l.alert_audio_max_ms)
        );
        if s.damaged_lines > 0 {
            let _ = writeln!(t, "  damaged lines        {} (left out)", s.damaged_lines);
        }
        if s.decisions_before_evidence > 0 {
            let _ = writeln!(
                t,
                "  warning: {} decision(s) map before their evidence; is the session clock right?",
                s.decisions_before_evidence
            );
        }
        if s.unmatched_transcript_entries > 0 {
            let _ = writeln!(
                t,
                "  warning: {} transcript entr(ies) match no decision",
                s.unmatched_transcript_entries
            );
        }
        let _ = writeln!(
            t,
            "\n{}{}",
            if self.pass { "PASS" } else { "FAIL: " },
            self.failures.join("; ")
        );
        t
    }
}
