//! How positions are said: clock directions, distances in metres, steps, and the turn that
//! faces a clock direction. Pure; shared by the templates, the alerter and the guard's safe
//! replacements so that every generated number can be read back by the guard.

use crate::state::{metres_to_steps, ClockHour};

/// A distance as spoken: halves of a metre below 3 m ("1.5 metres", "2 metres"), whole
/// metres above ("6 metres"), "1 metre" for one. Non-finite or negative: "an unknown
/// distance".
pub fn metres(m: f32) -> String {
    if !m.is_finite() || m < 0.0 {
        return "an unknown distance".to_string();
    }
    let v = if m < 3.0 {
        ((m * 2.0).round() / 2.0).max(0.5)
    } else {
        m.round()
    };
    if (v - 1.0).abs() < f32::EPSILON {
        "1 metre".to_string()
    } else if v.fract() == 0.0 {
        format!("{} metres", v as u32)
    } else {
        format!("{v:.1} metres")
    }
}

/// "about N metres" for 3 m and more (where rounding to whole metres is coarse), else the
/// plain [`metres`].
pub fn about_metres(m: f32) -> String {
    if m.is_finite() && m >= 3.0 {
        format!("about {}", metres(m))
    } else {
        metres(m)
    }
}

/// "about N steps" ("1 step").
pub fn steps(m: f32) -> String {
    match metres_to_steps(m) {
        1 => "1 step".to_string(),
        n => format!("about {n} steps"),
    }
}

/// "2 o'clock".
pub fn clock(h: ClockHour) -> String {
    h.to_string()
}

/// The turn that faces clock hour `h`: "Go straight ahead" (12), "Turn slightly right" (1),
/// "Turn right" (2–4), "Turn around" (5–7), "Turn left" (8–10), "Turn slightly left" (11).
pub fn turn_towards(h: ClockHour) -> &'static str {
    match h.get() {
        12 => "Go straight ahead",
        1 => "Turn slightly right",
        2..=4 => "Turn right",
        5..=7 => "Turn around",
        8..=10 => "Turn left",
        _ => "Turn slightly left",
    }
}

/// Capitalises the first letter.
pub fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// "a" or "an" before `word`.
pub fn article(word: &str) -> &'static str {
    match word.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
        _ => "a",
    }
}

/// Seconds as spoken ("2 seconds", "1 second").
pub fn seconds(ns: i64) -> String {
    let s = (ns.max(0) as f64 / 1e9).round() as i64;
    if s == 1 {
        "1 second".to_string()
    } else {
        format!("{s} seconds")
    }
}

/// The free space as the state's text and the model's context give it: "Clear space: A m
/// ahead, L m left, R m right." with A no farther than the floor was seen, and where the
/// floor was seen less far than the way is free, how far it was (so a model claims no more
/// than is known).
pub fn clear_space_line(w: &crate::state::Walkable) -> String {
    let floor = match w.floor_seen_m {
        Some(f) if f < w.clear_ahead_m => format!(" (the floor seen only {f:.1} m ahead)"),
        _ => String::new(),
    };
    format!(
        "Clear space: {:.1} m ahead, {:.1} m left, {:.1} m right{floor}.",
        w.known_clear_m(),
        w.clear_left_m,
        w.clear_right_m
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_round_as_spoken() {
        assert_eq!(metres(2.04), "2 metres");
        assert_eq!(metres(2.3), "2.5 metres");
        assert_eq!(metres(1.0), "1 metre");
        assert_eq!(metres(0.1), "0.5 metres");
        assert_eq!(metres(6.4), "6 metres");
        assert_eq!(about_metres(6.4), "about 6 metres");
        assert_eq!(about_metres(2.5), "2.5 metres");
        assert_eq!(metres(f32::NAN), "an unknown distance");
    }

    #[test]
    fn steps_and_turns() {
        // 6 m at 0.7 m a step: 8.57 → 9 steps.
        assert_eq!(steps(6.0), "about 9 steps");
        assert_eq!(steps(0.3), "1 step");
        assert_eq!(turn_towards(ClockHour::new(1)), "Turn slightly right");
        assert_eq!(turn_towards(ClockHour::new(9)), "Turn left");
        assert_eq!(turn_towards(ClockHour::new(12)), "Go straight ahead");
        assert_eq!(capitalise("exit door"), "Exit door");
        assert_eq!(article("obstacle"), "an");
    }
}
