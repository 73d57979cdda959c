//! The template generator: answers composed only from facts in the environment state, so it
//! is grounded by construction. It says plainly when the evidence does not answer ("I can't
//! see any text right now", "I can't tell …") and never invents. It implements
//! [`Generator`] (for the assistant's generator slot) but reads the state directly.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::corridor::{blockers, is_hazard, pass_blockers, path_hazards};
use super::flight::{flight_sentences, flights};
use super::forms::Form;
use super::goal::{find_goal, named_sign, Goal};
use super::intent::resolve;
use super::objects::{named_objects, object_query, object_sentence};
use super::phrase::{about_metres, capitalise, clock, metres, steps, turn_towards};
use super::request_words::{content_words, handled_words};
use super::sign_wall::{wall_under_sign, REACH_M};
use super::turn_words::{recent_turn, turn_sentence, turned, RECENT_TURN_NS};
use super::understand::{ask_for, Ask, PeopleAsk};
use crate::lexicon::names::side_word;
use crate::lexicon::numbers::count_word;
use crate::lexicon::words::tokens;
use crate::state::{
    clock_to_bearing_deg, ClockHour, Continue, EnvironmentState, GenerationPrompt, GenerationStats,
    Generator, GeneratorError, HeightBand, MotionState, ObjectClass, ObjectFact, TextFact, Thing,
    ThingDetail, ThingKind, Walkable,
};

/// Hazards this close count for a scene description and "what's ahead", metres.
pub const NEAR_M: f32 = 5.0;

/// A template answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateAnswer {
    /// The sentences, in speaking order.
    pub sentences: Vec<String>,
    /// True when the evidence did not answer the request (the answer says so).
    pub unanswerable: bool,
}

impl TemplateAnswer {
    fn known(sentences: Vec<String>) -> Self {
        Self {
            sentences,
            unanswerable: false,
        }
    }

    fn cannot(sentence: String) -> Self {
        Self {
            sentences: vec![sentence],
            unanswerable: true,
        }
    }

    /// The sentences joined by spaces.
    pub fn text(&self) -> String {
        self.sentences.join(" ")
    }
}

fn the_label(t: &Thing) -> String {
    format!("the {}", t.label)
}

fn at_head(t: &Thing) -> bool {
    t.kind == ThingKind::Overhead || t.height == Some(HeightBand::Head)
}

/// "The metal pole is at 12 o'clock, 2 metres, in your path."
pub fn thing_sentence(t: &Thing) -> String {
    let mut s = format!(
        "{} is at {}, {}",
        capitalise(&the_label(t)),
        clock(t.clock),
        about_metres(t.distance_m)
    );
    // Said once: a label that says it already ("obstacle at head height") is not repeated.
    if at_head(t) && !t.label.contains("head height") {
        s.push_str(", at head height");
    }
    if t.in_path && is_hazard(t.kind) {
        s.push_str(", in your path");
    }
    s.push('.');
    s
}

/// "Careful: the metal pole is at 12 o'clock, 2 metres, in your path."
pub fn warning_sentence(t: &Thing) -> String {
    let s = thing_sentence(t);
    format!(
        "Careful: {}{}",
        s.get(..1).unwrap_or("").to_lowercase(),
        s.get(1..).unwrap_or("")
    )
}

/// `A sign says "EXIT", at 2 o'clock, about 6 metres.`
fn text_sentence(x: &TextFact, lead: &str) -> String {
    let mut s = format!("{lead} \"{}\"", x.text.trim());
    s.push_str(&format!(", at {}", clock(x.clock)));
    if let Some(d) = x.distance_m {
        s.push_str(&format!(", {}", about_metres(d)));
    }
    s.push('.');
    s
}

fn by_distance(mut v: Vec<&Thing>) -> Vec<&Thing> {
    v.sort_by(|a, b| a.distance_m.total_cmp(&b.distance_m));
    v
}

/// Hazards on the way on within [`NEAR_M`] (the corridor where the head faces, and what
/// perception finds in the walking path wherever the head faces), nearest first.
fn in_path_hazards(state: &EnvironmentState) -> Vec<&Thing> {
    path_hazards(state, NEAR_M)
}

fn no_evidence(state: &EnvironmentState) -> bool {
    state.things.is_empty() && state.texts.is_empty() && state.walkable.is_none()
}

/// What the free-space estimate says about the way ahead, when there is one and no hazard
/// is on it: clear for so many metres (no farther than the floor was seen), or free for
/// only so many.
fn path_clear_sentence(state: &EnvironmentState) -> Option<String> {
    let w = state.walkable.as_ref()?;
    if !in_path_hazards(state).is_empty() {
        return None;
    }
    Some(if w.known_clear_m() >= MIN_CLEAR_CLAIM_M {
        format!(
            "Your path ahead is clear for {}.",
            about_metres(w.known_clear_m())
        )
    } else {
        not_clear_sentence(w)
    })
}

