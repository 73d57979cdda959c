//! The latency picture of a scored run (pure compute over [`EvalInputs`] and its
//! [`Scorecard`]): per-utterance timings and histograms with hazard-in-range latencies from
//! the ground truth, the SVG [`Picture`], and the events of a Chrome/Perfetto trace.

use std::collections::BTreeMap;
use std::io::Write;

use super::hazards::HazardOutcome;
use super::load::EvalInputs;
use super::scorecard::Scorecard;
use crate::profile::trace::{InstantScope, TraceWriter};
use crate::report::plot::{Picture, Tick, Window};
use crate::report::run_view::{stage_distributions, utterance_bars, write_speech_counters};
use crate::report::utterance::{
    join_utterances, kind_name, timings, UtteranceLatency, UtteranceTiming,
};
use crate::state::{Decision, DecisionKind};

/// Per-decision timings (host ns) and the latency histograms of a run.
#[derive(Clone, Debug)]
pub struct RunLatency {
    /// Per decision, in `decisions.jsonl` order.
    pub timings: Vec<UtteranceTiming>,
    /// The histograms.
    pub latency: UtteranceLatency,
}

/// Builds the run's utterance timings and histograms; hazard-in-range latencies use the
/// alert each relevant hazard's outcome refers to.
pub fn run_latency(inputs: &EvalInputs, card: &Scorecard) -> RunLatency {
    let decisions: Vec<Decision> = inputs
        .decisions
        .iter()
        .map(|d| d.decision.clone())
        .collect();
    let first_tokens: Vec<Option<i64>> =
        inputs.decisions.iter().map(|d| d.first_token_ns).collect();
    let joined = join_utterances(&decisions, &inputs.transcript);
    let clock = inputs.clock;
    let t = timings(
        &decisions,
        &first_tokens,
        &inputs.transcript,
        &joined,
        &|d| clock.to_host_ns(d),
    );
    let mut in_range = BTreeMap::new();
    for (hi, h) in card.hazards.iter().enumerate() {
        let (Some(from), Some(audio)) = (h.relevant_from_ns, h.first_audio_ns) else {
            continue;
        };
        if h.outcome == HazardOutcome::NotRelevant {
            continue;
        }
        let alert = card
            .alerts
            .iter()
            .find(|a| a.first_audio_ns == Some(audio) && a.matched.iter().any(|(i, _)| *i == hi));
        if let Some(a) = alert {
            in_range
                .entry(a.request_id)
                .or_insert(clock.to_host_ns(from));
        }
    }
    let latency = UtteranceLatency::build(&t, &in_range, joined.unmatched.len());
    RunLatency {
        timings: t,
        latency,
    }
}

/// The SVG picture: utterance stage distributions (and the hazard alert latencies), the
/// timeline with hazard windows (green when caught) and request ticks.
pub fn picture(inputs: &EvalInputs, card: &Scorecard, run: &RunLatency) -> Picture {
    let stages = stage_distributions(&run.latency);
    let clock = inputs.clock;
    let t0 = inputs.truth.t0_ns;
    let s = |device_ns: i64| device_ns.saturating_sub(t0) as f64 / 1e9;
    let hs = |host_ns: i64| s(clock.to_device_ns(host_ns));
    let bars = utterance_bars(&run.timings, &hs);
    let windows = card
        .hazards
        .iter()
        .filter_map(|h| {
            Some(Window {
                label: h.label.clone(),
                from_s: s(h.relevant_from_ns?),
                to_s: s(h.latest_alert_ns?),
                ok: Some(h.outcome == HazardOutcome::Caught),
            })
        })
        .collect();
    let ticks = inputs
        .truth
        .requests
        .iter()
        .map(|r| Tick {
            label: r.text.clone(),
            at_s: s(r.t_ns),
        })
        .collect();
    Picture {
        title: format!(
            "{} — recall {} · {} false alerts · {} · {}",
            card.scenario,
            card.summary
                .recall
                .map_or_else(|| "n/a".into(), |r| format!("{:.0} %", r * 100.0)),
            card.summary.false_alerts,
            if card.pass { "PASS" } else { "FAIL" },
            inputs.out.display()
        ),
        stages,
        bars,
        windows,
        ticks,
        duration_s: Some(inputs.truth.duration_ns as f64 / 1e9),
    }
}

