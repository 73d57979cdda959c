//! Whether what the microphones heard was said to the assistant. On a street the glasses
//! hear passers-by, shop staff and the wearer's own conversations; only what is addressed to
//! vista becomes a request. Hands-free, as blind users of voice assistants ask for (a
//! button needs a free hand and finding it; Aria Gen1 streams none):
//!
//! * a **wake phrase** at the start of the utterance ("Hey Vista, where is the door?"),
//!   removed before the request is understood; the greeting may be left out or be another
//!   ("Vista, …", "OK Vista, …"), and one letter of the name may be heard as another, as a
//!   recogniser hears it ("Vesta"); the phrase alone ("Hey Vista.") calls the assistant, which
//!   answers "Yes?" (once the wearer has not gone on speaking: [`super::consumer`]) and
//!   listens;
//! * a **conversation**: for [`FOLLOW_UP_NS`] after the end of an utterance addressed to it,
//!   plain speech is addressed too (a follow-up question, an answer to "Yes?", a repeat after
//!   "I didn't catch that"), each one extending the window;
//! * [`Wake::Always`] (`--wake none`): every utterance is a request, for a desk test alone.
//!
//! An utterance not caught (too unsure to act on) is said to be not caught only where the
//! wearer was speaking to the assistant; elsewhere it is someone else's speech and is left.
//! Pure: the caller gives the utterance's end time.

/// How long plain speech stays addressed after an addressed utterance ends, ns: an answer
/// (about 2–4 s) and the wearer's reply to it.
pub const FOLLOW_UP_NS: i64 = 8_000_000_000;
/// The default wake phrase.
pub const DEFAULT_WAKE: &str = "hey vista";
/// Greetings that may stand before the name (or be left out).
const GREETINGS: [&str; 5] = ["hey", "hi", "ok", "okay", "hello"];
/// An unstressed greeting as a recogniser often hears it before a name ("A Vista, …" for
/// "Hey Vista, …", most of all in noise).
const HEARD_AS_GREETING: [&str; 1] = ["a"];
/// The most words of a wake phrase.
const MAX_WAKE_WORDS: usize = 4;

/// How the wearer starts a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Wake {
    /// Every utterance is a request.
    Always,
    /// Utterances starting with the phrase (lower-case words), or in a conversation.
    Phrase(Vec<String>),
}

/// Why a wake phrase cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum WakeError {
    /// Not one to four words of letters, ending in a name.
    #[error(
        "wake phrase {0:?}: give one to four words of letters ending in a name (e.g. \"hey vista\"), or \"none\""
    )]
    Phrase(String),
}

impl Wake {
    /// `none` (every utterance a request) or a phrase such as `hey vista`.
    pub fn parse(s: &str) -> Result<Self, WakeError> {
        let words: Vec<String> = s
            .split_whitespace()
            .map(|w| w.trim_matches([',', '.', '!']).to_lowercase())
            .collect();
        if words.len() == 1 && words[0] == "none" {
            return Ok(Self::Always);
        }
        let letters = |w: &String| !w.is_empty() && w.chars().all(char::is_alphabetic);
        let name_ok = words
            .last()
            .is_some_and(|n| !GREETINGS.contains(&n.as_str()));
        if words.is_empty()
            || words.len() > MAX_WAKE_WORDS
            || !words.iter().all(letters)
            || !name_ok
        {
            return Err(WakeError::Phrase(s.to_owned()));
        }
        Ok(Self::Phrase(words))
    }
}

impl Wake {
    /// The phrase as a wearer says it ("Hey Vista"); `None` for [`Wake::Always`].
    pub fn spoken(&self) -> Option<String> {
        match self {
            Self::Always => None,
            Self::Phrase(words) => Some(
                words
                    .iter()
                    .map(|w| sentence(w))
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
        }
    }
}

impl Default for Wake {
    fn default() -> Self {
        Self::Phrase(DEFAULT_WAKE.split(' ').map(str::to_owned).collect())
    }
}

impl std::fmt::Display for Wake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Always => f.write_str("none"),
            Self::Phrase(w) => f.write_str(&w.join(" ")),
        }
    }
}

/// What an utterance was, to the assistant.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Addressed {
    /// A request: its text, the wake phrase removed (and its first letter capitalised).
    Request {
        /// What the wearer asked.
        text: String,
    },
    /// The wake phrase alone: the assistant is called.
    Called,
    /// Said to the assistant but not caught.
    NotCaught,
    /// Not said to the assistant.
    NotAddressed,
}