/// A clear way is claimed only this far ahead or farther, m.
pub const MIN_CLEAR_CLAIM_M: f32 = 2.0;

/// What is said of a way ahead that is not known clear for [`MIN_CLEAR_CLAIM_M`]: free for
/// only so many metres, or, where nothing stands in it but the floor was not seen, that
/// its being clear cannot be told.
pub fn not_clear_sentence(w: &Walkable) -> String {
    if w.clear_ahead_m < MIN_CLEAR_CLAIM_M {
        format!("Careful: only {} ahead is free.", metres(w.clear_ahead_m))
    } else {
        "I can't see the ground ahead, so I can't tell whether your path is clear.".into()
    }
}

fn stairs_sentence(m: MotionState) -> Option<&'static str> {
    match m {
        MotionState::StairsDown => Some("You are walking down stairs."),
        MotionState::StairsUp => Some("You are walking up stairs."),
        _ => None,
    }
}

/// The read looked at, then one placed (its distance known), then the most confident.
/// The text a wearer asking about "the sign" means: the one they look at; else the one
/// most straight ahead (they face what they ask about; by clock hours from 12); then one
/// placed (its distance known); then the surest read.
fn best_text(state: &EnvironmentState) -> Option<&TextFact> {
    let off_ahead = |x: &TextFact| {
        let h = x.clock.get() % 12;
        h.min(12 - h)
    };
    state.texts.iter().max_by(|a, b| {
        (
            a.gazed,
            std::cmp::Reverse(off_ahead(a)),
            a.distance_m.is_some(),
        )
            .cmp(&(
                b.gazed,
                std::cmp::Reverse(off_ahead(b)),
                b.distance_m.is_some(),
            ))
            .then(a.confidence.total_cmp(&b.confidence))
    })
}

fn scene(state: &EnvironmentState) -> TemplateAnswer {
    if no_evidence(state) {
        return TemplateAnswer::cannot(
            "I can't tell what is around you: nothing has been detected yet.".into(),
        );
    }
    let mut out = Vec::new();
    let hazards = in_path_hazards(state);
    for t in hazards.iter().take(1) {
        out.push(thing_sentence(t));
    }
    if let Some(s) = stairs_sentence(state.motion.state) {
        out.push(s.into());
    }
    if hazards.is_empty() {
        if let Some(s) = path_clear_sentence(state) {
            out.push(s);
        }
    }
    let others = by_distance(
        state
            .things
            .iter()
            .filter(|t| hazards.first().is_none_or(|h| h.id != t.id))
            .collect(),
    );
    for t in others.into_iter().take(2) {
        out.push(thing_sentence(t));
    }
    if let Some(x) = best_text(state) {
        out.push(text_sentence(x, "A sign says"));
    }
    out.truncate(3);
    TemplateAnswer::known(out)
}

fn read_text(state: &EnvironmentState) -> TemplateAnswer {
    match best_text(state) {
        Some(x) if x.confidence >= 0.5 => {
            TemplateAnswer::known(vec![text_sentence(x, "The sign says")])
        }
        Some(x) => TemplateAnswer::known(vec![
            text_sentence(x, "The sign may say"),
            "I'm not sure of that reading.".into(),
        ]),
        None => {
            let why = state
                .limitations
                .iter()
                .find(|l| l.to_lowercase().contains("text"))
                .map(|l| format!("I can't see any text right now: {l}."));
            TemplateAnswer::cannot(why.unwrap_or_else(|| "I can't see any text right now.".into()))
        }
    }
}

fn head_height(state: &EnvironmentState) -> TemplateAnswer {
    let v = by_distance(state.things.iter().filter(|t| at_head(t)).collect());
    if let Some(t) = v.first() {
        return TemplateAnswer::known(vec![format!("Yes. {}", thing_sentence(t))]);
    }
    if state.walkable.is_none() && state.things.is_empty() {
        return TemplateAnswer::cannot(
            "I can't tell: nothing around you has been measured yet.".into(),
        );
    }
    TemplateAnswer::known(vec!["I don't detect anything at head height.".into()])
}

/// Sentences for `things` (at most `max` things said), a flight of stairs among them said
/// once as stairs ([`super::flight`]) instead of edge by edge.
fn things_sentences(state: &EnvironmentState, things: &[&Thing], max: usize) -> Vec<String> {
    let fl = flights(state);
    let mut said_flights: Vec<usize> = Vec::new();
    let (mut out, mut said) = (Vec::new(), 0);
    for t in things {
        if said == max {
            break;
        }
        match fl.iter().position(|f| f.holds(t)) {
            Some(i) if said_flights.contains(&i) => continue,
            Some(i) => {
                said_flights.push(i);
                out.extend(flight_sentences(&fl[i]));
            }
            None => out.push(thing_sentence(t)),
        }
        said += 1;
    }
    out
}

