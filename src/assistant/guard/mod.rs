//! The safety guard: checks generated text sentence by sentence against the environment
//! state. Every clock direction, distance, step count, side and object a sentence names must
//! be supported by the state (±1 hour; ±30 % or ±1 m, whichever is larger); quoted text must
//! have been read; an instruction that would walk the user into a known obstacle or drop-off
//! within a few metres, or a claim that the way is clear when it is not, is blocked. A
//! blocked sentence is replaced by a safe template sentence (or removed), and every
//! intervention is reported. A sentence saying the wearer turned a way needs a turn that
//! way in the state's turn history ([`turned`]).

pub mod claims;
pub mod turned;

use std::collections::BTreeSet;

use self::claims::{clock_diff, parse, split_sentences, Claims, ClearClaim};
use super::corridor::{blockers, is_hazard, pass_blockers, path_hazards};
use super::phrase::{article, metres};
use super::template::{not_clear_sentence, thing_sentence, warning_sentence};
use crate::lexicon::classes::names_class;
use crate::lexicon::nouns::names_thing;
use crate::lexicon::words::tokens;
use crate::state::{
    ClockHour, EnvironmentState, GuardAction, HeightBand, MotionState, Thing, ThingKind,
    TurnDirection,
};

pub use claims::{Movement, Side};

/// Guard tolerances and ranges.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GuardConfig {
    /// A walk with no stated length is checked this far, metres.
    pub hazard_range_m: f32,
    /// "The path is clear" must hold this far ahead, metres.
    pub clear_range_m: f32,
    /// "The path is clear" is false when less than this is free ahead, metres.
    pub min_clear_m: f32,
    /// Clock tolerance, hours.
    pub clock_tolerance_h: u8,
    /// Relative distance tolerance.
    pub distance_rel: f32,
    /// Absolute distance tolerance, metres (the larger of the two applies).
    pub distance_abs_m: f32,
}

impl Default for GuardConfig {
    fn default() -> Self {
        Self {
            hazard_range_m: 4.0,
            clear_range_m: 5.0,
            min_clear_m: 2.0,
            clock_tolerance_h: 1,
            distance_rel: 0.3,
            distance_abs_m: 1.0,
        }
    }
}

/// The guard's judgement of one sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Supported by the state.
    Pass,
    /// Blocked.
    Block {
        /// Every failed check, "; "-separated.
        reason: String,
        /// The safe sentence said instead, if any.
        replacement: Option<String>,
    },
}

/// One blocked sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Intervention {
    /// The blocked sentence.
    pub blocked: String,
    /// Why.
    pub reason: String,
    /// What was said instead (`None`: removed).
    pub replacement: Option<String>,
}

/// A whole text after the guard.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Guarded {
    /// The sentences to speak.
    pub sentences: Vec<String>,
    /// What was blocked.
    pub interventions: Vec<Intervention>,
}

impl Guarded {
    /// The decision record's guard field.
    pub fn action(&self) -> GuardAction {
        action_of(&self.interventions)
    }
}

/// The decision record's guard field for a list of interventions.
pub fn action_of(interventions: &[Intervention]) -> GuardAction {
    if interventions.is_empty() {
        return GuardAction::Passed;
    }
    GuardAction::Replaced {
        blocked: interventions
            .iter()
            .map(|i| i.blocked.as_str())
            .collect::<Vec<_>>()
            .join(" | "),
        reason: interventions
            .iter()
            .map(|i| i.reason.as_str())
            .collect::<Vec<_>>()
            .join(" | "),
    }
}

/// The guard.
#[derive(Clone, Debug, Default)]
pub struct Guard {
    config: GuardConfig,
}

fn normalise(s: &str) -> String {
    tokens(s).join(" ")
}

fn at_head(t: &Thing) -> bool {
    t.kind == ThingKind::Overhead || t.height == Some(HeightBand::Head)
}

