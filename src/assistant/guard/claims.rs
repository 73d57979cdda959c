//! What a sentence claims: clock directions, distances and step counts, object nouns, quoted
//! text, sides (left / right / ahead / behind), a movement instruction with its heading, and
//! claims that the way is clear. Pure text analysis with a small fixed vocabulary.

use crate::lexicon::nouns::OBJECT_NOUNS;
use crate::lexicon::numbers::number;
use crate::lexicon::words::{singular, tokens};
use crate::state::{ClockHour, STEP_LENGTH_M};

/// A side of the wearer, as a location claim ("the door is on your left").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// 7–11 o'clock.
    Left,
    /// 1–5 o'clock.
    Right,
    /// 11–1 o'clock.
    Ahead,
    /// 5–7 o'clock.
    Behind,
}

impl Side {
    /// The clock hours this side covers (the ±1 hour tolerance included).
    pub fn covers(self, h: ClockHour) -> bool {
        let h = h.get();
        match self {
            Side::Left => (7..=11).contains(&h),
            Side::Right => (1..=5).contains(&h),
            Side::Ahead => matches!(h, 11 | 12 | 1),
            Side::Behind => (5..=7).contains(&h),
        }
    }

    /// "left", "right", "ahead", "behind".
    pub fn word(self) -> &'static str {
        match self {
            Side::Left => "left",
            Side::Right => "right",
            Side::Ahead => "ahead",
            Side::Behind => "behind",
        }
    }
}

/// A movement instruction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Movement {
    /// Where the walk goes (a named clock hour, else the turn's direction, else ahead).
    pub heading: ClockHour,
    /// The explicit turn ("turn left" → 9), if any.
    pub turn: Option<ClockHour>,
    /// A clock hour named in the same sentence more than 2 hours from the turn.
    pub conflict: Option<ClockHour>,
    /// How far it says to go, metres (the largest distance or step count named).
    pub range_m: Option<f32>,
}

/// A claim that nothing is in the way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClearClaim {
    /// "The path is clear", "nothing ahead", "safe to walk".
    Path,
    /// "Nothing at head height".
    HeadHeight,
}

/// A claim that nothing of a kind is there ("there are no cars", "nobody is ahead", "I
/// don't see any steps").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Absent {
    /// No people.
    People,
    /// No vehicles or bicycles.
    Vehicles,
    /// No obstacles.
    Obstacles,
    /// No steps, stairs, kerbs or drops.
    Steps,
}

/// Nouns that name each kind an absence can be claimed of (singular and plural).
const ABSENT_NOUNS: &[(&str, Absent)] = &[
    ("people", Absent::People),
    ("person", Absent::People),
    ("persons", Absent::People),
    ("pedestrian", Absent::People),
    ("pedestrians", Absent::People),
    ("anyone", Absent::People),
    ("anybody", Absent::People),
    ("someone", Absent::People),
    ("car", Absent::Vehicles),
    ("cars", Absent::Vehicles),
    ("vehicle", Absent::Vehicles),
    ("vehicles", Absent::Vehicles),
    ("traffic", Absent::Vehicles),
    ("bus", Absent::Vehicles),
    ("buses", Absent::Vehicles),
    ("truck", Absent::Vehicles),
    ("trucks", Absent::Vehicles),
    ("bike", Absent::Vehicles),
    ("bikes", Absent::Vehicles),
    ("bicycle", Absent::Vehicles),
    ("bicycles", Absent::Vehicles),
    ("obstacle", Absent::Obstacles),
    ("obstacles", Absent::Obstacles),
    ("obstructions", Absent::Obstacles),
    ("step", Absent::Steps),
    ("steps", Absent::Steps),
    ("stair", Absent::Steps),
    ("stairs", Absent::Steps),
    ("curb", Absent::Steps),
    ("curbs", Absent::Steps),
    ("kerb", Absent::Steps),
    ("kerbs", Absent::Steps),
    ("drop", Absent::Steps),
    ("drops", Absent::Steps),
];

