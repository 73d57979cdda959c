//! The request parser (pure): rules over the words of a request, in order, each looking for
//! how a kind of request is put — its question word and verb, and the thing it names —
//! rather than for one phrasing. The first rule that matches gives the typed request; a
//! request no rule types is [`Ask::Open`].
//!
//! The order settles what two rules could both claim: a topic vista cannot serve is refused
//! before anything else ("Is the traffic light green?" never becomes a question about a
//! traffic light); a way to go comes before the words of the place ("Head for the door" is
//! not about head height); how far and where a thing is come before the kind of thing
//! ("How far are the stairs?" asks where they are); people before what they do ("Is someone
//! about to bump into me?"); what is looked at before the wearer's motion ("What am I
//! facing?"); a named thing before the way ahead ("Is there a pole in front of me?").

use super::ask::{Ask, PeopleAsk, Target};
use super::phrase::{
    after, asks_for_seat, first_thing, has_seq, names_something, noun_phrase, starts, HAZARD_WORDS,
};
use crate::lexicon::words::singular;

fn has(words: &[String], w: &str) -> bool {
    words.iter().any(|x| x == w)
}

fn has_any(words: &[String], set: &[&str]) -> bool {
    words.iter().any(|x| set.contains(&x.as_str()))
}

fn target(words: Vec<String>) -> Target {
    Target::new(words)
}

/// Places one walks to (a "find" or "I need" of one asks for guidance, of a thing for where
/// it is).
#[rustfmt::skip]
const PLACES: &[&str] = &[
    "exit", "entrance", "door", "doorway", "gate", "platform", "room", "toilet", "bathroom",
    "restroom", "loo", "lift", "elevator", "stairs", "staircase", "escalator", "kitchen",
    "office", "reception", "station", "stop", "crossing", "street", "road", "shop", "store",
    "cafe", "restaurant", "counter", "corridor", "hall", "lobby", "ward", "classroom",
    "terminal", "track", "bank", "pharmacy", "checkout", "desk",
];

fn is_place(phrase: &[String]) -> bool {
    phrase.last().is_some_and(|w| PLACES.contains(&w.as_str()))
}

// ---- topics vista cannot serve -------------------------------------------------------

/// Words of topics vista has no sense or service for.
#[rustfmt::skip]
const UNSERVED: &[&str] = &[
    "time", "date", "weather", "raining", "rain", "snowing", "forecast", "temperature",
    "message", "email", "dial", "music", "song", "radio", "podcast", "joke", "alarm", "timer",
    "remind", "reminder", "remember", "calendar", "news", "translate", "order", "taxi", "uber",
    "buy", "pay", "price", "cost", "money", "calories", "recipe", "colour", "color", "colours",
    "colors", "recognise", "recognize", "identify", "battery", "capital", "score", "expired",
    "fresh", "spoiled", "clean", "dirty", "stained", "ripe", "old", "age", "face", "voicemail",
];

/// Words that say the state of a signal or a light (which vista cannot see reliably).
#[rustfmt::skip]
const SIGNAL_STATES: &[&str] = &[
    "green", "red", "amber", "yellow", "on", "off", "changed", "flashing",
];

/// Verbs that ask the assistant to act on the world, when a request starts with one.
#[rustfmt::skip]
const ACTS: &[&str] = &[
    "open", "close", "shut", "turn", "switch", "unlock", "lock", "play", "call", "phone",
    "text", "send", "book", "order", "buy", "set", "remember", "stop", "start", "ring",
    "message", "email", "wake",
];

