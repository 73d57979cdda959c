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
        ThingKind::Vehicle => &["vehicle"],
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
