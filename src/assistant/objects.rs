//! Answers about things whose class is known (the object detector's facts in the state):
//! where a named thing is ("Where's my cup?" → "The cup is at 2 o'clock, 1 metre, on the
//! table.") and whether one is there ("Is there a bench nearby?" → "Yes: a bench at 11
//! o'clock, about 6 metres.").

use super::phrase::{about_metres, clock};
use crate::lexicon::classes::{classes_named, names_class};
use crate::state::{EnvironmentState, ObjectClass, ObjectFact};

/// A box's foot lies on another's top part when it is within the other's width and in its
/// upper share of this much (a cup's foot on a table's top seen from above and in front).
const ON_TOP_SHARE: f32 = 0.6;

/// The object facts that `words` name, nearest first (placed ones), then the others.
pub fn named_objects<'a>(words: &[String], state: &'a EnvironmentState) -> Vec<&'a ObjectFact> {
    state
        .objects
        .iter()
        .filter(|o| words.iter().any(|w| names_class(w, o.class)))
        .collect()
}

/// What `o` stands on, when another thing seen in the same frame holds its foot: a table, a
/// desk, a bench, a chair, a couch, a bed.
fn rests_on<'a>(o: &ObjectFact, state: &'a EnvironmentState) -> Option<&'a ObjectFact> {
    let [x0, _, x1, y1] = o.rgb_box;
    let foot = [(x0 + x1) * 0.5, y1];
    state.objects.iter().find(|s| {
        let [sx0, sy0, sx1, sy1] = s.rgb_box;
        s.at == o.at
            && s.class != o.class
            && matches!(
                s.class,
                ObjectClass::DiningTable
                    | ObjectClass::Bench
                    | ObjectClass::Chair
                    | ObjectClass::Couch
                    | ObjectClass::Bed
            )
            && foot[0] >= sx0
            && foot[0] <= sx1
            && foot[1] >= sy0
            && foot[1] <= sy0 + ON_TOP_SHARE * (sy1 - sy0)
    })
}

/// "at 2 o'clock, about 3 metres, on the table" (no distance when it could not be placed).
fn place_words(o: &ObjectFact, state: &EnvironmentState) -> String {
    let mut s = format!("at {}", clock(o.clock));
    if let Some(d) = o.distance_m {
        s.push_str(", ");
        s.push_str(&about_metres(d));
    }
    if let Some(under) = rests_on(o, state) {
        s.push_str(", on the ");
        s.push_str(under.class.spoken());
    }
    s
}

/// "The cup is at 2 o'clock, 1 metre, on the table."
pub fn object_sentence(o: &ObjectFact, state: &EnvironmentState) -> String {
    format!("The {} is {}.", o.class.spoken(), place_words(o, state))
}

fn article(word: &str) -> &'static str {
    match word.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
        _ => "a",
    }
}

/// The answer to "Is there a …?" for the classes `words` name: yes with the nearest one and
/// where it is (and how many more), or that none is seen. `None` when no word names a class.
pub fn object_query(words: &[String], state: &EnvironmentState) -> Option<(String, bool)> {
    let classes = classes_named(words);
    let first = *classes.first()?;
    let found = named_objects(words, state);
    match found.first() {
        Some(o) => {
            let name = o.class.spoken();
            let mut s = format!("Yes: {} {name} {}.", article(name), place_words(o, state));
            let more = found.iter().filter(|f| f.class == o.class).count() - 1;
            if more > 0 {
                s.push_str(&format!(
                    " And {more} more {name}{}.",
                    if more == 1 { "" } else { "s" }
                ));
            }
            Some((s, true))
        }
        None if state.sees_objects => {
            let name = first.spoken();
            Some((
                format!("I don't see {} {name} right now.", article(name)),
                false,
            ))
        }
        None => Some((
            format!(
                "I can't tell whether there is {} {}: what things are is not seen in this session.",
                article(first.spoken()),
                first.spoken()
            ),
            false,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::ClockHour;
    use crate::time::DeviceTime;

    fn fact(class: ObjectClass, hour: u8, d: Option<f32>, b: [f32; 4]) -> ObjectFact {
        ObjectFact {
            class,
            confidence: 0.8,
            sightings: 1,
            clock: ClockHour::new(hour),
            distance_m: d,
            thing: None,
            rgb_box: b,
            at: DeviceTime(1),
        }
    }

    fn words(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn where_a_named_thing_is_and_what_it_rests_on() {
        let mut state = EnvironmentState::empty(DeviceTime(1));
        state.objects = vec![
            fact(ObjectClass::Cup, 1, Some(1.2), [600.0, 500.0, 660.0, 580.0]),
            fact(
                ObjectClass::DiningTable,
                12,
                Some(1.5),
                [300.0, 520.0, 1100.0, 900.0],
            ),
        ];
        let found = named_objects(&words(&["my", "mug"]), &state);
        assert_eq!(found.len(), 1);
        assert_eq!(
            object_sentence(found[0], &state),
            "The cup is at 1 o'clock, 1 metre, on the table."
        );
    }

    #[test]
    fn is_there_one() {
        let mut state = EnvironmentState::empty(DeviceTime(1));
        let (s, _) = object_query(&words(&["bench"]), &state).unwrap();
        assert!(
            s.starts_with("I can't tell whether there is a bench"),
            "{s}"
        );
        state.sees_objects = true;
        state.objects = vec![
            fact(ObjectClass::Bench, 11, Some(6.4), [0.0, 0.0, 10.0, 10.0]),
            fact(ObjectClass::Bench, 2, None, [20.0, 0.0, 30.0, 10.0]),
        ];
        let (s, yes) = object_query(&words(&["bench", "nearby"]), &state).unwrap();
        assert!(yes);
        assert_eq!(
            s,
            "Yes: a bench at 11 o'clock, about 6 metres. And 1 more bench."
        );
        let (s, yes) = object_query(&words(&["umbrella"]), &state).unwrap();
        assert!(!yes);
        assert_eq!(s, "I don't see an umbrella right now.");
        assert!(object_query(&words(&["keys"]), &state).is_none());
    }
}
