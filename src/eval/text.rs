//! Text normalisation and the pieces of meaning the scorer reads out of a sentence (pure
//! compute): words, quoted strings, clock hours, distances, sentences.
//!
//! * Words: lower case; letters and digits kept, apostrophes dropped (`o'clock` → `oclock`,
//!   `don't` → `dont`), a `.` kept only between two digits (`8.4`), everything else a
//!   separator.
//! * Quoted strings: text between `"…"`, `“…”`, or `'…'` where the opening `'` does not
//!   follow a letter or digit and the closing one is not followed by one (so `o'clock` and
//!   `don't` are not quotes). Compared after case and space normalisation only.
//! * Clock hours: a number (`1`–`12` or `one`–`twelve`) followed by `o'clock`; the phrase
//!   `straight ahead` counts as 12 o'clock.
//! * Distances: a number (digits with an optional decimal part, or `one`–`twenty`) followed
//!   by `m`, `metre(s)`, `meter(s)` (metres) or `step(s)` (× [`STEP_LENGTH_M`]).

use crate::lexicon::numbers::word_value;
use crate::state::STEP_LENGTH_M;

/// Words that carry no fact on their own (ignored when a fact's content words are matched).
pub const STOPWORDS: &[&str] = &[
    "a", "an", "the", "is", "are", "was", "be", "at", "in", "on", "of", "to", "it", "its", "and",
    "or", "about", "around", "there", "here", "this", "that", "your", "you", "with", "by", "for",
    "from", "says", "say", "reads", "read", "now", "just", "some", "one", "away",
];

/// Lower-cased words of `s` (see the module doc).
pub fn words(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let digit_dot = c == '.'
            && i > 0
            && chars.get(i - 1).is_some_and(|p| p.is_ascii_digit())
            && chars.get(i + 1).is_some_and(|n| n.is_ascii_digit());
        if c.is_alphanumeric() || digit_dot {
            cur.extend(c.to_lowercase());
        } else if c == '\'' || c == '’' {
            // Dropped inside a word; a separator elsewhere.
            let inside = i > 0
                && chars.get(i - 1).is_some_and(|p| p.is_alphanumeric())
                && chars.get(i + 1).is_some_and(|n| n.is_alphanumeric());
            if !inside && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The words of `s` joined by single spaces.
pub fn normalise(s: &str) -> String {
    words(s).join(" ")
}

/// Case and space normalisation only (for quoted strings): lower case, runs of white space
/// collapsed to one space, trimmed.
pub fn fold_case_space(s: &str) -> String {
    s.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// True when the normalised `phrase` occurs in the normalised `text` on word boundaries.
pub fn contains_phrase(text: &str, phrase: &str) -> bool {
    phrase_positions(&words(text), &words(phrase))
        .next()
        .is_some()
}

/// Word indices in `hay` where `needle` starts (whole words); none for an empty needle.
pub fn phrase_positions<'a>(
    hay: &'a [String],
    needle: &'a [String],
) -> impl Iterator<Item = usize> + 'a {
    let n = needle.len();
    (0..hay.len().saturating_sub(n.saturating_sub(1)))
        .filter(move |&i| n > 0 && hay.get(i..i + n).is_some_and(|w| w == needle))
}

/// The quoted strings of `s`, in order, with their text as written.
pub fn quoted(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let alnum_at = |i: Option<usize>| {
        i.and_then(|i| chars.get(i))
            .is_some_and(|c| c.is_alphanumeric())
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars.get(i).copied().unwrap_or(' ');
        let close: Option<char> = match c {
            '"' => Some('"'),
            '“' => Some('”'),
            '\'' | '‘' if !alnum_at(i.checked_sub(1)) => {
                Some(if c == '‘' { '’' } else { '\'' })
            }
            _ => None,
        };
        let Some(close) = close else {
            i += 1;
            continue;
        };
        let single = close == '\'' || close == '’';
        let end = (i + 1..chars.len())
            .find(|&j| chars.get(j) == Some(&close) && (!single || !alnum_at(Some(j + 1))));
        match end {
            Some(j) => {
                let inner: String = chars.get(i + 1..j).unwrap_or(&[]).iter().collect();
                if !inner.trim().is_empty() {
                    out.push(inner);
                }
                i = j + 1;
            }
            None => i += 1,
        }
    }
    out
}

/// `s` with every quoted string (and its quotes) replaced by a space.
pub fn without_quotes(s: &str) -> String {
    let mut rest = s.to_string();
    for q in quoted(s) {
        for (open, close) in [('"', '"'), ('“', '”'), ('\'', '\''), ('‘', '’')] {
            let pat = format!("{open}{q}{close}");
            if rest.contains(&pat) {
                rest = rest.replacen(&pat, " ", 1);
                break;
            }
        }
    }
    rest
}

fn number(word: &str) -> Option<f64> {
    if let Some(v) = word_value(word) {
        return Some(f64::from(v));
    }
    word.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Clock hours said in `s` (see the module doc), in order.
pub fn clock_hours(s: &str) -> Vec<u8> {
    let w = words(s);
    let mut out = Vec::new();
    for (i, word) in w.iter().enumerate() {
        let next = w.get(i + 1).map(String::as_str);
        if next == Some("oclock") {
            if let Some(h) = number(word).filter(|h| h.fract() == 0.0 && (1.0..=12.0).contains(h)) {
                out.push(h as u8);
            }
        }
        if word == "straight" && next == Some("ahead") {
            out.push(12);
        }
    }
    out
}

/// Distances said in `s`, metres, in order.
pub fn distances_m(s: &str) -> Vec<f64> {
    let w = words(s);
    let mut out = Vec::new();
    for (i, word) in w.iter().enumerate() {
        let Some(v) = number(word) else { continue };
        let scale = match w.get(i + 1).map(String::as_str) {
            Some("m" | "metre" | "metres" | "meter" | "meters") => 1.0,
            Some("step" | "steps") => f64::from(STEP_LENGTH_M),
            _ => continue,
        };
        out.push(v * scale);
    }
    out
}

fn stem(w: &str) -> &str {
    let w = if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") {
        w.get(..w.len() - 1).unwrap_or(w)
    } else {
        w
    };
    // The same thing said in another word.
    match w {
        "doorway" => "door",
        "climbing" | "climb" => "climb",
        _ => w,
    }
}

/// Spoken phrases that say what one word of a fact says: walking up or going up stairs is
/// climbing them. Applied to fact and answer alike (before [`stem`]), so either form
/// matches the other.
const PHRASES: &[(&[&str], &str)] = &[
    (&["walking", "up"], "climb"),
    (&["going", "up"], "climb"),
    (&["walk", "up"], "climb"),
    (&["go", "up"], "climb"),
    (&["goes", "up"], "climb"),
    (&["walks", "up"], "climb"),
];

/// `words` with every phrase of [`PHRASES`] replaced by its word.
fn join_phrases(words: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let hit = PHRASES.iter().find(|(p, _)| {
            words
                .get(i..i + p.len())
                .is_some_and(|w| w.iter().zip(p.iter()).all(|(a, b)| a == b))
        });
        match hit {
            Some((p, w)) => {
                out.push((*w).to_string());
                i += p.len();
            }
            None => {
                if let Some(w) = words.get(i) {
                    out.push(w.clone());
                }
                i += 1;
            }
        }
    }
    out
}

