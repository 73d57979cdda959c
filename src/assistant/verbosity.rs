//! How much the assistant says, chosen by the wearer (`--verbosity`). Alerts are never
//! shortened or held back by it: they are what keeps a walker safe. Answers are: at `brief`
//! and `alerts` an answer is its first sentence (the templates put the most important fact
//! first), and at `alerts` nothing is said unasked (no periodic scene updates).

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use super::forms::FormSpec;

/// Words in a brief answer, at most.
pub const BRIEF_MAX_WORDS: usize = 20;

/// How much the assistant says.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Verbosity {
    /// Alerts, and one-sentence answers to what the wearer asks; nothing unasked.
    Alerts,
    /// Alerts and one-sentence answers.
    Brief,
    /// Alerts and whole answers (each response form's own length).
    #[default]
    Full,
}

impl Verbosity {
    /// The most sentences and words an answer of a form with `spec` may have.
    pub fn budget(self, spec: &FormSpec) -> (usize, usize) {
        match self {
            Verbosity::Full => (spec.max_sentences, spec.max_words),
            Verbosity::Brief | Verbosity::Alerts => (
                spec.max_sentences.min(1),
                spec.max_words.min(BRIEF_MAX_WORDS),
            ),
        }
    }

    /// Whether periodic scene updates (nobody asked for them) are said.
    pub fn unasked(self) -> bool {
        self != Verbosity::Alerts
    }

    /// Its name, as on the command line and in the settings file.
    pub fn name(self) -> &'static str {
        match self {
            Verbosity::Alerts => "alerts",
            Verbosity::Brief => "brief",
            Verbosity::Full => "full",
        }
    }

    fn to_u8(self) -> u8 {
        match self {
            Verbosity::Alerts => 0,
            Verbosity::Brief => 1,
            Verbosity::Full => 2,
        }
    }

    fn from_u8(v: u8) -> Self {
        match v {
            0 => Verbosity::Alerts,
            1 => Verbosity::Brief,
            _ => Verbosity::Full,
        }
    }
}

/// The verbosity in force, shared by the assistant (which changes it when the wearer asks)
/// and the thread that answers.
#[derive(Clone, Debug)]
pub struct SharedVerbosity(Arc<AtomicU8>);

impl SharedVerbosity {
    /// Starting at `v`.
    pub fn new(v: Verbosity) -> Self {
        Self(Arc::new(AtomicU8::new(v.to_u8())))
    }

    /// The verbosity now.
    pub fn get(&self) -> Verbosity {
        Verbosity::from_u8(self.0.load(Ordering::Acquire))
    }

    /// Changes it.
    pub fn set(&self, v: Verbosity) {
        self.0.store(v.to_u8(), Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assistant::forms::Form;

    #[test]
    fn brief_answers_are_one_sentence_and_full_ones_the_form_s_own() {
        for form in [Form::Scene, Form::Question, Form::Goal] {
            let spec = form.spec();
            assert_eq!(
                Verbosity::Full.budget(&spec),
                (spec.max_sentences, spec.max_words)
            );
            let (s, w) = Verbosity::Brief.budget(&spec);
            assert_eq!(s, 1);
            assert!(w <= BRIEF_MAX_WORDS && w <= spec.max_words);
            assert_eq!(Verbosity::Alerts.budget(&spec), (s, w));
        }
        assert!(Verbosity::Brief.unasked() && !Verbosity::Alerts.unasked());
        let shared = SharedVerbosity::new(Verbosity::Full);
        let other = shared.clone();
        for v in [Verbosity::Alerts, Verbosity::Brief, Verbosity::Full] {
            shared.set(v);
            assert_eq!(other.get(), v);
        }
    }
}
