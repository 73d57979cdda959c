//! Understanding a request however it is phrased: text (typed, or heard) to a typed
//! [`Ask`].
//!
//! * [`ask`]: the typed request (kind, the thing named, a predicate about people, a
//!   setting) and its written form.
//! * [`normalise`]: the words as the parser reads them (contractions, numbers, openings).
//! * [`phrase`]: the thing a request names (its noun phrase).
//! * [`setting`]: which requests are settings ("faster", "that's too slow").
//! * [`rules`]: the parser.
//! * [`similar`]: what the rules leave open, typed by likeness to labelled examples.
//! * [`keywords`]: the keyword dispatch it replaced, as an [`Ask`], to measure against.

pub mod ask;
pub mod keywords;
pub mod normalise;
pub mod phrase;
pub mod rules;
pub mod setting;
pub mod similar;

pub use ask::{Ask, PeopleAsk, Target};

use super::forms::Form;
use super::request_words::content_words;

/// What `text` asks for: a setting when it is made only of words about how the assistant
/// speaks, else what the rules make of its words.
pub fn understand(text: &str) -> Ask {
    let words = normalise::words(text);
    if let Some(c) = setting::setting(&words) {
        return Ask::Setting(c);
    }
    rules::parse(&words)
}

/// What a request of `form` saying `text` asks for: a goal's place (its words when no rule
/// finds one: a scripted `goal` of "the exit"), a scene, or what a question's text asks.
pub fn ask_for(form: Form, text: &str) -> Ask {
    match form {
        Form::Goal => match understand(text) {
            a @ Ask::Goal(_) => a,
            _ => Ask::Goal(Target::new(content_words(text))),
        },
        Form::Scene | Form::Ambient => Ask::Scene,
        Form::Question => understand(text),
    }
}
