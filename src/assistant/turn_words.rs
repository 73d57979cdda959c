//! How the wearer's recent turns are said (pure): "you turned left, about 90 degrees, 2
//! seconds ago", "you turned around just now". Used by the motion templates and the state
//! text for the language model.

use crate::state::{EnvironmentState, TurnDirection, TurnFact};
use crate::time::DeviceTime;

/// A turn that ended at most this long ago is recent enough to mention in a motion answer,
/// ns.
pub const RECENT_TURN_NS: i64 = 15_000_000_000;

/// The newest turn of `state` that ended at most [`RECENT_TURN_NS`] before it.
pub fn recent_turn(state: &EnvironmentState) -> Option<&TurnFact> {
    state
        .turns
        .first()
        .filter(|t| state.at.since(t.ended) <= RECENT_TURN_NS)
}

/// The turn's direction and size: "left, about 90 degrees", "around".
pub fn turn_phrase(t: &TurnFact) -> String {
    let side = match t.direction {
        TurnDirection::Around => return "around".to_string(),
        TurnDirection::Left => "left",
        TurnDirection::Right => "right",
    };
    // Nearest 15 degrees: what a listener can picture (a quarter turn is 90).
    let deg = ((t.angle_deg.abs() / 15.0).round() * 15.0) as u32;
    format!("{side}, about {deg} degrees")
}

/// How long ago `then` was, said: "just now" (under 1.5 s), "1 second ago", "4 seconds ago".
pub fn ago(now: DeviceTime, then: DeviceTime) -> String {
    let s = (now.since(then).max(0) as f64) / 1e9;
    if s < 1.5 {
        return "just now".to_string();
    }
    let n = s.round() as u64;
    format!("{n} seconds ago")
}

/// "you turned left, about 90 degrees, 2 seconds ago" for the turn `t` seen from `now`.
pub fn turned(t: &TurnFact, now: DeviceTime) -> String {
    format!("you turned {}, {}", turn_phrase(t), ago(now, t.ended))
}

/// [`turned`] as a sentence: "You turned around, 4 seconds ago."
pub fn turn_sentence(t: &TurnFact, now: DeviceTime) -> String {
    format!("Y{}.", &turned(t, now)[1..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(angle_deg: f32, ended_s: f64) -> TurnFact {
        TurnFact {
            direction: TurnFact::direction_of(angle_deg),
            angle_deg,
            started: DeviceTime(((ended_s - 1.5) * 1e9) as i64),
            ended: DeviceTime((ended_s * 1e9) as i64),
        }
    }

    #[test]
    fn turns_are_said_with_side_size_and_age() {
        let now = DeviceTime(10_000_000_000);
        assert_eq!(
            turn_sentence(&turn(-87.0, 8.0), now),
            "You turned left, about 90 degrees, 2 seconds ago."
        );
        assert_eq!(
            turn_sentence(&turn(50.0, 9.2), now),
            "You turned right, about 45 degrees, just now."
        );
        assert_eq!(
            turn_sentence(&turn(178.0, 6.0), now),
            "You turned around, 4 seconds ago."
        );
    }

    #[test]
    fn only_a_recent_turn_is_mentioned() {
        let mut s = EnvironmentState::empty(DeviceTime(30_000_000_000));
        assert!(recent_turn(&s).is_none());
        s.turns = vec![turn(-90.0, 10.0)];
        assert!(recent_turn(&s).is_none(), "20 s ago");
        s.turns.insert(0, turn(180.0, 25.0));
        assert_eq!(recent_turn(&s).map(|t| t.angle_deg), Some(180.0));
    }
}