fn stairs(state: &EnvironmentState) -> TemplateAnswer {
    if let Some(s) = stairs_sentence(state.motion.state) {
        return TemplateAnswer::known(vec![format!("Yes. {s}")]);
    }
    let edge = by_distance(
        state
            .things
            .iter()
            .filter(|t| matches!(t.kind, ThingKind::DropOff | ThingKind::StepUp))
            .collect(),
    );
    match (state.motion.state, edge.first()) {
        (MotionState::Unknown, None) => {
            TemplateAnswer::cannot("I can't tell yet whether you are on stairs.".into())
        }
        (MotionState::Unknown, Some(t)) => TemplateAnswer::known(things_sentences(state, &[t], 1)),
        (_, Some(t)) => {
            let mut out = vec!["No, you are on level ground.".to_string()];
            out.extend(things_sentences(state, &[t], 1));
            TemplateAnswer::known(out)
        }
        (_, None) => TemplateAnswer::known(vec!["No, you are on level ground.".into()]),
    }
}

fn looking_at(state: &EnvironmentState) -> TemplateAnswer {
    let Some(g) = &state.gaze else {
        return TemplateAnswer::cannot(
            "I can't tell what you are looking at: eye gaze is not available.".into(),
        );
    };
    let thing = g.target.and_then(|id| state.thing(id));
    let text = state.texts.iter().find(|x| x.gazed);
    // Text under the gaze is what is looked at (a sign on the wall the gaze ray meets),
    // unless the thing the ray meets stands clearly in front of it (> 1 m nearer).
    let thing_in_front =
        |x: &TextFact| thing.is_some_and(|t| x.distance_m.is_some_and(|d| t.distance_m + 1.0 < d));
    if let Some(x) = text.filter(|x| !thing_in_front(x)) {
        return TemplateAnswer::known(vec![text_sentence(
            x,
            "You are looking at a sign that says",
        )]);
    }
    if let Some(t) = thing {
        return TemplateAnswer::known(vec![format!(
            "You are looking at the {}, at {}, {}.",
            t.label,
            clock(t.clock),
            about_metres(t.distance_m)
        )]);
    }
    TemplateAnswer::cannot(
        "I can't tell what you are looking at: nothing is detected there.".into(),
    )
}

fn not_found(words: &[String]) -> TemplateAnswer {
    let what = if words.is_empty() {
        "it".to_string()
    } else {
        format!("the {}", words.join(" "))
    };
    TemplateAnswer::cannot(format!("I don't see {what} right now."))
}

/// The sign at `door` (see [`super::goal::door_at_sign`]) whose distance is known (a sign
/// in the door's direction at an unknown distance may hang over another door farther on),
/// read largest in the image (from closest: a sign read again as the wearer nears it is
/// read better, "ROOM 12" where it was "ROOM12" from afar), then most confident.
fn sign_at_door<'a>(door: &Thing, state: &'a EnvironmentState) -> Option<&'a TextFact> {
    let area = |x: &TextFact| {
        let [x0, y0, x1, y1] = x.rgb_box;
        ((x1 - x0) * (y1 - y0)).abs()
    };
    state
        .texts
        .iter()
        .filter(|x| x.distance_m.is_some() && super::goal::door_at_sign(door, x))
        .max_by(|a, b| {
            area(a)
                .total_cmp(&area(b))
                .then(a.confidence.total_cmp(&b.confidence))
        })
}

fn where_is(request: &str, words: &[String], state: &EnvironmentState) -> TemplateAnswer {
    if let Some(t) = resolve(words, state) {
        if t.kind == ThingKind::Door {
            // A door is told by the sign at it, when one was read there.
            let sign = sign_at_door(t, state);
            return TemplateAnswer::known(vec![door_sentence(request, t, sign)]);
        }
        return TemplateAnswer::known(vec![thing_sentence(t)]);
    }
    if let Some(o) = named_objects(words, state).first() {
        return TemplateAnswer::known(vec![object_sentence(o, state)]);
    }
    if let Some(x) = named_sign(words, state) {
        return TemplateAnswer::known(vec![text_sentence(x, "A sign says")]);
    }
    not_found(words)
}

