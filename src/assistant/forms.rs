//! The response forms — scene description, question, goal-conditioned guidance, and the
//! periodic ambient update — each with its standing system prompt and a length budget short
//! enough to act on while walking.

use serde::{Deserialize, Serialize};

/// What kind of response a request wants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Form {
    /// "What is around me?"
    Scene,
    /// A question ("what does the sign say?").
    Question,
    /// Guidance to a goal ("take me to the exit door").
    Goal,
    /// A periodic scene update nobody asked for (spoken at ambient priority).
    Ambient,
}

impl Form {
    /// The name used in `requests.jsonl`, prompts and decisions.
    pub fn name(self) -> &'static str {
        match self {
            Form::Scene => "scene",
            Form::Question => "question",
            Form::Goal => "goal",
            Form::Ambient => "ambient",
        }
    }

    /// Parses a form name (`scene`, `question`, `goal`, `ambient`).
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "scene" => Some(Form::Scene),
            "question" => Some(Form::Question),
            "goal" => Some(Form::Goal),
            "ambient" => Some(Form::Ambient),
            _ => None,
        }
    }

    /// A typed line's form prefix (`scene:`, `goal:`, `question:`, any case): `None` when the
    /// line has none; `Some(None)` when nothing follows it (except `scene:`, which alone asks
    /// what is around); else the form and the text after it, trimmed.
    pub fn split_prefix(line: &str) -> Option<Option<(Form, String)>> {
        let line = line.trim();
        let lower = line.to_ascii_lowercase();
        for (prefix, form) in [
            ("scene:", Form::Scene),
            ("goal:", Form::Goal),
            ("question:", Form::Question),
        ] {
            if lower.starts_with(prefix) {
                let rest = line.get(prefix.len()..).unwrap_or("").trim();
                return Some(match (form, rest.is_empty()) {
                    (Form::Scene, true) => Some((form, "What is around me?".to_string())),
                    (_, true) => None,
                    (_, false) => Some((form, rest.to_string())),
                });
            }
        }
        None
    }

    /// This form's prompt and budget.
    pub fn spec(self) -> FormSpec {
        match self {
            Form::Scene => FormSpec {
                system: "Describe the surroundings.",
                max_words: 40,
                max_sentences: 3,
                max_tokens: 80,
            },
            Form::Question => FormSpec {
                system: "Answer the question.",
                max_words: 30,
                max_sentences: 2,
                max_tokens: 60,
            },
            Form::Goal => FormSpec {
                system: "Guide me to the goal.",
                max_words: 35,
                max_sentences: 3,
                max_tokens: 80,
            },
            Form::Ambient => FormSpec {
                system: "Give a one-sentence update.",
                max_words: 15,
                max_sentences: 1,
                max_tokens: 30,
            },
        }
    }
}

/// A form's system prompt and length budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FormSpec {
    /// The instruction that opens the user turn (a few tokens: how to answer each form is
    /// in the standing system prompt, [`crate::infer::llm::DEFAULT_SYSTEM_PROMPT`], which
    /// stays in the model's cache, so a request prefills only its own words).
    pub system: &'static str,
    /// Most words spoken.
    pub max_words: usize,
    /// Most sentences spoken.
    pub max_sentences: usize,
    /// Most tokens a model may generate.
    pub max_tokens: u32,
}

impl FormSpec {
    /// Keeps the leading whole sentences of `sentences` that fit the budget (at least the
    /// first sentence, cut at `max_words` words if it alone is too long).
    pub fn fit(&self, sentences: &[String]) -> Vec<String> {
        let mut out = Vec::new();
        let mut words = 0;
        for s in sentences {
            let n = s.split_whitespace().count();
            if out.len() >= self.max_sentences || (words + n > self.max_words && !out.is_empty()) {
                break;
            }
            if n > self.max_words {
                let cut: Vec<&str> = s.split_whitespace().take(self.max_words).collect();
                out.push(format!(
                    "{}.",
                    cut.join(" ").trim_end_matches(['.', ',', ';'])
                ));
                break;
            }
            words += n;
            out.push(s.clone());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for f in [Form::Scene, Form::Question, Form::Goal, Form::Ambient] {
            assert_eq!(Form::parse(f.name()), Some(f));
        }
        assert_eq!(Form::parse("Goal "), Some(Form::Goal));
        assert_eq!(Form::parse("dance"), None);
    }

    #[test]
    fn budgets_keep_whole_sentences() {
        let spec = Form::Question.spec();
        let s: Vec<String> = ["One two three.", "Four five.", "Six."]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(spec.fit(&s), vec!["One two three.", "Four five."]);
        let long = vec![vec!["word"; 50].join(" ") + "."];
        let fitted = spec.fit(&long);
        assert_eq!(fitted.len(), 1);
        assert_eq!(fitted[0].split_whitespace().count(), spec.max_words);
        // Every form is short enough to act on while walking.
        for f in [Form::Scene, Form::Question, Form::Goal, Form::Ambient] {
            assert!(f.spec().max_words <= 40 && f.spec().max_sentences <= 3);
        }
    }
}