fn unserved(w: &[String]) -> bool {
    let starts_with_act = w.first().is_some_and(|f| ACTS.contains(&f.as_str()))
        // "Stop" alone, "Text my wife": an act; "stop sign", "text here": not.
        && w.len() > 1
        && !matches!(w.get(1).map(String::as_str), Some("sign" | "here" | "there"));
    if starts_with_act {
        return true;
    }
    let singular: Vec<String> = w.iter().map(|x| singular(x)).collect();
    if (has_any(w, UNSERVED) || has_any(&singular, UNSERVED))
        && !has_seq(w, &["how", "old", "is", "the", "building"])
    {
        // "what time" / "the time", not "this time"; "old" only as an age.
        let time_ok =
            !has(w, "time") || has_seq(w, &["what", "time"]) || has_seq(w, &["the", "time"]);
        let old_ok = !has(w, "old") || has_seq(w, &["how", "old"]);
        let score_ok = !has(w, "score") || has(w, "game") || has(w, "match");
        let face_ok = !has(w, "face") || has(w, "recognise") || has(w, "recognize");
        if time_ok && old_ok && score_ok && face_ok {
            return true;
        }
    }
    if has_seq(w, &["still", "good"]) || has_seq(w, &["how", "much", "is"]) {
        return true;
    }
    // The state of a light or a signal.
    if has_any(w, &["light", "lights", "signal"]) && has_any(w, SIGNAL_STATES) && !has(w, "there") {
        return true;
    }
    // Who someone is: "who is this (person)", "who is that".
    if starts(w, &["who", "is"])
        && w.get(2)
            .is_some_and(|x| matches!(x.as_str(), "this" | "that" | "it" | "he" | "she"))
    {
        return true;
    }
    // General knowledge.
    has_seq(w, &["who", "won"]) || has_seq(w, &["meaning", "of"])
}

// ---- going somewhere ----------------------------------------------------------------

/// Verbs of handling a thing: a request to do one with a thing is guidance to it.
#[rustfmt::skip]
const HANDLE: &[&str] = &[
    "pick", "press", "push", "pull", "grab", "hold", "touch", "open", "close", "reach", "use",
    "turn", "switch", "get", "fetch", "take", "plug", "unplug", "pour", "fill", "sit", "put",
];

/// Leaving: "get out", "the way out", "leave the building" → the exit.
fn leaving(w: &[String]) -> Option<Ask> {
    let out_phrase = w.windows(2).any(|p| {
        p[1] == "out"
            && matches!(
                p[0].as_str(),
                "get" | "way" | "go" | "is" | "me" | "walk" | "find"
            )
    });
    let leave = has_any(w, &["leave", "leaving"]) && !has_seq(w, &["where", "did", "i", "leave"]);
    (out_phrase || leave).then(|| Ask::Goal(target(vec!["exit".into()])))
}

/// The place after "to"/"towards" from `from` on.
fn to_place(w: &[String], from: usize) -> Option<Vec<String>> {
    let at =
        (from..w.len()).find(|&i| matches!(w[i].as_str(), "to" | "towards" | "toward" | "for"))?;
    let p = noun_phrase(w, at + 1);
    names_something(&p).then_some(p)
}

/// Verbs that lead someone somewhere ("take me to …").
#[rustfmt::skip]
const LEAD: &[&str] = &[
    "take", "bring", "lead", "guide", "walk", "navigate", "direct", "steer", "get", "head",
    "point", "go", "help", "show",
];

