//! Per-utterance latency from `decisions.jsonl` and `transcript.jsonl` (pure compute):
//! capture → decision → first token (when the decision records one) → first audio, per
//! kind (alert, answer, ambient), as HDR histograms ([`LatencyHistogram`]); and the hazard
//! alert latency, from the evidence's capture and — when the ground truth says when the
//! hazard came into range — from that moment, to the alert's first audio.
//!
//! Transcript entries are joined to decisions by `request_id`; when several decisions share
//! one, an entry goes to the first whose text contains the entry's text. Capture times are
//! device time; they are mapped to the session clock (host) with the caller's map before any
//! difference is taken.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::profile::{LatencyHistogram, Percentiles};
use crate::speech::transcript::TranscriptEntry;
use crate::state::{Decision, DecisionKind};

/// The stages of an utterance, in order.
pub const UTTERANCE_STAGES: [&str; 5] = [
    "capture_to_decision",
    "decision_to_first_token",
    "first_token_to_first_audio",
    "decision_to_first_audio",
    "capture_to_first_audio",
];

/// Which transcript entries belong to which decision.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Joined {
    /// Per decision (same order), indices into the transcript.
    pub entries: Vec<Vec<usize>>,
    /// Transcript entries that belong to no decision.
    pub unmatched: Vec<usize>,
}

fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Joins transcript entries to decisions by `request_id` (and text, when ids repeat).
pub fn join_utterances(decisions: &[Decision], transcript: &[TranscriptEntry]) -> Joined {
    let mut by_id: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for (i, d) in decisions.iter().enumerate() {
        by_id.entry(d.request_id).or_default().push(i);
    }
    let squashed: Vec<String> = decisions.iter().map(|d| squash(&d.text)).collect();
    let mut joined = Joined {
        entries: vec![Vec::new(); decisions.len()],
        unmatched: Vec::new(),
    };
    for (ei, e) in transcript.iter().enumerate() {
        let Some(candidates) = by_id.get(&e.request_id) else {
            joined.unmatched.push(ei);
            continue;
        };
        let text = squash(&e.text);
        let pick = candidates
            .iter()
            .copied()
            .find(|&di| squashed.get(di).is_some_and(|d| d.contains(&text)))
            .or_else(|| candidates.first().copied());
        match pick.and_then(|di| joined.entries.get_mut(di)) {
            Some(list) => list.push(ei),
            None => joined.unmatched.push(ei),
        }
    }
    joined
}

/// Earliest first audio (host ns) among `entries` of `transcript`.
pub fn first_audio_ns(transcript: &[TranscriptEntry], entries: &[usize]) -> Option<i64> {
    entries
        .iter()
        .filter_map(|&i| transcript.get(i).and_then(|e| e.first_audio_ns))
        .min()
}

/// One decision's times, all on the session clock (host ns).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct UtteranceTiming {
    /// Kind.
    pub kind: DecisionKind,
    /// Request id.
    pub request_id: u64,
    /// The decided text.
    pub text: String,
    /// Capture of the newest evidence, mapped to host ns.
    pub capture_ns: i64,
    /// Decided.
    pub decided_ns: i64,
    /// First token, when recorded.
    pub first_token_ns: Option<i64>,
    /// First audio of its utterances, if any played.
    pub first_audio_ns: Option<i64>,
    /// End of its last utterance (or the decision time when none was transcribed).
    pub end_ns: i64,
    /// `(first audio, end)` of each of its utterances that played, in playing order.
    pub spoken: Vec<(i64, i64)>,
}

/// Timings of every decision. `first_token_ns[i]` goes with `decisions[i]` (missing means
/// none); `device_to_host` maps a device time to the session clock.
pub fn timings(
    decisions: &[Decision],
    first_token_ns: &[Option<i64>],
    transcript: &[TranscriptEntry],
    joined: &Joined,
    device_to_host: &dyn Fn(i64) -> i64,
) -> Vec<UtteranceTiming> {
    decisions
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let entries = joined.entries.get(i).map(Vec::as_slice).unwrap_or(&[]);
            let end_ns = entries
                .iter()
                .filter_map(|&e| transcript.get(e).map(|t| t.end_ns))
                .max()
                .unwrap_or(d.decided_ns);
            let mut spoken: Vec<(i64, i64)> = entries
                .iter()
                .filter_map(|&e| transcript.get(e))
                .filter_map(|t| t.first_audio_ns.map(|a| (a, t.end_ns.max(a))))
                .collect();
            spoken.sort_unstable();
            UtteranceTiming {
                kind: d.kind,
                request_id: d.request_id,
                text: d.text.clone(),
                capture_ns: device_to_host(d.capture_ns),
                decided_ns: d.decided_ns,
                first_token_ns: first_token_ns.get(i).copied().flatten(),
                first_audio_ns: first_audio_ns(transcript, entries),
                end_ns,
                spoken,
            }
        })
        .collect()
}

