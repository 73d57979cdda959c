//! Understanding by likeness: a request no rule types is compared, as a sentence embedding
//! ([`SentenceEncoder`]), with labelled examples of what wearers ask, and takes the kind of
//! its nearest examples when they agree and are near enough; the thing it names is then
//! read from its own words ([`super::phrase::named_thing`]). The rules stay the fast path
//! and the first word: this only types what they leave [`Ask::Open`].
//!
//! The examples are the `dev` split of the paraphrase yardstick
//! (`tests/data/understanding/requests.tsv`, compiled in); its `held` split and the unseen
//! set never are, so both still measure phrasings this has not seen.

use std::path::Path;
use std::sync::Arc;

use super::ask::{Ask, Target};
use super::normalise;
use super::phrase::named_thing;
use crate::infer::sentence::cache::{embed_all, Source};
use crate::infer::sentence::SentenceEncoder;

/// The labelled requests (only the `dev` rows are used).
const PARAPHRASES: &str = include_str!("../../../tests/data/understanding/requests.tsv");

/// Neighbours that vote.
pub const NEIGHBOURS: usize = 5;

/// The nearest example must be at least this alike (cosine).
pub const MIN_SIMILARITY: f32 = 0.5;

/// The winning kind must hold at least this share of the neighbours' weight.
pub const MIN_SHARE: f32 = 0.5;

/// What an example teaches: a whole typed request (a kind without a thing, a predicate
/// about people, a setting), or a kind whose thing is read from the request's own words
/// (held with no thing, so that examples of one kind are one label).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Label {
    Whole(Ask),
    Named(Ask),
}

impl Label {
    fn of(ask: &Ask) -> Option<Label> {
        match ask {
            Ask::Open => None,
            a if a.target().is_some() => Some(Label::Named(a.with_target(Target::none()))),
            a => Some(Label::Whole(a.clone())),
        }
    }

    /// The typed request for a request saying `words`, `None` when a kind needs a thing
    /// and none is named (reading text, or whether one is at a place, need none).
    fn ask(&self, words: &[String]) -> Option<Ask> {
        match self {
            Label::Whole(a) => Some(a.clone()),
            Label::Named(a) => {
                let thing = Target::new(named_thing(words));
                let optional = matches!(a, Ask::ReadText(_) | Ask::AtGoal(_));
                (optional || !thing.is_empty()).then(|| a.with_target(thing))
            }
        }
    }
}

/// The labelled examples as vectors, and the encoder that made them.
pub struct SimilarAsks {
    encoder: Arc<SentenceEncoder>,
    examples: Vec<(Label, Vec<f32>)>,
}

impl std::fmt::Debug for SimilarAsks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimilarAsks")
            .field("examples", &self.examples.len())
            .finish()
    }
}

/// The `dev` rows of the paraphrase file: each typed request with its text.
fn dev_examples() -> impl Iterator<Item = (Ask, &'static str)> {
    PARAPHRASES
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| match l.split('\t').collect::<Vec<_>>()[..] {
            [_, "dev", expected, text] => Ask::parse(expected).map(|a| (a, text.trim())),
            _ => None,
        })
}

impl SimilarAsks {
    /// The examples' vectors by `encoder`: read from `cache` (a folder) when they were kept
    /// there, else computed (~2.5 s of one core) and kept.
    pub fn new(encoder: Arc<SentenceEncoder>, cache: Option<&Path>) -> (Self, Source) {
        let labelled: Vec<(Label, &str)> = dev_examples()
            .filter_map(|(ask, text)| Label::of(&ask).map(|l| (l, text)))
            .collect();
        let texts: Vec<&str> = labelled.iter().map(|(_, t)| *t).collect();
        let (vectors, source) = embed_all(&encoder, &texts, cache);
        let examples = labelled.into_iter().map(|(l, _)| l).zip(vectors).collect();
        (Self { encoder, examples }, source)
    }

    /// Number of examples.
    pub fn len(&self) -> usize {
        self.examples.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.examples.is_empty()
    }

    /// What `text` asks for by likeness to the examples; `None` when the nearest are not
    /// near enough, do not agree, or name a kind that needs a thing `text` does not name.
    pub fn ask(&self, text: &str) -> Option<Ask> {
        let v = self.encoder.embed(text);
        let mut near: Vec<(f32, &Label)> =
            self.examples.iter().map(|(l, e)| (dot(&v, e), l)).collect();
        near.sort_by(|a, b| b.0.total_cmp(&a.0));
        near.truncate(NEIGHBOURS);
        let top = near.first()?.0;
        if top < MIN_SIMILARITY {
            return None;
        }
        let total: f32 = near.iter().map(|(s, _)| s.max(0.0)).sum();
        let mut best: Option<(&Label, f32)> = None;
        for (_, label) in &near {
            let weight: f32 = near
                .iter()
                .filter(|(_, l)| l == label)
                .map(|(s, _)| s.max(0.0))
                .sum();
            if best.is_none_or(|(_, w)| weight > w) {
                best = Some((label, weight));
            }
        }
        let (label, weight) = best?;
        if total <= 0.0 || weight / total < MIN_SHARE {
            return None;
        }
        label.ask(&normalise::words(text))
    }
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The rules, then likeness for what they leave open.
pub fn understand_with(similar: Option<&SimilarAsks>, text: &str) -> Ask {
    match (super::understand(text), similar) {
        (Ask::Open, Some(s)) => s.ask(text).unwrap_or(Ask::Open),
        (a, _) => a,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_examples_are_the_dev_rows_and_every_kind_is_among_them() {
        let all: Vec<_> = dev_examples().collect();
        assert!(all.len() >= 200, "{}", all.len());
        for kind in [
            "scene",
            "ahead",
            "head_height",
            "stairs",
            "looking_at",
            "read_text",
            "where_is",
            "object_query",
            "at_goal",
            "goal",
            "people",
            "motion",
            "setting",
            "unsupported",
        ] {
            assert!(all.iter().any(|(a, _)| a.kind() == kind), "{kind}");
        }
        let held = PARAPHRASES
            .lines()
            .filter(|l| l.split('\t').nth(1) == Some("held"))
            .count();
        assert!(held > 100 && all.len() + held < PARAPHRASES.lines().count());
    }

    #[test]
    fn a_label_names_the_thing_from_the_request_or_gives_up() {
        let w = |t: &str| normalise::words(t);
        assert_eq!(
            Label::Named(Ask::WhereIs(Target::none())).ask(&w("any clue where my keys ended up")),
            Some(Ask::WhereIs(Target::new(["key"])))
        );
        assert_eq!(
            Label::Named(Ask::Goal(Target::none())).ask(&w("is it there")),
            None
        );
        assert_eq!(
            Label::Named(Ask::ReadText(Target::none())).ask(&w("is it there")),
            Some(Ask::ReadText(Target::none()))
        );
        assert_eq!(
            Label::Whole(Ask::Stairs).ask(&w("anything")),
            Some(Ask::Stairs)
        );
    }
}