fn going(w: &[String]) -> Option<Ask> {
    let goal = |p: Vec<String>| Some(Ask::Goal(target(p)));
    // "Take me to the exit", "Head for the door", "Guide my hand to the cup".
    if w.first().is_some_and(|f| LEAD.contains(&f.as_str())) {
        if let Some(p) = to_place(w, 1) {
            return goal(p);
        }
    }
    // "How do I get to …", "I need to go to …", "the way to …", "directions to …".
    for seq in [
        &["get", "to"][..],
        &["go", "to"],
        &["way", "to"],
        &["directions", "to"],
        &["direction", "to"],
        &["route", "to"],
        &["head", "to"],
        &["head", "for"],
    ] {
        if let Some(i) = after(w, seq) {
            let p = noun_phrase(w, i);
            if names_something(&p) {
                return goal(p);
            }
        }
    }
    // "Which way to the toilets", "Which way is the kitchen".
    if let Some(i) = after(w, &["which", "way"]) {
        if matches!(
            w.get(i).map(String::as_str),
            Some("to" | "is" | "are" | "for")
        ) {
            let p = noun_phrase(w, i + 1);
            if names_something(&p) {
                return goal(p);
            }
        }
    }
    // "How do I reach the shop", "How do I open this door", "Help me press the button".
    let handled_from = after(w, &["how", "do", "i"])
        .or_else(|| after(w, &["how", "can", "i"]))
        .or_else(|| after(w, &["help", "me"]))
        .or_else(|| after(w, &["i", "want", "to"]))
        .or_else(|| after(w, &["i", "need", "to"]))
        .or_else(|| after(w, &["i", "would", "like", "to"]))
        .or_else(|| starts(w, &["let", "me"]).then_some(2));
    if let Some(i) = handled_from {
        if w.get(i).is_some_and(|v| HANDLE.contains(&v.as_str())) {
            let p = first_thing(w, i + 1);
            if names_something(&p) {
                return goal(p);
            }
            if asks_for_seat(w) {
                return goal(vec!["seat".into()]);
            }
        }
        // "Help me find a chair to sit on": found to be used.
        if w.get(i).is_some_and(|v| v == "find") {
            let p = first_thing(w, i + 1);
            let to_use = after(w, &["to"])
                .and_then(|k| w.get(k))
                .is_some_and(|v| HANDLE.contains(&v.as_str()));
            if names_something(&p) && (is_place(&p) || to_use) {
                return goal(p);
            }
        }
    }
    // "I need the bathroom", "I'm looking for reception", "Find me the exit": a place.
    for seq in [
        &["i", "need"][..],
        &["looking", "for"],
        &["find", "me"],
        &["find"],
        &["searching", "for"],
    ] {
        if let Some(i) = after(w, seq) {
            let p = noun_phrase(w, i);
            if is_place(&p) {
                return goal(p);
            }
        }
    }
    None
}

/// "Am I at the exit?", "Have I reached the door?", "Is this platform 3?".
fn arrived(w: &[String]) -> Option<Ask> {
    let at = |p: Vec<String>| Some(Ask::AtGoal(target(p)));
    if starts(w, &["am", "i", "at"]) || starts(w, &["am", "i", "in"]) {
        return at(noun_phrase(w, 3));
    }
    if starts(w, &["am", "i", "there"]) {
        return at(vec![]);
    }
    for seq in [
        &["have", "i", "reached"][..],
        &["did", "i", "reach"],
        &["have", "i", "arrived"],
        &["did", "i", "arrive"],
        &["have", "i", "got", "to"],
        &["did", "i", "get", "to"],
        &["did", "i", "make", "it"],
        &["have", "i", "made", "it"],
    ] {
        if starts(w, seq) {
            return at(first_thing(w, seq.len()));
        }
    }
    // "Is this platform 3?" (a place, or a name with a number) — not "is this a bus?".
    if starts(w, &["is", "this"]) || starts(w, &["is", "that"]) {
        let p = noun_phrase(w, 2);
        let article = matches!(w.get(2).map(String::as_str), Some("a" | "an"));
        let numbered = p.iter().any(|x| x.chars().all(|c| c.is_ascii_digit()));
        if !article && (is_place(&p) || (numbered && p.len() > 1)) {
            return at(p);
        }
    }
    None
}

// ---- where a thing is, and how far ----------------------------------------------------

fn where_of(p: Vec<String>, w: &[String]) -> Option<Ask> {
    if names_something(&p) {
        return Some(Ask::WhereIs(target(p)));
    }
    asks_for_seat(w).then(|| Ask::WhereIs(target(vec!["seat".into()])))
}