/// "Is there a bench nearby?": a geometric thing the words name (the classes it carries
/// name it too), else the detector's facts.
fn object_query_answer(words: &[String], state: &EnvironmentState) -> TemplateAnswer {
    if let Some(t) = resolve(words, state).filter(|t| t.class.is_some()) {
        return TemplateAnswer::known(vec![format!("Yes. {}", thing_sentence(t))]);
    }
    match object_query(words, state) {
        Some((s, true)) => TemplateAnswer::known(vec![s]),
        Some((s, false)) => TemplateAnswer::cannot(s),
        None => not_found(words),
    }
}

/// A hazard in the path this close makes "Can I keep going?" a "Wait.", metres.
pub const WAIT_M: f32 = 1.5;

/// Vehicles whose way crosses the walking path (in it, or predicted into it by
/// perception, at any distance), nearest first.
fn coming_vehicles(state: &EnvironmentState) -> Vec<&Thing> {
    let mut v: Vec<&Thing> = state
        .things
        .iter()
        .filter(|t| t.kind == ThingKind::Vehicle && t.in_path)
        .collect();
    v.sort_by(|a, b| a.distance_m.total_cmp(&b.distance_m));
    v
}

/// "A vehicle is coming from the left, about 16 metres." (the side it approaches from is
/// perception's typed fact; without one, where it is).
fn vehicle_sentence(t: &Thing) -> String {
    match t.approaching_from() {
        Some(side) => format!(
            "A vehicle is coming from the {}, {}.",
            side_word(side),
            about_metres(t.distance_m)
        ),
        None => format!(
            "A vehicle is at {}, {}, coming into your path.",
            clock(t.clock),
            about_metres(t.distance_m)
        ),
    }
}

/// Whether `question` asks leave to go on ("Can I keep going?", "Is it safe to cross?").
fn asks_to_go(question: &str) -> bool {
    let t = tokens(question);
    let opens = t.get(..2).is_some_and(|w| {
        matches!(
            (w[0].as_str(), w[1].as_str()),
            ("can", "i") | ("may", "i") | ("should", "i") | ("is", "it")
        )
    });
    let go = t.iter().any(|w| {
        matches!(
            w.as_str(),
            "go" | "going" | "keep" | "continue" | "walk" | "walking" | "cross" | "move" | "safe"
        )
    });
    opens && go
}

fn ahead(request: &str, state: &EnvironmentState) -> TemplateAnswer {
    if no_evidence(state) {
        return TemplateAnswer::cannot(
            "I can't tell what is ahead: nothing has been detected yet.".into(),
        );
    }
    let hazards = in_path_hazards(state);
    // A vehicle whose way crosses the path is what matters first, however far it is
    // still: asked leave to go, the answer is to wait for it.
    if let Some(v) = coming_vehicles(state).first() {
        let mut out = vec![vehicle_sentence(v)];
        if asks_to_go(request) {
            out.insert(0, "Wait.".into());
        } else if let Some(h) = hazards.iter().find(|t| t.kind != ThingKind::Vehicle) {
            out.extend(things_sentences(state, &[h], 1));
        }
        return TemplateAnswer::known(out);
    }
    if !hazards.is_empty() {
        let mut out: Vec<String> = things_sentences(state, &hazards, 2);
        // Asked whether to go on with something moving into the path, or close in it: the
        // answer is to wait, said first.
        let stop = hazards.iter().any(|t| {
            matches!(t.kind, ThingKind::Person | ThingKind::Vehicle) || t.distance_m <= WAIT_M
        });
        if stop && asks_to_go(request) {
            out.insert(0, "Wait.".into());
            out.truncate(2);
        }
        return TemplateAnswer::known(out);
    }
    let mut out = Vec::new();
    if let Some(s) = path_clear_sentence(state) {
        out.push(s);
    }
    if let Some(t) = by_distance(state.things.iter().collect()).first() {
        out.push(thing_sentence(t));
    }
    if out.is_empty() {
        out.push("I can't tell whether your path is clear.".into());
        return TemplateAnswer {
            sentences: out,
            unanswerable: true,
        };
    }
    TemplateAnswer::known(out)
}

/// How far a place beyond the measured range is taken to be when routing, metres (the
/// point map reaches about this far).
pub const FAR_M: f32 = 8.0;

/// A thing in the way whose nearest point is within this of the line to the target is
/// straight on it: either way round is about as short, and the clearer side is taken, m.
pub const ON_LINE_M: f32 = 0.3;

/// One side of the way is clearer than the other only by more than this, m (half the
/// corridor a walker sweeps: less is measurement noise, and a side chosen on it would
/// change from one answer to the next as the wearer walks).
pub const CLEARER_BY_M: f32 = crate::assistant::corridor::HALF_WIDTH_M;

