//! Which requests the language model answers and which stay with the grounded templates.
//!
//! Guidance toward a goal and every question the request parser types (text, head height,
//! stairs, what is looked at, where a named thing is, people, whether the way ahead is
//! clear or the wearer can go on) are answered by templates composed from state facts: they
//! are exact, take microseconds and carry the safety-critical instructions. Scene
//! descriptions, ambient updates and open questions the parser cannot type go to the
//! language model, prompted with the state text and checked by the guard sentence by
//! sentence; a request vista cannot serve never does.

use crate::assistant::forms::Form;
use crate::assistant::understand::Ask;

/// Who answers a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// The grounded templates.
    Template,
    /// The language model (when one is loaded and has not failed).
    Lm,
}

/// Who answers a request of `form` that asks for `ask`: the model takes scene
/// descriptions, ambient updates and questions no rule understands; the templates take
/// everything the parser types (a request vista cannot serve is refused by them, never
/// guessed at by the model).
pub fn route(form: Form, ask: &Ask) -> Route {
    match (form, ask) {
        (Form::Scene | Form::Ambient, _) => Route::Lm,
        (Form::Goal, _) => Route::Template,
        (Form::Question, Ask::Open | Ask::Scene) => Route::Lm,
        (Form::Question, _) => Route::Template,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assistant::understand::ask_for;

    #[test]
    fn goals_and_safety_questions_stay_with_templates() {
        assert_eq!(
            route(
                Form::Goal,
                &ask_for(Form::Goal, "How do I get to the exit?")
            ),
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
            "How many people are here?",
            "What time is it?",
        ] {
            assert_eq!(
                route(Form::Question, &ask_for(Form::Question, q)),
                Route::Template,
                "{q}"
            );
        }
    }

    #[test]
    fn scenes_and_open_questions_go_to_the_model() {
        assert_eq!(
            route(Form::Scene, &ask_for(Form::Scene, "What is around me?")),
            Route::Lm
        );
        assert_eq!(
            route(Form::Ambient, &ask_for(Form::Ambient, "What is around me?")),
            Route::Lm
        );
        for q in [
            "Why is it so quiet?",
            "What happened here?",
            "Describe the room.",
        ] {
            assert_eq!(
                route(Form::Question, &ask_for(Form::Question, q)),
                Route::Lm,
                "{q}"
            );
        }
    }
}
