//! The paper's rubric (its appendix B.2 and B.4): a judge's verdict read strictly from its
//! reply, and the score software computes from it. Four components in 0.05 steps —
//! evidence grounding 0–1.75, answer correctness 0–1.75, task completion 0–1, accessible
//! communication 0–0.5 — summed to 0–5; a critical error caps the total at 1.95 and keeps
//! the components for audit. Four flags (meaningfully correct, critical error, conflict
//! with the reference, evidence limited) and two short texts. Pure.

use serde::{Deserialize, Serialize};

/// Largest evidence grounding.
pub const MAX_EVIDENCE_GROUNDING: f64 = 1.75;
/// Largest answer correctness.
pub const MAX_ANSWER_CORRECTNESS: f64 = 1.75;
/// Largest task completion.
pub const MAX_TASK_COMPLETION: f64 = 1.0;
/// Largest accessible communication.
pub const MAX_ACCESSIBLE_COMMUNICATION: f64 = 0.5;
/// The total of an answer with a critical error is at most this.
pub const CRITICAL_CAP: f64 = 1.95;
/// Points come in steps of this.
pub const STEP: f64 = 0.05;

/// The JSON object the rubric asks the judge for, exactly these keys.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Verdict {
    /// Evidence grounding, 0–1.75.
    pub evidence_grounding: f64,
    /// Answer correctness, 0–1.75.
    pub answer_correctness: f64,
    /// Task completion, 0–1.
    pub task_completion: f64,
    /// Accessible communication, 0–0.5.
    pub accessible_communication: f64,
    /// The core request is fulfilled with no material error.
    pub meaningfully_correct: bool,
    /// An identifiable instruction that could cause immediate harm.
    pub critical_error: bool,
    /// The frames contradict a reference.
    pub gt_conflict: bool,
    /// A claim the inputs cannot verify.
    pub evidence_limited: bool,
    /// What the judge saw that decided it.
    pub visual_evidence: String,
    /// Why.
    pub rationale: String,
}

/// Why a reply is not a verdict (the judge is asked again, a bounded number of times).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum VerdictError {
    /// No JSON object in the reply.
    #[error("no JSON object in the reply")]
    NoObject,
    /// The object does not have exactly the rubric's keys and types.
    #[error("not the rubric's object: {0}")]
    Shape(String),
    /// A component is outside its range or off the 0.05 grid.
    #[error("{name} = {value} is not a multiple of 0.05 within 0..={max}")]
    Points {
        /// The component.
        name: &'static str,
        /// Its value.
        value: f64,
        /// Its largest value.
        max: f64,
    },
    /// A critical error with a meaningfully correct answer, which the rubric forbids.
    #[error("critical_error=true requires meaningfully_correct=false")]
    CriticalButCorrect,
    /// An empty explanation.
    #[error("{0} is empty")]
    Empty(&'static str),
}

/// The score of one verdict.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Score {
    /// Sum of the four components, 0–5.
    pub points: f64,
    /// The final score: `points`, capped at 1.95 on a critical error.
    pub total: f64,
    /// The cap lowered it.
    pub capped: bool,
}