/// Guidance towards a place at `target_clock`, `target_m` away (`None`: farther than can
/// be measured), after the `first` sentence that names it: what is in the way and on which
/// side to pass it, or the walk.
fn guide(
    state: &EnvironmentState,
    first: String,
    target_clock: ClockHour,
    target_m: Option<f32>,
    target_id: Option<u32>,
) -> TemplateAnswer {
    let mut out = vec![first];
    let walk_m = target_m.unwrap_or(FAR_M).max(0.0);
    let range =
        walk_m.max(crate::state::metres_to_steps(walk_m) as f32 * crate::state::STEP_LENGTH_M);
    let blocking: Vec<&Thing> = blockers(state, target_clock, range)
        .into_iter()
        .filter(|t| Some(t.id) != target_id)
        .collect();
    if let Some(b) = blocking.first() {
        // Pass on the side of the target line (straight on it, the clearer side: the
        // right unless the left is clearer by more than CLEARER_BY_M), unless
        // something else is on that way; if both ways are taken, say so. Directions as
        // measured where perception gives them.
        let target_deg = target_id.and_then(|id| state.thing(id)).map_or(
            clock_to_bearing_deg(target_clock),
            Thing::direction_left_deg,
        );
        let off_line_m = b.distance_m * (b.direction_left_deg() - target_deg).to_radians().sin();
        let prefer_left = if off_line_m >= ON_LINE_M {
            false
        } else if off_line_m <= -ON_LINE_M {
            true
        } else {
            // Neither side clearer: the right, as pedestrians keep right, the same in
            // every answer.
            matches!(&state.walkable, Some(w) if w.clear_left_m > w.clear_right_m + CLEARER_BY_M)
        };
        let side = [prefer_left, !prefer_left]
            .into_iter()
            .find(|&left| pass_blockers(state, b, left).is_empty());
        out.push(match side {
            Some(left) => format!(
                "{} is in the way at {}, {}: go around it on the {}.",
                capitalise(&the_label(b)),
                clock(b.clock),
                about_metres(b.distance_m),
                if left { "left" } else { "right" }
            ),
            None => format!(
                "{} is in the way at {}, {}, and both ways around it are blocked.",
                capitalise(&the_label(b)),
                clock(b.clock),
                about_metres(b.distance_m)
            ),
        });
        return TemplateAnswer::known(out);
    }
    let walk = match (target_m, target_clock.get()) {
        (Some(_), 12) => format!("Walk straight ahead {}.", steps(walk_m)),
        (Some(_), _) => format!(
            "{}, towards {}, and walk {}.",
            turn_towards(target_clock),
            clock(target_clock),
            steps(walk_m)
        ),
        (None, _) => format!(
            "Nothing is in the way towards {} for {}.",
            clock(target_clock),
            about_metres(FAR_M)
        ),
    };
    out.push(walk);
    // A hazard close by but off the line: say where it is.
    if let Some(t) = by_distance(
        state
            .things
            .iter()
            .filter(|t| is_hazard(t.kind) && t.distance_m <= 3.0 && Some(t.id) != target_id)
            .collect(),
    )
    .first()
    {
        out.push(thing_sentence(t));
    }
    TemplateAnswer::known(out)
}

/// "The exit door is at 12 o'clock, about 6 metres, under the sign "EXIT"."
fn door_sentence(request: &str, door: &Thing, sign: Option<&TextFact>) -> String {
    let words = content_words(request);
    let exit = words.iter().any(|w| w == "exit")
        || sign.is_some_and(|x| tokens(&x.text).iter().any(|w| w == "exit"));
    let name = match (sign, exit) {
        (Some(_), true) => "The exit door".to_string(),
        (Some(_), false) => "The door".to_string(),
        (None, _) => capitalise(&the_label(door)),
    };
    let mut s = format!(
        "{name} is at {}, {}",
        clock(door.clock),
        about_metres(door.distance_m)
    );
    if let Some(x) = sign {
        s.push_str(&format!(", under the sign \"{}\"", x.text.trim()));
    }
    s.push('.');
    s
}

/// `The sign "EXIT" is at 12 o'clock, about 9 metres.`, or without a distance when none
/// was measured (a sign not placed is not known to be far: live, without a map, few are).
fn sign_place_sentence(x: &TextFact) -> String {
    match x.distance_m {
        Some(d) => format!(
            "The sign \"{}\" is at {}, {}.",
            x.text.trim(),
            clock(x.clock),
            about_metres(d)
        ),
        None => format!("The sign \"{}\" is at {}.", x.text.trim(), clock(x.clock)),
    }
}

/// What can be seen instead of a place not found: the nearest door and the best sign.
fn instead(state: &EnvironmentState) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(d) = by_distance(
        state
            .things
            .iter()
            .filter(|t| t.kind == ThingKind::Door)
            .collect(),
    )
    .first()
    {
        out.push(format!(
            "There is {} {} at {}, {}.",
            super::phrase::article(&d.label),
            d.label,
            clock(d.clock),
            about_metres(d.distance_m)
        ));
    }
    if let Some(x) = best_text(state) {
        out.push(text_sentence(x, "A sign says"));
    }
    out
}

