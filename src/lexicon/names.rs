//! What a thing is called, from its typed facts (pure): the one place perception's things
//! get their words. Nothing reads facts back out of these words; the assistant and the
//! guard read [`ThingDetail`] and the kind.

use crate::state::{HeightBand, OpeningShape, Side, ThingDetail, ThingKind};

/// The side as said ("left").
pub fn side_word(side: Side) -> &'static str {
    match side {
        Side::Left => "left",
        Side::Right => "right",
    }
}

/// The label of a thing perception found, from its kind, typed detail and height band:
/// "wall", "obstacle at head height", "low obstacle", "obstacle", "person moving",
/// "vehicle coming from the left", "vehicle moving away", "step up of 15 cm",
/// "drop-off of 17 cm", "doorway", "open end of the corridor".
pub fn thing_label(kind: ThingKind, detail: &ThingDetail, band: Option<HeightBand>) -> String {
    match (kind, detail) {
        (_, ThingDetail::Wall) => "wall".to_string(),
        (ThingKind::DropOff, ThingDetail::Edge { rise_m }) => {
            format!("drop-off of {} cm", (rise_m * 100.0).round())
        }
        (ThingKind::StepUp, ThingDetail::Edge { rise_m }) => {
            format!("step up of {} cm", (rise_m * 100.0).round())
        }
        (ThingKind::DropOff, _) => "drop-off".to_string(),
        (ThingKind::StepUp, _) => "step up".to_string(),
        (ThingKind::Vehicle, ThingDetail::Moving { side, approaching }) => {
            // Moving away, where it is is its clock hour: a side in its name as well would
            // contradict that hour once it is ahead ("the vehicle on the right … is at
            // 12 o'clock").
            if *approaching {
                format!("vehicle coming from the {}", side_word(*side))
            } else {
                "vehicle moving away".to_string()
            }
        }
        (ThingKind::Vehicle, _) => "vehicle".to_string(),
        (ThingKind::Person, ThingDetail::Moving { .. }) => "person moving".to_string(),
        (ThingKind::Person, _) => "person".to_string(),
        (_, ThingDetail::Opening { shape }) => match shape {
            OpeningShape::Doorway => "doorway".to_string(),
            OpeningShape::CorridorEnd => "open end of the corridor".to_string(),
        },
        (ThingKind::Door, _) => "door".to_string(),
        (ThingKind::Text, _) => "sign".to_string(),
        (ThingKind::Object, _) => "object".to_string(),
        (ThingKind::Obstacle | ThingKind::Overhead, _) => match band {
            Some(HeightBand::Head) => "obstacle at head height".to_string(),
            Some(HeightBand::Ground) => "low obstacle".to_string(),
            Some(HeightBand::Body) | None => "obstacle".to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_say_the_typed_facts() {
        let edge = ThingDetail::Edge { rise_m: 0.17 };
        assert_eq!(
            thing_label(ThingKind::DropOff, &edge, None),
            "drop-off of 17 cm"
        );
        assert_eq!(
            thing_label(ThingKind::StepUp, &edge, None),
            "step up of 17 cm"
        );
        let coming = ThingDetail::Moving {
            side: Side::Left,
            approaching: true,
        };
        let away = ThingDetail::Moving {
            side: Side::Right,
            approaching: false,
        };
        assert_eq!(
            thing_label(ThingKind::Vehicle, &coming, None),
            "vehicle coming from the left"
        );
        assert_eq!(
            thing_label(ThingKind::Vehicle, &away, None),
            "vehicle moving away"
        );
        assert_eq!(
            thing_label(ThingKind::Person, &coming, None),
            "person moving"
        );
        let band = Some(HeightBand::Head);
        assert_eq!(
            thing_label(ThingKind::Obstacle, &ThingDetail::Wall, band),
            "wall"
        );
        assert_eq!(
            thing_label(ThingKind::Overhead, &ThingDetail::None, band),
            "obstacle at head height"
        );
        assert_eq!(
            thing_label(
                ThingKind::Obstacle,
                &ThingDetail::None,
                Some(HeightBand::Ground)
            ),
            "low obstacle"
        );
        let doorway = ThingDetail::Opening {
            shape: OpeningShape::Doorway,
        };
        assert_eq!(thing_label(ThingKind::Door, &doorway, None), "doorway");
    }
}