/// Histograms of one kind's stages.
#[derive(Clone, Debug, Default)]
pub struct KindLatency {
    /// One histogram per [`UTTERANCE_STAGES`] entry, same order.
    pub stages: [LatencyHistogram; 5],
    /// Decisions of this kind.
    pub decisions: u64,
    /// Of those, decisions none of whose utterances played.
    pub unspoken: u64,
}

/// The utterance latency picture of a run.
#[derive(Clone, Debug, Default)]
pub struct UtteranceLatency {
    /// Per kind (`alert`, `answer`, `ambient`).
    pub kinds: BTreeMap<String, KindLatency>,
    /// Hazard alerts: evidence capture → first audio.
    pub alert_from_evidence: LatencyHistogram,
    /// Hazard alerts: hazard in range (ground truth) → first audio of its first alert.
    pub alert_from_in_range: LatencyHistogram,
    /// Transcript entries joined to no decision.
    pub unmatched_entries: u64,
}

/// The name of a kind.
pub fn kind_name(k: DecisionKind) -> &'static str {
    match k {
        DecisionKind::Alert => "alert",
        DecisionKind::Answer => "answer",
        DecisionKind::Ambient => "ambient",
    }
}

impl UtteranceLatency {
    /// Builds the histograms. `in_range_host_ns` maps the request id of each hazard's first
    /// alert to the host time at which that hazard came into range.
    pub fn build(
        timings: &[UtteranceTiming],
        in_range_host_ns: &BTreeMap<u64, i64>,
        unmatched_entries: usize,
    ) -> Self {
        let mut out = Self {
            unmatched_entries: unmatched_entries as u64,
            ..Self::default()
        };
        for t in timings {
            let k = out.kinds.entry(kind_name(t.kind).to_string()).or_default();
            k.decisions += 1;
            let stages = &mut k.stages;
            stages[0].record_ns(t.decided_ns.saturating_sub(t.capture_ns));
            if let Some(tok) = t.first_token_ns {
                stages[1].record_ns(tok.saturating_sub(t.decided_ns));
                if let Some(a) = t.first_audio_ns {
                    stages[2].record_ns(a.saturating_sub(tok));
                }
            }
            let Some(audio) = t.first_audio_ns else {
                k.unspoken += 1;
                continue;
            };
            stages[3].record_ns(audio.saturating_sub(t.decided_ns));
            stages[4].record_ns(audio.saturating_sub(t.capture_ns));
            if t.kind == DecisionKind::Alert {
                out.alert_from_evidence
                    .record_ns(audio.saturating_sub(t.capture_ns));
                if let Some(&from) = in_range_host_ns.get(&t.request_id) {
                    out.alert_from_in_range
                        .record_ns(audio.saturating_sub(from));
                }
            }
        }
        out
    }

    /// The serialisable report (µs percentiles).
    pub fn report(&self) -> UtteranceReport {
        let kinds = self
            .kinds
            .iter()
            .map(|(name, k)| {
                let stages = UTTERANCE_STAGES
                    .iter()
                    .zip(&k.stages)
                    .filter(|(_, h)| h.count() > 0)
                    .map(|(s, h)| (s.to_string(), h.percentiles()))
                    .collect();
                let r = KindReport {
                    decisions: k.decisions,
                    unspoken: k.unspoken,
                    stages_us: stages,
                };
                (name.clone(), r)
            })
            .collect();
        let opt = |h: &LatencyHistogram| (h.count() > 0).then(|| h.percentiles());
        UtteranceReport {
            kinds,
            hazard_alert_from_evidence_us: opt(&self.alert_from_evidence),
            hazard_alert_from_in_range_us: opt(&self.alert_from_in_range),
            unmatched_transcript_entries: self.unmatched_entries,
        }
    }
}

/// One kind in the report.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct KindReport {
    /// Decisions of this kind.
    pub decisions: u64,
    /// Decisions none of whose utterances played.
    pub unspoken: u64,
    /// Per stage that has values, percentiles in µs.
    pub stages_us: BTreeMap<String, Percentiles>,
}

