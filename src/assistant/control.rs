//! Spoken settings: "faster", "slower", "less talking", "more detail". A request made only of
//! setting words (a small, fixed vocabulary, as [`super::intent`] is) changes how the
//! assistant speaks instead of being answered; anything else, a question that happens to
//! hold such a word ("is the car going faster?") included, is a request as before. Pure.

use super::verbosity::Verbosity;
use crate::lexicon::words::tokens;

/// How much one "faster" or "slower" changes the rate, words per minute.
pub const RATE_STEP_WPM: u32 = 50;
/// The slowest rate a wearer can set, words per minute (also `--speech-rate`'s bound).
pub const RATE_MIN_WPM: u32 = 150;
/// The fastest rate a wearer can set, words per minute (also `--speech-rate`'s bound).
pub const RATE_MAX_WPM: u32 = 450;

/// A change of setting asked for by voice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Control {
    /// Speak faster.
    Faster,
    /// Speak slower.
    Slower,
    /// Say less.
    Less,
    /// Say more.
    More,
}

/// Words that may surround a setting word ("could you talk a bit faster please").
const FILLER: &[&str] = &[
    "please", "can", "could", "would", "you", "speak", "talk", "talking", "a", "bit", "little",
    "lot", "much", "be", "go", "up", "down", "the", "speech", "voice", "i", "want", "need", "me",
    "tell", "say", "your", "answers", "answer",
];

/// The setting `text` asks for, when it is made only of setting words and filler.
pub fn parse(text: &str) -> Option<Control> {
    let mut found: Option<Control> = None;
    let mut after_less_more = false;
    // "Not so much detail", "too much talking": less.
    let mut words = tokens(text);
    for seq in [
        &["not", "so", "much"][..],
        &["not", "as", "much"],
        &["too", "much"],
    ] {
        if let Some(i) = words.windows(seq.len()).position(|w| w == seq) {
            words.splice(i..i + seq.len(), ["less".to_string()]);
        }
    }
    for w in words {
        let c = match w.as_str() {
            "faster" | "quicker" | "speed" => Control::Faster,
            "slower" | "slowly" | "slow" => Control::Slower,
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

/// The rate after `c` from `rate_wpm` (a rate setting only; others leave it).
pub fn next_rate_wpm(c: Control, rate_wpm: u32) -> u32 {
    match c {
        Control::Faster => rate_wpm.saturating_add(RATE_STEP_WPM).min(RATE_MAX_WPM),
        Control::Slower => rate_wpm.saturating_sub(RATE_STEP_WPM).max(RATE_MIN_WPM),
        Control::Less | Control::More => rate_wpm,
    }
}

/// The verbosity after `c` from `v` (one step; a rate setting leaves it).
pub fn next_verbosity(c: Control, v: Verbosity) -> Verbosity {
    match (c, v) {
        (Control::Less, Verbosity::Full) => Verbosity::Brief,
        (Control::Less, _) => Verbosity::Alerts,
        (Control::More, Verbosity::Alerts) => Verbosity::Brief,
        (Control::More, _) => Verbosity::Full,
        (Control::Faster | Control::Slower, v) => v,
    }
}

/// What is said back: the new setting.
pub fn acknowledgement(c: Control, rate_wpm: u32, v: Verbosity) -> String {
    match c {
        Control::Faster | Control::Slower => format!("{rate_wpm} words a minute."),
        Control::Less | Control::More => match v {
            Verbosity::Full => "Whole answers.".into(),
            Verbosity::Brief => "Brief answers.".into(),
            Verbosity::Alerts => "Alerts, and brief answers when asked.".into(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_made_of_setting_words_are_settings() {
        for (t, c) in [
            ("Faster", Control::Faster),
            ("speak faster please", Control::Faster),
            ("Could you talk a bit quicker?", Control::Faster),
            ("slower", Control::Slower),
            ("Less talking.", Control::Less),
            ("be quiet", Control::Less),
            ("shorter please", Control::Less),
            ("More detail", Control::More),
            ("Not so much detail.", Control::Less),
            ("Slow down", Control::Slower),
            ("Tell me more.", Control::More),
            ("talk more", Control::More),
        ] {
            assert_eq!(parse(t), Some(c), "{t}");
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
            "",
        ] {
            assert_eq!(parse(t), None, "{t}");
        }
    }

    #[test]
    fn rates_step_within_bounds_and_verbosity_one_level_at_a_time() {
        assert_eq!(next_rate_wpm(Control::Faster, 175), 225);
        assert_eq!(next_rate_wpm(Control::Faster, 430), RATE_MAX_WPM);
        assert_eq!(next_rate_wpm(Control::Slower, 175), RATE_MIN_WPM);
        assert_eq!(next_rate_wpm(Control::Less, 175), 175);
        let mut v = Verbosity::Full;
        v = next_verbosity(Control::Less, v);
        assert_eq!(v, Verbosity::Brief);
        v = next_verbosity(Control::Less, v);
        assert_eq!(v, Verbosity::Alerts);
        assert_eq!(next_verbosity(Control::Less, v), Verbosity::Alerts);
        assert_eq!(next_verbosity(Control::More, v), Verbosity::Brief);
        assert_eq!(
            acknowledgement(Control::Faster, 225, v),
            "225 words a minute."
        );
    }
}