/// See the module documentation.
#[derive(Clone, Debug)]
pub struct Addressing {
    wake: Wake,
    /// Until when (device ns) plain speech is addressed.
    open_until_ns: Option<i64>,
}

impl Addressing {
    /// Listening for `wake`.
    pub fn new(wake: Wake) -> Self {
        Self {
            wake,
            open_until_ns: None,
        }
    }

    /// The wake it listens for.
    pub fn wake(&self) -> &Wake {
        &self.wake
    }

    /// Whether plain speech that began at `start_ns` is addressed (a conversation is open).
    pub fn open_at(&self, start_ns: i64) -> bool {
        self.open_until_ns.is_some_and(|u| start_ns <= u)
    }

    /// An utterance heard from `start_ns` to `end_ns`: its text, and whether it was caught.
    pub fn hear(&mut self, text: &str, caught: bool, start_ns: i64, end_ns: i64) -> Addressed {
        let stripped = match &self.wake {
            Wake::Always => Some(text.trim()),
            Wake::Phrase(words) => after_wake(text, words),
        };
        let open = matches!(self.wake, Wake::Always) || self.open_at(start_ns);
        let addressed = match (stripped, caught) {
            (Some(_), false) => Addressed::NotCaught,
            (None, false) if open => Addressed::NotCaught,
            (None, false) => Addressed::NotAddressed,
            (Some(""), true) => Addressed::Called,
            (Some(rest), true) => Addressed::Request {
                text: sentence(rest),
            },
            (None, true) if open => Addressed::Request {
                text: text.trim().to_owned(),
            },
            (None, true) => Addressed::NotAddressed,
        };
        if addressed != Addressed::NotAddressed {
            self.open_until_ns = Some(end_ns.saturating_add(FOLLOW_UP_NS));
        }
        addressed
    }
}

/// A word of `text` with its byte span, lower-cased letters only.
fn words(text: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        let part = c.is_alphanumeric() || c == '\'';
        match (part, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                let w: String = text[s..i]
                    .chars()
                    .filter(|c| c.is_alphanumeric())
                    .flat_map(char::to_lowercase)
                    .collect();
                out.push((w, i));
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// The text after a leading wake phrase (`Some("")`: the phrase alone), or `None`. The
/// phrase's greeting is optional and may be any greeting; its other words must be heard as
/// they are, the name as [`near`] allows.
fn after_wake<'a>(text: &'a str, wake: &[String]) -> Option<&'a str> {
    let heard = words(text);
    let core = match wake.split_first() {
        Some((first, rest)) if GREETINGS.contains(&first.as_str()) => rest,
        _ => wake,
    };
    let (name, before) = core.split_last()?;
    let skip = usize::from(heard.first().is_some_and(|(w, _)| {
        GREETINGS.contains(&w.as_str()) || HEARD_AS_GREETING.contains(&w.as_str())
    }));
    let said = heard.get(skip..skip + core.len())?;
    let lead_ok = said.iter().zip(before).all(|((h, _), w)| h == w);
    let (last, end) = said.last()?;
    if !(lead_ok && near(last, name)) {
        return None;
    }
    let rest = &text[*end..];
    Some(
        rest.trim_start_matches(|c: char| !c.is_alphanumeric())
            .trim_end(),
    )
}