/// Track ids of the session trace (process 1).
const PID: u32 = 1;
const TID_HAZARDS: u32 = 1;
const TID_REQUESTS: u32 = 2;

fn kind_tid(k: DecisionKind) -> u32 {
    match k {
        DecisionKind::Alert => 10,
        DecisionKind::Answer => 11,
        DecisionKind::Ambient => 12,
    }
}

/// Writes the run as trace events (host ns on the session clock): per decision `decide`
/// (capture → decided), `generate` (decided → first token, when known), `wait` (→ first
/// audio) and one `speak` per utterance that played, on its kind's track; counters of
/// utterances waiting to play and dropped so far; an instant per alert's first
/// audio and per request; hazard windows on their own track.
pub fn write_trace<W: Write>(
    w: &mut TraceWriter<W>,
    inputs: &EvalInputs,
    card: &Scorecard,
    run: &RunLatency,
) {
    let clock = inputs.clock;
    w.process_name(PID, &format!("session {}", card.scenario));
    w.thread_name(PID, TID_HAZARDS, "hazard windows (ground truth)");
    w.thread_name(PID, TID_REQUESTS, "requests");
    for k in [
        DecisionKind::Alert,
        DecisionKind::Answer,
        DecisionKind::Ambient,
    ] {
        w.thread_name(PID, kind_tid(k), kind_name(k));
    }
    for h in &card.hazards {
        if let (Some(a), Some(b)) = (h.relevant_from_ns, h.latest_alert_ns) {
            let args = serde_json::json!({ "outcome": h.outcome, "lead_time_ms": h.lead_time_ms });
            let start = clock.to_host_ns(a);
            w.complete(
                &h.label,
                "hazard",
                PID,
                TID_HAZARDS,
                start,
                clock.to_host_ns(b).saturating_sub(start),
                Some(&args),
            );
        }
    }
    for r in &inputs.truth.requests {
        w.instant(
            &r.text,
            "request",
            PID,
            TID_REQUESTS,
            clock.to_host_ns(r.t_ns),
            InstantScope::Process,
            None,
        );
    }
    // Speech counters: utterances decided but not yet playing (or ended, when they never
    // play), and utterances dropped unspoken so far.
    write_speech_counters(w, PID, &inputs.transcript);
    for t in &run.timings {
        let tid = kind_tid(t.kind);
        let args = serde_json::json!({ "request_id": t.request_id, "text": t.text });
        w.complete(
            "decide",
            "utterance",
            PID,
            tid,
            t.capture_ns,
            t.decided_ns.saturating_sub(t.capture_ns),
            Some(&args),
        );
        let mut at = t.decided_ns;
        if let Some(tok) = t.first_token_ns {
            w.complete(
                "generate",
                "utterance",
                PID,
                tid,
                at,
                tok.saturating_sub(at),
                None,
            );
            at = tok;
        }
        if let Some(a) = t.first_audio_ns {
            w.complete(
                "wait",
                "utterance",
                PID,
                tid,
                at,
                a.saturating_sub(at),
                None,
            );
            for (start, end) in &t.spoken {
                w.complete(
                    "speak",
                    "utterance",
                    PID,
                    tid,
                    *start,
                    end.saturating_sub(*start),
                    Some(&args),
                );
            }
            if t.kind == DecisionKind::Alert {
                w.instant(
                    "alert",
                    "alert",
                    PID,
                    tid,
                    a,
                    InstantScope::Process,
                    Some(&args),
                );
            }
        }
    }
}
