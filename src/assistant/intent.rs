//! What a question asks about, and which tracked thing a request names. Pure keyword rules:
//! a small, predictable vocabulary rather than a model.

use super::lexicon::{content_words, names_thing, tokens};
use crate::state::{EnvironmentState, Thing};

/// What a question is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Intent {
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
    /// "What's ahead?" / "Is the path clear?" (also the default).
    Ahead,
}

/// Classifies a question.
pub fn classify(question: &str) -> Intent {
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
    Intent::Ahead
}

/// The tracked thing that `words` name best: most words matched (labels and kind words),
/// then nearest. `None` when no word names anything.
pub fn resolve<'a>(words: &[String], state: &'a EnvironmentState) -> Option<&'a Thing> {
    let mut best: Option<(&Thing, usize)> = None;
    for t in &state.things {
        let score = words.iter().filter(|w| names_thing(w, t)).count();
        if score == 0 {
            continue;
        }
        best = match best {
            Some((b, s)) if s > score || (s == score && b.distance_m <= t.distance_m) => {
                Some((b, s))
            }
            _ => Some((t, score)),
        };
    }
    best.map(|(t, _)| t)
}

/// The thing a goal request names ("Take me to the exit door." → the exit door), as
/// [`super::goal::find_goal`] resolves it (a door under a named sign first).
pub fn goal_target<'a>(request: &str, state: &'a EnvironmentState) -> Option<&'a Thing> {
    super::goal::find_goal(request, state).and_then(|g| g.thing())
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
    }
}