impl Verdict {
    /// The components with their names and largest values.
    pub fn components(&self) -> [(&'static str, f64, f64); 4] {
        [
            (
                "evidence_grounding",
                self.evidence_grounding,
                MAX_EVIDENCE_GROUNDING,
            ),
            (
                "answer_correctness",
                self.answer_correctness,
                MAX_ANSWER_CORRECTNESS,
            ),
            ("task_completion", self.task_completion, MAX_TASK_COMPLETION),
            (
                "accessible_communication",
                self.accessible_communication,
                MAX_ACCESSIBLE_COMMUNICATION,
            ),
        ]
    }

    /// The score software computes: the sum, capped at 1.95 on a critical error.
    pub fn score(&self) -> Score {
        // Sum in whole steps so 0.05 steps add exactly.
        let steps: i64 = self
            .components()
            .iter()
            .map(|(_, v, _)| (v / STEP).round() as i64)
            .sum();
        let points = steps as f64 * STEP;
        // In steps too: 39 × 0.05 is 1.9500000000000002, which is not above the cap.
        let capped = self.critical_error && steps > (CRITICAL_CAP / STEP).round() as i64;
        Score {
            points: round2(points),
            total: round2(if capped { CRITICAL_CAP } else { points }),
            capped,
        }
    }
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// Reads a verdict from a judge's reply: the first balanced JSON object in it (a model may
/// wrap it in a code fence or a sentence), with exactly the rubric's keys, every component
/// a multiple of 0.05 within its range (to within 0.001: float noise), a critical error
/// only with `meaningfully_correct=false`, and non-empty texts.
pub fn parse_verdict(reply: &str) -> Result<Verdict, VerdictError> {
    let object = first_object(reply).ok_or(VerdictError::NoObject)?;
    let mut v: Verdict =
        serde_json::from_str(object).map_err(|e| VerdictError::Shape(e.to_string()))?;
    for (name, value, max) in v.components() {
        let steps = value / STEP;
        let on_grid = (steps - steps.round()).abs() * STEP <= 1e-3;
        if !(value.is_finite() && (0.0..=max + 1e-9).contains(&value) && on_grid) {
            return Err(VerdictError::Points { name, value, max });
        }
    }
    let snap = |x: f64| (x / STEP).round() * STEP;
    v.evidence_grounding = round2(snap(v.evidence_grounding));
    v.answer_correctness = round2(snap(v.answer_correctness));
    v.task_completion = round2(snap(v.task_completion));
    v.accessible_communication = round2(snap(v.accessible_communication));
    if v.critical_error && v.meaningfully_correct {
        return Err(VerdictError::CriticalButCorrect);
    }
    if v.visual_evidence.trim().is_empty() {
        return Err(VerdictError::Empty("visual_evidence"));
    }
    if v.rationale.trim().is_empty() {
        return Err(VerdictError::Empty("rationale"));
    }
    Ok(v)
}

/// The first `{…}` of `text` whose braces balance outside JSON strings.
fn first_object(text: &str) -> Option<&str> {
    let start = text.find('{')?;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text[start..].char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&text[start..start + i + 1]);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(eg: f64, ac: f64, tc: f64, acom: f64, correct: bool, critical: bool) -> String {
        format!(
            r#"{{"evidence_grounding": {eg}, "answer_correctness": {ac}, "task_completion": {tc},
               "accessible_communication": {acom}, "meaningfully_correct": {correct},
               "critical_error": {critical}, "gt_conflict": false, "evidence_limited": true,
               "visual_evidence": "a sign reading EXIT at 1 o'clock", "rationale": "names it"}}"#
        )
    }

    #[test]
    fn the_total_is_the_sum_in_steps() {
        let v = parse_verdict(&reply(1.75, 1.75, 1.0, 0.5, true, false)).unwrap();
        assert_eq!(
            v.score(),
            Score {
                points: 5.0,
                total: 5.0,
                capped: false
            }
        );
        // 0.05 steps that do not add exactly in binary floating point.
        let v = parse_verdict(&reply(0.15, 0.35, 0.7, 0.05, false, false)).unwrap();
        assert_eq!(v.score().total, 1.25);
        let v = parse_verdict(&reply(0.0, 0.0, 0.0, 0.0, false, false)).unwrap();
        assert_eq!(v.score().total, 0.0);
    }

    #[test]
    fn a_critical_error_caps_the_total_and_keeps_the_components() {
        let v = parse_verdict(&reply(1.5, 1.2, 0.8, 0.45, false, true)).unwrap();
        let s = v.score();
        assert_eq!(s.points, 3.95);
        assert_eq!(s.total, 1.95);
        assert!(s.capped);
        assert_eq!(v.answer_correctness, 1.2);
        // Below the cap nothing changes.
        let v = parse_verdict(&reply(0.5, 0.5, 0.3, 0.1, false, true)).unwrap();
        assert_eq!(
            v.score(),
            Score {
                points: 1.4,
                total: 1.4,
                capped: false
            }
        );
        // Exactly at the cap: not lowered.
        let v = parse_verdict(&reply(0.7, 0.7, 0.4, 0.15, false, true)).unwrap();
        assert_eq!(
            v.score(),
            Score {
                points: 1.95,
                total: 1.95,
                capped: false
            }
        );
    }

    #[test]
    fn points_off_the_grid_or_out_of_range_are_refused() {
        for (r, name) in [
            (reply(1.8, 1.0, 1.0, 0.5, true, false), "evidence_grounding"),
            (
                reply(1.0, 1.33, 1.0, 0.5, true, false),
                "answer_correctness",
            ),
            (reply(1.0, 1.0, -0.05, 0.5, true, false), "task_completion"),
            (
                reply(1.0, 1.0, 1.0, 0.55, true, false),
                "accessible_communication",
            ),
        ] {
            match parse_verdict(&r) {
                Err(VerdictError::Points { name: n, .. }) => assert_eq!(n, name),
                other => panic!("{name}: {other:?}"),
            }
        }
        // Float noise around a step is the step.
        let v = parse_verdict(&reply(1.2000000001, 0.1, 0.3, 0.05, false, false)).unwrap();
        assert_eq!(v.evidence_grounding, 1.2);
    }

    #[test]
    fn the_reply_may_wrap_the_object_but_not_change_its_keys() {
        let wrapped = format!(
            "Here is my verdict:\n```json\n{}\n```",
            reply(1.0, 1.0, 0.5, 0.25, false, false)
        );
        assert_eq!(parse_verdict(&wrapped).unwrap().score().total, 2.75);
        // A brace inside a string does not end the object.
        let braces = reply(1.0, 1.0, 0.5, 0.25, false, false).replace("names it", "says {EXIT}");
        assert!(parse_verdict(&braces).is_ok());
        let extra = reply(1.0, 1.0, 0.5, 0.25, false, false)
            .replace("\"rationale\"", "\"total\": 3, \"rationale\"");
        assert!(matches!(parse_verdict(&extra), Err(VerdictError::Shape(_))));
        let missing =
            reply(1.0, 1.0, 0.5, 0.25, false, false).replace("\"gt_conflict\": false,", "");
        assert!(matches!(
            parse_verdict(&missing),
            Err(VerdictError::Shape(_))
        ));
        assert_eq!(
            parse_verdict("I cannot judge this."),
            Err(VerdictError::NoObject)
        );
        assert_eq!(
            parse_verdict("{\"evidence_grounding\": 1"),
            Err(VerdictError::NoObject)
        );
    }

    #[test]
    fn a_critical_error_in_a_correct_answer_or_an_empty_reason_is_refused() {
        assert_eq!(
            parse_verdict(&reply(1.0, 1.0, 0.5, 0.25, true, true)),
            Err(VerdictError::CriticalButCorrect)
        );
        let empty = reply(1.0, 1.0, 0.5, 0.25, false, false).replace("names it", " ");
        assert_eq!(parse_verdict(&empty), Err(VerdictError::Empty("rationale")));
    }
}
