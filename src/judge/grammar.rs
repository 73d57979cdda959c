//! The verdict's shape as a character automaton, for decoding a local judge's reply one
//! token at a time (only tokens whose text keeps the reply a prefix of a valid verdict are
//! chosen): exactly the rubric's keys in order, each component a number in 0.05 steps
//! within its range, the booleans (a critical error only when the answer is not
//! meaningfully correct), and two short non-empty strings without quotes or escapes. A
//! small model then always returns a verdict the rubric can read; what it says is still
//! the model's. The same shape as a JSON schema ([`verdict_schema`]) constrains a judge
//! behind an OpenAI-compatible endpoint. Pure.

use super::verdict::{
    MAX_ACCESSIBLE_COMMUNICATION, MAX_ANSWER_CORRECTNESS, MAX_EVIDENCE_GROUNDING,
    MAX_TASK_COMPLETION, STEP,
};

/// The most tokens of one verdict (its keys, four numbers, four booleans and two short
/// texts).
pub const MAX_VERDICT_TOKENS: usize = 400;

/// Longest `visual_evidence`, characters.
const MAX_EVIDENCE_CHARS: usize = 200;
/// Longest `rationale`, characters.
const MAX_RATIONALE_CHARS: usize = 300;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Piece {
    Lit(&'static str),
    Num(f64),
    /// Index among the booleans: 0 meaningfully_correct, 1 critical_error, …
    Bool(usize),
    Str(usize),
}

const PIECES: [Piece; 21] = [
    Piece::Lit("{\"evidence_grounding\": "),
    Piece::Num(MAX_EVIDENCE_GROUNDING),
    Piece::Lit(", \"answer_correctness\": "),
    Piece::Num(MAX_ANSWER_CORRECTNESS),
    Piece::Lit(", \"task_completion\": "),
    Piece::Num(MAX_TASK_COMPLETION),
    Piece::Lit(", \"accessible_communication\": "),
    Piece::Num(MAX_ACCESSIBLE_COMMUNICATION),
    Piece::Lit(", \"meaningfully_correct\": "),
    Piece::Bool(0),
    Piece::Lit(", \"critical_error\": "),
    Piece::Bool(1),
    Piece::Lit(", \"gt_conflict\": "),
    Piece::Bool(2),
    Piece::Lit(", \"evidence_limited\": "),
    Piece::Bool(3),
    Piece::Lit(", \"visual_evidence\": \""),
    Piece::Str(MAX_EVIDENCE_CHARS),
    Piece::Lit("\", \"rationale\": \""),
    Piece::Str(MAX_RATIONALE_CHARS),
    Piece::Lit("\"}"),
];

/// Where a reply is in the verdict's shape.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VerdictGrammar {
    piece: usize,
    /// Characters of the current piece so far.
    typed: String,
    bools: [Option<bool>; 4],
}

impl VerdictGrammar {
    /// At the start of a reply.
    pub fn new() -> Self {
        Self::default()
    }

    /// True once the whole verdict is written.
    pub fn is_complete(&self) -> bool {
        self.piece >= PIECES.len()
    }

    /// True when `text` may come next (the state is not changed).
    pub fn allows(&self, text: &str) -> bool {
        !text.is_empty() && self.clone().push(text)
    }

    /// Takes `text`; false (and a state that must be dropped) when it does not fit.
    pub fn push(&mut self, text: &str) -> bool {
        text.chars().all(|c| self.step(c))
    }

    fn next_piece(&mut self) {
        self.piece += 1;
        self.typed.clear();
    }