/// `s` with its first letter capitalised (a request that followed "Hey Vista," starts a
/// sentence of its own).
fn sentence(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// The same word as a recogniser may hear it: equal, or (names of four letters or more)
/// one letter heard as another ("Vesta", "Bista" for "Vista").
fn near(heard: &str, name: &str) -> bool {
    heard == name
        || (name.chars().count() >= 4
            && heard.chars().count() == name.chars().count()
            && heard
                .chars()
                .zip(name.chars())
                .filter(|(a, b)| a != b)
                .count()
                <= 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = 1_000_000_000;

    fn req(t: &str) -> Addressed {
        Addressed::Request { text: t.into() }
    }

    #[test]
    fn the_wake_phrase_as_a_recogniser_hears_it_starts_a_request() {
        let mut a = Addressing::new(Wake::default());
        // What Moonshine made of eSpeak NG and Piper saying "Hey Vista, …" and "Vista. …".
        for (heard, rest) in [
            ("Hey, Vista, where's the door?", "Where's the door?"),
            (
                "Hey Vista, what does the sign say?",
                "What does the sign say?",
            ),
            ("Vesta, take me to the exit.", "Take me to the exit."),
            (
                "OK Vista. Is anyone waving at me?",
                "Is anyone waving at me?",
            ),
            ("hi bista what is around me", "What is around me"),
            ("A Vista, take me to the exit.", "Take me to the exit."),
        ] {
            let mut fresh = Addressing::new(Wake::default());
            assert_eq!(fresh.hear(heard, true, 0, S), req(rest), "{heard}");
        }
        // Not at the start, another name, a greeting alone: someone else's speech.
        for heard in [
            "I think Vista is a nice name.",
            "Wizard, what does the sign say?",
            "Hey, where's the door?",
            "Hey everyone, is anyone waving at me?",
            "A visitor is at the door.",
            "Vistas open up ahead.",
        ] {
            assert_eq!(
                a.hear(heard, true, 0, S),
                Addressed::NotAddressed,
                "{heard}"
            );
        }
        assert_eq!(a.hear("Hey Vista.", true, 0, S), Addressed::Called);
    }

    #[test]
    fn a_conversation_stays_open_for_a_while_after_each_addressed_utterance() {
        let mut a = Addressing::new(Wake::default());
        assert_eq!(
            a.hear("Where is the door?", true, 0, S),
            Addressed::NotAddressed
        );
        assert_eq!(a.hear("Hey Vista", true, 2 * S, 3 * S), Addressed::Called);
        // The answer to "Yes?", then a follow-up, each within the window of the one before.
        assert_eq!(
            a.hear("Where is the door?", true, 5 * S, 6 * S),
            req("Where is the door?")
        );
        let t = 6 * S + FOLLOW_UP_NS;
        assert_eq!(
            a.hear("And the stairs?", true, t, t + S),
            req("And the stairs?")
        );
        // Not caught in the conversation: said; after it: someone else's, left.
        assert_eq!(
            a.hear("mumble", false, t + 2 * S, t + 3 * S),
            Addressed::NotCaught
        );
        let late = t + 3 * S + FOLLOW_UP_NS + 1;
        assert!(!a.open_at(late));
        assert_eq!(
            a.hear("mumble", false, late, late + S),
            Addressed::NotAddressed
        );
        assert_eq!(
            a.hear("Where now?", true, late, late + S),
            Addressed::NotAddressed
        );
        // A not-caught utterance that starts with the wake phrase was said to the assistant.
        assert_eq!(
            a.hear("Hey Vista, grmbl", false, late + 2 * S, late + 3 * S),
            Addressed::NotCaught
        );
    }

    #[test]
    fn without_a_wake_phrase_everything_is_a_request() {
        let mut a = Addressing::new(Wake::parse("none").unwrap());
        assert_eq!(
            a.hear(" Where is the door? ", true, 0, S),
            req("Where is the door?")
        );
        assert_eq!(a.hear("x", false, 100 * S, 101 * S), Addressed::NotCaught);
    }

    #[test]
    fn wake_phrases_are_words_ending_in_a_name() {
        assert_eq!(Wake::parse("Hey Vista").unwrap(), Wake::default());
        assert_eq!(Wake::default().spoken().as_deref(), Some("Hey Vista"));
        assert_eq!(Wake::Always.spoken(), None);
        assert_eq!(Wake::parse("hey vista").unwrap().to_string(), "hey vista");
        assert_eq!(
            Wake::parse("Computer").unwrap(),
            Wake::Phrase(vec!["computer".into()])
        );
        for bad in ["", "hey", "hey vista 2", "one two three four five", "a-b"] {
            assert!(Wake::parse(bad).is_err(), "{bad:?}");
        }
        // A one-word name: matched alone, or after any greeting; a phrase's other words as
        // they are.
        for (heard, rest) in [
            ("Computer, lights.", "Lights."),
            ("Hey computor lights", "Lights"),
        ] {
            let mut a = Addressing::new(Wake::parse("computer").unwrap());
            assert_eq!(a.hear(heard, true, 0, S), req(rest), "{heard}");
        }
        let mut a = Addressing::new(Wake::parse("hello there robot").unwrap());
        assert_eq!(a.hear("Hi there, robot: go", true, 0, S), req("Go"));
        assert_eq!(
            a.hear("Hi where, robot: go", true, 20 * S, 21 * S),
            Addressed::NotAddressed
        );
    }
}