/// "How far is the door", "How many metres to the chair", "Is the exit far", "Am I close to
/// the wall".
fn distance(w: &[String]) -> Option<Ask> {
    let units = [
        "metres", "meters", "steps", "feet", "yards", "paces", "metre", "meter",
    ];
    let from = after(w, &["how", "far"])
        .or_else(|| after(w, &["how", "close"]))
        .or_else(|| after(w, &["how", "near"]))
        .or_else(|| after(w, &["how", "long", "until"]))
        .or_else(|| after(w, &["how", "long", "till"]))
        .or_else(|| after(w, &["distance", "to"]))
        .or_else(|| after(w, &["distance", "from"]))
        .or_else(|| {
            after(w, &["how", "many"])
                .filter(|&i| w.get(i).is_some_and(|u| units.contains(&u.as_str())))
                .map(|i| i + 1)
        })
        .or_else(|| after(w, &["am", "i", "close"]))
        .or_else(|| after(w, &["am", "i", "near"]));
    if let Some(i) = from {
        return where_of(first_thing(w, i), w);
    }
    // "Is the door close?", "Is the car near me?", "Is the exit far from here?"
    if w.first().is_some_and(|f| f == "is" || f == "are")
        && matches!(
            w.get(1).map(String::as_str),
            Some("the" | "my" | "that" | "this")
        )
    {
        let p = noun_phrase(w, 1);
        let next = w.get(1 + 1 + p.len()).map(String::as_str);
        if matches!(next, Some("close" | "near" | "far" | "nearby")) {
            return where_of(p, w);
        }
    }
    None
}

/// "Where is …", "Which side is the door on", "Is my laptop on the left or the right",
/// "Locate my backpack", "I can't find the remote", "Did I pass the stairs".
fn located(w: &[String]) -> Option<Ask> {
    if starts(w, &["where", "am", "i"]) {
        return None;
    }
    for seq in [
        &["did", "i", "pass"][..],
        &["have", "i", "passed"],
        &["did", "i", "miss"],
        &["have", "you", "seen"],
        &["did", "you", "see"],
        &["which", "side"],
        &["what", "side"],
        &["which", "direction"],
        &["what", "direction"],
        &["locate"],
        &["can", "not", "find"],
        &["could", "not", "find"],
        &["lost"],
        &["dropped"],
        &["where"],
    ] {
        if let Some(i) = after(w, seq) {
            let mut p = first_thing(w, i);
            if p.is_empty() {
                // "I dropped my phone, where is it?": the thing named before.
                p = first_thing(w, 0);
            }
            if let Some(a) = where_of(p, w) {
                return Some(a);
            }
        }
    }
    if has_seq(w, &["left", "or"]) || has_seq(w, &["right", "or"]) {
        return where_of(first_thing(w, 1), w);
    }
    // "Find the couch", "Help me find my keys".
    let find = if starts(w, &["find"]) {
        Some(1)
    } else {
        after(w, &["help", "me", "find"])
    };
    find.and_then(|i| where_of(first_thing(w, i), w))
}

// ---- people -------------------------------------------------------------------------

#[rustfmt::skip]
const PERSONS: &[&str] = &[
    "someone", "somebody", "anyone", "anybody", "person", "people", "persons", "man", "men",
    "woman", "women", "child", "children", "kid", "kids", "guy", "guys", "lady", "boy", "girl",
    "everyone", "everybody", "nobody", "pedestrian", "pedestrians", "crowd", "crowded",
    "alone", "busy", "who", "stranger",
];

fn people(w: &[String]) -> Option<Ask> {
    if !has_any(w, PERSONS) {
        return None;
    }
    let p = if has_any(w, &["wave", "waving", "waved", "gesturing", "beckoning"]) {
        PeopleAsk::Waving
    } else if has_any(w, &["watching", "staring", "looking", "look"]) {
        PeopleAsk::Looking
    } else if has_any(w, &["talking", "speaking", "calling", "talk", "speak"]) {
        PeopleAsk::Talking
    } else if has_any(w, &["sitting", "seated", "sat"]) {
        PeopleAsk::Sitting
    } else if has_any(
        w,
        &[
            "coming",
            "approaching",
            "approach",
            "towards",
            "toward",
            "heading",
        ],
    ) || has_seq(w, &["my", "way"])
        || has_seq(w, &["bump", "into"])
    {
        PeopleAsk::Approaching
    } else if has_seq(w, &["how", "many"])
        || has_any(w, &["crowded", "busy", "crowd", "lot", "lots", "many"])
    {
        PeopleAsk::Count
    } else if has_any(
        w,
        &["next", "beside", "behind", "following", "alone", "who"],
    ) || has_seq(w, &["with", "me"])
        || has_seq(w, &["near", "me"])
        || has_seq(w, &["close", "to", "me"])
    {
        PeopleAsk::Near
    } else {
        PeopleAsk::Any
    };
    Some(Ask::People(p))
}