/// The absences `t` (one sentence's tokens) claims: a kind noun within three words after
/// "no" or "any" in a negative sentence ("no cars", "not any other people", "I don't see
/// any steps"), and "nobody" / "no one". Hedged or conditional sentences ("I can't tell
/// whether anyone is there", "if there are no cars") and questions claim nothing.
fn absences(t: &[String], negated: bool, hedged: bool) -> Vec<Absent> {
    let mut out = Vec::new();
    if hedged {
        return out;
    }
    let mut push = |a: Absent| {
        if !out.contains(&a) {
            out.push(a);
        }
    };
    for (i, w) in t.iter().enumerate() {
        let next = t.get(i + 1).map(String::as_str);
        if w == "nobody" || (w == "no" && next == Some("one")) {
            push(Absent::People);
        }
        if !(w == "no" || (w == "any" && negated)) {
            continue;
        }
        for n in t.iter().skip(i + 1).take(3) {
            if let Some((_, a)) = ABSENT_NOUNS.iter().find(|(noun, _)| noun == n) {
                push(*a);
                break;
            }
        }
    }
    out
}

/// Everything one sentence claims.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Claims {
    /// Clock hours named.
    pub clocks: Vec<ClockHour>,
    /// Distances named, metres (step counts converted at [`STEP_LENGTH_M`]).
    pub distances_m: Vec<f32>,
    /// Object nouns named (singular), outside quotes.
    pub objects: Vec<String>,
    /// Quoted text.
    pub quoted: Vec<String>,
    /// Location claims about the things named.
    pub sides: Vec<Side>,
    /// A movement instruction, if the sentence gives one (and does not negate it).
    pub movement: Option<Movement>,
    /// The side to pass a named thing on ("go around it on the left").
    pub pass: Option<Side>,
    /// A claim that the way is clear.
    pub clear: Option<ClearClaim>,
    /// Claims that nothing of a kind is there.
    pub absent: Vec<Absent>,
    /// The sentence is negative ("can't", "no", "not", "don't").
    pub negated: bool,
}

/// Splits text into sentences at `.`, `?`, `!` and `;` followed by a space or the end
/// (so "2.5" stays whole). Sentences keep their terminator; empty ones are dropped.
pub fn split_sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        cur.push(c);
        if matches!(c, '.' | '?' | '!' | ';') && chars.peek().is_none_or(|n| n.is_whitespace()) {
            let s = cur.trim().to_string();
            if !s.is_empty() {
                out.push(s);
            }
            cur.clear();
        }
    }
    let s = cur.trim().to_string();
    if !s.is_empty() {
        out.push(s);
    }
    out
}

/// Splits streamed text into its complete sentences (ended by a terminator followed by
/// whitespace) and the raw remainder still being generated.
pub fn complete_sentences(text: &str) -> (Vec<String>, &str) {
    let mut cut = 0;
    let mut prev: Option<char> = None;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() && matches!(prev, Some('.' | '?' | '!' | ';')) {
            cut = i;
        }
        prev = Some(c);
    }
    let (done, rest) = text.split_at(cut);
    (split_sentences(done), rest)
}

/// Removes quoted passages ("…", “…”, '…') and returns (the rest, the quotes).
pub fn take_quotes(s: &str) -> (String, Vec<String>) {
    let chars: Vec<char> = s.chars().collect();
    let mut rest = String::new();
    let mut quotes = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let prev_ok = i == 0 || chars.get(i - 1).is_some_and(|p| !p.is_alphanumeric());
        let close = match c {
            '"' => Some('"'),
            '\u{201c}' => Some('\u{201d}'),
            '\'' if prev_ok => Some('\''),
            '\u{2018}' if prev_ok => Some('\u{2019}'),
            _ => None,
        };
        if let Some(close) = close {
            let end = (i + 1..chars.len()).find(|&j| {
                chars.get(j) == Some(&close)
                    && chars.get(j + 1).is_none_or(|n| !n.is_alphanumeric())
            });
            if let Some(j) = end {
                let q: String = chars.get(i + 1..j).unwrap_or(&[]).iter().collect();
                quotes.push(q.trim().to_string());
                rest.push(' ');
                i = j + 1;
                continue;
            }
        }
        rest.push(c);
        i += 1;
    }
    (rest, quotes)
}