/// A place the state knows: a thing, a text or the gaze ray.
struct Fact<'a> {
    clock: ClockHour,
    distance_m: Option<f32>,
    thing: Option<&'a Thing>,
}

impl Guard {
    /// A guard with `config`.
    pub fn new(config: GuardConfig) -> Self {
        Self { config }
    }

    fn distance_ok(&self, claim: f32, truth: f32) -> bool {
        (claim - truth).abs() <= (self.config.distance_rel * truth).max(self.config.distance_abs_m)
    }

    /// Checks one sentence against `state`; `target` is the thing the request is about
    /// (a goal, "where is X"), which a turn must not lead away from.
    pub fn check_sentence(
        &self,
        sentence: &str,
        state: &EnvironmentState,
        target: Option<&Thing>,
    ) -> Verdict {
        let c = parse(sentence);
        let mut reasons = Vec::new();
        let mut replacement = None;
        self.check_movement(&c, state, target, &mut reasons, &mut replacement);
        self.check_clear(&c, state, &mut reasons, &mut replacement);
        let named = self.check_objects(&c, state, &mut reasons);
        self.check_pass(&c, &named, state, &mut reasons, &mut replacement);
        self.check_places(&c, state, &named, &mut reasons);
        if let Some(dir) = turned::claimed_turn(sentence).filter(|_| !c.negated) {
            if !turned::turn_supported(dir, state) {
                reasons.push(format!(
                    "says the wearer turned {}, which no turn seen supports",
                    match dir {
                        TurnDirection::Left => "left",
                        TurnDirection::Right => "right",
                        TurnDirection::Around => "around",
                    }
                ));
            }
        }
        if reasons.is_empty() {
            return Verdict::Pass;
        }
        if replacement.is_none() {
            replacement = target.map(thing_sentence);
        }
        Verdict::Block {
            reason: reasons.join("; "),
            replacement,
        }
    }

    fn check_movement(
        &self,
        c: &Claims,
        state: &EnvironmentState,
        target: Option<&Thing>,
        reasons: &mut Vec<String>,
        replacement: &mut Option<String>,
    ) {
        let Some(m) = c.movement else { return };
        if let (Some(turn), Some(h)) = (m.turn, m.conflict) {
            reasons.push(format!("turns towards {turn} but names {h}"));
            if replacement.is_none() {
                *replacement = state
                    .things
                    .iter()
                    .filter(|t| clock_diff(t.clock, h) == 0)
                    .min_by(|a, b| a.distance_m.total_cmp(&b.distance_m))
                    .map(thing_sentence);
            }
        }
        if let (Some(turn), Some(t)) = (m.turn, target) {
            if clock_diff(turn, t.clock) > 2 {
                reasons.push(format!(
                    "turns towards {turn}, away from the {} at {}",
                    t.label, t.clock
                ));
            }
        }
        let range = m.range_m.unwrap_or(self.config.hazard_range_m);
        if let Some(b) = blockers(state, m.heading, range)
            .into_iter()
            .find(|b| target.is_none_or(|t| t.id != b.id))
        {
            reasons.push(format!(
                "walks towards {} into the {} at {}, {}",
                m.heading,
                b.label,
                b.clock,
                metres(b.distance_m)
            ));
            *replacement = Some(warning_sentence(b));
        }
    }

