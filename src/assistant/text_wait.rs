//! Answers that wait for a whole-frame text read (issue 8: text is read around the gaze
//! point first, the whole frame on request).
//!
//! A request *needs text* when it asks what a sign says and no text is held, or when it
//! names a place that could be written on a sign ("the exit", "gate 12", "platform 3", a
//! shop's name) and no text read so far names it. A goal of handling a thing ("help me pick
//! up my water bottle", "press the call button") is about an object within reach, not a
//! place: it needs text only when it names writing or a signed place itself ("the label",
//! "the exit"). When perception has a frame to read, the
//! assistant asks it for a whole-frame read of the newest frame
//! ([`crate::state::ReadRequests`]) and holds the request in [`TextWaits`] — nothing
//! sleeps — until one of:
//!
//! * the state holds the text it needs (the whole-frame read, or a read around the gaze that
//!   finished meanwhile): [`ReadOutcome::Found`];
//! * the whole-frame read was folded into the state without it: [`ReadOutcome::NotFound`];
//! * the wait limit passed on the session clock ([`DEFAULT_WAIT_NS`] unless configured;
//!   looked at with every state, so at most one perception tick later):
//!   [`ReadOutcome::TimedOut`];
//! * a newer request came ([`ReadOutcome::Cut`]) or the run ended
//!   ([`ReadOutcome::RunEnded`]).
//!
//! It is then answered from what the state holds; when the text was not found, the answer
//! says so ([`not_found_note`]). Requests that need no text are never held, and alerts never
//! wait on a read.

use std::collections::VecDeque;

use super::forms::Form;
use super::goal::named_sign;
use super::request_words::{content_words, HANDLING_VERBS};
use super::requests::Request;
use super::understand::Ask;
use crate::lexicon::nouns::{kind_words, OBJECT_NOUNS};
use crate::state::{EnvironmentState, ReadOutcome, TextReadWait, ThingKind};
use crate::time::HostTime;

/// How long an answer waits for a whole-frame read by default, ns of the session clock
/// (processing time in real time): about two whole-frame PP-OCR reads on one loaded core.
pub const DEFAULT_WAIT_NS: i64 = 2_000_000_000;

/// Words for a way through a wall that a door or opening answers without any sign.
const PLACE_WORDS: &[&str] = &["door", "doorway", "opening", "out", "outside", "inside"];

/// Place words that are also what signs say.
const SIGN_PLACES: &[&str] = &["exit", "entrance"];

/// Words that name writing, or places a sign names by number, in a goal of handling a thing.
const TEXT_WORDS: &[&str] = &[
    "sign", "label", "text", "writing", "written", "room", "exit", "entrance", "gate", "platform",
];

const KINDS: [ThingKind; 9] = [
    ThingKind::Obstacle,
    ThingKind::Overhead,
    ThingKind::DropOff,
    ThingKind::StepUp,
    ThingKind::Door,
    ThingKind::Text,
    ThingKind::Person,
    ThingKind::Vehicle,
    ThingKind::Object,
];

/// Whether `word` could be written on a sign naming a place: "exit", a number, a name; not
/// a thing's noun ("bench", "stairs") or a bare way through ("door").
fn signable(word: &str) -> bool {
    SIGN_PLACES.contains(&word)
        || !(OBJECT_NOUNS.contains(&word)
            || PLACE_WORDS.contains(&word)
            || KINDS.iter().any(|k| kind_words(*k).contains(&word)))
}

/// The words of a request that a sign would say (content words less bare ways through).
fn sign_words(words: &[String]) -> Vec<String> {
    words
        .iter()
        .filter(|w| !PLACE_WORDS.contains(&w.as_str()))
        .cloned()
        .collect()
}

/// What a request needs from text: `None` when it needs no text; `Some(None)` for any text
/// (what does the sign say); `Some(Some(words))` for text naming one of `words`.
fn text_need(request: &Request) -> Option<Option<Vec<String>>> {
    let words = match (request.form, &request.ask) {
        (Form::Scene | Form::Ambient, _) => return None,
        (Form::Goal, _) | (_, Ask::Goal(_)) => {
            let words = content_words(&request.text);
            if words.iter().any(|w| HANDLING_VERBS.contains(&w.as_str()))
                && !words.iter().any(|w| TEXT_WORDS.contains(&w.as_str()))
            {
                return None;
            }
            words
        }
        (_, Ask::ReadText(_)) => return Some(None),
        (_, Ask::WhereIs(t)) => t.words.clone(),
        (_, Ask::AtGoal(_)) => content_words(&request.text),
        _ => return None,
    };
    let words = sign_words(&words);
    words.iter().any(|w| signable(w)).then_some(Some(words))
}

/// Whether `state` holds the text `request` needs (true for requests that need none).
pub fn has_text(request: &Request, state: &EnvironmentState) -> bool {
    match text_need(request) {
        None => true,
        Some(None) => !state.texts.is_empty(),
        Some(Some(words)) => named_sign(&words, state).is_some(),
    }
}

