//! Where the time of the language model's answers goes (pure compute over
//! `decisions.jsonl` and `transcript.jsonl`): for every decision that records an
//! [`LmTiming`], question → first audio split into asked → decided (the perception tick that
//! dispatched it), the answer queue, the state text, waiting for the model (a prefill in
//! flight), the model's first token (its prompt prefill included), first token → first
//! sentence through the guard, and that sentence → first audio (speech synthesis and the
//! sink). Also the llama.cpp thread counts used, prompt tokens prefilled, answers over a
//! prefilled state, sensor tokens, and failures.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::utterance::{first_audio_ns, join_utterances};
use crate::profile::{LatencyHistogram, Percentiles};
use crate::speech::transcript::TranscriptEntry;
use crate::state::{Decision, LmTiming};

/// The stages, in order (each a duration; the last is the whole).
pub const LM_STAGES: [&str; 9] = [
    "asked_to_decided",
    "queue",
    "state_text",
    "wait_for_model",
    "prefill",
    "call_to_first_token",
    "first_token_to_first_sentence",
    "first_sentence_to_first_audio",
    "asked_to_first_audio",
];

/// One answer's stages, ms (`None`: did not happen, e.g. no sentence was spoken).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LmAnswerRow {
    /// The decision's request id.
    pub request_id: u64,
    /// The request's form and text.
    pub request: Option<(String, String)>,
    /// Per [`LM_STAGES`] entry, ms.
    pub stages_ms: Vec<Option<f64>>,
    /// Prompt tokens prefilled for the request.
    pub prefill_tokens: u32,
    /// Whether it answered over a prefilled state.
    pub on_prefilled: bool,
    /// Tokens generated.
    pub generated_tokens: u32,
    /// llama.cpp threads.
    pub threads: u32,
    /// Sensor-token rows in its prompt.
    pub sensor_tokens: u32,
    /// Capture time (device ns) of the camera frame in its prompt, if one was.
    pub image_capture_ns: Option<i64>,
    /// The model's failure, if it failed.
    pub failure: Option<String>,
}

/// The language model's answers in a run.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct LmBreakdownReport {
    /// Answers the model was asked for.
    pub answers: u64,
    /// Per stage with values, µs.
    pub stages_us: BTreeMap<String, Percentiles>,
    /// Answers per llama.cpp thread count.
    pub threads: BTreeMap<u32, u64>,
    /// Prompt tokens prefilled per request.
    pub prefill_tokens: Option<Percentiles>,
    /// Answers over a state prefilled ahead of the request.
    pub on_prefilled: u64,
    /// Answers whose prompt held sensor tokens.
    pub with_sensor_tokens: u64,
    /// Answers whose prompt held a camera frame.
    pub with_image: u64,
    /// Answers the model failed on.
    pub failures: u64,
    /// Answers where nothing the model said passed the guard (templates answered).
    pub template_fallbacks: u64,
    /// Every answer.
    pub rows: Vec<LmAnswerRow>,
}

fn dur(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    Some(b?.saturating_sub(a?))
}

fn stages(d: &Decision, t: &LmTiming, audio: Option<i64>) -> [Option<i64>; 9] {
    [
        dur(Some(t.asked_ns), Some(d.decided_ns)),
        dur(Some(d.decided_ns), Some(t.started_ns)),
        dur(Some(t.started_ns), Some(t.generate_ns)),
        Some(t.wait_ns),
        Some(t.prefill_ns),
        dur(Some(t.generate_ns), d.first_token_ns),
        dur(d.first_token_ns, t.first_speech_ns),
        dur(t.first_speech_ns, audio),
        dur(Some(t.asked_ns), audio),
    ]
}

/// The breakdown of every decision with an [`LmTiming`] (`None` when there is none).
pub fn lm_breakdown(
    decisions: &[Decision],
    transcript: &[TranscriptEntry],
) -> Option<LmBreakdownReport> {
    let joined = join_utterances(decisions, transcript);
    let mut hists: Vec<LatencyHistogram> = LM_STAGES.iter().map(|_| Default::default()).collect();
    let mut tokens = LatencyHistogram::default();
    let mut out = LmBreakdownReport::default();
    for (i, d) in decisions.iter().enumerate() {
        let Some(t) = &d.lm else { continue };
        let entries = joined.entries.get(i).map(Vec::as_slice).unwrap_or(&[]);
        let audio = first_audio_ns(transcript, entries);
        let st = stages(d, t, audio);
        for (h, v) in hists.iter_mut().zip(st) {
            if let Some(v) = v {
                h.record_ns(v);
            }
        }
        tokens.record_ns(i64::from(t.prefill_tokens) * 1000);
        out.answers += 1;
        *out.threads.entry(t.threads).or_default() += 1;
        out.on_prefilled += u64::from(t.on_prefilled);
        out.with_sensor_tokens += u64::from(t.sensor_tokens > 0);
        out.with_image += u64::from(t.image_used);
        out.failures += u64::from(t.failure.is_some());
        out.template_fallbacks += u64::from(t.template_fallback);
        out.rows.push(LmAnswerRow {
            request_id: d.request_id,
            request: d.request.clone(),
            stages_ms: st.iter().map(|v| v.map(|ns| ns as f64 / 1e6)).collect(),
            prefill_tokens: t.prefill_tokens,
            on_prefilled: t.on_prefilled,
            generated_tokens: t.generated_tokens,
            threads: t.threads,
            sensor_tokens: t.sensor_tokens,
            image_capture_ns: t.image_capture_ns.filter(|_| t.image_used),
            failure: t.failure.clone(),
        });
    }
    if out.answers == 0 {
        return None;
    }
    out.stages_us = LM_STAGES
        .iter()
        .zip(&hists)
        .filter(|(_, h)| h.count() > 0)
        .map(|(s, h)| (s.to_string(), h.percentiles()))
        .collect();
    // Token counts were recorded as µs-valued "durations" (1 token = 1 µs).
    out.prefill_tokens = Some(tokens.percentiles());
    Some(out)
}