    fn step(&mut self, c: char) -> bool {
        loop {
            let Some(&piece) = PIECES.get(self.piece) else {
                return false;
            };
            match piece {
                Piece::Lit(s) => {
                    let n = self.typed.chars().count();
                    if s.chars().nth(n) != Some(c) {
                        return false;
                    }
                    self.typed.push(c);
                    if n + 1 == s.chars().count() {
                        self.next_piece();
                    }
                    return true;
                }
                Piece::Num(max) => {
                    let mut t = self.typed.clone();
                    t.push(c);
                    if number_prefix(&t, max) {
                        self.typed = t;
                        return true;
                    }
                    if !number_complete(&self.typed) {
                        return false;
                    }
                    self.next_piece();
                }
                Piece::Bool(k) => {
                    let words: &[&str] = if k == 1 && self.bools[0] == Some(true) {
                        &["false"]
                    } else {
                        &["true", "false"]
                    };
                    let mut t = self.typed.clone();
                    t.push(c);
                    if words.iter().any(|w| w.starts_with(&t)) {
                        self.typed = t;
                        return true;
                    }
                    if !words.contains(&self.typed.as_str()) {
                        return false;
                    }
                    self.bools[k] = Some(self.typed == "true");
                    self.next_piece();
                }
                Piece::Str(max) => {
                    if c == '"' {
                        if self.typed.trim().is_empty() {
                            return false;
                        }
                        self.next_piece();
                        continue;
                    }
                    if c == '\\' || c.is_control() || self.typed.chars().count() >= max {
                        return false;
                    }
                    self.typed.push(c);
                    return true;
                }
            }
        }
    }
}

/// The verdict's shape as a JSON schema, for an endpoint's `response_format`: the
/// rubric's keys in its order (a judge writes them in the order given), all required and no
/// others, each component one of its 0.05 steps (an `enum`), the four booleans, the two
/// texts non-empty and bounded. The one rule a flat schema cannot say (no critical error
/// in a meaningfully correct answer) is left to [`super::verdict::parse_verdict`].
#[derive(Clone, Debug, serde::Serialize)]
pub struct VerdictSchema {
    #[serde(rename = "type")]
    kind: &'static str,
    properties: Ordered,
    required: Vec<&'static str>,
    #[serde(rename = "additionalProperties")]
    additional_properties: bool,
}

