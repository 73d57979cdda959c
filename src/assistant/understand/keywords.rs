//! The keyword dispatch requests were understood by, as a typed [`Ask`]: a setting made only
//! of setting words, a live line's `scene:`/`goal:` prefix, then [`classify`] on a
//! question. Kept to measure the parser against (`vista understand --set … --parser
//! keywords`).

use super::ask::{Ask, PeopleAsk, Target};
use crate::assistant::control;
use crate::assistant::forms::Form;
use crate::assistant::intent::{classify, Intent};
use crate::assistant::request_words::content_words;
use crate::assistant::requests::parse_live_line;

/// What the keyword rules make of `text`.
pub fn keyword_ask(text: &str) -> Ask {
    if let Some(c) = control::parse(text) {
        return Ask::Setting(c);
    }
    let Some((form, text)) = parse_live_line(text) else {
        return Ask::Open;
    };
    match form {
        Form::Scene | Form::Ambient => Ask::Scene,
        Form::Goal => Ask::Goal(Target::new(content_words(&text))),
        Form::Question => match classify(&text) {
            Intent::ReadText => Ask::ReadText(Target::none()),
            Intent::HeadHeight => Ask::HeadHeight,
            Intent::Stairs => Ask::Stairs,
            Intent::LookingAt => Ask::LookingAt,
            Intent::WhereIs(w) => Ask::WhereIs(Target::new(w)),
            Intent::AtGoal => Ask::AtGoal(Target::new(content_words(&text))),
            Intent::Motion => Ask::Motion,
            Intent::People => Ask::People(PeopleAsk::Any),
            Intent::ObjectQuery(w) => Ask::ObjectQuery(Target::new(w)),
            Intent::Ahead => Ask::Ahead,
        },
    }
}
