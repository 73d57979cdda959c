//! The environment state as the language model is given it: compact text over at most
//! [`MODEL_THINGS`] things (those in the walking path first, then doors, then the rest, each
//! group nearest first, listed nearest first) and [`MODEL_TEXTS`] texts, without the
//! bookkeeping the model does not need (ages, confidences, ids of things nothing refers to,
//! how long the wearer has walked) — the facts of [`crate::assistant::render::render_state`], shorter.
//!
//! Every prompt token is paid for before the first answer token, and the state text changes
//! on nearly every tick while the wearer moves. What changes with every step (directions,
//! distances, the path, the gaze) therefore comes last, under "Now:", so a request over a
//! state a few steps newer than the prefilled one recomputes only that part. On a
//! busy 2-core machine one llama.cpp thread prefilled ~250–300 tokens/s, and the full
//! rendering of a hall (15+ things, ~500 tokens) cost seconds. The answer forms speak of at
//! most three things. Leaving out ages also keeps the text unchanged between ticks while
//! the wearer stands, so the prefill ahead of requests can hold it. The safety guard still
//! checks every sentence against the whole state.

use std::fmt::Write as _;

use crate::assistant::phrase::clear_space_line;
use crate::assistant::render::kind_word;
use crate::state::{metres_to_steps, EnvironmentState, HeightBand, MotionState, Thing, ThingKind};

/// Things the model is told about, at most.
pub const MODEL_THINGS: usize = 4;
/// Texts the model is told about, at most.
pub const MODEL_TEXTS: usize = 2;

fn motion_word(m: MotionState) -> &'static str {
    match m {
        MotionState::Unknown => "unknown",
        MotionState::Standing => "standing",
        MotionState::Walking => "walking",
        MotionState::Turning => "turning",
        MotionState::StairsUp => "walking up stairs",
        MotionState::StairsDown => "walking down stairs",
    }
}

/// What a thing is: the part of its line that does not change as the wearer moves.
fn thing_identity(out: &mut String, t: &Thing) {
    let _ = write!(out, "{} ({}", t.label, kind_word(t.kind));
    if let Some(h) = t.height {
        out.push_str(match h {
            HeightBand::Ground => ", ground level",
            HeightBand::Body => ", body height",
            HeightBand::Head => ", head height",
        });
    }
    out.push(')');
}

/// Where a thing is now: the part that changes with every step.
fn thing_position(out: &mut String, t: &Thing, gazed: bool) {
    let steps = metres_to_steps(t.distance_m);
    let _ = write!(
        out,
        "- {}: {}, {:.1} m ({steps} step{})",
        t.label,
        t.clock,
        t.distance_m,
        if steps == 1 { "" } else { "s" }
    );
    if t.in_path {
        out.push_str(", in path");
    }
    if gazed {
        out.push_str(", looked at");
    }
    out.push('\n');
}

/// The things the model is told about, nearest first.
fn chosen(state: &EnvironmentState) -> Vec<&Thing> {
    let rank = |t: &Thing| match (t.in_path, t.kind) {
        (true, _) => 0u8,
        (false, ThingKind::Door) => 1,
        _ => 2,
    };
    let mut v: Vec<&Thing> = state.things.iter().collect();
    // Stable: within a group the state's order (nearest first) is kept.
    v.sort_by_key(|t| rank(t));
    v.truncate(MODEL_THINGS);
    v.sort_by(|a, b| a.distance_m.total_cmp(&b.distance_m));
    v
}