/// Whether `request` needs text that `state` does not hold (then a whole-frame read is
/// asked for and the answer waits for it).
pub fn needs_text(request: &Request, state: &EnvironmentState) -> bool {
    !has_text(request, state)
}

/// The sentence that ends an answer whose wait did not find the text it names, so the
/// wearer knows the place was looked for in writing and not found: after what the answer
/// can say (the way to a door is worth more than the note), and short. `None` when it was
/// found, when `state` (the one the answer is given from) holds it by now — an answer that
/// names the sign must not also say it was not found — or when the request names no words.
pub fn not_found_note(
    request: &Request,
    wait: &TextReadWait,
    state: &EnvironmentState,
) -> Option<String> {
    let Some(Some(words)) = text_need(request) else {
        return None;
    };
    if wait.found || named_sign(&words, state).is_some() {
        return None;
    }
    let quoted = words.join(" ");
    Some(match wait.outcome {
        ReadOutcome::NotFound | ReadOutcome::Found => {
            format!("I found no \"{quoted}\" written in view.")
        }
        ReadOutcome::TimedOut | ReadOutcome::Cut | ReadOutcome::RunEnded => {
            format!("I have not found \"{quoted}\" written yet.")
        }
    })
}

/// A request held for a whole-frame read.
#[derive(Debug)]
struct Waiting {
    request: Request,
    ticket: u64,
    since: HostTime,
}

/// The requests held for whole-frame reads, oldest first (bounded).
#[derive(Debug)]
pub(crate) struct TextWaits {
    waiting: VecDeque<Waiting>,
    limit_ns: i64,
    capacity: usize,
}

impl TextWaits {
    /// At most `capacity` requests held, each for at most `limit_ns` of the session clock.
    pub(crate) fn new(limit_ns: i64, capacity: usize) -> Self {
        Self {
            waiting: VecDeque::new(),
            limit_ns: limit_ns.max(0),
            capacity: capacity.max(1),
        }
    }

    /// Holds `request` until the read with `ticket` is served; gives it back when full.
    pub(crate) fn hold(
        &mut self,
        request: Request,
        ticket: u64,
        now: HostTime,
    ) -> Result<(), Request> {
        if self.waiting.len() >= self.capacity {
            return Err(request);
        }
        self.waiting.push_back(Waiting {
            request,
            ticket,
            since: now,
        });
        Ok(())
    }

    /// Whether nothing is held.
    pub(crate) fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    fn end(w: Waiting, state: &EnvironmentState, now: HostTime, outcome: ReadOutcome) -> Ended {
        let found = has_text(&w.request, state);
        Ended {
            request: w.request,
            wait: TextReadWait {
                waited_for_read_ms: now.since(w.since).max(0) as f64 / 1e6,
                outcome: if found { ReadOutcome::Found } else { outcome },
                found,
            },
        }
    }

    /// The requests whose wait ends at `state` (`served`: the newest ticket whose read is
    /// folded into `state`, when known), oldest first.
    pub(crate) fn ready(
        &mut self,
        state: &EnvironmentState,
        served: Option<u64>,
        now: HostTime,
    ) -> Vec<Ended> {
        let mut out = Vec::new();
        let mut kept = VecDeque::with_capacity(self.waiting.len());
        for w in self.waiting.drain(..) {
            let outcome = if has_text(&w.request, state) {
                Some(ReadOutcome::Found)
            } else if served.is_some_and(|s| s >= w.ticket) {
                Some(ReadOutcome::NotFound)
            } else if now.since(w.since) >= self.limit_ns {
                Some(ReadOutcome::TimedOut)
            } else {
                None
            };
            match outcome {
                Some(o) => out.push(Self::end(w, state, now, o)),
                None => kept.push_back(w),
            }
        }
        self.waiting = kept;
        out
    }

    /// Ends every wait now (a newer request, the end of the run), oldest first.
    pub(crate) fn take_all(
        &mut self,
        state: &EnvironmentState,
        now: HostTime,
        outcome: ReadOutcome,
    ) -> Vec<Ended> {
        self.waiting
            .drain(..)
            .map(|w| Self::end(w, state, now, outcome))
            .collect()
    }

    /// Drops every wait (no state to answer from); returns how many.
    pub(crate) fn drop_all(&mut self) -> usize {
        let n = self.waiting.len();
        self.waiting.clear();
        n
    }
}

/// A request whose wait ended, with how.
#[derive(Debug)]
pub(crate) struct Ended {
    pub(crate) request: Request,
    pub(crate) wait: TextReadWait,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assistant::guard::{Guard, GuardConfig};
    use crate::assistant::requests::RequestTime;
    use crate::state::{ClockHour, TextFact};
    use crate::time::DeviceTime;

    fn req(form: Form, text: &str) -> Request {
        Request::new(
            Some(0),
            form,
            text.into(),
            RequestTime::Device(DeviceTime(0)),
        )
    }

    fn state_with(texts: &[&str]) -> EnvironmentState {
        let mut s = EnvironmentState::empty(DeviceTime(0));
        s.texts = texts
            .iter()
            .map(|t| TextFact {
                text: (*t).into(),
                confidence: 0.9,
                clock: ClockHour::new(12),
                distance_m: None,
                rgb_box: [0.0; 4],
                gazed: false,
                at: DeviceTime(0),
            })
            .collect();
        s
    }

