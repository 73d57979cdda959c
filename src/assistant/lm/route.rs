//! Which requests the language model answers and which stay with the grounded templates.
//!
//! Guidance toward a goal and questions the templates understand (text, head height,
//! stairs, what is looked at, where a named thing is, whether the way ahead is clear or the
//! wearer can go on) are answered by templates composed from state facts: they are exact,
//! take microseconds and carry the safety-critical instructions. Scene descriptions,
//! ambient updates and open questions the templates cannot classify go to the language
//! model, prompted with the state text and checked by the guard sentence by sentence.

use crate::assistant::forms::Form;
use crate::assistant::intent::{classify, Intent};
use crate::lexicon::words::tokens;

/// Who answers a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// The grounded templates.
    Template,
    /// The language model (when one is loaded and has not failed).
    Lm,
}

/// Words that make a question about the way ahead, which the templates answer from the
/// walking corridor (the classifier's default intent, asked explicitly).
const WAY_AHEAD_WORDS: &[&str] = &[
    "ahead",
    "front",
    "clear",
    "path",
    "way",
    "go",
    "going",
    "keep",
    "continue",
    "walk",
    "walking",
    "cross",
    "across",
    "safe",
    "stop",
    "wait",
    "obstacle",
    "obstacles",
    "blocked",
    "move",
    "straight",
    "turn",
    "left",
    "right",
    "step",
    "steps",
];

/// Whether `question` explicitly asks about the way ahead.
pub fn asks_about_way_ahead(question: &str) -> bool {
    tokens(question)
        .iter()
        .any(|t| WAY_AHEAD_WORDS.contains(&t.as_str()))
}

/// Who answers a request of `form` with `text`.
pub fn route(form: Form, text: &str) -> Route {
    match form {
        Form::Goal => Route::Template,
        Form::Scene | Form::Ambient => Route::Lm,
        Form::Question => match classify(text) {
            Intent::Ahead if !asks_about_way_ahead(text) => Route::Lm,
            _ => Route::Template,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goals_and_safety_questions_stay_with_templates() {
        assert_eq!(
            route(Form::Goal, "How do I get to the exit?"),
            Route::Template
        );
        for q in [
            "Can I keep going?",
            "Is the path clear?",
            "What's ahead?",
            "Is it safe to cross?",
            "What does the sign say?",
            "Is there anything at head height?",
            "Am I on stairs?",
            "What am I looking at?",
            "Where is the door?",
            "Am I at the exit?",
            "Am I nearly across?",
        ] {
            assert_eq!(route(Form::Question, q), Route::Template, "{q}");
        }
    }

    #[test]
    fn scenes_and_open_questions_go_to_the_model() {
        assert_eq!(route(Form::Scene, "What is around me?"), Route::Lm);
        assert_eq!(route(Form::Ambient, "What is around me?"), Route::Lm);
        for q in [
            "Is this a busy place?",
            "How many people are here?",
            "Describe the room.",
        ] {
            assert_eq!(route(Form::Question, q), Route::Lm, "{q}");
        }
    }
}