/// The model's view of `state` as text (see the module documentation): first what changes
/// seldom (what things and texts there are, in the order they were first seen, what cannot
/// be done), then, after "Now:", what changes with every step (how the wearer moves,
/// directions, distances, the walking path, the gaze, the clear space). A request's
/// prefill starts at the first token that differs from the prefilled text, so while the
/// wearer walks only the "Now:" part is recomputed, not the whole view.
pub fn model_context(state: &EnvironmentState) -> String {
    let mut out = String::new();
    let m = &state.motion;
    let gazed = state.gaze.as_ref().and_then(|g| g.target);
    let things = chosen(state);
    let mut by_age = things.clone();
    by_age.sort_by_key(|t| (t.first_seen, t.id));
    if by_age.is_empty() {
        out.push_str("Things: none seen.\n");
    } else {
        out.push_str("Things: ");
        for (i, t) in by_age.iter().enumerate() {
            if i > 0 {
                out.push_str("; ");
            }
            thing_identity(&mut out, t);
        }
        out.push_str(".\n");
    }
    let texts: Vec<_> = state.texts.iter().take(MODEL_TEXTS).collect();
    if texts.is_empty() {
        out.push_str("Text: none read.\n");
    } else {
        out.push_str("Text: ");
        for (i, x) in texts.iter().enumerate() {
            if i > 0 {
                out.push_str("; ");
            }
            let _ = write!(out, "\"{}\"", x.text);
        }
        out.push_str(".\n");
    }
    for l in &state.limitations {
        let _ = writeln!(out, "Cannot: {l}.");
    }
    out.push_str("Now: the wearer is ");
    out.push_str(motion_word(m.state));
    out.push_str(".\nNearest first:\n");
    for t in &things {
        thing_position(&mut out, t, gazed == Some(t.id));
    }
    for x in &texts {
        let _ = write!(out, "- \"{}\": {}", x.text, x.clock);
        if let Some(d) = x.distance_m {
            let _ = write!(out, ", {d:.1} m");
        }
        out.push_str(if x.gazed { ", looked at\n" } else { "\n" });
    }
    if let Some(dz) = m.elevation_change_m.filter(|d| d.abs() >= 0.5) {
        let _ = writeln!(out, "Height change {dz:+.1} m in 10 s.");
    }
    if let Some(g) = &state.gaze {
        let _ = writeln!(out, "Looking toward {}.", g.clock);
    }
    if let Some(w) = &state.walkable {
        let _ = writeln!(out, "{}", clear_space_line(w));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{ClockHour, Evidence, TextFact, Walkable};
    use crate::time::DeviceTime;

    fn thing(id: u32, kind: ThingKind, d: f32, in_path: bool) -> Thing {
        Thing {
            id,
            kind,
            label: format!("thing{id}"),
            detail: Default::default(),
            class: None,
            clock: ClockHour::new(12),
            bearing_left_deg: None,
            distance_m: d,
            height: None,
            world_m: None,
            in_path,
            first_seen: DeviceTime(0),
            last_seen: DeviceTime(0),
            confidence: 0.9,
            evidence: Evidence::Points,
        }
    }

    #[test]
    fn every_fact_the_answers_use_without_the_bookkeeping() {
        let mut s = EnvironmentState::empty(DeviceTime(10_000_000_000));
        s.motion.state = MotionState::Walking;
        let mut pole = thing(3, ThingKind::Obstacle, 2.04, true);
        pole.label = "metal pole".into();
        pole.height = Some(HeightBand::Ground);
        s.things.push(pole);
        s.texts.push(TextFact {
            text: "EXIT".into(),
            confidence: 0.8,
            clock: ClockHour::new(2),
            distance_m: Some(6.0),
            rgb_box: [0.0; 4],
            gazed: true,
            at: DeviceTime(9_000_000_000),
        });
        s.walkable = Some(Walkable {
            clear_ahead_m: 1.8,
            clear_left_m: 3.0,
            clear_right_m: 0.5,
            floor_seen_m: None,
        });
        s.limitations.push("read text in the dark".into());
        let expected = "Things: metal pole (obstacle, ground level).\n\
            Text: \"EXIT\".\n\
            Cannot: read text in the dark.\n\
            Now: the wearer is walking.\n\
            Nearest first:\n\
            - metal pole: 12 o'clock, 2.0 m (3 steps), in path\n\
            - \"EXIT\": 2 o'clock, 6.0 m, looked at\n\
            Clear space: 1.8 m ahead, 3.0 m left, 0.5 m right.\n";
        assert_eq!(model_context(&s), expected);
        // A tick later, nothing moved: the same text (ages are not in it).
        let mut later = s.clone();
        later.at = DeviceTime(10_050_000_000);
        assert_eq!(model_context(&later), expected);
    }

    #[test]
    fn the_path_and_doors_come_before_other_things_and_the_rest_is_left_out() {
        let mut s = EnvironmentState::empty(DeviceTime(1));
        for (i, d) in [1.0f32, 1.5, 2.0, 2.5, 3.0].iter().enumerate() {
            s.things
                .push(thing(i as u32 + 1, ThingKind::Object, *d, false));
        }
        s.things.push(thing(10, ThingKind::Door, 6.0, false));
        s.things.push(thing(11, ThingKind::Obstacle, 4.0, true));
        s.things
            .sort_by(|a, b| a.distance_m.total_cmp(&b.distance_m));
        let text = model_context(&s);
        for kept in ["thing11 ", "thing10 ", "thing1 ", "thing2 "] {
            assert!(text.contains(kept), "{kept} missing: {text}");
        }
        for left in ["thing3 ", "thing4 ", "thing5 "] {
            assert!(!text.contains(left), "{left} kept: {text}");
        }
        // Positions nearest first.
        let at = |k: &str| text.find(k).unwrap();
        assert!(
            at("- thing1:") < at("- thing2:")
                && at("- thing2:") < at("- thing11:")
                && at("- thing11:") < at("- thing10:")
        );
    }

    #[test]
    fn walking_changes_only_the_text_after_now() {
        let mut a = EnvironmentState::empty(DeviceTime(1));
        a.motion.state = MotionState::Walking;
        for (id, kind, d, in_path) in [
            (4, ThingKind::Obstacle, 2.4f32, true),
            (2, ThingKind::Door, 6.1, false),
            (7, ThingKind::Object, 3.3, false),
        ] {
            let mut t = thing(id, kind, d, in_path);
            t.first_seen = DeviceTime(i64::from(id));
            a.things.push(t);
        }
        a.things
            .sort_by(|x, y| x.distance_m.total_cmp(&y.distance_m));
        // 0.7 m further on: every distance changes, the pole leaves the path and the order
        // by distance changes (the object is now nearer than the pole).
        let mut b = a.clone();
        b.motion.state = MotionState::Turning;
        for t in &mut b.things {
            t.distance_m -= if t.id == 7 { 1.9 } else { 0.7 };
            t.in_path = false;
        }
        b.things
            .sort_by(|x, y| x.distance_m.total_cmp(&y.distance_m));
        let (ta, tb) = (model_context(&a), model_context(&b));
        assert_ne!(ta, tb);
        let common = ta
            .bytes()
            .zip(tb.bytes())
            .take_while(|(x, y)| x == y)
            .count();
        let now = ta.find("Now: ").unwrap() + "Now: ".len();
        assert!(
            common >= now,
            "differs at {common}, before {now}:\n{ta}\n{tb}"
        );
    }
}
