//! A request's words as the parser reads them (pure): lower case, contractions spelled out
//! ("where's" → "where is", "can't" → "can not"), possessives and hyphens split, numbers as
//! digits ("gate twelve" → "gate 12", "room one oh four" → "room 104"), and the words that
//! carry no request dropped: fillers anywhere ("please", "just", "um") and the polite or
//! indirect openings before the request itself ("hey", "could you", "do you know", "tell
//! me", "I wonder if").

use crate::lexicon::numbers::word_value;
use crate::lexicon::words::tokens;

/// Words dropped wherever they are.
#[rustfmt::skip]
const FILLERS: &[&str] = &[
    "please", "just", "um", "uh", "er", "erm", "hmm", "kindly", "actually", "quickly",
    "roughly", "exactly", "currently",
];

/// Openings dropped before the request (longest first where one begins another).
const OPENINGS: &[&[&str]] = &[
    &["excuse", "me"],
    &["i", "would", "like", "to", "know"],
    &["i", "want", "to", "know"],
    &["i", "wonder"],
    &["i", "was", "wondering"],
    &["do", "you", "know"],
    &["any", "idea"],
    &["let", "me", "know"],
    &["tell", "me"],
    &["tell", "if"],
    &["tell", "whether"],
    &["check", "if"],
    &["check", "whether"],
    &["see", "if"],
    &["can", "you"],
    &["could", "you"],
    &["would", "you"],
    &["will", "you"],
    &["if"],
    &["whether"],
    &["hey"],
    &["hi"],
    &["hello"],
    &["ok"],
    &["okay"],
    &["so"],
    &["well"],
    &["oh"],
    &["sorry"],
    &["quick", "question"],
    &["question"],
];

/// "what's" and the like: the word before "'s" that makes it "is", not a possessive.
#[rustfmt::skip]
const IS_BEFORE: &[&str] = &[
    "what", "where", "who", "that", "there", "it", "here", "how", "this", "he", "she", "which",
];

/// A contraction spelled out, or `None` when `w` is none.
fn spell_out(w: &str) -> Option<Vec<String>> {
    let v = |s: &[&str]| Some(s.iter().map(|x| x.to_string()).collect());
    match w {
        "can't" | "cannot" => return v(&["can", "not"]),
        "won't" => return v(&["will", "not"]),
        "i'm" => return v(&["i", "am"]),
        "let's" => return v(&["let", "us"]),
        _ => {}
    }
    for (end, full) in [
        ("n't", "not"),
        ("'re", "are"),
        ("'ve", "have"),
        ("'ll", "will"),
        ("'d", "would"),
    ] {
        if let Some(base) = w.strip_suffix(end).filter(|b| !b.is_empty()) {
            return Some(vec![base.to_string(), full.to_string()]);
        }
    }
    let base = w.strip_suffix("'s")?;
    if IS_BEFORE.contains(&base) {
        return v(&[base, "is"]);
    }
    v(&[base])
}

/// Pronouns a recogniser may write as two words ("some one", "any body").
const SPLIT_PRONOUNS: &[(&str, &str, &str)] = &[
    ("some", "one", "someone"),
    ("any", "one", "anyone"),
    ("every", "one", "everyone"),
    ("no", "one", "nobody"),
    ("some", "body", "somebody"),
    ("any", "body", "anybody"),
    ("every", "body", "everybody"),
    ("no", "body", "nobody"),
];

/// `words` with pronouns written as two words joined again.
fn join_pronouns(words: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    for w in words {
        let joined = out.last().and_then(|prev| {
            SPLIT_PRONOUNS
                .iter()
                .find(|(a, b, _)| prev == a && w == *b)
                .map(|(_, _, j)| *j)
        });
        match (joined, out.last_mut()) {
            (Some(j), Some(prev)) => *prev = j.to_string(),
            _ => out.push(w),
        }
    }
    out
}

/// Whether `w` says one digit ("oh" only inside a run).
fn digit_word(w: &str) -> Option<u32> {
    word_value(w).filter(|v| *v < 10)
}

/// Number words as digits: a run of two or more digit words is one number ("one oh four" →
/// 104), any other number word its value ("twelve" → 12), unless a determiner before it
/// makes it a pronoun ("the one on the left").
fn digits(words: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let mut j = i;
        let mut run = String::new();
        while let Some(w) = words.get(j) {
            let d = match (digit_word(w), w.as_str()) {
                (Some(d), _) => d,
                (None, "oh") if !run.is_empty() => 0,
                _ => break,
            };
            run.push_str(&d.to_string());
            j += 1;
        }
        // A run ending in "oh" gives the "oh" back.
        if j > i + 1 && words.get(j - 1).is_some_and(|w| w == "oh") {
            j -= 1;
            run.pop();
        }
        if j > i + 1 {
            out.push(run);
            i = j;
            continue;
        }
        let w = &words[i];
        let pronoun = out
            .last()
            .is_some_and(|p| matches!(p.as_str(), "the" | "this" | "that" | "which" | "a" | "any"));
        match word_value(w) {
            Some(v) if !pronoun => out.push(v.to_string()),
            _ => out.push(w.clone()),
        }
        i += 1;
    }
    out
}

/// The words of `text` as the parser reads them.
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for t in tokens(text) {
        for part in t.split('-').filter(|p| !p.is_empty()) {
            match spell_out(part) {
                Some(ws) => out.extend(ws),
                None => out.push(part.trim_end_matches('.').to_string()),
            }
        }
    }
    out.retain(|w| !w.is_empty() && !FILLERS.contains(&w.as_str()));
    let mut out = digits(join_pronouns(out));
    // Drop openings, again and again ("hey, could you tell me where …").
    while let Some(o) = OPENINGS
        .iter()
        .find(|o| out.len() > o.len() && out.iter().zip(o.iter()).all(|(w, x)| w == x))
    {
        out.drain(..o.len());
    }
    // "… for me" at the end asks nothing more.
    if out.len() > 2 && out.ends_with(&["for".to_string(), "me".to_string()]) {
        out.truncate(out.len() - 2);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(t: &str) -> String {
        words(t).join(" ")
    }

    #[test]
    fn contractions_numbers_and_openings() {
        assert_eq!(w("Where's the door?"), "where is the door");
        assert_eq!(w("I can't find the remote."), "i can not find the remote");
        assert_eq!(w("What's the door's colour?"), "what is the door colour");
        assert_eq!(w("Is this room one oh four?"), "is this room 104");
        assert_eq!(w("Take me to gate twelve please"), "take me to gate 12");
        assert_eq!(w("the one on the left"), "the one on the left");
        assert_eq!(
            w("Hey, could you tell me where my cup is?"),
            "where my cup is"
        );
        assert_eq!(w("Do you know where my mug went?"), "where my mug went");
        assert_eq!(
            w("Tell me if anything is in my path."),
            "anything is in my path"
        );
        assert_eq!(w("Read that sign for me."), "read that sign");
        assert_eq!(w("Is there a drop-off ahead?"), "is there a drop off ahead");
        assert_eq!(
            w("I'd like to go to the lift"),
            "i would like to go to the lift"
        );
        assert_eq!(w("one"), "1");
        assert_eq!(w("Is some one coming?"), "is someone coming");
        assert_eq!(w("Is no one here?"), "is nobody here");
        assert_eq!(w("Can you?"), "can you");
    }
}
