//! What kind of hazard the ground truth names, and which alert kinds agree with it (pure
//! data). The table is the one in `docs/truth.md`; a change to it is a change to the
//! yardstick and goes in its own commit.
//!
//! The ground truth names things by what the world holds (`box`, `pole`, `low_branch`,
//! `drop_off`, `person`, …); each belongs to one [`HazardClass`], the kinds a wearer must be
//! told apart: a person, a vehicle, a bicycle, an obstacle on the floor, something at head
//! height, a drop-off, a step up, stairs, a wall. An alert says one [`ThingKind`]; it can
//! catch a hazard only when that kind agrees with the hazard's class ([`agrees`]).

use serde::{Deserialize, Serialize};

use crate::state::ThingKind;

/// The kinds of hazard a ground truth may name (`kind` in `ground_truth.json`). Any other
/// string is refused when the truth is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TruthKind {
    /// A box on the floor.
    Box,
    /// A pole or pillar.
    Pole,
    /// A bin.
    Bin,
    /// A table or bench.
    Table,
    /// A branch (or anything) at head height, above a cane's reach.
    LowBranch,
    /// A wall across the way.
    Wall,
    /// The floor drops away (a kerb, a platform edge, the top of stairs).
    DropOff,
    /// The floor rises (a kerb up, the foot of stairs).
    StepUp,
    /// A flight of stairs.
    Stairs,
    /// A person.
    Person,
    /// A vehicle (car, bus, van).
    Vehicle,
    /// A bicycle with its rider.
    Bicycle,
}

/// The kinds a wearer must be told apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HazardClass {
    /// A person.
    Person,
    /// A vehicle.
    Vehicle,
    /// A bicycle.
    Bicycle,
    /// Something standing on the floor in the way.
    Obstacle,
    /// Something at head height.
    HeadHeight,
    /// A drop in the floor.
    DropOff,
    /// A rise in the floor.
    Step,
    /// Stairs.
    Stairs,
    /// A wall.
    Wall,
}

impl TruthKind {
    /// Its class.
    pub fn class(self) -> HazardClass {
        match self {
            TruthKind::Box | TruthKind::Pole | TruthKind::Bin | TruthKind::Table => {
                HazardClass::Obstacle
            }
            TruthKind::LowBranch => HazardClass::HeadHeight,
            TruthKind::Wall => HazardClass::Wall,
            TruthKind::DropOff => HazardClass::DropOff,
            TruthKind::StepUp => HazardClass::Step,
            TruthKind::Stairs => HazardClass::Stairs,
            TruthKind::Person => HazardClass::Person,
            TruthKind::Vehicle => HazardClass::Vehicle,
            TruthKind::Bicycle => HazardClass::Bicycle,
        }
    }
}

/// Whether an alert of kind `said` names a hazard of class `class` rightly. A wall is an
/// obstacle (perception reports walls as obstacles); a bicycle may be told as a person (its
/// rider) or as a vehicle; a drop-off or a step may be the first edge of stairs. Nothing
/// else crosses classes: "Person ahead" for a pillar, "Obstacle ahead" for a person or for
/// a branch at head height, "Step up" for a drop are the wrong kind.
pub fn agrees(said: ThingKind, class: HazardClass) -> bool {
    use HazardClass as C;
    match said {
        ThingKind::Person => matches!(class, C::Person | C::Bicycle),
        ThingKind::Vehicle => matches!(class, C::Vehicle | C::Bicycle),
        ThingKind::Obstacle | ThingKind::Object => matches!(class, C::Obstacle | C::Wall),
        ThingKind::Overhead => class == C::HeadHeight,
        ThingKind::DropOff => matches!(class, C::DropOff | C::Stairs),
        ThingKind::StepUp => matches!(class, C::Step | C::Stairs),
        ThingKind::Door | ThingKind::Text => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kind a ground truth's `kind` string names, as the truth reader reads it.
    fn parse(s: &str) -> Option<TruthKind> {
        serde_json::from_value(serde_json::Value::String(s.to_string())).ok()
    }

    #[test]
    fn truth_kinds_parse_by_their_snake_case_names_only() {
        assert_eq!(parse("low_branch"), Some(TruthKind::LowBranch));
        assert_eq!(parse("drop_off"), Some(TruthKind::DropOff));
        assert_eq!(parse("Person"), None);
        assert_eq!(parse("tree"), None);
        let all = [
            TruthKind::Box,
            TruthKind::Pole,
            TruthKind::Bin,
            TruthKind::Table,
            TruthKind::LowBranch,
            TruthKind::Wall,
            TruthKind::DropOff,
            TruthKind::StepUp,
            TruthKind::Stairs,
            TruthKind::Person,
            TruthKind::Vehicle,
            TruthKind::Bicycle,
        ];
        for k in all {
            let name = serde_json::to_value(k)
                .ok()
                .and_then(|v| v.as_str().map(String::from));
            assert_eq!(name.and_then(|n| parse(&n)), Some(k));
        }
    }

    #[test]
    fn an_alert_agrees_only_with_its_own_class() {
        // The cases the strict scorer exists for: a "person" alert for a pillar, an
        // "obstacle" alert for a person or a branch at head height.
        assert!(!agrees(ThingKind::Person, TruthKind::Pole.class()));
        assert!(!agrees(ThingKind::Obstacle, TruthKind::Person.class()));
        assert!(!agrees(ThingKind::Obstacle, TruthKind::LowBranch.class()));
        assert!(!agrees(ThingKind::StepUp, TruthKind::DropOff.class()));
        assert!(!agrees(ThingKind::Door, TruthKind::Wall.class()));
        // And the agreeing ones.
        assert!(agrees(ThingKind::Person, TruthKind::Person.class()));
        assert!(agrees(ThingKind::Obstacle, TruthKind::Wall.class()));
        assert!(agrees(ThingKind::Obstacle, TruthKind::Box.class()));
        assert!(agrees(ThingKind::Overhead, TruthKind::LowBranch.class()));
        assert!(agrees(ThingKind::DropOff, TruthKind::Stairs.class()));
        assert!(agrees(ThingKind::Vehicle, TruthKind::Bicycle.class()));
        assert!(agrees(ThingKind::Vehicle, TruthKind::Vehicle.class()));
    }
}
