//! Claims about the wearer's own past turns ("you turned left", "you have turned around"):
//! each must be supported by a turn of that direction in the state's turn history
//! ([`crate::state::turns`]), so a generated answer cannot tell the wearer they turned when
//! no turn was seen, or the wrong way.

use crate::lexicon::words::tokens;
use crate::state::{EnvironmentState, TurnDirection};

/// The direction a sentence says the wearer turned, when it says so: "you turned left",
/// "you've turned right", "you have just turned around". `None` when it makes no such claim.
pub fn claimed_turn(sentence: &str) -> Option<TurnDirection> {
    let t = tokens(sentence);
    let at = |i: usize| t.get(i).map(String::as_str).unwrap_or("");
    let i = t.iter().position(|w| w == "turned")?;
    // The subject: "you turned", "you have turned", "you've just turned".
    let subject = (1..=3).any(|k| {
        i >= k
            && matches!(at(i - k), "you" | "you've" | "youve")
            && (1..k).all(|j| matches!(at(i - j), "have" | "just" | "already"))
    });
    if !subject {
        return None;
    }
    (i + 1..=i + 2).find_map(|j| match at(j) {
        "left" => Some(TurnDirection::Left),
        "right" => Some(TurnDirection::Right),
        "around" | "round" => Some(TurnDirection::Around),
        _ => None,
    })
}

/// Whether `state`'s turn history holds a turn the way `dir` says.
pub fn turn_supported(dir: TurnDirection, state: &EnvironmentState) -> bool {
    state.turns.iter().any(|t| t.direction == dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::TurnFact;
    use crate::time::DeviceTime;

    #[test]
    fn turn_claims_are_read_and_checked_against_the_history() {
        assert_eq!(
            claimed_turn("Yes, you turned left, about 90 degrees."),
            Some(TurnDirection::Left)
        );
        assert_eq!(
            claimed_turn("You have just turned around."),
            Some(TurnDirection::Around)
        );
        assert_eq!(claimed_turn("Turn left at the door."), None);
        assert_eq!(claimed_turn("The corridor turned left."), None);
        let mut s = EnvironmentState::empty(DeviceTime(10_000_000_000));
        assert!(!turn_supported(TurnDirection::Left, &s));
        s.turns.push(TurnFact {
            direction: TurnDirection::Left,
            angle_deg: -90.0,
            started: DeviceTime(6_000_000_000),
            ended: DeviceTime(7_500_000_000),
        });
        assert!(turn_supported(TurnDirection::Left, &s));
        assert!(!turn_supported(TurnDirection::Right, &s));
    }
}