fn goal(request: &str, state: &EnvironmentState) -> TemplateAnswer {
    match find_goal(request, state) {
        Some(Goal::Door { door, sign }) => guide(
            state,
            door_sentence(request, door, sign),
            door.clock,
            Some(door.distance_m),
            Some(door.id),
        ),
        Some(Goal::Thing(t)) => guide(
            state,
            thing_sentence(t),
            t.clock,
            Some(t.distance_m),
            Some(t.id),
        ),
        Some(Goal::Sign(x)) => match wall_under_sign(state, x) {
            // The sign's wall is where the way ends, not a thing to go around.
            Some(w) if w.distance_m <= REACH_M => TemplateAnswer::known(vec![
                sign_place_sentence(x),
                format!(
                    "It is on the wall in front of you, at {}, {}.",
                    clock(w.clock),
                    about_metres(w.distance_m)
                ),
            ]),
            Some(w) => {
                let mut a = guide(
                    state,
                    sign_place_sentence(x),
                    x.clock,
                    Some(w.distance_m - REACH_M / 2.0),
                    Some(w.id),
                );
                a.sentences.insert(1, "It is on the wall.".into());
                a
            }
            None => guide(state, sign_place_sentence(x), x.clock, x.distance_m, None),
        },
        None => {
            let words = handled_words(&content_words(request));
            let mut a = not_found(&words);
            a.sentences.extend(instead(state));
            a
        }
    }
}

/// "Am I at the exit?": the place's distance says yes (within [`AT_GOAL_M`]) or not yet;
/// without one, that it cannot tell.
fn at_goal(request: &str, state: &EnvironmentState) -> TemplateAnswer {
    let Some(g) = find_goal(request, state) else {
        let words = content_words(request);
        let mut a = not_found(&words);
        a.sentences.extend(instead(state));
        return a;
    };
    let (first, d) = match g {
        Goal::Door { door, sign } => (door_sentence(request, door, sign), Some(door.distance_m)),
        Goal::Thing(t) => (thing_sentence(t), Some(t.distance_m)),
        Goal::Sign(x) => (sign_place_sentence(x), x.distance_m),
    };
    let verdict = match d {
        Some(d) if d <= AT_GOAL_M => "Yes, you are there.",
        Some(_) => "Not yet.",
        None => "I can't tell how far it is.",
    };
    TemplateAnswer::known(vec![verdict.to_string(), first])
}

/// Within this distance of the place asked about, "Am I at …?" is answered yes, metres.
pub const AT_GOAL_M: f32 = 1.5;

fn ambient(state: &EnvironmentState) -> TemplateAnswer {
    if let Some(t) = in_path_hazards(state).first() {
        return TemplateAnswer::known(vec![thing_sentence(t)]);
    }
    match by_distance(state.things.iter().collect()).first() {
        Some(t) => TemplateAnswer::known(vec![thing_sentence(t)]),
        None => TemplateAnswer {
            sentences: Vec::new(),
            unanswerable: true,
        },
    }
}

/// The wearer's motion in words ("walking", "standing still"); `None` when unknown.
fn motion_words(m: MotionState) -> Option<&'static str> {
    match m {
        MotionState::Unknown => None,
        MotionState::Standing => Some("standing still"),
        MotionState::Walking => Some("walking"),
        MotionState::Turning => Some("turning"),
        MotionState::StairsUp => Some("walking up stairs"),
        MotionState::StairsDown => Some("walking down stairs"),
    }
}