impl LmBreakdownReport {
    /// A fixed-width table, milliseconds.
    pub fn to_table(&self) -> String {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "{:<34} {:>6} {:>10} {:>10} {:>10}",
            "language model answers: stage", "count", "p50 ms", "p95 ms", "max ms"
        );
        for s in LM_STAGES {
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
        let threads: Vec<String> = self
            .threads
            .iter()
            .map(|(n, c)| format!("{n} thread(s) × {c}"))
            .collect();
        let _ = writeln!(
            t,
            "{} answer(s); llama.cpp {}; prefilled tokens p50 {:.0}; {} over a prefilled \
             state; {} with sensor tokens; {} with a camera frame; {} failed; {} fell back to \
             templates",
            self.answers,
            threads.join(", "),
            self.prefill_tokens.map_or(0.0, |p| p.p50),
            self.on_prefilled,
            self.with_sensor_tokens,
            self.with_image,
            self.failures,
            self.template_fallbacks
        );
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::speech::Priority;
    use crate::state::{DecisionKind, GuardAction};

    const MS: i64 = 1_000_000;

    fn decision(id: u64, lm: Option<LmTiming>, first_token: Option<i64>) -> Decision {
        Decision {
            kind: DecisionKind::Answer,
            request_id: id,
            request_index: Some(0),
            request: Some(("scene".into(), "What is around me?".into())),
            text: "A bench is at 12 o'clock.".into(),
            hazard: None,
            more_hazards: Vec::new(),
            capture_ns: 0,
            decided_ns: 20 * MS,
            state_at_ns: 0,
            generator: "smollm2".into(),
            guard: GuardAction::Passed,
            first_token_ns: first_token,
            lm,
            text_read: None,
            voice: None,
            ask: None,
        }
    }

    fn entry(id: u64, audio: i64) -> TranscriptEntry {
        TranscriptEntry {
            text: "A bench is at 12 o'clock.".into(),
            priority: Priority::Answer,
            request_id: id,
            earcon: None,
            pan: crate::speech::Pan::CENTRE,
            capture_ns: 0,
            decided_ns: 20 * MS,
            first_audio_ns: Some(audio),
            end_ns: audio + 900 * MS,
            interrupted: false,
            dropped: None,
            error: None,
        }
    }

    #[test]
    fn stages_add_up_from_the_question_to_the_first_audio() {
        let t = LmTiming {
            asked_ns: 0,
            started_ns: 25 * MS,
            generate_ns: 26 * MS,
            wait_ns: 10 * MS,
            prefill_tokens: 40,
            prefill_ns: 60 * MS,
            on_prefilled: true,
            generated_tokens: 12,
            first_speech_ns: Some(300 * MS),
            end_ns: 700 * MS,
            threads: 1,
            sensor_tokens: 28,
            image_used: true,
            image_capture_ns: Some(-50 * MS),
            image_age_ns: Some(50 * MS),
            failure: None,
            template_fallback: false,
        };
        let d = vec![
            decision(1, Some(t), Some(126 * MS)),
            decision(2, None, None),
        ];
        let r = lm_breakdown(&d, &[entry(1, 302 * MS), entry(2, 50 * MS)]).unwrap();
        assert_eq!(r.answers, 1);
        let row = &r.rows[0];
        let ms: Vec<f64> = row.stages_ms.iter().map(|v| v.unwrap()).collect();
        assert_eq!(
            ms,
            vec![20.0, 5.0, 1.0, 10.0, 60.0, 100.0, 174.0, 2.0, 302.0]
        );
        // asked → decided → queue → text → first token → sentence → audio is the whole.
        let whole = ms[0] + ms[1] + ms[2] + ms[5] + ms[6] + ms[7];
        assert!((whole - ms[8]).abs() < 1e-9);
        assert_eq!(r.threads.get(&1), Some(&1));
        assert_eq!(
            (
                r.on_prefilled,
                r.with_sensor_tokens,
                r.with_image,
                r.failures
            ),
            (1, 1, 1, 0)
        );
        assert_eq!(r.prefill_tokens.unwrap().p50.round(), 40.0);
        assert!(r.to_table().contains("asked_to_first_audio"));
    }

    #[test]
    fn no_model_answers_no_breakdown_and_unspoken_stages_are_missing() {
        assert!(lm_breakdown(&[decision(2, None, None)], &[]).is_none());
        let t = LmTiming {
            failure: Some("decode failed".into()),
            ..LmTiming::default()
        };
        let r = lm_breakdown(&[decision(3, Some(t), None)], &[]).unwrap();
        assert_eq!(r.failures, 1);
        assert!(r.rows[0].stages_ms[5].is_none() && r.rows[0].stages_ms[8].is_none());
        assert!(!r.stages_us.contains_key("asked_to_first_audio"));
    }
}
