//! Goal routing (pure): which place a goal request ("How do I get to the exit?", "Take me
//! to platform 3") names in the environment state. Text read on a sign, doors and
//! openings, and things by label are looked at in that order: a door under (or close
//! beside) a sign the request names is that place ("the exit door"); a door is the place
//! when the request names a door or an exit and no sign says more; otherwise a thing whose
//! label the request names, or the sign itself.

use super::request_words::{content_words, handled_words};
use crate::lexicon::nouns::names_thing;
use crate::lexicon::words::tokens;
use crate::state::{EnvironmentState, TextFact, Thing, ThingKind};

/// Words that ask for a way through a wall.
pub const DOOR_WORDS: &[&str] = &["door", "doorway", "entrance", "exit", "opening", "out"];

/// A door is "under" a sign when their clock hours differ by at most this.
pub const SIGN_CLOCK_HOURS: u8 = 1;
/// ... and, when the sign's distance is known, their distances by at most this fraction.
pub const SIGN_DISTANCE_REL: f32 = 0.3;

/// What a goal request resolves to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Goal<'a> {
    /// A door or opening, with the sign above it that the request names, when there is one.
    Door {
        /// The door.
        door: &'a Thing,
        /// The sign the request names, at the door.
        sign: Option<&'a TextFact>,
    },
    /// A thing named by its label.
    Thing(&'a Thing),
    /// A sign the request names, with no door known under it.
    Sign(&'a TextFact),
}

impl<'a> Goal<'a> {
    /// The tracked thing the goal is, when it is one (the guard's target).
    pub fn thing(&self) -> Option<&'a Thing> {
        match self {
            Goal::Door { door, .. } => Some(door),
            Goal::Thing(t) => Some(t),
            Goal::Sign(_) => None,
        }
    }
}

fn clock_diff(a: u8, b: u8) -> u8 {
    let d = (i16::from(a) - i16::from(b)).rem_euclid(12) as u8;
    d.min(12 - d)
}

/// The sign (text read) that `words` name: one of its words is a request word. Of several
/// reads, one placed (its distance known) before one that is not — the same sign read from
/// afar, before anything placed it, says less — then the most confident.
pub fn named_sign<'a>(words: &[String], state: &'a EnvironmentState) -> Option<&'a TextFact> {
    state
        .texts
        .iter()
        .filter(|x| {
            let tw = tokens(&x.text);
            words.iter().any(|w| tw.contains(w))
        })
        .max_by(|a, b| {
            (a.distance_m.is_some(), a.confidence)
                .partial_cmp(&(b.distance_m.is_some(), b.confidence))
                .unwrap_or(std::cmp::Ordering::Equal)
        })
}

/// Whether `door` is under or close beside `sign`.
pub fn door_at_sign(door: &Thing, sign: &TextFact) -> bool {
    clock_diff(door.clock.get(), sign.clock.get()) <= SIGN_CLOCK_HOURS
        && sign
            .distance_m
            .is_none_or(|d| (door.distance_m - d).abs() <= (SIGN_DISTANCE_REL * d).max(1.0))
}

fn nearest<'a>(v: impl Iterator<Item = &'a Thing>) -> Option<&'a Thing> {
    v.min_by(|a, b| a.distance_m.total_cmp(&b.distance_m))
}

/// Resolves the place a goal request names against `state`; `None` when nothing there
/// matches.
pub fn find_goal<'a>(request: &str, state: &'a EnvironmentState) -> Option<Goal<'a>> {
    // "Pick up my bottle": "up" names the bottle's handling, not a "step up".
    let words = handled_words(&content_words(request));
    let doors = || state.things.iter().filter(|t| t.kind == ThingKind::Door);
    let sign = named_sign(&words, state);
    if let Some(s) = sign {
        if let Some(door) = nearest(doors().filter(|d| door_at_sign(d, s))) {
            return Some(Goal::Door {
                door,
                sign: Some(s),
            });
        }
    }
    let by_label = nearest(
        state
            .things
            .iter()
            .filter(|t| t.kind != ThingKind::Door && words.iter().any(|w| names_thing(w, t))),
    );
    let wants_door = words.iter().any(|w| DOOR_WORDS.contains(&w.as_str()));
    // A sign the request names says more than an unmarked door.
    let named_text = sign.is_some() || by_label.is_some_and(|t| t.kind == ThingKind::Text);
    if wants_door && !named_text {
        if let Some(door) = nearest(doors()) {
            return Some(Goal::Door { door, sign: None });
        }
    }
    if let Some(t) = by_label {
        return Some(Goal::Thing(t));
    }
    sign.map(Goal::Sign)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{ClockHour, Evidence};
    use crate::time::DeviceTime;

    fn thing(id: u32, kind: ThingKind, label: &str, clock: u8, d: f32) -> Thing {
        Thing {
            id,
            kind,
            label: label.into(),
            detail: Default::default(),
            class: None,
            clock: ClockHour::new(clock),
            bearing_left_deg: None,
            distance_m: d,
            height: None,
            world_m: None,
            in_path: false,
            first_seen: DeviceTime(0),
            last_seen: DeviceTime(0),
            confidence: 0.9,
            evidence: Evidence::Points,
        }
    }

    fn sign(text: &str, clock: u8, d: Option<f32>) -> TextFact {
        TextFact {
            text: text.into(),
            confidence: 0.9,
            clock: ClockHour::new(clock),
            distance_m: d,
            rgb_box: [0.0; 4],
            gazed: false,
            at: DeviceTime(0),
        }
    }

    #[test]
    fn the_door_under_the_exit_sign_is_the_exit() {
        let mut s = EnvironmentState::empty(DeviceTime(0));
        s.things = vec![
            thing(1, ThingKind::Door, "doorway", 3, 4.0),
            thing(2, ThingKind::Door, "doorway", 11, 9.0),
            thing(3, ThingKind::Obstacle, "obstacle", 12, 3.0),
        ];
        s.texts = vec![sign("EXIT", 12, Some(9.5))];
        match find_goal("How do I get to the exit?", &s) {
            Some(Goal::Door { door, sign }) => {
                assert_eq!(door.id, 2);
                assert_eq!(sign.map(|x| x.text.as_str()), Some("EXIT"));
            }
            other => panic!("{other:?}"),
        }
        // Without the sign, the nearest door; the sign alone without a door under it.
        s.texts.clear();
        assert!(matches!(
            find_goal("Take me to the exit door.", &s),
            Some(Goal::Door { door, sign: None }) if door.id == 1
        ));
        s.things.retain(|t| t.kind != ThingKind::Door);
        s.texts = vec![sign("Platform 3", 2, None)];
        assert!(matches!(
            find_goal("Take me to platform 3", &s),
            Some(Goal::Sign(x)) if x.text == "Platform 3"
        ));
        assert_eq!(find_goal("Take me to the stairs", &s), None);
    }

    #[test]
    fn of_several_reads_of_a_sign_a_placed_one_is_named() {
        let mut s = EnvironmentState::empty(DeviceTime(0));
        // Read from afar, more confidently, before anything placed it; then read near,
        // placed.
        let mut far = sign("EXIT", 12, None);
        far.confidence = 0.99;
        let near = sign("EXIT", 12, Some(2.5));
        s.texts = vec![far, near];
        let words = vec!["exit".to_string()];
        assert_eq!(named_sign(&words, &s).and_then(|x| x.distance_m), Some(2.5));
        // Among placed reads (or among unplaced ones), the most confident.
        s.texts[0].distance_m = Some(3.0);
        assert_eq!(named_sign(&words, &s).and_then(|x| x.distance_m), Some(3.0));
    }
}
