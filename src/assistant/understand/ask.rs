//! What a request asks for, typed: the parser's output and what answers are chosen by. A
//! request is a kind (read text, where is a thing, guidance to a place, people, …) with the
//! thing it names, or the predicate it asks about people, or the setting it changes; what
//! the assistant cannot do is its own kind, so it is refused honestly instead of answered
//! wrongly. Each ask has a compact written form (`where_is cup`, `people approaching`,
//! `setting faster`) used by decisions, `vista understand` and the paraphrase yardstick.

use std::fmt;

use super::super::control::Control;
use super::super::forms::Form;

/// The thing a request names: its words, lower case, singular, numbers as digits ("the
/// nearest bus stop" → `bus stop`, "gate twelve" → `gate 12`). Empty when none is named.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Target {
    /// The words, in the order said.
    pub words: Vec<String>,
}

impl Target {
    /// A target of `words`.
    pub fn new<S: Into<String>>(words: impl IntoIterator<Item = S>) -> Self {
        Self {
            words: words.into_iter().map(Into::into).collect(),
        }
    }

    /// No thing named.
    pub fn none() -> Self {
        Self::default()
    }

    /// Whether no thing is named.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

/// What a question about people asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PeopleAsk {
    /// Whether anyone is there ("Is anybody here?").
    Any,
    /// Whether someone is coming toward the wearer.
    Approaching,
    /// Whether someone is beside, behind or with the wearer ("Am I alone?").
    Near,
    /// How many people there are ("How crowded is it?").
    Count,
    /// Whether someone is waving.
    Waving,
    /// Whether someone is looking at the wearer.
    Looking,
    /// Whether someone is sitting.
    Sitting,
    /// Whether someone is talking to the wearer.
    Talking,
}

impl PeopleAsk {
    /// Every predicate, in the order of [`PeopleAsk::name`]'s table.
    pub const ALL: [PeopleAsk; 8] = [
        PeopleAsk::Any,
        PeopleAsk::Approaching,
        PeopleAsk::Near,
        PeopleAsk::Count,
        PeopleAsk::Waving,
        PeopleAsk::Looking,
        PeopleAsk::Sitting,
        PeopleAsk::Talking,
    ];

    /// The predicate's written name.
    pub fn name(self) -> &'static str {
        match self {
            PeopleAsk::Any => "any",
            PeopleAsk::Approaching => "approaching",
            PeopleAsk::Near => "near",
            PeopleAsk::Count => "count",
            PeopleAsk::Waving => "waving",
            PeopleAsk::Looking => "looking",
            PeopleAsk::Sitting => "sitting",
            PeopleAsk::Talking => "talking",
        }
    }
}

/// A request, typed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ask {
    /// Describe the surroundings ("What's around me?").
    Scene,
    /// Whether the way ahead is clear, what is in it ("Can I keep going?").
    Ahead,
    /// Anything at head height ("Do I need to duck?").
    HeadHeight,
    /// Stairs, steps, kerbs and drops ("Is there a step?").
    Stairs,
    /// What the wearer is looking at or holding ("What is this?").
    LookingAt,
    /// Read text, on the thing named when one is ("What does the sign say?").
    ReadText(Target),
    /// Where a thing is, and how far ("Where did I put my cup?").
    WhereIs(Target),
    /// Whether a thing is there ("Is there a bench nearby?", "Is that a bus?").
    ObjectQuery(Target),
    /// Whether the wearer is at a place ("Am I at the exit?", "Is this platform 3?").
    AtGoal(Target),
    /// Guidance to a place or a thing within reach ("Take me to the exit.").
    Goal(Target),
    /// People nearby, and what they do.
    People(PeopleAsk),
    /// The wearer's own motion ("Am I walking straight?").
    Motion,
    /// A change of how the assistant speaks ("Speak faster.").
    Setting(Control),
    /// Something the assistant cannot do (the time, a call, the colour of a light): refused
    /// honestly, never guessed at.
    Unsupported,
    /// A question no rule types: the language model's, when one runs; otherwise refused.
    Open,
}