// ---- kinds of hazard ----------------------------------------------------------------

fn head_height(w: &[String]) -> bool {
    has_any(w, &["head", "overhead", "duck", "ceiling", "hanging"])
        || has_seq(w, &["face", "level"])
        || has_seq(w, &["sticking", "out"])
        || (has(w, "low") && !has_any(w, &["step", "steps", "wall"]))
}

fn stairs(w: &[String]) -> bool {
    has_any(
        w,
        &[
            "stairs",
            "stair",
            "staircase",
            "stairway",
            "step",
            "steps",
            "kerb",
            "curb",
            "escalator",
            "drop",
            "ledge",
            "ramp",
            "downstairs",
            "upstairs",
        ],
    ) || (has_any(w, &["ground", "floor"]) && has_any(w, &["level", "flat", "even"]))
}

/// A collision the wearer might walk into ("Am I about to walk into something?").
fn collision(w: &[String]) -> bool {
    has_seq(w, &["walk", "into"])
        || has_seq(w, &["bump", "into"])
        || has_seq(w, &["run", "into"])
        || has_any(w, &["trip", "collide", "crash"])
}

// ---- text -----------------------------------------------------------------------------

/// Things that carry text to read.
#[rustfmt::skip]
const CARRIERS: &[&str] = &[
    "sign", "label", "menu", "notice", "poster", "screen", "board", "display", "page", "paper",
    "letter", "note", "card", "plaque", "banner", "box", "package", "ticket", "receipt",
    "book", "door", "bottle", "can", "jar",
];

/// What a place is called or numbered by, read from a sign ("Which platform is this?").
#[rustfmt::skip]
const IDENTIFIERS: &[&str] = &[
    "platform", "gate", "room", "street", "road", "floor", "bus", "train", "line", "stop",
    "track", "aisle", "terminal", "building", "station", "number", "level", "exit", "store",
    "shop",
];

