//! Spoken settings: "faster", "slower", "less talking", "more detail" step the rate or the
//! verbosity, and the new setting is said back. Which requests are settings is the request
//! parser's ([`super::understand::setting`]). Pure.

use super::verbosity::Verbosity;

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