/// The utterance latency report (JSON and table).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct UtteranceReport {
    /// Per kind.
    pub kinds: BTreeMap<String, KindReport>,
    /// Hazard alerts, evidence capture → first audio, µs.
    pub hazard_alert_from_evidence_us: Option<Percentiles>,
    /// Hazard alerts, hazard in range → first audio, µs (with ground truth).
    pub hazard_alert_from_in_range_us: Option<Percentiles>,
    /// Transcript entries joined to no decision.
    pub unmatched_transcript_entries: u64,
}

impl UtteranceReport {
    /// A fixed-width table, milliseconds.
    pub fn to_table(&self) -> String {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "{:<8} {:<28} {:>6} {:>10} {:>10} {:>10} {:>10}",
            "kind", "stage", "count", "p50 ms", "p95 ms", "p99 ms", "max ms"
        );
        let row = |t: &mut String, kind: &str, stage: &str, p: &Percentiles| {
            let _ = writeln!(
                t,
                "{:<8} {:<28} {:>6} {:>10.1} {:>10.1} {:>10.1} {:>10.1}",
                kind,
                stage,
                p.count,
                p.p50 / 1e3,
                p.p95 / 1e3,
                p.p99 / 1e3,
                p.max / 1e3
            );
        };
        for (name, k) in &self.kinds {
            for stage in UTTERANCE_STAGES {
                if let Some(p) = k.stages_us.get(stage) {
                    row(&mut t, name, stage, p);
                }
            }
            if k.unspoken > 0 {
                let _ = writeln!(t, "{:<8} unspoken: {} of {}", name, k.unspoken, k.decisions);
            }
        }
        if let Some(p) = &self.hazard_alert_from_evidence_us {
            row(&mut t, "hazard", "evidence_to_first_audio", p);
        }
        if let Some(p) = &self.hazard_alert_from_in_range_us {
            row(&mut t, "hazard", "in_range_to_first_audio", p);
        }
        if self.unmatched_transcript_entries > 0 {
            let _ = writeln!(
                t,
                "transcript entries with no decision: {}",
                self.unmatched_transcript_entries
            );
        }
        t
    }
}

/// Writes utterance timings as trace events: per decision `decide` (capture → decided),
/// `generate` (decided → first token, when known) and `wait` (→ first audio), and one
/// `speak` per utterance that played, on one track per kind (alert, answer, ambient). Host
/// ns on the session clock.
pub fn write_timings_trace<W: std::io::Write>(
    w: &mut crate::profile::trace::TraceWriter<W>,
    title: &str,
    timings: &[UtteranceTiming],
) {
    const PID: u32 = 1;
    let tid = |k: DecisionKind| match k {
        DecisionKind::Alert => 10,
        DecisionKind::Answer => 11,
        DecisionKind::Ambient => 12,
    };
    w.process_name(PID, title);
    for k in [
        DecisionKind::Alert,
        DecisionKind::Answer,
        DecisionKind::Ambient,
    ] {
        w.thread_name(PID, tid(k), kind_name(k));
    }
    for t in timings {
        let args = serde_json::json!({ "text": t.text, "request_id": t.request_id });
        let track = tid(t.kind);
        w.complete(
            "decide",
            kind_name(t.kind),
            PID,
            track,
            t.capture_ns,
            t.decided_ns.saturating_sub(t.capture_ns),
            Some(&args),
        );
        let mut at = t.decided_ns;
        if let Some(tok) = t.first_token_ns {
            w.complete(
                "generate",
                kind_name(t.kind),
                PID,
                track,
                at,
                tok.saturating_sub(at),
                None,
            );
            at = tok;
        }
        if let Some(a) = t.first_audio_ns {
            w.complete(
                "wait",
                kind_name(t.kind),
                PID,
                track,
                at,
                a.saturating_sub(at),
                None,
            );
        }
        for &(a, b) in &t.spoken {
            w.complete(
                "speak",
                kind_name(t.kind),
                PID,
                track,
                a,
                b.saturating_sub(a),
                None,
            );
        }
    }
}

/// The utterance latency of a run without ground truth (a real recording): decisions and
/// transcript joined (first tokens from the decisions), device times mapped to the session
/// clock by `device_to_host`.
pub fn latency_without_truth(
    decisions: &[Decision],
    transcript: &[TranscriptEntry],
    device_to_host: &dyn Fn(i64) -> i64,
) -> (Vec<UtteranceTiming>, UtteranceLatency) {
    let joined = join_utterances(decisions, transcript);
    let first_tokens: Vec<Option<i64>> = decisions.iter().map(|d| d.first_token_ns).collect();
    let t = timings(
        decisions,
        &first_tokens,
        transcript,
        &joined,
        device_to_host,
    );
    let latency = UtteranceLatency::build(&t, &BTreeMap::new(), joined.unmatched.len());
    (t, latency)
}