fn read_text(w: &[String]) -> Option<Ask> {
    let read = |p: Vec<String>| Some(Ask::ReadText(target(p)));
    let thing = |p: Vec<String>| if names_something(&p) { p } else { vec![] };
    // The thing named that carries text, wherever it is said ("what the sign says").
    let carrier = || -> Vec<String> {
        (0..w.len())
            .map(|i| noun_phrase(w, i))
            .find(|p| p.last().is_some_and(|l| CARRIERS.contains(&l.as_str())))
            .unwrap_or_default()
    };
    // "What does the sign say", "What do the signs say", "What does the screen show".
    if let Some(i) = after(w, &["what", "does"]).or_else(|| after(w, &["what", "do"])) {
        let p = noun_phrase(w, i);
        let last = w.last().map(String::as_str);
        let shows = matches!(last, Some("show" | "display")) && !p.is_empty() && carrier() == p;
        if matches!(last, Some("say" | "read")) || shows {
            return read(thing(p));
        }
    }
    // "What number is this bus", "What's the name of this street", "the room number".
    if has_any(w, &["name", "number", "called"]) && !has(w, "how") {
        if let Some(i) = after(w, &["name", "of"]).or_else(|| after(w, &["number", "of"])) {
            return read(thing(noun_phrase(w, i)));
        }
        if let Some(i) = after(w, &["is", "this"]).or_else(|| after(w, &["is", "that"])) {
            let p = noun_phrase(w, i);
            if names_something(&p) {
                return read(p);
            }
        }
        let before = w
            .iter()
            .position(|x| x == "number" || x == "name")
            .and_then(|k| k.checked_sub(1))
            .and_then(|j| w.get(j))
            .filter(|id| IDENTIFIERS.contains(&id.as_str()));
        if let Some(id) = before {
            return read(vec![id.clone()]);
        }
    }
    // "Read the menu", "Read me the sign", "Read everything".
    if let Some(i) = w.iter().position(|x| x == "read") {
        return read(thing(first_thing(w, i + 1)));
    }
    // "What's written on the door", "Is there a name on the door", "What's on that poster".
    if has_any(
        w,
        &[
            "written", "printed", "writing", "text", "words", "name", "says", "spell",
        ],
    ) {
        let p = after(w, &["on"])
            .map(|i| noun_phrase(w, i))
            .unwrap_or_else(carrier);
        return read(thing(p));
    }
    if let Some(i) = after(w, &["what", "is", "on"]) {
        let p = noun_phrase(w, i);
        if p.last().is_some_and(|l| CARRIERS.contains(&l.as_str())) {
            return read(p);
        }
    }
    // "Which platform is this", "What floor am I on", "What stop is this".
    if matches!(w.first().map(String::as_str), Some("which" | "what")) {
        if let Some(n) = w.get(1).filter(|n| IDENTIFIERS.contains(&n.as_str())) {
            if matches!(w.get(2).map(String::as_str), Some("is" | "am" | "are")) {
                return read(vec![n.clone()]);
            }
        }
    }
    // "Is there a sign?", "Any signs around?"
    if has_any(w, &["sign", "signs", "signpost", "label"]) {
        let p = noun_phrase(
            w,
            w.iter()
                .position(|x| x.starts_with("sign") || x == "label")
                .unwrap_or(0),
        );
        return read(thing(p));
    }
    None
}

// ---- the wearer, the scene, what is looked at -------------------------------------------

fn looking_at(w: &[String]) -> bool {
    let what_am_i = starts(w, &["what", "am", "i"])
        && has_any(
            w,
            &[
                "looking", "facing", "pointing", "holding", "touching", "seeing",
            ],
        );
    let what_is_this = (starts(w, &["what", "is", "this"]) || starts(w, &["what", "is", "that"]))
        && matches!(
            w.get(3).map(String::as_str),
            None | Some("thing" | "object" | "stuff" | "in" | "i")
        );
    what_am_i || what_is_this || (starts(w, &["what", "is", "the", "thing"]) && has(w, "looking"))
}

fn motion(w: &[String]) -> bool {
    let about_self = [
        &["am", "i"][..],
        &["did", "i"],
        &["have", "i"],
        &["was", "i"],
        &["how", "fast", "am", "i"],
        &["which", "way", "am", "i"],
        &["what", "direction", "am", "i"],
    ]
    .iter()
    .any(|s| starts(w, s));
    about_self
        && has_any(
            w,
            &[
                "walking", "walk", "moving", "move", "standing", "still", "stopped", "stop",
                "turn", "turned", "turning", "veering", "veer", "drifting", "drift", "straight",
                "facing", "fast", "slow", "uphill", "downhill", "going", "heading", "speed",
                "running",
            ],
        )
}

