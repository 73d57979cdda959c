//! The thing a request names (pure): the noun phrase after a position, with determiners,
//! possessives and words of nearness left out, ended by a preposition, a pronoun, a verb or
//! a clause ("the label on the bottle" → `label`, "that book I was reading" → `book`,
//! "my water bottle" → `water bottle`), singular. A place to sit is a `seat`, whatever
//! words name it.

use crate::lexicon::words::singular;

/// Words before a noun that say which one, not what.
#[rustfmt::skip]
pub const DETERMINERS: &[&str] = &[
    "the", "a", "an", "my", "your", "our", "his", "her", "their", "its", "this", "that",
    "these", "those", "some", "any", "nearest", "closest", "nearby", "next", "near", "other",
    "me", "us", "another", "each", "every", "same",
];

/// Words that end a noun phrase: prepositions, conjunctions, pronouns, verbs and adverbs
/// that follow a noun in a question.
#[rustfmt::skip]
const BOUNDARIES: &[&str] = &[
    // prepositions
    "on", "in", "at", "of", "to", "for", "from", "with", "by", "under", "over", "behind",
    "beside", "into", "onto", "off", "than", "about", "around", "across", "along", "through",
    "up", "down", "out", "inside", "outside", "towards", "toward", "between", "like",
    // conjunctions, relatives and question words ("read me what that sign says")
    "and", "or", "but", "if", "that", "which", "who", "whom", "where", "when", "so", "because",
    "whether", "what", "whatever", "how", "why",
    // pronouns
    "i", "you", "it", "we", "he", "she", "they", "them", "him", "someone", "anyone",
    // verbs
    "is", "are", "was", "were", "am", "be", "been", "being", "go", "went", "gone", "can",
    "could", "do", "does", "did", "has", "have", "had", "will", "would", "should", "may",
    "might", "must", "say", "show", "shows", "says", "said", "put", "left", "sit", "see",
    "seen", "get", "got", "find", "found", "keep", "kept", "leave", "lie", "lies", "stand",
    "stands", "look", "looks",
    // adverbs, and words of nearness after a noun ("the car near me")
    "near", "me", "us", "here", "there", "now", "yet", "again", "anywhere", "somewhere",
    "nearby", "ahead", "away", "close", "far", "too", "right", "today", "still", "not",
    "please", "exactly",
];

/// Words that end in "-ing" or "-ed" and are nouns, not verbs.
#[rustfmt::skip]
const ING_ED_NOUNS: &[&str] = &[
    "building", "ceiling", "crossing", "railing", "parking", "ring", "thing", "clothing",
    "painting", "king", "string", "wing", "landing", "bed", "shed", "sled", "red",
];

/// Words too vague to name a thing.
#[rustfmt::skip]
pub const VAGUE: &[&str] = &[
    "anything", "something", "everything", "nothing", "thing", "stuff", "one", "way", "it",
    "this", "that", "place", "somewhere", "anywhere", "object", "lot", "kind",
];

/// Words that name a hazard without saying what it is: a thing to locate ("How far is the
/// obstacle?"), but a question about the way ahead when asked whether one is there.
pub const HAZARD_WORDS: &[&str] = &["obstacle", "hazard", "danger", "path", "way", "road"];

/// Whether `w` reads as a verb form that ends a noun phrase ("parked", "coming").
fn verb_form(w: &str) -> bool {
    (w.len() > 4 && (w.ends_with("ing") || w.ends_with("ed"))) && !ING_ED_NOUNS.contains(&w)
}

/// The noun phrase starting at `from`: determiners skipped, then words up to a boundary,
/// singular. Empty when no noun follows.
pub fn noun_phrase(words: &[String], from: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut started = false;
    for w in words.iter().skip(from) {
        let w = w.as_str();
        if !started && DETERMINERS.contains(&w) {
            continue;
        }
        if BOUNDARIES.contains(&w) || verb_form(w) {
            break;
        }
        started = true;
        out.push(singular(w));
    }
    out
}

/// Whether `phrase` names a thing (not "anything", "something", "the way").
pub fn names_something(phrase: &[String]) -> bool {
    phrase.last().is_some_and(|w| !VAGUE.contains(&w.as_str()))
}

