//! How long a request said aloud waits for its answer (pure compute over `decisions.jsonl`
//! and `transcript.jsonl`): for every decision that records a [`VoiceTiming`] (an answer,
//! a setting's acknowledgement or "I didn't catch that"), the end of the wearer's voice →
//! its text (the silence that ends a turn and the last recognition), text → decision
//! (parsing, the queue, the state it is answered from), decision → first audio (the answer
//! and its speech), and the whole: end of speech → first audio of the answer.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::utterance::{first_audio_ns, join_utterances};
use crate::profile::{LatencyHistogram, Percentiles};
use crate::speech::transcript::TranscriptEntry;
use crate::state::{Decision, VoiceTiming};

/// The stages, in order (each a duration; the last is the whole).
pub const VOICE_STAGES: [&str; 4] = [
    "voice_end_to_text",
    "text_to_decision",
    "decision_to_first_audio",
    "voice_end_to_first_audio",
];

/// One spoken request's stages, ms (`None`: did not happen, e.g. nothing was heard).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct VoiceAnswerRow {
    /// The decision's request id.
    pub request_id: u64,
    /// The request's form and text (`not_caught` and the guess for "I didn't catch that").
    pub request: Option<(String, String)>,
    /// Who answered (`template`, a model, `settings`, `listen`).
    pub generator: String,
    /// Per [`VOICE_STAGES`] entry, ms.
    pub stages_ms: Vec<Option<f64>>,
}

/// The spoken requests of a run.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct VoiceBreakdownReport {
    /// Spoken requests answered.
    pub answers: u64,
    /// Of them, "I didn't catch that".
    pub not_caught: u64,
    /// Per stage with values, µs.
    pub stages_us: BTreeMap<String, Percentiles>,
    /// Every spoken request.
    pub rows: Vec<VoiceAnswerRow>,
}

fn dur(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    Some(b?.saturating_sub(a?))
}

fn stages(d: &Decision, v: &VoiceTiming, audio: Option<i64>) -> [Option<i64>; 4] {
    [
        dur(Some(v.voice_end_ns), Some(v.text_ns)),
        dur(Some(v.text_ns), Some(d.decided_ns)),
        dur(Some(d.decided_ns), audio),
        dur(Some(v.voice_end_ns), audio),
    ]
}

/// The breakdown of every decision with a [`VoiceTiming`] (`None` when there is none).
pub fn voice_breakdown(
    decisions: &[Decision],
    transcript: &[TranscriptEntry],
) -> Option<VoiceBreakdownReport> {
    let joined = join_utterances(decisions, transcript);
    let mut hists: Vec<LatencyHistogram> =
        VOICE_STAGES.iter().map(|_| Default::default()).collect();
    let mut out = VoiceBreakdownReport::default();
    for (i, d) in decisions.iter().enumerate() {
        let Some(v) = &d.voice else { continue };
        let entries = joined.entries.get(i).map(Vec::as_slice).unwrap_or(&[]);
        let st = stages(d, v, first_audio_ns(transcript, entries));
        for (h, x) in hists.iter_mut().zip(st) {
            if let Some(x) = x {
                h.record_ns(x);
            }
        }
        out.answers += 1;
        out.not_caught += u64::from(d.generator == "listen");
        out.rows.push(VoiceAnswerRow {
            request_id: d.request_id,
            request: d.request.clone(),
            generator: d.generator.clone(),
            stages_ms: st.iter().map(|x| x.map(|ns| ns as f64 / 1e6)).collect(),
        });
    }
    if out.answers == 0 {
        return None;
    }
    out.stages_us = VOICE_STAGES
        .iter()
        .zip(&hists)
        .filter(|(_, h)| h.count() > 0)
        .map(|(s, h)| (s.to_string(), h.percentiles()))
        .collect();
    Some(out)
}

impl VoiceBreakdownReport {
    /// A fixed-width table, milliseconds.
    pub fn to_table(&self) -> String {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "{:<34} {:>6} {:>10} {:>10} {:>10}",
            "spoken requests: stage", "count", "p50 ms", "p95 ms", "max ms"
        );
        for s in VOICE_STAGES {
            if let Some(p) = self.stages_us.get(s) {
                let _ = writeln!(
                    t,
                    "{:<34} {:>6} {:>10.1} {:>10.1} {:>10.1}",
                    s,
                    p.count,
                    p.p50 / 1e3,
                    p.p95 / 1e3,
                    p.max / 1e3
                );
            }
        }
        let _ = writeln!(
            t,
            "{} spoken request(s) answered, {} of them \"I didn't catch that\"",
            self.answers, self.not_caught
        );
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{DecisionKind, GuardAction};

    fn decision(id: u64, decided_ns: i64, voice: Option<VoiceTiming>) -> Decision {
        Decision {
            kind: DecisionKind::Answer,
            request_id: id,
            request_index: None,
            request: Some(("question".into(), "Where is the door?".into())),
            text: "The door is at 12 o'clock.".into(),
            hazard: None,
            more_hazards: Vec::new(),
            capture_ns: 0,
            decided_ns,
            state_at_ns: 0,
            generator: "template".into(),
            guard: GuardAction::Passed,
            first_token_ns: None,
            lm: None,
            text_read: None,
            voice,
            ask: None,
        }
    }

    fn heard(id: u64, first_audio_ns: i64) -> TranscriptEntry {
        TranscriptEntry {
            text: "The door is at 12 o'clock.".into(),
            priority: crate::speech::Priority::Answer,
            request_id: id,
            earcon: None,
            pan: crate::speech::Pan::CENTRE,
            capture_ns: 0,
            decided_ns: 0,
            first_audio_ns: Some(first_audio_ns),
            end_ns: first_audio_ns + 900_000_000,
            interrupted: false,
            dropped: None,
            error: None,
        }
    }

    #[test]
    fn end_of_speech_to_first_audio_by_stage() {
        let v = VoiceTiming {
            voice_end_ns: 1_000_000_000,
            text_ns: 1_500_000_000,
        };
        let d = [decision(1, 1_520_000_000, Some(v)), decision(2, 9, None)];
        let t = [heard(1, 1_700_000_000), heard(2, 10)];
        let r = voice_breakdown(&d, &t).unwrap();
        assert_eq!(r.answers, 1);
        assert_eq!(
            r.rows[0].stages_ms,
            vec![Some(500.0), Some(20.0), Some(180.0), Some(700.0)]
        );
        assert!(r.to_table().contains("voice_end_to_first_audio"));
        assert!(voice_breakdown(&d[1..], &t).is_none());
    }
}