fn scene(w: &[String]) -> bool {
    let what_is = starts(w, &["what", "is"]) || starts(w, &["what", "are"]);
    let place = has_any(w, &["place", "room", "area", "this", "here"]);
    has_any(
        w,
        &[
            "describe",
            "description",
            "overview",
            "surroundings",
            "surrounding",
            "picture",
            "layout",
            "rundown",
        ],
    ) || has_seq(w, &["lay", "of", "the", "land"])
        || has_seq(w, &["look", "around"])
        || (has_seq(w, &["look", "like"]) && place)
        || (what_is && has_any(w, &["nearby", "around", "here"]))
        || (what_is && has_seq(w, &["near", "me"]))
        || (what_is && has_seq(w, &["in", "this", "room"]))
        || (what_is && has_seq(w, &["in", "the", "room"]))
        || has_seq(w, &["what", "can", "you", "see"])
        || has_seq(w, &["what", "do", "you", "see"])
        || has_seq(w, &["what", "you", "see"])
        || starts(w, &["where", "am", "i"])
        || has_seq(w, &["kind", "of", "place"])
        || has_seq(w, &["kind", "of", "room"])
        || has_seq(w, &["kind", "of", "area"])
        || has_seq(w, &["going", "on"])
        || starts(w, &["what", "is", "this", "place"])
        || starts(w, &["what", "is", "this", "room"])
        || starts(w, &["about", "this"])
        || starts(w, &["about", "the"])
        || (has_any(w, &["room", "place", "area"]) && has(w, "like"))
}

/// The way ahead: clear, safe, blocked, what is in it.
fn ahead(w: &[String]) -> bool {
    has_any(
        w,
        &[
            "ahead",
            "front",
            "clear",
            "path",
            "way",
            "safe",
            "safely",
            "obstacle",
            "obstacles",
            "hazard",
            "hazards",
            "blocking",
            "blocked",
            "block",
            "forward",
            "cross",
            "across",
            "continue",
            "danger",
            "dangerous",
            "careful",
        ],
    ) || has_seq(w, &["keep", "going"])
        || has_seq(w, &["keep", "walking"])
        || has_seq(w, &["go", "on"])
        || has_seq(w, &["coming", "up"])
        || starts(w, &["should", "i", "stop"])
        || starts(w, &["can", "i", "go"])
        || starts(w, &["can", "i", "walk"])
        || collision(w)
}

/// Words after "is the …" that ask whether a thing is there or what it does ("Is the car
/// moving?", "Is my laptop here?").
#[rustfmt::skip]
const PRESENCE: &[&str] = &[
    "here", "there", "moving", "parked", "around", "nearby", "coming", "stopped", "with",
    "still", "gone", "in",
];

/// "Is there a bench", "Any benches around", "Do you see a bottle", "Is that a bus", "Is
/// the car moving", "Do I have my umbrella": whether a named thing is there. A hazard word
/// ("any obstacles?") asks about the way ahead instead.
fn object_query(w: &[String]) -> Option<Ask> {
    let q = |p: Vec<String>| {
        (names_something(&p) && !p.iter().any(|x| HAZARD_WORDS.contains(&x.as_str())))
            .then(|| Ask::ObjectQuery(target(p)))
    };
    // "Is there a …", "Do you see a …": the noun phrase right after.
    for seq in [
        &["is", "there"][..],
        &["are", "there"],
        &["was", "there"],
        &["were", "there"],
        &["there", "is"],
        &["there", "are"],
        &["do", "you", "see"],
        &["can", "you", "see"],
        &["do", "i", "have"],
        &["have", "i", "got"],
        &["see"],
        &["spot"],
        &["notice"],
        &["any"],
    ] {
        if starts(w, seq) {
            if let Some(a) = q(noun_phrase(w, seq.len())) {
                return Some(a);
            }
            if asks_for_seat(w) {
                return q(vec!["seat".into()]);
            }
        }
    }
    // "Is that a bus?", "Was it a truck?": a thing of a kind.
    let pointing = matches!(w.first().map(String::as_str), Some("is" | "was"))
        && matches!(w.get(1).map(String::as_str), Some("that" | "this" | "it"))
        && matches!(
            w.get(2).map(String::as_str),
            Some("a" | "an" | "my" | "our" | "your")
        );
    if pointing {
        return q(noun_phrase(w, 2));
    }
    // "Is the car moving?", "Is my laptop here?"
    if matches!(w.first().map(String::as_str), Some("is" | "are")) {
        let p = noun_phrase(w, 1);
        let next = (1..w.len())
            .find(|&i| !super::phrase::DETERMINERS.contains(&w[i].as_str()))
            .and_then(|i| w.get(i + p.len()));
        if next.is_some_and(|n| PRESENCE.contains(&n.as_str())) {
            return q(p);
        }
    }
    None
}

