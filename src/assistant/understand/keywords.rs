//! The keyword dispatch requests were understood by before the request parser, as a typed
//! [`Ask`]: a setting made only of setting words, a live line's `scene:`/`goal:` prefix, then
//! keyword rules on a question whose default is "what is ahead". Kept, unused by the
//! assistant, to measure the parser against (`vista understand --set … --parser keywords`).

use super::ask::{Ask, PeopleAsk, Target};
use crate::assistant::control::Control;
use crate::assistant::forms::Form;
use crate::assistant::request_words::content_words;
use crate::lexicon::classes::classes_named;
use crate::lexicon::words::tokens;

/// What the keyword rules make of `text`.
pub fn keyword_ask(text: &str) -> Ask {
    if let Some(c) = setting_words(text) {
        return Ask::Setting(c);
    }
    let Some((form, text)) = prefixed(text) else {
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

/// Words that may surround a setting word ("could you talk a bit faster please").
const FILLER: &[&str] = &[
    "please", "can", "could", "would", "you", "speak", "talk", "talking", "a", "bit", "little",
    "lot", "much", "be", "go", "up", "down", "the", "speech", "voice", "i", "want", "need",
];

/// The setting `text` asks for, when it is made only of setting words and filler.
fn setting_words(text: &str) -> Option<Control> {
    let mut found: Option<Control> = None;
    let mut after_less_more = false;
    for w in tokens(text) {
        let c = match w.as_str() {
            "faster" | "quicker" => Control::Faster,
            "slower" | "slowly" => Control::Slower,
            "shorter" | "briefer" | "brief" | "quieter" | "quiet" | "less" => Control::Less,
            "longer" | "more" => Control::More,
            // What "less" or "more" is of: "less talking", "more detail".
            "detail" | "details" | "words" if after_less_more => continue,
            x if FILLER.contains(&x) => continue,
            _ => return None,
        };
        after_less_more = matches!(w.as_str(), "less" | "more");
        if found.is_some_and(|f| f != c) {
            return None;
        }
        found = Some(c);
    }
    found
}

/// A live line as the keyword dispatch read it: a `scene:`, `goal:` or `question:` prefix,
/// else a question.
fn prefixed(line: &str) -> Option<(Form, String)> {
    let line = line.trim();
    if line.is_empty() {
        return None;
    }
    if let Some(prefixed) = Form::split_prefix(line) {
        return prefixed;
    }
    Some((Form::Question, line.to_string()))
}

/// What a question is about.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Intent {
    /// "What does the sign say?"
    ReadText,
    /// "Is there anything at head height?"
    HeadHeight,
    /// "Am I on stairs?"
    Stairs,
    /// "What am I looking at?"
    LookingAt,
    /// "Where is the door?" (the content words naming the thing).
    WhereIs(Vec<String>),
    /// "Am I at the exit?" / "Have I reached the door?"
    AtGoal,
    /// "Am I walking?" / "Am I standing still?" / "Am I turning?": the wearer's own motion.
    Motion,
    /// "Is someone coming toward me?" / "Is anyone walking with me?": people nearby.
    People,
    /// "Is there a bench nearby?" / "Is that a bus?" / "Do you see my cup?": whether a thing
    /// of a class is there (the content words, at least one naming an object class).
    ObjectQuery(Vec<String>),
    /// "What's ahead?" / "Is the path clear?" (also the default).
    Ahead,
}

/// Words that, asked about oneself ("am I …", "did I …"), ask about one's own motion.
const MOTION_WORDS: &[&str] = &[
    "walking", "walk", "moving", "move", "standing", "stand", "still", "stopped", "turn", "turned",
    "turning",
];

/// How a question about oneself starts.
const SELF_OPENINGS: &[[&str; 2]] = &[["am", "i"], ["did", "i"], ["was", "i"], ["have", "i"]];

/// Words that ask about people.
const PEOPLE_WORDS: &[&str] = &[
    "someone", "somebody", "anyone", "anybody", "person", "people", "everyone",
];

/// Words of a "how far is …" question that do not name the thing.
const DISTANCE_WORDS: &[&str] = &["far", "away", "distance", "close", "near"];

/// Classifies a question.
fn classify(question: &str) -> Intent {
    let t = tokens(question);
    let has = |w: &str| t.iter().any(|x| x == w);
    let text = question.to_lowercase();
    if has("say") || has("says") || has("read") || has("written") || has("text") || has("sign") {
        return Intent::ReadText;
    }
    if text.contains("head height") || has("overhead") || has("duck") || has("head") {
        return Intent::HeadHeight;
    }
    if has("stairs") || has("staircase") || text.contains("on steps") || has("escalator") {
        return Intent::Stairs;
    }
    if text.contains("looking at") || text.contains("what is this") || text.contains("what's this")
    {
        return Intent::LookingAt;
    }
    if text.contains("am i at") || text.contains("have i reached") || text.contains("am i there") {
        return Intent::AtGoal;
    }
    let about_self = SELF_OPENINGS
        .iter()
        .any(|o| t.get(..2).is_some_and(|w| w[0] == o[0] && w[1] == o[1]));
    if about_self && t.iter().any(|w| MOTION_WORDS.contains(&w.as_str())) {
        return Intent::Motion;
    }
    if t.first().is_some_and(|w| w == "how") && t.get(1).is_some_and(|w| w == "far") {
        let words: Vec<String> = content_words(question)
            .into_iter()
            .filter(|w| !DISTANCE_WORDS.contains(&w.as_str()))
            .collect();
        if !words.is_empty() {
            return Intent::WhereIs(words);
        }
    }
    if t.first()
        .is_some_and(|w| w == "where" || w == "where's" || w == "find")
        || text.contains("where is")
        || text.contains("where are")
    {
        let words = content_words(question);
        if !words.is_empty() {
            return Intent::WhereIs(words);
        }
    }
    // A yes-or-no question about people ("is someone …", "are people …"); counting them
    // or describing them is an open question.
    let yes_no = t
        .first()
        .is_some_and(|w| matches!(w.as_str(), "is" | "are" | "does" | "has"));
    if yes_no && t.iter().any(|w| PEOPLE_WORDS.contains(&w.as_str())) {
        return Intent::People;
    }
    // Whether a thing of a class is there: a yes-or-no question that points ("is that …",
    // "is there …") or asks to see ("do you see …", "can you see …") and names a class.
    let asks = t.first().is_some_and(|w| {
        matches!(
            w.as_str(),
            "is" | "are" | "do" | "does" | "can" | "could" | "any"
        )
    }) && t.iter().any(|w| {
        matches!(
            w.as_str(),
            "there" | "that" | "this" | "it" | "see" | "any" | "nearby" | "around"
        )
    });
    if asks {
        let words = content_words(question);
        if !classes_named(&words).is_empty() {
            return Intent::ObjectQuery(words);
        }
    }
    Intent::Ahead
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_by_intent() {
        assert_eq!(classify("What does that sign say?"), Intent::ReadText);
        assert_eq!(
            classify("Is there anything at head height?"),
            Intent::HeadHeight
        );
        assert_eq!(classify("Am I on stairs?"), Intent::Stairs);
        assert_eq!(classify("What am I looking at?"), Intent::LookingAt);
        assert_eq!(
            classify("Where is the door now?"),
            Intent::WhereIs(vec!["door".into()])
        );
        assert_eq!(classify("What is in front of me?"), Intent::Ahead);
        assert_eq!(classify("Am I at the exit?"), Intent::AtGoal);
        assert_eq!(
            classify("Is there a bench nearby?"),
            Intent::ObjectQuery(vec!["bench".into(), "nearby".into()])
        );
        assert!(matches!(classify("Is that a bus?"), Intent::ObjectQuery(_)));
        assert!(matches!(
            classify("Do you see my mug?"),
            Intent::ObjectQuery(_)
        ));
        // No class named: what is ahead, as before.
        assert_eq!(classify("Is the path clear?"), Intent::Ahead);
        assert_eq!(classify("Is it safe to cross?"), Intent::Ahead);
    }

    #[test]
    fn motion_distance_and_people_questions() {
        // Asked about oneself: the wearer's motion (not the way ahead).
        for q in ["Am I walking?", "Did I just turn?", "Am I standing still?"] {
            assert_eq!(classify(q), Intent::Motion, "{q}");
        }
        // Stairs keep their own intent; "can I keep walking" asks about the way ahead.
        assert_eq!(classify("Am I going up stairs?"), Intent::Stairs);
        assert_eq!(classify("Can I keep walking?"), Intent::Ahead);
        // "How far is X" asks where X is.
        assert_eq!(
            classify("How far is the door now?"),
            Intent::WhereIs(vec!["door".into()])
        );
        assert_eq!(
            classify("How far is the bench?"),
            Intent::WhereIs(vec!["bench".into()])
        );
        for q in [
            "Is someone coming toward me?",
            "Is anyone walking with me?",
            "Is someone in front of me?",
            "Is someone waving at me?",
        ] {
            assert_eq!(classify(q), Intent::People, "{q}");
        }
        // Counting people is an open question, not yes or no.
        assert_eq!(classify("How many people are here?"), Intent::Ahead);
    }
}