    /// "Go around it on the left": nothing else may be on that way past it.
    fn check_pass(
        &self,
        c: &Claims,
        named: &[Fact<'_>],
        state: &EnvironmentState,
        reasons: &mut Vec<String>,
        replacement: &mut Option<String>,
    ) {
        let Some(side) = c.pass else { return };
        // The thing passed: the nearest hazard named, at the hour the sentence gives when it
        // gives one (two things of one name are told apart by where they are).
        let at_hour = |t: &Thing| c.clocks.is_empty() || c.clocks.contains(&t.clock);
        let Some(obstacle) = named
            .iter()
            .filter_map(|f| f.thing)
            .filter(|t| is_hazard(t.kind))
            .min_by(|a, b| {
                (!at_hour(a))
                    .cmp(&!at_hour(b))
                    .then(a.distance_m.total_cmp(&b.distance_m))
            })
        else {
            return;
        };
        if let Some(b) = pass_blockers(state, obstacle, side == Side::Left).first() {
            reasons.push(format!(
                "passes the {} on the {} into the {} at {}, {}",
                obstacle.label,
                side.word(),
                b.label,
                b.clock,
                metres(b.distance_m)
            ));
            *replacement = Some(warning_sentence(b));
        }
    }

    fn check_clear(
        &self,
        c: &Claims,
        state: &EnvironmentState,
        reasons: &mut Vec<String>,
        replacement: &mut Option<String>,
    ) {
        match c.clear {
            Some(ClearClaim::Path) => {
                if let Some(b) = path_hazards(state, self.config.clear_range_m).first() {
                    reasons.push(format!(
                        "says the way is clear but the {} is at {}, {}",
                        b.label,
                        b.clock,
                        metres(b.distance_m)
                    ));
                    *replacement = Some(warning_sentence(b));
                } else if let Some(w) = state
                    .walkable
                    .as_ref()
                    .filter(|w| w.known_clear_m() < self.config.min_clear_m)
                {
                    reasons.push(format!(
                        "says the way is clear but only {} is known free ahead",
                        metres(w.known_clear_m())
                    ));
                    *replacement = Some(not_clear_sentence(w));
                }
            }
            Some(ClearClaim::HeadHeight) => {
                if let Some(b) = state
                    .things
                    .iter()
                    .filter(|t| at_head(t))
                    .min_by(|a, b| a.distance_m.total_cmp(&b.distance_m))
                {
                    reasons.push(format!(
                        "says nothing is at head height but the {} is",
                        b.label
                    ));
                    *replacement = Some(warning_sentence(b));
                }
            }
            None => {}
        }
    }

    /// Checks object nouns and quotes; returns the facts the sentence names.
    fn check_objects<'a>(
        &self,
        c: &Claims,
        state: &'a EnvironmentState,
        reasons: &mut Vec<String>,
    ) -> Vec<Fact<'a>> {
        let mut named = Vec::new();
        for noun in &c.objects {
            let things: Vec<&Thing> = state
                .things
                .iter()
                .filter(|t| names_thing(noun, t))
                .collect();
            let objects: Vec<_> = state
                .objects
                .iter()
                .filter(|o| names_class(noun, o.class))
                .collect();
            let texts =
                matches!(noun.as_str(), "sign" | "text" | "label") && !state.texts.is_empty();
            let on_stairs = matches!(noun.as_str(), "stairs" | "staircase")
                && matches!(
                    state.motion.state,
                    MotionState::StairsUp | MotionState::StairsDown
                );
            if things.is_empty() && objects.is_empty() && !texts && !on_stairs && !c.negated {
                reasons.push(format!(
                    "names {} {noun}, which is not detected",
                    article(noun)
                ));
            }
            named.extend(things.into_iter().map(|t| Fact {
                clock: t.clock,
                distance_m: Some(t.distance_m),
                thing: Some(t),
            }));
            named.extend(objects.into_iter().map(|o| Fact {
                clock: o.clock,
                distance_m: o.distance_m,
                thing: None,
            }));
            if texts {
                named.extend(state.texts.iter().map(|x| Fact {
                    clock: x.clock,
                    distance_m: x.distance_m,
                    thing: None,
                }));
            }
        }
        for q in &c.quoted {
            let nq = normalise(q);
            let read: Vec<_> = state
                .texts
                .iter()
                .filter(|x| {
                    let nx = normalise(&x.text);
                    !nq.is_empty() && (nx == nq || nx.contains(&nq) || nq.contains(&nx))
                })
                .collect();
            let labelled = state
                .things
                .iter()
                .any(|t| normalise(&t.label).contains(&nq));
            if read.is_empty() && !labelled && !c.negated {
                reasons.push(format!("quotes \"{q}\", which was not read"));
            }
            named.extend(read.into_iter().map(|x| Fact {
                clock: x.clock,
                distance_m: x.distance_m,
                thing: None,
            }));
        }
        named
    }

    fn check_places(
        &self,
        c: &Claims,
        state: &EnvironmentState,
        named: &[Fact<'_>],
        reasons: &mut Vec<String>,
    ) {
        let all: Vec<Fact<'_>> = state
            .things
            .iter()
            .map(|t| Fact {
                clock: t.clock,
                distance_m: Some(t.distance_m),
                thing: Some(t),
            })
            .chain(state.texts.iter().map(|x| Fact {
                clock: x.clock,
                distance_m: x.distance_m,
                thing: None,
            }))
            .chain(state.objects.iter().map(|o| Fact {
                clock: o.clock,
                distance_m: o.distance_m,
                thing: None,
            }))
            .chain(state.gaze.iter().map(|g| Fact {
                clock: g.clock,
                distance_m: g.depth_m,
                thing: None,
            }))
            .collect();
        let pool: &[Fact<'_>] = if named.is_empty() { &all } else { named };
        for &h in &c.clocks {
            if !pool
                .iter()
                .any(|f| clock_diff(f.clock, h) <= self.config.clock_tolerance_h)
            {
                reasons.push(format!("says {h}, where nothing named is"));
            }
        }
        let walkable: Vec<f32> = state
            .walkable
            .iter()
            .flat_map(|w| {
                [
                    w.clear_ahead_m,
                    w.clear_left_m,
                    w.clear_right_m,
                    w.known_clear_m(),
                ]
                .into_iter()
                .chain(w.floor_seen_m)
            })
            .collect();
        // In an instruction that names nothing, distances are how far to walk (checked for
        // hazards by the movement check), not claims about where a thing is.
        let walk_only = c.movement.is_some() && named.is_empty();
        for &d in c.distances_m.iter().filter(|_| !walk_only) {
            let ok = pool
                .iter()
                .filter_map(|f| f.distance_m)
                .chain(walkable.iter().copied())
                .any(|truth| self.distance_ok(d, truth));
            if !ok {
                reasons.push(format!(
                    "says {}, which no measured distance supports",
                    metres(d)
                ));
            }
        }
        for side in &c.sides {
            for f in named.iter().filter(|f| f.thing.is_some()) {
                if !side.covers(f.clock) {
                    let label = f.thing.map(|t| t.label.as_str()).unwrap_or("text");
                    reasons.push(format!(
                        "puts the {label} {}, but it is at {}",
                        side.word(),
                        f.clock
                    ));
                }
            }
        }
    }

    /// Checks a whole text: each sentence is kept or replaced (a replacement already said is
    /// not repeated).
    pub fn check_text(
        &self,
        text: &str,
        state: &EnvironmentState,
        target: Option<&Thing>,
    ) -> Guarded {
        let mut g = Guarded::default();
        let mut said = BTreeSet::new();
        for s in split_sentences(text) {
            self.check_into(&s, state, target, &mut g, &mut said);
        }
        g
    }

    /// Checks one streamed sentence into `g`, not repeating what `said` holds.
    pub fn check_into(
        &self,
        sentence: &str,
        state: &EnvironmentState,
        target: Option<&Thing>,
        g: &mut Guarded,
        said: &mut BTreeSet<String>,
    ) {
        match self.check_sentence(sentence, state, target) {
            Verdict::Pass => {
                if said.insert(sentence.to_string()) {
                    g.sentences.push(sentence.to_string());
                }
            }
            Verdict::Block {
                reason,
                replacement,
            } => {
                let replacement = replacement.filter(|r| said.insert(r.clone()));
                if let Some(r) = &replacement {
                    g.sentences.push(r.clone());
                }
                g.interventions.push(Intervention {
                    blocked: sentence.to_string(),
                    reason,
                    replacement,
                });
            }
        }
    }
}