/// "Am I walking?", "Am I standing still?", "Did I just turn?": yes or no from the motion
/// state, and what the wearer is doing; a question about a turn that is over is answered
/// from the turn history (the newest turn of the last [`RECENT_TURN_NS`]), and a recent
/// turn is said after any other motion answer too ("Yes, you are standing still. You turned
/// around, 4 seconds ago."). Without a compass heading, a past turn is not answered no.
fn motion(request: &str, state: &EnvironmentState) -> TemplateAnswer {
    let m = state.motion.state;
    let Some(now) = motion_words(m) else {
        return TemplateAnswer::cannot("I can't tell yet how you are moving.".into());
    };
    let t = tokens(request);
    let has = |ws: &[&str]| t.iter().any(|w| ws.contains(&w.as_str()));
    let past = t.first().is_some_and(|w| w == "did" || w == "have");
    let recent = recent_turn(state);
    let about_turn = has(&["turn", "turned", "turning"]);
    if about_turn && m != MotionState::Turning {
        if let Some(turn) = recent {
            return TemplateAnswer::known(vec![
                format!("Yes, {}.", turned(turn, state.at)),
                format!("You are {now} now."),
            ]);
        }
        if past && state.motion.heading_deg.is_some() {
            return TemplateAnswer::known(vec![
                format!(
                    "No, I noticed no turn in the last {} seconds.",
                    RECENT_TURN_NS / 1_000_000_000
                ),
                format!("You are {now} now."),
            ]);
        }
    }
    let asked = if has(&["standing", "stand", "still", "stopped"]) {
        Some(m == MotionState::Standing)
    } else if about_turn {
        (m == MotionState::Turning || !past).then_some(m == MotionState::Turning)
    } else if has(&["walking", "walk", "moving", "move"]) {
        Some(m != MotionState::Standing)
    } else {
        None
    };
    let first = match asked {
        Some(true) => format!("Yes, you are {now}."),
        Some(false) => format!("No, you are {now}."),
        None if past => format!("You are {now} now."),
        None => format!("You are {now}."),
    };
    let mut out = vec![first];
    if asked.is_none() && past {
        out.push("I can't tell whether you turned before.".into());
    }
    if let Some(turn) = recent.filter(|_| m != MotionState::Turning) {
        out.push(turn_sentence(turn, state.at));
    }
    TemplateAnswer::known(out)
}

/// With no moving person, a thing this close is named (it may be a person standing),
/// metres.
pub const PEOPLE_CLOSE_M: f32 = 2.0;

/// "A person is moving at 2 o'clock, 3 metres, in your path."
fn person_sentence(p: &Thing, verb: &str) -> String {
    let mut s = format!(
        "A person is {verb} at {}, {}",
        clock(p.clock),
        about_metres(p.distance_m)
    );
    if p.in_path {
        s.push_str(", in your path");
    }
    s.push('.');
    s
}

/// "Is someone coming toward me?", "How many people are here?", "Is anyone waving?": the
/// people perception tracks (moving people) and the detector sees, nearest first. What
/// neither can tell (whether someone waves, looks, sits or talks) is said to be unknown
/// before what is seen, never answered yes; with no one seen, says so and names what is
/// close or in the way (a person standing still may be measured as an obstacle).
fn people(state: &EnvironmentState, ask: PeopleAsk) -> TemplateAnswer {
    let persons = by_distance(
        state
            .things
            .iter()
            .filter(|t| t.kind == ThingKind::Person)
            .collect(),
    );
    // The detector's people that are not already a moving person.
    let mut standing: Vec<&ObjectFact> = state
        .objects
        .iter()
        .filter(|o| o.class == ObjectClass::Person)
        .filter(|o| !o.thing.is_some_and(|id| persons.iter().any(|p| p.id == id)))
        .collect();
    standing.sort_by(|a, b| {
        a.distance_m
            .unwrap_or(f32::MAX)
            .total_cmp(&b.distance_m.unwrap_or(f32::MAX))
    });
    let nearest = || -> Option<String> {
        persons
            .first()
            .map(|p| person_sentence(p, "moving"))
            .or_else(|| standing.first().map(|o| object_sentence(o, state)))
    };
    let unknown = match ask {
        PeopleAsk::Waving => Some("waving at you"),
        PeopleAsk::Looking => Some("looking at you"),
        PeopleAsk::Sitting => Some("sitting"),
        PeopleAsk::Talking => Some("talking to you"),
        _ => None,
    };
    if let Some(what) = unknown {
        let mut out = vec![format!("I can't tell whether anyone is {what}.")];
        out.extend(nearest());
        return TemplateAnswer {
            sentences: out,
            unanswerable: true,
        };
    }
    let seen = persons.len() + standing.len();
    if seen > 0 {
        let out = match ask {
            PeopleAsk::Approaching => {
                let approaching = |p: &&&Thing| match p.detail {
                    ThingDetail::Moving { approaching, .. } => Some(approaching),
                    _ => None,
                };
                let coming = persons.iter().find(|p| approaching(p) == Some(true));
                // Denied only when every moving person is known to be going elsewhere.
                let none_coming =
                    !persons.is_empty() && persons.iter().all(|p| approaching(&p) == Some(false));
                match coming {
                    Some(p) => vec![format!("Yes. {}", person_sentence(p, "coming toward you"))],
                    None if none_coming => {
                        let mut v = vec!["No one is coming toward you.".to_string()];
                        v.extend(nearest());
                        v
                    }
                    None => nearest().into_iter().collect(),
                }
            }
            PeopleAsk::Count => {
                let noun = if seen == 1 { "person" } else { "people" };
                let mut v = vec![format!("I can see {} {noun}.", count_word(seen))];
                v.extend(nearest());
                v
            }
            _ => {
                let mut v = vec![format!("Yes. {}", nearest().unwrap_or_default())];
                if persons.len() > 1 {
                    v.push(format!("{} people are moving near you.", persons.len()));
                }
                v
            }
        };
        return TemplateAnswer::known(out);
    }
    if no_evidence(state) {
        return TemplateAnswer::cannot(
            "I can't tell: nothing around you has been measured yet.".into(),
        );
    }
    // Perception tells people by their motion, and the detector by what it recognises: what
    // stands close by, unrecognised and not a wall, may be one.
    let close = by_distance(
        state
            .things
            .iter()
            .filter(|t| is_hazard(t.kind) && t.distance_m <= PEOPLE_CLOSE_M)
            .collect(),
    );
    let unrecognised_close = close.iter().any(|t| {
        t.class.is_none()
            && t.kind == ThingKind::Obstacle
            && !matches!(t.detail, ThingDetail::Wall)
            && !matches!(t.height, Some(HeightBand::Ground | HeightBand::Head))
    });
    let mut out = vec![if !state.sees_objects {
        "I don't detect anyone moving.".to_string()
    } else if unrecognised_close {
        "I can't tell whether anyone is there.".to_string()
    } else {
        "I don't see anyone.".to_string()
    }];
    if let Some(t) = close.first().or(in_path_hazards(state).first()) {
        out.push(thing_sentence(t));
    }
    TemplateAnswer::known(out)
}

