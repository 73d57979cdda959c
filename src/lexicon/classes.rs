//! The words that name each object class (pure): its everyday name, COCO's, and the
//! synonyms a wearer uses ("mug" for a cup, "sofa" for a couch, "vehicle" for a car), in one
//! table that the assistant's answers, the request intents and the guard share.

use super::words::singular;
use crate::state::ObjectClass;

/// Words beyond the class's own names ([`ObjectClass::spoken`], [`ObjectClass::coco_name`])
/// that name it. Multi-word names are matched by their distinctive word.
fn synonyms(c: ObjectClass) -> &'static [&'static str] {
    use ObjectClass::*;
    match c {
        Person => &["someone", "somebody", "man", "woman", "child", "people"],
        Bicycle => &["bike", "cycle"],
        Car => &["vehicle", "taxi"],
        Motorcycle => &["motorcycle", "motorbike", "scooter", "moped"],
        Bus => &["coach", "vehicle"],
        Truck => &["lorry", "van", "vehicle"],
        Train => &["tram"],
        TrafficLight => &["light", "lights", "signal"],
        FireHydrant => &["hydrant"],
        StopSign => &[],
        ParkingMeter => &["meter"],
        Bench => &["seat"],
        Chair => &["seat", "stool"],
        Couch => &["couch", "sofa", "settee"],
        DiningTable => &["table", "desk"],
        PottedPlant => &["plant", "pot"],
        Tv => &["tv", "television", "screen", "monitor"],
        Laptop => &["computer", "notebook"],
        CellPhone => &["phone", "mobile", "smartphone"],
        Remote => &["remote", "controller"],
        Cup => &["mug"],
        WineGlass => &["glass"],
        Refrigerator => &["fridge", "refrigerator"],
        Handbag => &["bag", "purse"],
        Backpack => &["bag", "rucksack"],
        Suitcase => &["luggage", "case"],
        SportsBall => &["ball"],
        TeddyBear => &["teddy"],
        HairDrier => &["dryer", "drier"],
        Donut => &["donut", "doughnut"],
        Dog => &["puppy"],
        Cat => &["kitten"],
        _ => &[],
    }
}

/// Whether `word` (any case, singular or plural) names a thing of class `c`.
pub fn names_class(word: &str, c: ObjectClass) -> bool {
    let w = singular(&word.to_lowercase());
    if w.is_empty() {
        return false;
    }
    c.spoken() == w || c.coco_name() == w || synonyms(c).contains(&w.as_str())
}

/// The classes `words` name, in the order of the first word naming each.
pub fn classes_named(words: &[String]) -> Vec<ObjectClass> {
    let mut out = Vec::new();
    for w in words {
        for &c in ObjectClass::ALL {
            if names_class(w, c) && !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_is_named_by_its_names_and_synonyms() {
        assert!(names_class("mug", ObjectClass::Cup));
        assert!(names_class("Cups", ObjectClass::Cup));
        assert!(names_class("sofa", ObjectClass::Couch));
        assert!(names_class("table", ObjectClass::DiningTable));
        assert!(names_class("phone", ObjectClass::CellPhone));
        assert!(names_class("car", ObjectClass::Car) && names_class("vehicle", ObjectClass::Car));
        assert!(!names_class("vehicle", ObjectClass::Bicycle));
        assert!(!names_class("cup", ObjectClass::Bottle));
        assert!(!names_class("", ObjectClass::Cup));
    }

    #[test]
    fn classes_named_by_words() {
        let w = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(classes_named(&w(&["my", "mug"])), vec![ObjectClass::Cup]);
        assert_eq!(
            classes_named(&w(&["bag"])),
            vec![ObjectClass::Backpack, ObjectClass::Handbag]
        );
        assert!(classes_named(&w(&["keys"])).is_empty());
    }
}