const NEGATIONS: &[&str] = &[
    "not", "no", "can't", "cannot", "don't", "dont", "isn't", "never", "nothing", "without",
    "avoid", "doesn't", "won't", "nowhere",
];
const MOVE_VERBS: &[&str] = &[
    "walk", "go", "continue", "proceed", "move", "step", "head", "turn", "bear", "veer", "keep",
    "cross", "run", "take", "follow",
];
/// Verbs that, with no direction, mean "forward".
const FORWARD_VERBS: &[&str] = &[
    "walk", "go", "continue", "proceed", "move", "step", "cross", "run", "keep",
];
const PASS_MARKERS: &[&str] = &["its", "it", "around", "past", "of", "them", "by"];

fn hours_apart(a: ClockHour, b: ClockHour) -> u8 {
    let d = (i16::from(a.get()) - i16::from(b.get())).rem_euclid(12) as u8;
    d.min(12 - d)
}

/// Circular distance between two clock hours, in hours (0–6).
pub fn clock_diff(a: ClockHour, b: ClockHour) -> u8 {
    hours_apart(a, b)
}

/// Parses one sentence.
pub fn parse(sentence: &str) -> Claims {
    let (plain, quoted) = take_quotes(sentence);
    let t = tokens(&plain);
    let lower = format!(" {} ", t.join(" "));
    let mut c = Claims {
        quoted,
        negated: t.iter().any(|w| NEGATIONS.contains(&w.as_str())),
        ..Claims::default()
    };
    let at = |i: usize| t.get(i).map(String::as_str).unwrap_or("");
    // Numbers with units, and clock hours.
    for i in 0..t.len() {
        let Some(v) = number(at(i)) else { continue };
        if matches!(at(i), "a" | "an") && i > 0 && at(i - 1) == "half" {
            continue;
        }
        match at(i + 1) {
            "o'clock" | "oclock" if (1.0..=12.0).contains(&v) && v.fract() == 0.0 => {
                c.clocks.push(ClockHour::new(v as u8));
            }
            "metres" | "meters" | "metre" | "meter" | "m" => c.distances_m.push(v),
            "steps" | "step" if at(i) != "a" => c.distances_m.push(v * STEP_LENGTH_M),
            "feet" | "foot" | "ft" => c.distances_m.push(v * 0.3048),
            "a" if matches!(at(i + 2), "metre" | "meter") => c.distances_m.push(v),
            _ => {}
        }
    }
    // Object nouns.
    for w in &t {
        let s = singular(w);
        if OBJECT_NOUNS.contains(&s.as_str()) && !c.objects.contains(&s) {
            c.objects.push(s);
        }
    }
    // Directions: each is a turn (after a movement verb, not "around it on the left") or a
    // location claim.
    let verb_at = t.iter().enumerate().position(|(i, w)| {
        // "the step", "a turn": nouns, not instructions.
        let noun = i > 0 && matches!(at(i - 1), "the" | "a" | "an" | "this" | "that" | "your");
        // "Step up in 3 metres", "step down the curb": how to meet a level change, not
        // where to walk.
        let level = w == "step" && matches!(at(i + 1), "up" | "down" | "over" | "onto");
        !noun
            && !level
            && MOVE_VERBS.contains(&w.as_str())
            && (w != "take" || t.iter().any(|x| x == "left" || x == "right" || x == "turn"))
            && (w != "keep"
                || t.iter().any(|x| {
                    matches!(
                        x.as_str(),
                        "going" | "walking" | "straight" | "left" | "right"
                    )
                }))
    });
    let mut turn = None;
    let mut passing_seen = verb_at.is_some_and(|v| matches!(at(v + 1), "around" | "past"));
    for (i, w) in t.iter().enumerate() {
        let dir = match w.as_str() {
            "left" => Some(Side::Left),
            "right" => Some(Side::Right),
            "ahead" | "straight" | "forward" | "forwards" => Some(Side::Ahead),
            "front" if i > 0 && at(i - 1) == "in" => Some(Side::Ahead),
            "behind" => Some(Side::Behind),
            "around" if i > 0 && at(i - 1) == "turn" => Some(Side::Behind),
            _ => None,
        };
        let Some(dir) = dir else { continue };
        let before: Vec<&str> = (i.saturating_sub(3)..i).map(at).collect();
        let located = i >= 2
            && at(i - 1) == "your"
            && matches!(at(i - 2), "on" | "at" | "to")
            && !before
                .iter()
                .any(|b| matches!(*b, "turn" | "step" | "move" | "veer" | "bear"));
        let passing = before.iter().any(|b| PASS_MARKERS.contains(b));
        match verb_at {
            Some(v) if v < i && !located && !passing => {
                let slight = at(i.wrapping_sub(1)) == "slightly";
                turn = Some(match (dir, slight) {
                    (Side::Left, true) => ClockHour::new(11),
                    (Side::Right, true) => ClockHour::new(1),
                    (Side::Left, false) => ClockHour::new(9),
                    (Side::Right, false) => ClockHour::new(3),
                    (Side::Ahead, _) => ClockHour::new(12),
                    (Side::Behind, _) => ClockHour::new(6),
                });
            }
            _ if !passing => c.sides.push(dir),
            _ => {
                passing_seen = true;
                if matches!(dir, Side::Left | Side::Right) && verb_at.is_some() && !c.negated {
                    c.pass = Some(dir);
                }
            }
        }
    }
    if let Some(v) = verb_at.filter(|_| !c.negated) {
        let conflict = turn.and_then(|tr| {
            (!c.clocks.is_empty() && c.clocks.iter().all(|&h| hours_apart(h, tr) > 2))
                .then(|| c.clocks.first().copied())
                .flatten()
        });
        let named = c
            .clocks
            .iter()
            .copied()
            .find(|&h| turn.is_none_or(|tr| hours_apart(h, tr) <= 2));
        // "Go around it on the right" says how to pass, not where to walk.
        let forward = FORWARD_VERBS.contains(&at(v)) && !passing_seen;
        let heading = named
            .filter(|_| turn.is_some() || forward)
            .or(turn)
            .or_else(|| forward.then(|| ClockHour::new(12)));
        if let Some(heading) = heading {
            c.movement = Some(Movement {
                heading,
                turn,
                conflict,
                range_m: c.distances_m.iter().copied().reduce(f32::max),
            });
        }
    }
    // Claims that the way is clear: positive phrases unless negated ("I can't tell whether
    // the path is clear"), negative ones ("nothing ahead") unless hedged.
    const CLEAR: &[&str] = &[
        " is clear ",
        " are clear ",
        " all clear ",
        " clear path ",
        " safe to walk ",
        " safe to go ",
        " safe to continue ",
        " safe to proceed ",
        " safe to cross ",
        " path is free ",
        " way is free ",
    ];
    const NOTHING: &[&str] = &[
        " nothing ahead ",
        " nothing in front ",
        " nothing in your way ",
        " nothing in the way ",
        " nothing in your path ",
        " no obstacle",
    ];
    let hedged = t
        .iter()
        .any(|w| matches!(w.as_str(), "can't" | "cannot" | "whether" | "unsure" | "if"));
    let question = sentence.trim_end().ends_with('?');
    let soft_hedge = t.iter().any(|w| {
        matches!(
            w.as_str(),
            "whether" | "unsure" | "if" | "tell" | "sure" | "unless" | "until"
        )
    });
    c.absent = absences(&t, c.negated, soft_hedge || question);
    if lower.contains(" head height ") || lower.contains(" overhead ") {
        if c.negated && !hedged {
            c.clear = Some(ClearClaim::HeadHeight);
        }
    } else if (CLEAR.iter().any(|p| lower.contains(p)) && !c.negated)
        || (NOTHING.iter().any(|p| lower.contains(p)) && !hedged)
    {
        c.clear = Some(ClearClaim::Path);
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_split_but_decimals_stay() {
        assert_eq!(
            split_sentences("Stop. The box is 2.5 metres ahead; go left! Ok"),
            vec!["Stop.", "The box is 2.5 metres ahead;", "go left!", "Ok"]
        );
    }

    #[test]
    fn streamed_text_keeps_its_remainder() {
        let (done, rest) = complete_sentences("Go. Walk 2.5 m");
        assert_eq!(done, vec!["Go."]);
        assert_eq!(rest, " Walk 2.5 m");
        let (done, rest) = complete_sentences("Take a ");
        assert!(done.is_empty());
        assert_eq!(rest, "Take a ");
    }

    #[test]
    fn quotes_come_out() {
        let (rest, q) = take_quotes("The sign says \"Platform 3\" and 'EXIT', it's here.");
        assert_eq!(q, vec!["Platform 3", "EXIT"]);
        assert!(rest.contains("it's here"));
    }

    #[test]
    fn the_smollm2_sentence() {
        let c = parse("Take a left turn and exit the elevator at 2 o'clock.");
        assert_eq!(c.clocks, vec![ClockHour::new(2)]);
        assert_eq!(c.objects, vec!["elevator".to_string()]);
        let m = c.movement.unwrap();
        assert_eq!(m.turn, Some(ClockHour::new(9)));
        assert_eq!(m.conflict, Some(ClockHour::new(2)));
    }

    #[test]
    fn instructions_and_locations() {
        let m = parse("Walk straight ahead.").movement.unwrap();
        assert_eq!(m.heading, ClockHour::new(12));
        let m = parse("Turn right, towards 2 o'clock, and walk about 9 steps.")
            .movement
            .unwrap();
        assert_eq!(m.heading, ClockHour::new(2));
        assert_eq!(m.conflict, None);
        assert!((m.range_m.unwrap() - 9.0 * 0.7).abs() < 1e-4);
        let c = parse("The door is on your left, 3 metres.");
        assert_eq!(c.movement, None);
        assert_eq!(c.sides, vec![Side::Left]);
        assert_eq!(c.distances_m, vec![3.0]);
        let c = parse("The box is in the way at 12 o'clock, 2 metres: go around it on the right.");
        assert_eq!(c.movement, None);
        assert!(c.sides.is_empty());
        assert_eq!(c.pass, Some(Side::Right));
        assert_eq!(parse("Don't walk straight ahead.").movement, None);
        assert_eq!(
            parse("Keep going straight.").movement.unwrap().heading,
            ClockHour::new(12)
        );
        assert_eq!(
            parse("Step forward to the edge.").movement.unwrap().heading,
            ClockHour::new(12)
        );
        assert_eq!(parse("The path is clear.").clear, Some(ClearClaim::Path));
        assert_eq!(
            parse("I don't detect anything at head height.").clear,
            Some(ClearClaim::HeadHeight)
        );
        assert_eq!(parse("A branch is at head height.").clear, None);
        assert_eq!(
            parse("I can't tell whether your path is clear.").clear,
            None
        );
        assert_eq!(parse("The path is not clear.").clear, None);
        assert_eq!(
            parse("There is nothing ahead.").clear,
            Some(ClearClaim::Path)
        );
        assert_eq!(parse("It is half a metre away.").distances_m, vec![0.5]);
        // A level change ahead is how to meet it, not a way to walk.
        assert_eq!(parse("Step up in 3 metres.").movement, None);
        assert_eq!(parse("Step down in 4 metres.").movement, None);
        assert_eq!(
            parse("Step down the curb, then cross straight ahead.")
                .movement
                .map(|m| m.heading),
            Some(ClockHour::new(12))
        );
    }

    #[test]
    fn absences_are_claims_of_no_thing_of_a_kind() {
        assert_eq!(
            parse("There are no cars coming.").absent,
            vec![Absent::Vehicles]
        );
        assert_eq!(
            parse("Nobody is ahead of you.").absent,
            vec![Absent::People]
        );
        assert_eq!(parse("No one is there.").absent, vec![Absent::People]);
        assert_eq!(
            parse("I don't see any other people or steps.").absent,
            vec![Absent::People]
        );
        assert_eq!(
            parse("There are no steps here.").absent,
            vec![Absent::Steps]
        );
        // Near misses: a thing said to be there, a question, a condition, a hedge.
        assert!(parse("The person is not moving.").absent.is_empty());
        assert!(parse("Are there any cars?").absent.is_empty());
        assert!(parse("If there are no cars, cross.").absent.is_empty());
        assert!(parse("I can't tell whether anyone is there.")
            .absent
            .is_empty());
        assert!(parse("A car is coming from the left.").absent.is_empty());
    }
}