/// What `words` (see [`super::normalise::words`]) ask for.
pub fn parse(w: &[String]) -> Ask {
    if w.is_empty() {
        return Ask::Open;
    }
    if unserved(w) {
        return Ask::Unsupported;
    }
    if let Some(a) = leaving(w).or_else(|| going(w)).or_else(|| arrived(w)) {
        return a;
    }
    if let Some(a) = distance(w).or_else(|| located(w)) {
        return a;
    }
    if let Some(a) = people(w) {
        return a;
    }
    if head_height(w) {
        return Ask::HeadHeight;
    }
    if stairs(w) {
        return Ask::Stairs;
    }
    if let Some(a) = read_text(w) {
        return a;
    }
    if looking_at(w) {
        return Ask::LookingAt;
    }
    if collision(w) {
        return Ask::Ahead;
    }
    if motion(w) {
        return Ask::Motion;
    }
    if scene(w) {
        return Ask::Scene;
    }
    if let Some(a) = object_query(w) {
        return a;
    }
    if ahead(w) {
        return Ask::Ahead;
    }
    Ask::Open
}

#[cfg(test)]
mod tests {
    use super::super::normalise::words;
    use super::*;

    fn said(t: &str) -> String {
        parse(&words(t)).to_string()
    }

    #[test]
    fn a_question_word_is_not_the_thing_named() {
        assert_eq!(
            said("Could you read me what that sign says?"),
            "read_text sign"
        );
        assert_eq!(said("Read me what it says."), "read_text");
    }

    #[test]
    fn the_order_settles_what_two_rules_could_claim() {
        // A topic vista cannot serve is refused before the thing it names.
        assert_eq!(said("Is the traffic light green?"), "unsupported");
        assert_eq!(
            said("Is there a traffic light here?"),
            "object_query traffic light"
        );
        // A way to go before the words of the place.
        assert_eq!(said("Head for the door."), "goal door");
        assert_eq!(said("Do I need to duck?"), "head_height");
        // How far and where before the kind of thing.
        assert_eq!(said("How far are the stairs?"), "where_is stairs");
        assert_eq!(said("How many steps to the bench?"), "where_is bench");
        assert_eq!(said("Are there stairs ahead?"), "stairs");
        // People before what they do; what is looked at before the wearer's motion.
        assert_eq!(
            said("Is someone about to bump into me?"),
            "people approaching"
        );
        assert_eq!(said("Am I about to walk into something?"), "ahead");
        assert_eq!(said("What am I facing?"), "looking_at");
        assert_eq!(said("Which way am I facing?"), "motion");
        // A named thing before the way ahead.
        assert_eq!(said("Is there a pole in front of me?"), "object_query pole");
        assert_eq!(said("Is there anything in front of me?"), "ahead");
    }

    #[test]
    fn goals_need_no_prefix_and_leaving_is_the_exit() {
        assert_eq!(said("Take me to the exit door"), "goal exit door");
        assert_eq!(said("How do I get out of here?"), "goal exit");
        assert_eq!(said("I need to get to platform two"), "goal platform 2");
        assert_eq!(said("Help me pick up my water bottle"), "goal water bottle");
        assert_eq!(said("Find me the exit"), "goal exit");
        assert_eq!(said("Find the couch"), "where_is couch");
        assert_eq!(said("Is this room one oh four?"), "at_goal room 104");
        assert_eq!(said("Is this a bus?"), "object_query bus");
    }

    #[test]
    fn unknown_requests_are_open_not_the_way_ahead() {
        assert_eq!(said("Why is it so quiet here?"), "open");
        assert_eq!(said(""), "open");
        assert_eq!(said("!!!"), "open");
    }
}
