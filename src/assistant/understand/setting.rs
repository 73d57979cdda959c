//! Which requests are settings (pure): a request made only of words about how the assistant
//! speaks — a direction (faster, slower, less, more) and words that surround one ("could you
//! talk a bit", "the speech rate", "answers", "please") — changes the setting instead of being
//! answered. Complaints say the opposite direction ("That's too slow" asks for faster, "You're
//! talking too much" for less), and "speed up", "slow down", "pick up the pace" and "increase
//! the rate" are directions too. Anything else, a question that happens to hold such a word
//! ("Is the car going faster?", "Tell me more about the sign") included, is not a setting.

use crate::assistant::control::Control;

/// Phrases that say a direction, spelled as one word before the words are read one by one.
const PHRASES: &[(&[&str], &str)] = &[
    (&["too", "slow"], "faster"),
    (&["so", "slow"], "faster"),
    (&["too", "slowly"], "faster"),
    (&["speed", "it", "up"], "faster"),
    (&["speed", "up"], "faster"),
    (&["pick", "up", "the", "pace"], "faster"),
    (&["more", "quickly"], "faster"),
    (&["too", "fast"], "slower"),
    (&["so", "fast"], "slower"),
    (&["too", "quick"], "slower"),
    (&["too", "quickly"], "slower"),
    (&["slow", "it", "down"], "slower"),
    (&["slow", "down"], "slower"),
    (&["more", "slowly"], "slower"),
    (&["not", "so", "much"], "less"),
    (&["not", "as", "much"], "less"),
    (&["too", "much"], "less"),
    (&["so", "much"], "less"),
    (&["too", "long"], "less"),
    (&["too", "short"], "more"),
];

/// Words that say how the assistant speaks, around a direction.
#[rustfmt::skip]
const FILLER: &[&str] = &[
    "please", "can", "could", "would", "you", "are", "speak", "speaking", "talk", "talking",
    "a", "bit", "little", "lot", "much", "be", "go", "going", "the", "speech", "voice", "i",
    "want", "need", "me", "say", "your", "answers", "answer", "it", "that", "is", "so", "like",
    "to", "for", "keep", "make", "give", "get", "do", "not", "stop", "words", "information",
    "info", "chat", "chatty", "chatter", "detail", "details", "rate", "speed", "pace", "up",
    "down", "bit", "things", "way", "them", "just", "some",
];

/// Words that start a question about the world, not a setting ("Is it slower than me?").
#[rustfmt::skip]
const QUESTION: &[&str] = &[
    "is", "are", "was", "were", "what", "where", "which", "who", "how", "does", "did", "has",
    "have", "am", "will", "why", "when",
];

fn direction(w: &str) -> Option<Control> {
    Some(match w {
        "faster" | "quicker" | "quickly" => Control::Faster,
        "slower" | "slowly" | "slow" => Control::Slower,
        "shorter" | "short" | "briefer" | "brief" | "quieter" | "quiet" | "less" | "fewer" => {
            Control::Less
        }
        "longer" | "more" | "detailed" | "verbose" | "elaborate" => Control::More,
        _ => return None,
    })
}

/// The setting `words` (the parser's words) ask for, when they are made only of words about
/// how the assistant speaks.
pub fn setting(words: &[String]) -> Option<Control> {
    if words
        .first()
        .is_some_and(|w| QUESTION.contains(&w.as_str()))
    {
        return None;
    }
    let mut w: Vec<String> = words.to_vec();
    for (seq, one) in PHRASES {
        while let Some(i) = w.windows(seq.len()).position(|x| x == *seq) {
            w.splice(i..i + seq.len(), [one.to_string()]);
        }
    }
    // "Increase the speech rate", "reduce the detail": a change of a named setting.
    let rate = w
        .iter()
        .any(|x| matches!(x.as_str(), "rate" | "speed" | "pace"));
    let amount = w
        .iter()
        .any(|x| matches!(x.as_str(), "detail" | "details" | "information" | "words"));
    let mut found: Option<Control> = None;
    for x in &w {
        let c = match (x.as_str(), rate, amount) {
            ("increase" | "raise", true, _) => Control::Faster,
            ("decrease" | "reduce" | "lower", true, _) => Control::Slower,
            ("increase" | "raise", false, true) => Control::More,
            ("decrease" | "reduce" | "lower", false, true) => Control::Less,
            (x, _, _) => match direction(x) {
                Some(c) => c,
                None if FILLER.contains(&x) => continue,
                None => return None,
            },
        };
        if found.is_some_and(|f| f != c) {
            return None;
        }
        found = Some(c);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::super::normalise::words;
    use super::*;

    fn said(t: &str) -> Option<Control> {
        setting(&words(t))
    }

    #[test]
    fn requests_about_how_it_speaks_are_settings() {
        for (t, c) in [
            ("Faster", Control::Faster),
            ("speak faster please", Control::Faster),
            ("Could you talk a bit quicker?", Control::Faster),
            ("That's too slow.", Control::Faster),
            ("Increase the speech rate.", Control::Faster),
            ("slower", Control::Slower),
            ("Slow down", Control::Slower),
            ("Don't talk so fast.", Control::Slower),
            ("Less talking.", Control::Less),
            ("You're talking too much.", Control::Less),
            ("Not so much detail.", Control::Less),
            ("be quiet", Control::Less),
            ("More detail", Control::More),
            ("Tell me more.", Control::More),
        ] {
            assert_eq!(said(t), Some(c), "{t}");
        }
    }

    #[test]
    fn questions_with_a_setting_word_are_not_settings() {
        for t in [
            "Is the car going faster?",
            "Is it slower than me?",
            "What is ahead?",
            "How much more to the door?",
            "Tell me more about the sign",
            "faster or slower",
            "detail",
            "Increase",
            "",
        ] {
            assert_eq!(said(t), None, "{t}");
        }
    }
}
