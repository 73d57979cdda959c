//! Words: a tokenizer, number words, the object nouns the guard checks, and which words
//! name which kinds of things. Pure.

use crate::state::{Thing, ThingKind};

/// Lower-case word tokens: letters, digits, apostrophes and decimal points are kept, a
/// trailing full stop is removed ("o'clock", "2.5", "can't" stay whole).
pub fn tokens(text: &str) -> Vec<String> {
    let lower = text.to_lowercase().replace(['\u{2019}', '\u{2018}'], "'");
    lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '.' || c == '-'))
        .map(|t| t.trim_matches(|c| c == '.' || c == '\'' || c == '-'))
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// A number written in digits ("2.5") or as a word ("six", "half").
pub fn number(word: &str) -> Option<f32> {
    if let Ok(v) = word.parse::<f32>() {
        return v.is_finite().then_some(v);
    }
    const WORDS: [&str; 21] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
        "twenty",
    ];
    match word {
        "a" | "an" => Some(1.0),
        "half" => Some(0.5),
        "thirty" => Some(30.0),
        _ => WORDS.iter().position(|w| *w == word).map(|i| i as f32),
    }
}

/// Singular of a plural noun ("boxes" → "box", "people" → "person").
pub fn singular(word: &str) -> String {
    match word {
        "people" => "person".into(),
        "stairs" | "steps" => word.into(),
        "boxes" | "benches" | "branches" | "buses" => word.trim_end_matches("es").into(),
        w if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") => w[..w.len() - 1].into(),
        w => w.into(),
    }
}

/// Object nouns the guard checks against the state: naming one of these claims that such a
/// thing is there. Words for places and surfaces (wall, floor, path) are not included.
pub const OBJECT_NOUNS: &[&str] = &[
    "door",
    "doorway",
    "entrance",
    "elevator",
    "lift",
    "escalator",
    "stairs",
    "staircase",
    "curb",
    "kerb",
    "edge",
    "platform",
    "pole",
    "post",
    "pillar",
    "column",
    "bin",
    "box",
    "chair",
    "table",
    "bench",
    "desk",
    "counter",
    "shelf",
    "trolley",
    "cart",
    "stroller",
    "pram",
    "car",
    "bus",
    "bicycle",
    "bike",
    "scooter",
    "truck",
    "vehicle",
    "person",
    "man",
    "woman",
    "child",
    "dog",
    "tree",
    "branch",
    "sign",
    "cone",
    "barrier",
    "fence",
    "hole",
    "obstacle",
    "window",
    "plant",
    "bag",
    "suitcase",
    "cup",
    "bottle",
    "crossing",
    "ramp",
];

/// Words that name a kind generically (any thing of that kind supports them).
pub fn kind_words(k: ThingKind) -> &'static [&'static str] {
    match k {
        ThingKind::Obstacle => &["obstacle"],
        ThingKind::Overhead => &["obstacle"],
        ThingKind::DropOff => &["drop", "drop-off", "edge", "curb", "kerb", "stairs"],
        ThingKind::StepUp => &["step", "stairs", "curb", "kerb"],
        ThingKind::Door => &["door", "doorway", "entrance", "exit", "opening"],
        ThingKind::Text => &["sign", "text", "label"],
        ThingKind::Person => &["person", "someone", "man", "woman"],
        ThingKind::Vehicle => &["vehicle"],
        ThingKind::Object => &["object"],
    }
}

/// Whether `word` (a singular noun) names `thing`: it is a word of its label or a generic
/// word for its kind.
pub fn names_thing(word: &str, thing: &Thing) -> bool {
    let w = singular(word);
    kind_words(thing.kind).contains(&w.as_str())
        || tokens(&thing.label).iter().any(|l| singular(l) == w)
}

/// Verbs of handling a thing with the hands ("pick up my bottle", "press the button"): a
/// goal with one is about an object within reach, not a place to walk to.
pub const HANDLING_VERBS: &[&str] = &[
    "pick", "press", "push", "pull", "grab", "hold", "touch", "open", "close", "fetch", "carry",
    "put", "plug", "unplug", "drink", "pour", "sit", "use", "hang", "switch",
];

/// `words` less the handling verbs and the particle right after one ("pick up my water
/// bottle" → "water bottle"): what is to be handled.
pub fn handled_words(words: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(words.len());
    let mut after_verb = false;
    for w in words {
        let verb = HANDLING_VERBS.contains(&w.as_str());
        let particle = after_verb && matches!(w.as_str(), "up" | "down" | "on" | "off" | "out");
        if !verb && !particle {
            out.push(w.clone());
        }
        after_verb = verb;
    }
    out
}

/// Words that carry no meaning for matching a request to a thing.
pub const STOP_WORDS: &[&str] = &[
    "the", "a", "an", "to", "me", "my", "i", "is", "are", "where", "what", "take", "find", "get",
    "go", "please", "now", "of", "it", "this", "that", "there", "here", "can", "you", "show",
    "how", "do", "does", "am", "at", "in", "on", "for", "way", "guide", "lead", "help", "want",
    "need", "nearest", "closest", "reach",
];

/// Content words of a request (tokens minus stop words, singular).
pub fn content_words(text: &str) -> Vec<String> {
    tokens(text)
        .into_iter()
        .filter(|t| !STOP_WORDS.contains(&t.as_str()))
        .map(|t| singular(&t))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_keep_clock_and_decimals() {
        assert_eq!(
            tokens("Turn right: the door's at 2 o'clock, 2.5 metres."),
            vec!["turn", "right", "the", "door's", "at", "2", "o'clock", "2.5", "metres"]
        );
        assert_eq!(number("six"), Some(6.0));
        assert_eq!(number("2.5"), Some(2.5));
        assert_eq!(number("door"), None);
        assert_eq!(singular("boxes"), "box");
        assert_eq!(singular("people"), "person");
        assert_eq!(
            content_words("Take me to the exit door."),
            vec!["exit", "door"]
        );
        assert_eq!(
            handled_words(&content_words("Help me pick up my water bottle")),
            vec!["water", "bottle"]
        );
    }
}
