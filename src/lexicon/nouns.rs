//! The object nouns the guard checks against the state, and which words name which kinds of
//! things (pure).

use super::words::{singular, tokens};
use crate::state::{Thing, ThingKind};

/// Object nouns the guard checks against the state: naming one of these claims that such a
/// thing is there. Words for places and surfaces (wall, floor, path) are not included.
pub const OBJECT_NOUNS: &[&str] = &[
    "door",
    "doorway",
    "entrance",
    "elevator",
    "lift",
    "escalator",
    "stairs",
    "staircase",
    "curb",
    "kerb",
    "edge",
    "platform",
    "pole",
    "post",
    "pillar",
    "column",
    "bin",
    "box",
    "chair",
    "table",
    "bench",
    "desk",
    "counter",
    "shelf",
    "trolley",
    "cart",
    "stroller",
    "pram",
    "car",
    "bus",
    "bicycle",
    "bike",
    "scooter",
    "truck",
    "vehicle",
    "person",
    "man",
    "woman",
    "child",
    "dog",
    "tree",
    "branch",
    "sign",
    "cone",
    "barrier",
    "fence",
    "hole",
    "obstacle",
    "window",
    "plant",
    "bag",
    "suitcase",
    "cup",
    "bottle",
    "crossing",
    "ramp",
];

/// Words that name a kind generically (any thing of that kind supports them).
pub fn kind_words(k: ThingKind) -> &'static [&'static str] {
    match k {
        ThingKind::Obstacle => &["obstacle"],
        ThingKind::Overhead => &["obstacle"],
        ThingKind::DropOff => &["drop", "drop-off", "edge", "curb", "kerb", "stairs"],
        ThingKind::StepUp => &["step", "stairs", "curb", "kerb"],
        ThingKind::Door => &["door", "doorway", "entrance", "exit", "opening"],
        ThingKind::Text => &["sign", "text", "label"],
        ThingKind::Person => &["person", "someone", "man", "woman"],
        // A vehicle seen moving on the road is named by its everyday words; a bicycle or a
        // scooter is not (it is a different hazard for the wearer).
        ThingKind::Vehicle => &["vehicle", "car", "bus", "truck", "van"],
        ThingKind::Object => &["object"],
    }
}

/// Whether `word` (a singular noun) names `thing`: it is a word of its label or a generic
/// word for its kind.
pub fn names_thing(word: &str, thing: &Thing) -> bool {
    let w = singular(word);
    kind_words(thing.kind).contains(&w.as_str())
        || tokens(&thing.label).iter().any(|l| singular(l) == w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{ClockHour, Evidence, ThingDetail};
    use crate::time::DeviceTime;

    fn thing(kind: ThingKind, label: &str) -> Thing {
        Thing {
            id: 1,
            kind,
            label: label.into(),
            detail: ThingDetail::None,
            class: None,
            clock: ClockHour::new(12),
            bearing_left_deg: None,
            distance_m: 3.0,
            height: None,
            world_m: None,
            in_path: true,
            first_seen: DeviceTime(0),
            last_seen: DeviceTime(0),
            confidence: 0.8,
            evidence: Evidence::Motion,
        }
    }

    #[test]
    fn a_thing_is_named_by_its_kind_words_and_its_label() {
        let car = thing(ThingKind::Vehicle, "vehicle coming from the left");
        for w in ["car", "cars", "bus", "vehicle", "truck"] {
            assert!(names_thing(w, &car), "{w}");
        }
        for w in ["bicycle", "person", "door", "dog"] {
            assert!(!names_thing(w, &car), "{w}");
        }
        let pole = thing(ThingKind::Obstacle, "metal pole");
        assert!(names_thing("pole", &pole));
        assert!(names_thing("obstacle", &pole));
        assert!(!names_thing("car", &pole));
    }
}
