//! The environment state as compact text for a language model: one line per fact, clock
//! directions, metres and steps, ages in seconds, limitations. Deterministic: the same state
//! gives the same bytes (fixed decimals, state order).

use std::fmt::Write as _;

use super::phrase::clear_space_line;
use super::turn_words::turn_phrase;
use crate::state::{metres_to_steps, EnvironmentState, HeightBand, MotionState, Thing, ThingKind};
use crate::time::DeviceTime;

fn age_s(now: DeviceTime, then: DeviceTime) -> f64 {
    (now.since(then).max(0) as f64) / 1e9
}

/// The kind's word.
pub fn kind_word(k: ThingKind) -> &'static str {
    match k {
        ThingKind::Obstacle => "obstacle",
        ThingKind::Overhead => "head-height obstacle",
        ThingKind::DropOff => "drop-off",
        ThingKind::StepUp => "step up",
        ThingKind::Door => "door",
        ThingKind::Text => "text",
        ThingKind::Person => "person",
        ThingKind::Vehicle => "vehicle",
        ThingKind::Object => "object",
    }
}

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

fn thing_line(out: &mut String, now: DeviceTime, t: &Thing) {
    let _ = write!(
        out,
        "- #{} {} ({}{}): {}, {:.1} m ({} steps)",
        t.id,
        t.label,
        kind_word(t.kind),
        if t.in_path { ", in path" } else { "" },
        t.clock,
        t.distance_m,
        metres_to_steps(t.distance_m)
    );
    if let Some(h) = t.height {
        let _ = write!(
            out,
            ", {}",
            match h {
                HeightBand::Ground => "ground level",
                HeightBand::Body => "body height",
                HeightBand::Head => "head height",
            }
        );
    }
    let _ = writeln!(
        out,
        ", seen {:.1} s ago, confidence {:.2}",
        age_s(now, t.last_seen),
        t.confidence
    );
}

/// Renders `state` as text (see the module documentation).
pub fn render_state(state: &EnvironmentState) -> String {
    let now = state.at;
    let mut out = String::new();
    let m = &state.motion;
    let _ = write!(
        out,
        "Wearer: {} for {:.1} s",
        motion_word(m.state),
        age_s(now, m.since)
    );
    if let Some(v) = m.speed_mps {
        let _ = write!(out, ", {v:.1} m/s");
    }
    if let Some(dz) = m.elevation_change_m {
        let _ = write!(out, ", height change {dz:+.1} m in 10 s");
    }
    out.push_str(".\n");
    if !state.turns.is_empty() {
        out.push_str("Turns (newest first):");
        for (i, t) in state.turns.iter().enumerate() {
            let _ = write!(
                out,
                "{} {}, {:.1} s ago",
                if i == 0 { "" } else { ";" },
                turn_phrase(t),
                age_s(now, t.ended)
            );
        }
        out.push_str(".\n");
    }
    if state.things.is_empty() {
        out.push_str("Things: none seen.\n");
    } else {
        out.push_str("Things (nearest first):\n");
        for t in &state.things {
            thing_line(&mut out, now, t);
        }
    }
    if state.texts.is_empty() {
        out.push_str("Text: none read.\n");
    } else {
        out.push_str("Text:\n");
        for x in &state.texts {
            let _ = write!(out, "- \"{}\": {}", x.text, x.clock);
            if let Some(d) = x.distance_m {
                let _ = write!(out, ", {d:.1} m");
            }
            let _ = writeln!(
                out,
                "{}, read {:.1} s ago, confidence {:.2}",
                if x.gazed { ", looked at" } else { "" },
                age_s(now, x.at),
                x.confidence
            );
        }
    }
    // What things are: shown only where the detector runs (a session without it keeps the
    // text it always had).
    if state.sees_objects {
        if state.objects.is_empty() {
            out.push_str("Objects: none recognised.\n");
        } else {
            out.push_str("Objects:\n");
            for o in &state.objects {
                let _ = write!(out, "- {}: {}", o.class.spoken(), o.clock);
                if let Some(d) = o.distance_m {
                    let _ = write!(out, ", {d:.1} m");
                }
                if let Some(id) = o.thing {
                    let _ = write!(out, ", #{id}");
                }
                let _ = writeln!(
                    out,
                    ", seen {:.1} s ago, confidence {:.2}",
                    age_s(now, o.at),
                    o.confidence
                );
            }
        }
    }
    if let Some(g) = &state.gaze {
        let _ = write!(out, "Gaze: {}, pitch {:.0} deg", g.clock, g.pitch_deg);
        if let Some(id) = g.target {
            let _ = write!(out, ", on #{id}");
        }
        out.push_str(".\n");
    }
    if let Some(w) = &state.walkable {
        let _ = writeln!(out, "{}", clear_space_line(w));
    }
    for l in &state.limitations {
        let _ = writeln!(out, "Cannot: {l}.");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{ClockHour, Evidence, TextFact, Walkable};

    #[test]
    fn renders_every_fact_in_user_terms() {
        let at = DeviceTime(10_000_000_000);
        let mut s = EnvironmentState::empty(at);
        s.things.push(Thing {
            id: 3,
            kind: ThingKind::Obstacle,
            label: "metal pole".into(),
            detail: Default::default(),
            class: None,
            clock: ClockHour::new(12),
            bearing_left_deg: None,
            distance_m: 2.04,
            height: Some(HeightBand::Ground),
            world_m: None,
            in_path: true,
            first_seen: DeviceTime(8_000_000_000),
            last_seen: DeviceTime(9_500_000_000),
            confidence: 0.9,
            evidence: Evidence::Points,
        });
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
        let text = render_state(&s);
        let expected = "Wearer: unknown for 0.0 s.\n\
            Things (nearest first):\n\
            - #3 metal pole (obstacle, in path): 12 o'clock, 2.0 m (3 steps), ground level, seen 0.5 s ago, confidence 0.90\n\
            Text:\n\
            - \"EXIT\": 2 o'clock, 6.0 m, looked at, read 1.0 s ago, confidence 0.80\n\
            Clear space: 1.8 m ahead, 3.0 m left, 0.5 m right.\n\
            Cannot: read text in the dark.\n";
        assert_eq!(text, expected);
        assert_eq!(render_state(&s), text);
    }

    #[test]
    fn renders_the_turns_newest_first() {
        use crate::state::TurnFact;
        let mut s = EnvironmentState::empty(DeviceTime(24_000_000_000));
        s.motion.state = MotionState::Standing;
        s.motion.since = DeviceTime(21_000_000_000);
        let turn = |angle_deg: f32, ended_ns: i64| TurnFact {
            direction: TurnFact::direction_of(angle_deg),
            angle_deg,
            started: DeviceTime(ended_ns - 2_000_000_000),
            ended: DeviceTime(ended_ns),
        };
        s.turns = vec![turn(178.0, 20_000_000_000), turn(-91.0, 7_700_000_000)];
        let text = render_state(&s);
        assert!(
            text.starts_with(
                "Wearer: standing for 3.0 s.\n\
                 Turns (newest first): around, 4.0 s ago; left, about 90 degrees, 16.3 s ago.\n"
            ),
            "{text}"
        );
    }
}
