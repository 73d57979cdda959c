//! How long the voice takes to say a text at a rate, estimated from the text alone (its
//! syllables and its punctuation), so that a decision about speech — is the alert just
//! spoken still playing? — is taken at once and the same on every run, without
//! synthesising. Calibrated on eSpeak NG's `en-us` voice (the speech tests check the
//! estimate against the real engine from 150 to 450 words per minute).

// The four constants below are fitted (least relative squared error) on eSpeak NG 1.51's
// `en-us` voice saying 18 alert and answer clauses at 150, 175, 250, 350 and 450 words a
// minute: every alert clause within 15 %.

/// Syllables to one "word" of the rate.
const SYLLABLES_PER_WORD: f64 = 2.46;
/// The pause a comma (or semicolon, colon) adds at 175 words a minute, s; pauses shrink
/// in proportion to the rate.
const COMMA_PAUSE_S: f64 = 0.12;
/// The pause a sentence end adds inside a text at 175 words a minute, s.
const SENTENCE_PAUSE_S: f64 = 0.36;
/// What any utterance adds (its onset and its final fall) at 175 words a minute, s.
const UTTERANCE_S: f64 = 0.44;
/// The rate the pauses are given at.
const PAUSE_RATE_WPM: f64 = 175.0;

/// Syllables in one word: groups of vowels (`y` counts), a silent final `e` dropped, at
/// least one; a number is read out (`12` is two syllables, `1.5` three).
fn syllables(word: &str) -> usize {
    let w: String = word
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    if w.is_empty() {
        return 0;
    }
    if w.chars().all(|c| c.is_ascii_digit()) {
        // Each digit about one syllable and a half ("seven", "twelve", "twenty").
        return (w.len() * 3).div_ceil(2).max(1);
    }
    let mut n = 0;
    let mut in_vowel = false;
    for c in w.chars() {
        let v = matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y');
        if v && !in_vowel {
            n += 1;
        }
        in_vowel = v;
    }
    if w.ends_with('e') && !w.ends_with("le") && n > 1 {
        n -= 1;
    }
    n.max(1)
}

/// How long `text` takes to say at `rate_wpm` words a minute, ns.
pub fn spoken_ns(text: &str, rate_wpm: u32) -> i64 {
    let rate = f64::from(rate_wpm.max(1));
    // A decimal point is said ("one point five"); other punctuation separates words.
    let spaced: String = text
        .chars()
        .map(|c| {
            if c == '.' || c.is_alphanumeric() || c == '\'' {
                c
            } else {
                ' '
            }
        })
        .collect();
    let mut syl = 0usize;
    for token in spaced.split_whitespace() {
        for part in token.split('.') {
            syl += syllables(part);
        }
        // "1.5": the point is a syllable.
        syl += token.trim_matches('.').matches('.').count();
    }
    let words_s = syl as f64 / SYLLABLES_PER_WORD * 60.0 / rate;
    let trimmed = text.trim_end();
    let inner = trimmed
        .trim_end_matches(['.', '!', '?', ',', ';', ':'])
        .trim_end();
    let commas = inner.matches([',', ';', ':']).count();
    let sentences = inner
        .split_whitespace()
        .filter(|w| {
            w.ends_with(['.', '!', '?'])
                && !w
                    .trim_end_matches('.')
                    .ends_with(|c: char| c.is_ascii_digit())
        })
        .count();
    if syl == 0 {
        return 0;
    }
    let pause_s =
        (UTTERANCE_S + commas as f64 * COMMA_PAUSE_S + sentences as f64 * SENTENCE_PAUSE_S)
            * PAUSE_RATE_WPM
            / rate;
    ((words_s + pause_s) * 1e9).round() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syllables_of_alert_words() {
        for (w, n) in [
            ("stop", 1),
            ("person", 2),
            ("ahead", 2),
            ("metres", 2),
            ("obstacle", 3),
            ("vehicle", 3),
            ("o'clock", 2),
            ("12", 3),
            ("4", 2),
            ("", 0),
        ] {
            assert_eq!(syllables(w), n, "{w}");
        }
    }

    #[test]
    fn longer_and_slower_take_longer_and_pauses_count() {
        let a = spoken_ns("Person ahead, 4 metres.", 175);
        let b = spoken_ns("Stop. Person ahead, 4 metres.", 175);
        assert!(b > a);
        assert!(spoken_ns("Stop. Person ahead, 4 metres.", 350) * 2 - b < 1_000);
        assert!(
            spoken_ns("Step down in 1.5 metres.", 175) > spoken_ns("Step down in 2 metres.", 175)
        );
        assert_eq!(spoken_ns("", 175), 0);
        assert!(spoken_ns("x", 0) > 0);
    }
}
