//! The words of requests (pure): handling verbs, stop words, and a request's content
//! words. The shared vocabulary (number words, nouns, the tokenizer) is in
//! [`crate::lexicon`].

use crate::lexicon::words::{singular, tokens};

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
    fn content_and_handled_words() {
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