/// What is said to a request vista cannot serve.
pub const CANNOT_DO: &str = "Sorry, I can't do that yet.";
/// What is said to a question no rule understands, when no language model answers it.
pub const CANNOT_ANSWER: &str = "Sorry, I can't answer that yet.";

/// Answers `request` in `form` from `state` alone (understood here: see [`answer_ask`]).
pub fn answer(form: Form, request: &str, state: &EnvironmentState) -> TemplateAnswer {
    answer_ask(form, &ask_for(form, request), request, state)
}

/// Answers `request` in `form`, which asks for `ask`, from `state` alone.
pub fn answer_ask(
    form: Form,
    ask: &Ask,
    request: &str,
    state: &EnvironmentState,
) -> TemplateAnswer {
    if form == Form::Ambient {
        return ambient(state);
    }
    match ask {
        Ask::Scene => scene(state),
        Ask::Goal(_) => goal(request, state),
        Ask::ReadText(_) => read_text(state),
        Ask::HeadHeight => head_height(state),
        Ask::Stairs => stairs(state),
        Ask::LookingAt => looking_at(state),
        Ask::WhereIs(t) => where_is(request, &t.words, state),
        Ask::AtGoal(_) => at_goal(request, state),
        Ask::Motion => motion(request, state),
        Ask::People(p) => people(state, *p),
        Ask::ObjectQuery(t) => object_query_answer(&t.words, state),
        Ask::Ahead => ahead(request, state),
        Ask::Unsupported | Ask::Setting(_) => TemplateAnswer::cannot(CANNOT_DO.into()),
        Ask::Open => TemplateAnswer::cannot(CANNOT_ANSWER.into()),
    }
}

/// The template generator behind the [`Generator`] port: answers from the state last given
/// with [`TemplateGenerator::set_state`].
#[derive(Debug, Default)]
pub struct TemplateGenerator {
    state: Option<Arc<EnvironmentState>>,
}

impl TemplateGenerator {
    /// A generator with no state yet (it answers "I can't tell yet").
    pub fn new() -> Self {
        Self::default()
    }

    /// The state the next answers rest on.
    pub fn set_state(&mut self, state: Arc<EnvironmentState>) {
        self.state = Some(state);
    }
}

impl Generator for TemplateGenerator {
    fn name(&self) -> &str {
        "template"
    }

    fn generate(
        &mut self,
        prompt: &GenerationPrompt,
        on_text: &mut dyn FnMut(&str) -> Continue,
        cancel: &AtomicBool,
    ) -> Result<GenerationStats, GeneratorError> {
        let form = Form::parse(&prompt.form).unwrap_or(Form::Question);
        let a = match &self.state {
            Some(s) => answer(form, &prompt.request, s),
            None => TemplateAnswer::cannot("I can't tell yet: nothing is known so far.".into()),
        };
        let mut stats = GenerationStats::default();
        for (i, s) in a.sentences.iter().enumerate() {
            if cancel.load(Ordering::Acquire) {
                stats.cancelled = true;
                break;
            }
            let piece = if i == 0 { s.clone() } else { format!(" {s}") };
            stats.generated_tokens += piece.split_whitespace().count() as u32;
            if on_text(&piece) == Continue::Stop {
                break;
            }
        }
        Ok(stats)
    }
}
