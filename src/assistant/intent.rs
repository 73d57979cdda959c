//! Which tracked thing a request names (pure): the thing whose labels and kind words the
//! request's words match best, and a goal's place.

use crate::lexicon::nouns::names_thing;
use crate::state::{EnvironmentState, Thing};

/// Confidence in tenths: two things named alike are told apart by a clear difference in
/// evidence (a doorway with lintel and jambs over a gap in a wall), not by noise.
fn confidence_tenths(t: &Thing) -> i32 {
    (t.confidence * 10.0).round() as i32
}

/// The tracked thing that `words` name best: most words matched (labels and kind words),
/// then the clearer evidence ([`Thing::confidence`] in tenths), then nearest. `None` when
/// no word names anything.
pub fn resolve<'a>(words: &[String], state: &'a EnvironmentState) -> Option<&'a Thing> {
    let mut best: Option<(&Thing, usize)> = None;
    for t in &state.things {
        let score = words.iter().filter(|w| names_thing(w, t)).count();
        if score == 0 {
            continue;
        }
        let keep = |b: &Thing, s: usize| {
            (s, confidence_tenths(b)) > (score, confidence_tenths(t))
                || ((s, confidence_tenths(b)) == (score, confidence_tenths(t))
                    && b.distance_m <= t.distance_m)
        };
        best = match best {
            Some((b, s)) if keep(b, s) => Some((b, s)),
            _ => Some((t, score)),
        };
    }
    best.map(|(t, _)| t)
}

/// The thing a goal request names ("Take me to the exit door." → the exit door), as
/// [`super::goal::find_goal`] resolves it (a door under a named sign first).
pub fn goal_target<'a>(request: &str, state: &'a EnvironmentState) -> Option<&'a Thing> {
    super::goal::find_goal(request, state).and_then(|g| g.thing())
}