/// The content words of `s` (stemmed, phrases of one meaning joined): its words outside
/// quotes, less stop words, numbers, units, `oclock` and the `straight ahead` phrase.
pub fn content_words(s: &str) -> Vec<String> {
    let w = join_phrases(words(&without_quotes(s)));
    let mut out = Vec::new();
    let mut skip_next = false;
    for (i, word) in w.iter().enumerate() {
        if std::mem::take(&mut skip_next) {
            continue;
        }
        if word == "straight" && w.get(i + 1).map(String::as_str) == Some("ahead") {
            skip_next = true;
            continue;
        }
        let unit = matches!(
            word.as_str(),
            "m" | "metre" | "metres" | "meter" | "meters" | "step" | "steps" | "oclock"
        );
        if unit || number(word).is_some() || STOPWORDS.contains(&word.as_str()) {
            continue;
        }
        out.push(stem(word).to_string());
    }
    out
}

/// The stemmed words of `s`, phrases of one meaning joined (to look content words up in).
pub fn stemmed_words(s: &str) -> Vec<String> {
    join_phrases(words(s))
        .iter()
        .map(|w| stem(w).to_string())
        .collect()
}

/// Sentences of `s`: split after `.`, `!`, `?`, `;` and line breaks (a `.` between digits
/// does not split). Empty pieces are left out.
pub fn sentences(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let digit_dot = c == '.'
            && i > 0
            && chars.get(i - 1).is_some_and(|p| p.is_ascii_digit())
            && chars.get(i + 1).is_some_and(|n| n.is_ascii_digit());
        cur.push(c);
        if matches!(c, '.' | '!' | '?' | ';' | '\n') && !digit_dot {
            if !cur.trim().is_empty() {
                out.push(std::mem::take(&mut cur).trim().to_string());
            }
            cur.clear();
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// Circular distance between two clock hours, 0..=6.
pub fn clock_difference(a: u8, b: u8) -> u8 {
    let d = (i16::from(a) - i16::from(b)).rem_euclid(12) as u8;
    d.min(12 - d)
}

/// True when a said distance matches a true one: within ±30 % or ±1 m, whichever is larger.
pub fn distance_matches(said_m: f64, true_m: f64) -> bool {
    (said_m - true_m).abs() <= (0.3 * true_m.abs()).max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_keep_decimals_and_drop_apostrophes() {
        assert_eq!(
            words("The pole's at 12 o'clock, 8.4 m. Don't!"),
            ["the", "poles", "at", "12", "oclock", "8.4", "m", "dont"]
        );
        assert_eq!(normalise("  Keep GOING,straight "), "keep going straight");
    }

    #[test]
    fn quotes_are_found_but_not_apostrophes() {
        assert_eq!(
            quoted("The sign says \"Platform 3\" at 12 o'clock; another reads 'EXIT'."),
            ["Platform 3", "EXIT"]
        );
        assert_eq!(
            quoted("“Trains to Central” and don't"),
            ["Trains to Central"]
        );
        assert!(quoted("an unclosed \" quote").is_empty());
        assert_eq!(
            without_quotes("sign \"EXIT\" ahead")
                .split_whitespace()
                .collect::<Vec<_>>(),
            ["sign", "ahead"]
        );
    }

    #[test]
    fn clocks_and_distances_are_read() {
        assert_eq!(
            clock_hours("at 2 o'clock, then eleven o'clock, straight ahead"),
            [2, 11, 12]
        );
        assert!(clock_hours("13 o'clock or 0 o'clock").is_empty());
        let d = distances_m("about 8.4 m, five metres, 2 steps, 3 meters, 7 apples");
        assert_eq!(d.len(), 4);
        assert_eq!(d[0], 8.4);
        assert_eq!(d[1], 5.0);
        assert!((d[2] - 1.4).abs() < 1e-6);
        assert_eq!(d[3], 3.0);
    }

    #[test]
    fn content_words_skip_numbers_units_and_stopwords() {
        assert_eq!(
            content_words("the exit door is at 12 o'clock, about 8 m"),
            ["exit", "door"]
        );
        assert_eq!(
            content_words("a metal pole is straight ahead in the path"),
            ["metal", "pole", "path"]
        );
        assert_eq!(content_words("the sign says \"Platform 3\""), ["sign"]);
    }

    #[test]
    fn equivalent_spoken_forms_match_one_word() {
        // Climbing stairs is walking or going up them; a doorway is a door.
        assert_eq!(content_words("you are climbing stairs"), ["climb", "stair"]);
        assert_eq!(
            stemmed_words("Yes. You are walking up stairs."),
            ["yes", "you", "are", "climb", "stair"]
        );
        assert_eq!(
            content_words("stairs going up ahead"),
            ["stair", "climb", "ahead"]
        );
        assert_eq!(
            stemmed_words("The doorway is here"),
            ["the", "door", "is", "here"]
        );
        // Stop words are still told before stemming ("this" is not a content word).
        assert_eq!(content_words("this door"), ["door"]);
        // "Up" alone is no climb.
        assert!(!stemmed_words("Look up at the sign").contains(&"climb".to_string()));
    }

    #[test]
    fn sentences_split_but_not_decimals() {
        assert_eq!(
            sentences("Door at 12 o'clock, 8.4 m. Pole ahead; careful!\nok"),
            [
                "Door at 12 o'clock, 8.4 m.",
                "Pole ahead;",
                "careful!",
                "ok"
            ]
        );
    }

    #[test]
    fn tolerances() {
        assert_eq!(clock_difference(12, 1), 1);
        assert_eq!(clock_difference(11, 1), 2);
        assert_eq!(clock_difference(3, 9), 6);
        assert!(distance_matches(6.4, 5.0));
        assert!(!distance_matches(6.6, 5.0));
        assert!(distance_matches(1.9, 1.0));
        assert!(!distance_matches(2.1, 1.0));
        assert!(contains_phrase(
            "Please, Walk straight ahead now",
            "walk straight ahead"
        ));
        assert!(!contains_phrase(
            "sidewalk straight ahead",
            "walk straight ahead"
        ));
    }
}