/// The first noun phrase at or after `from` that names something, skipping words that do
/// not start one ("where did I put my cup" from "did" → `cup`).
pub fn first_thing(words: &[String], from: usize) -> Vec<String> {
    (from..words.len())
        .map(|i| noun_phrase(words, i))
        .find(|p| names_something(p))
        .unwrap_or_default()
}

/// The thing a request names when no rule says where to look: the last noun phrase after
/// a determiner that names something ("any idea where my keys ended up" → `key`, not
/// `idea`), else the last one that does (a phrase starts at the beginning or after a word
/// that ends one). Empty when none does.
pub fn named_thing(words: &[String]) -> Vec<String> {
    let starts_phrase = |i: usize| {
        i == 0 || {
            let before = words[i - 1].as_str();
            BOUNDARIES.contains(&before) || DETERMINERS.contains(&before)
        }
    };
    let after_determiner = (1..words.len())
        .rev()
        .filter(|&i| DETERMINERS.contains(&words[i - 1].as_str()))
        .map(|i| noun_phrase(words, i))
        .find(|p| names_something(p));
    after_determiner
        .or_else(|| {
            (0..words.len())
                .rev()
                .filter(|&i| starts_phrase(i))
                .map(|i| noun_phrase(words, i))
                .find(|p| names_something(p))
        })
        .unwrap_or_default()
}

/// Whether the words ask for somewhere to sit ("a place to sit", "where can I sit", "sit
/// down"): the thing is then a seat of any kind.
pub fn asks_for_seat(words: &[String]) -> bool {
    words
        .iter()
        .any(|w| matches!(w.as_str(), "sit" | "seat" | "seated"))
}

/// The position just after the first occurrence of `seq` in `words`.
pub fn after(words: &[String], seq: &[&str]) -> Option<usize> {
    if seq.is_empty() || words.len() < seq.len() {
        return None;
    }
    (0..=words.len() - seq.len())
        .find(|&i| seq.iter().enumerate().all(|(k, s)| words[i + k] == *s))
        .map(|i| i + seq.len())
}

/// Whether `words` holds `seq` in a row.
pub fn has_seq(words: &[String], seq: &[&str]) -> bool {
    after(words, seq).is_some()
}

/// Whether `words` starts with `seq`.
pub fn starts(words: &[String], seq: &[&str]) -> bool {
    words.len() >= seq.len() && seq.iter().zip(words).all(|(s, w)| w == s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws(t: &str) -> Vec<String> {
        t.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn the_named_thing_follows_a_determiner_or_is_the_last_phrase() {
        assert_eq!(
            named_thing(&ws("could you tell me where my keys ended up")),
            ["key"]
        );
        assert_eq!(
            named_thing(&ws("any idea about the big red bus")),
            ["big", "red", "bus"]
        );
        assert_eq!(named_thing(&ws("help me with the stairs")), ["stairs"]);
        assert!(named_thing(&ws("is it there")).is_empty());
    }

    #[test]
    fn noun_phrases_end_at_prepositions_pronouns_and_verbs() {
        assert_eq!(
            noun_phrase(&ws("the label on the bottle say"), 0),
            ws("label")
        );
        assert_eq!(noun_phrase(&ws("that book i was reading"), 0), ws("book"));
        assert_eq!(noun_phrase(&ws("my water bottle"), 0), ws("water bottle"));
        assert_eq!(noun_phrase(&ws("the nearest bus stop"), 0), ws("bus stop"));
        assert_eq!(noun_phrase(&ws("bikes parked here"), 0), ws("bike"));
        assert_eq!(noun_phrase(&ws("the keys"), 0), ws("key"));
        assert_eq!(
            noun_phrase(&ws("the building entrance"), 0),
            ws("building entrance")
        );
        assert_eq!(first_thing(&ws("where did i put my cup"), 1), ws("cup"));
        assert_eq!(first_thing(&ws("is it to the exit"), 0), ws("exit"));
        assert!(first_thing(&ws("is anything there"), 0).is_empty());
        assert_eq!(after(&ws("how far is it"), &["far", "is"]), Some(3));
        assert!(starts(&ws("am i at the exit"), &["am", "i"]));
    }
}