    #[test]
    fn requests_naming_what_a_sign_says_need_text_until_it_is_read() {
        let none = state_with(&[]);
        let toilets = state_with(&["Toilets"]);
        let exit = state_with(&["EXIT"]);
        let g = |t: &str| req(Form::Goal, t);
        let q = |t: &str| req(Form::Question, t);
        assert!(needs_text(&g("How do I get to the exit?"), &none));
        assert!(needs_text(&g("How do I get to the exit?"), &toilets));
        assert!(!needs_text(&g("How do I get to the exit?"), &exit));
        assert!(needs_text(&g("Take me to gate 12"), &toilets));
        // Handling a thing that writing names still needs the writing.
        assert!(needs_text(
            &g("Help me press the button for room 12"),
            &toilets
        ));
        assert!(needs_text(&q("Where is the exit?"), &none));
        assert!(needs_text(&q("Am I at the exit?"), &none));
        assert!(needs_text(&q("What does the sign say?"), &none));
        assert!(!needs_text(&q("What does the sign say?"), &toilets));
        // Things, bare doors, the way ahead and scenes need no text.
        for r in [
            g("Take me to the door."),
            g("Take me to the bench"),
            g("How do I get out?"),
            g("Help me pick up my water bottle"),
            g("Help me press the lift call button"),
            q("Where is the door?"),
            q("Is the path clear?"),
            q("Is there anything at head height?"),
            req(Form::Scene, "What is around me?"),
        ] {
            assert!(!needs_text(&r, &none), "{}", r.text);
        }
    }

    #[test]
    fn waits_end_when_found_served_or_timed_out_oldest_first() {
        let mut w = TextWaits::new(2_000_000_000, 4);
        let none = state_with(&[]);
        w.hold(req(Form::Goal, "Take me to gate 12"), 1, HostTime(0))
            .unwrap();
        w.hold(req(Form::Goal, "How do I get to the exit?"), 2, HostTime(0))
            .unwrap();
        assert!(w.ready(&none, Some(0), HostTime(500_000_000)).is_empty());
        // The first ask's read is folded in without its text; the second is still waiting.
        let e = w.ready(&none, Some(1), HostTime(700_000_000));
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].request.text, "Take me to gate 12");
        assert_eq!(e[0].wait.outcome, ReadOutcome::NotFound);
        assert!(!e[0].wait.found);
        assert_eq!(e[0].wait.waited_for_read_ms, 700.0);
        // The limit passes.
        let e = w.ready(&none, Some(1), HostTime(2_000_000_000));
        assert_eq!(e[0].wait.outcome, ReadOutcome::TimedOut);
        assert!(w.is_empty());
        // Text read meanwhile ends the wait as found, whatever the read.
        w.hold(req(Form::Goal, "How do I get to the exit?"), 3, HostTime(0))
            .unwrap();
        let e = w.ready(&state_with(&["EXIT"]), None, HostTime(100));
        assert_eq!(e[0].wait.outcome, ReadOutcome::Found);
        assert!(e[0].wait.found);
        // Bounded.
        let mut w = TextWaits::new(1, 1);
        w.hold(req(Form::Goal, "a"), 1, HostTime(0)).unwrap();
        assert!(w.hold(req(Form::Goal, "b"), 2, HostTime(0)).is_err());
        assert_eq!(w.drop_all(), 1);
    }

    #[test]
    fn the_not_found_note_passes_the_guard_and_is_not_said_once_the_text_is_held() {
        let guard = Guard::new(GuardConfig::default());
        let goal = req(Form::Goal, "How do I get to the exit?");
        for s in [state_with(&[]), state_with(&["Toilets"])] {
            for outcome in [ReadOutcome::NotFound, ReadOutcome::TimedOut] {
                let wait = TextReadWait {
                    waited_for_read_ms: 1.0,
                    outcome,
                    found: false,
                };
                let note = not_found_note(&goal, &wait, &s).unwrap();
                assert!(note.contains("\"exit\""), "{note}");
                let v = guard.check_sentence(&note, &s, None);
                assert!(
                    matches!(v, crate::assistant::guard::Verdict::Pass),
                    "{note}: {v:?}"
                );
            }
        }
        let found = TextReadWait {
            waited_for_read_ms: 1.0,
            outcome: ReadOutcome::Found,
            found: true,
        };
        assert_eq!(not_found_note(&goal, &found, &state_with(&[])), None);
        // The wait timed out, but a read around the gaze found the sign before the answer
        // was given (find_exit: "... found no "exit" written yet. The exit door is at 1
        // o'clock, about 5 metres, under the sign "EXIT".").
        let timed_out = TextReadWait {
            waited_for_read_ms: 2000.0,
            outcome: ReadOutcome::TimedOut,
            found: false,
        };
        assert_eq!(
            not_found_note(&goal, &timed_out, &state_with(&["EXIT"])),
            None
        );
    }
}