impl Ask {
    /// The kind's written name (`where_is`, `people`, …).
    pub fn kind(&self) -> &'static str {
        match self {
            Ask::Scene => "scene",
            Ask::Ahead => "ahead",
            Ask::HeadHeight => "head_height",
            Ask::Stairs => "stairs",
            Ask::LookingAt => "looking_at",
            Ask::ReadText(_) => "read_text",
            Ask::WhereIs(_) => "where_is",
            Ask::ObjectQuery(_) => "object_query",
            Ask::AtGoal(_) => "at_goal",
            Ask::Goal(_) => "goal",
            Ask::People(_) => "people",
            Ask::Motion => "motion",
            Ask::Setting(_) => "setting",
            Ask::Unsupported => "unsupported",
            Ask::Open => "open",
        }
    }

    /// The thing named, for the kinds that name one.
    pub fn target(&self) -> Option<&Target> {
        match self {
            Ask::ReadText(t) | Ask::WhereIs(t) | Ask::ObjectQuery(t) | Ask::AtGoal(t) => Some(t),
            Ask::Goal(t) => Some(t),
            _ => None,
        }
    }

    /// The same kind naming `thing` (kinds that name none are returned as they are).
    pub fn with_target(&self, thing: Target) -> Ask {
        match self {
            Ask::ReadText(_) => Ask::ReadText(thing),
            Ask::WhereIs(_) => Ask::WhereIs(thing),
            Ask::ObjectQuery(_) => Ask::ObjectQuery(thing),
            Ask::AtGoal(_) => Ask::AtGoal(thing),
            Ask::Goal(_) => Ask::Goal(thing),
            a => a.clone(),
        }
    }

    /// The response form a live request of this kind takes: guidance for a goal, a
    /// description for a scene, an answer otherwise.
    pub fn form(&self) -> Form {
        match self {
            Ask::Goal(_) => Form::Goal,
            Ask::Scene => Form::Scene,
            _ => Form::Question,
        }
    }

    /// Parses the written form (`where_is cup`, `people near`, `setting faster`, `scene`):
    /// the inverse of [`fmt::Display`]. `None` for an unknown kind, predicate or setting,
    /// or a target where the kind takes none.
    pub fn parse(written: &str) -> Option<Ask> {
        let mut words = written.split_whitespace();
        let kind = words.next()?;
        let rest: Vec<&str> = words.collect();
        let target = || Target::new(rest.iter().copied());
        let bare = |a: Ask| rest.is_empty().then_some(a);
        let one = || match rest.as_slice() {
            [w] => Some(*w),
            _ => None,
        };
        match kind {
            "scene" => bare(Ask::Scene),
            "ahead" => bare(Ask::Ahead),
            "head_height" => bare(Ask::HeadHeight),
            "stairs" => bare(Ask::Stairs),
            "looking_at" => bare(Ask::LookingAt),
            "motion" => bare(Ask::Motion),
            "unsupported" => bare(Ask::Unsupported),
            "open" => bare(Ask::Open),
            "read_text" => Some(Ask::ReadText(target())),
            "at_goal" => Some(Ask::AtGoal(target())),
            "where_is" if !rest.is_empty() => Some(Ask::WhereIs(target())),
            "object_query" if !rest.is_empty() => Some(Ask::ObjectQuery(target())),
            "goal" if !rest.is_empty() => Some(Ask::Goal(target())),
            "people" => {
                let p = one()?;
                PeopleAsk::ALL
                    .into_iter()
                    .find(|a| a.name() == p)
                    .map(Ask::People)
            }
            "setting" => match one()? {
                "faster" => Some(Ask::Setting(Control::Faster)),
                "slower" => Some(Ask::Setting(Control::Slower)),
                "less" => Some(Ask::Setting(Control::Less)),
                "more" => Some(Ask::Setting(Control::More)),
                _ => None,
            },
            _ => None,
        }
    }
}

impl fmt::Display for Ask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind())?;
        match self {
            Ask::People(p) => write!(f, " {}", p.name()),
            Ask::Setting(c) => write!(
                f,
                " {}",
                match c {
                    Control::Faster => "faster",
                    Control::Slower => "slower",
                    Control::Less => "less",
                    Control::More => "more",
                }
            ),
            _ => {
                for w in self.target().map(|t| t.words.as_slice()).unwrap_or(&[]) {
                    write!(f, " {w}")?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_forms_round_trip() {
        for w in [
            "scene",
            "ahead",
            "where_is bus stop",
            "goal gate 12",
            "read_text",
            "read_text sign",
            "at_goal",
            "people approaching",
            "setting less",
            "unsupported",
            "open",
        ] {
            let a = Ask::parse(w).unwrap_or(Ask::Open);
            assert_eq!(a.to_string(), w);
        }
        for bad in [
            "",
            "dance",
            "scene now",
            "where_is",
            "goal",
            "people",
            "people dancing",
            "setting loud",
        ] {
            assert_eq!(Ask::parse(bad), None, "{bad}");
        }
        assert_eq!(Ask::parse("goal exit").map(|a| a.form()), Some(Form::Goal));
        assert_eq!(Ask::Scene.form(), Form::Scene);
        assert_eq!(Ask::Stairs.form(), Form::Question);
    }
}