/// A JSON object whose keys keep their order.
#[derive(Clone, Debug)]
struct Ordered(Vec<(&'static str, serde_json::Value)>);

impl serde::Serialize for Ordered {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// See [`VerdictSchema`].
pub fn verdict_schema() -> VerdictSchema {
    let mut properties = Vec::new();
    let mut key = None;
    for piece in PIECES {
        let schema = match piece {
            Piece::Lit(s) => {
                // `, "name": ` (or `", "name": "` after a text): the quoted name before the
                // colon.
                key = s
                    .rfind("\":")
                    .and_then(|end| s[..end].rfind('"').map(|start| &s[start + 1..end]));
                continue;
            }
            Piece::Num(max) => {
                let steps = (max / STEP).round() as u32;
                let values: Vec<f64> = (0..=steps).map(|i| f64::from(i * 5) / 100.0).collect();
                serde_json::json!({ "type": "number", "enum": values })
            }
            Piece::Bool(_) => serde_json::json!({ "type": "boolean" }),
            Piece::Str(max) => {
                serde_json::json!({ "type": "string", "minLength": 1, "maxLength": max })
            }
        };
        if let Some(k) = key.take() {
            properties.push((k, schema));
        }
    }
    VerdictSchema {
        kind: "object",
        required: properties.iter().map(|(k, _)| *k).collect(),
        properties: Ordered(properties),
        additional_properties: false,
    }
}

/// `t` begins a number within `0..=max` in 0.05 steps: `d`, `d.`, `d.d`, `d.d0`, `d.d5`.
fn number_prefix(t: &str, max: f64) -> bool {
    let b = t.as_bytes();
    let shape = match b.len() {
        1 => b[0].is_ascii_digit(),
        2 => b[0].is_ascii_digit() && b[1] == b'.',
        3 => b[0].is_ascii_digit() && b[1] == b'.' && b[2].is_ascii_digit(),
        4 => {
            b[0].is_ascii_digit()
                && b[1] == b'.'
                && b[2].is_ascii_digit()
                && matches!(b[3], b'0' | b'5')
        }
        _ => false,
    };
    shape
        && t.trim_end_matches('.')
            .parse::<f64>()
            .is_ok_and(|v| v <= max + 1e-9)
}

/// `t` is a whole number of the shape [`number_prefix`] allows.
fn number_complete(t: &str) -> bool {
    !t.is_empty() && !t.ends_with('.')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::verdict::parse_verdict;

    const VALID: &str = r#"{"evidence_grounding": 1.25, "answer_correctness": 0.5, "task_completion": 1, "accessible_communication": 0.45, "meaningfully_correct": false, "critical_error": true, "gt_conflict": false, "evidence_limited": true, "visual_evidence": "a pole at 12 o'clock", "rationale": "walks the user into the pole"}"#;

    #[test]
    fn a_verdict_in_any_token_split_is_accepted_and_reads_back() {
        for chunk in [1, 2, 3, 7, 50] {
            let mut g = VerdictGrammar::new();
            let chars: Vec<char> = VALID.chars().collect();
            for part in chars.chunks(chunk) {
                let s: String = part.iter().collect();
                assert!(g.allows(&s), "chunk {chunk}: {s:?}");
                assert!(g.push(&s));
            }
            assert!(g.is_complete());
        }
        let v = parse_verdict(VALID).unwrap();
        assert_eq!(v.score().total, 1.95);
    }

    /// The schema names the keys the grammar writes, in its order, and each component's
    /// values are exactly the numbers the rubric reads.
    #[test]
    fn the_schema_is_the_grammar_s_shape() {
        let text = serde_json::to_string(&verdict_schema()).unwrap();
        let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
        let keys: Vec<&str> = schema["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap())
            .collect();
        // The rubric's order, in the required list and in the properties as written.
        let in_valid: Vec<usize> = keys.iter().map(|k| VALID.find(k).unwrap()).collect();
        assert!(in_valid.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
        let written: Vec<usize> = keys
            .iter()
            .map(|k| text.find(&format!("\"{k}\":{{")).unwrap())
            .collect();
        assert!(written.windows(2).all(|w| w[0] < w[1]), "{text}");
        assert_eq!(keys.len(), 10);
        let props = &schema["properties"];
        assert_eq!(props.as_object().unwrap().len(), 10);
        let steps = |k: &str| props[k]["enum"].as_array().unwrap().len();
        assert_eq!(steps("evidence_grounding"), 36);
        assert_eq!(steps("accessible_communication"), 11);
        assert_eq!(steps("task_completion"), 21);
        for n in props["answer_correctness"]["enum"].as_array().unwrap() {
            let reply = VALID.replace(
                "\"answer_correctness\": 0.5",
                &format!("\"answer_correctness\": {n}"),
            );
            let got = parse_verdict(&reply).unwrap().answer_correctness;
            assert_eq!(got, n.as_f64().unwrap(), "{n}");
        }
        assert_eq!(props["meaningfully_correct"]["type"], "boolean");
        assert_eq!(props["rationale"]["maxLength"], MAX_RATIONALE_CHARS);
        assert_eq!(schema["additionalProperties"], false);
    }

    #[test]
    fn what_the_rubric_refuses_cannot_be_written() {
        let at = |prefix: &str| {
            let mut g = VerdictGrammar::new();
            assert!(g.push(prefix), "{prefix}");
            g
        };
        let g = at(r#"{"evidence_grounding": "#);
        for bad in ["2", "1.8", "1.33", "-", "\"", " ", "1.75.", "01"] {
            assert!(!g.allows(bad), "{bad}");
        }
        for good in ["1.75", "0", "1.2", "1.05", "0.5, "] {
            assert!(g.allows(good), "{good}");
        }
        // A number cannot end at its point.
        assert!(!g.allows("1.,"));
        let g = at(
            r#"{"evidence_grounding": 1, "answer_correctness": 1, "task_completion": 1, "accessible_communication": "#,
        );
        assert!(!g.allows("0.55") && !g.allows("1") && g.allows("0.5"));
        // Keys are the rubric's, in its order.
        let g = at(r#"{"#);
        assert!(!g.allows("\"total\"") && g.allows("\"evidence_"));
        // A meaningfully correct answer has no critical error.
        let g = at(&VALID[..VALID.find("\"critical_error\": ").unwrap()].replace("false", "true"));
        assert!(g.allows("\"critical_error\": f") && !g.allows("\"critical_error\": t"));
        // Strings: not empty, no quote inside, no escapes, bounded.
        let s = at(&VALID[..VALID.find("\"visual_evidence\": \"").unwrap() + 20]);
        assert!(!s.allows("\""));
        assert!(!s.allows("a\\n"));
        assert!(s.allows("a pole, \""));
        assert!(!s.allows(&"x".repeat(MAX_EVIDENCE_CHARS + 1)));
        // Nothing after the end.
        let mut g = VerdictGrammar::new();
        assert!(g.push(VALID));
        assert!(!g.allows(" "));
    }
}
