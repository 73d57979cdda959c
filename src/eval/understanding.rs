//! The paraphrase yardstick for understanding: a file of what wearers ask
//! (`tests/data/understanding/requests.tsv`: category, split, the expected typed request,
//! the text), each parsed, and scored as the share parsed to the right typed request, per
//! split (dev may be looked at while building; held is kept out of tuning), per category
//! and as a confusion table of kinds.
//!
//! A parse is **right** when its kind is the expected one, its predicate about people or
//! its setting is the expected one, and, where the expected request names a thing, the
//! parsed target holds every expected word and ends with the expected last word ("where_is
//! bus stop" is met by `where_is bus stop`, not by `where_is bus` or `where_is stop sign`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::error::EvalError;
use crate::assistant::understand::Ask;

/// Largest paraphrase file read, bytes.
const MAX_FILE_BYTES: u64 = 1 << 20;

/// One line of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Paraphrase {
    /// The task category (`object_location`, `hazard`, `setting`, …).
    pub category: String,
    /// `dev`, `held` (kept out of tuning) or `unseen` (written by someone who never saw the
    /// parser; never looked at request by request).
    pub split: String,
    /// The typed request it means.
    pub expected: Ask,
    /// What is said.
    pub text: String,
}

/// Reads a paraphrase file (`#` lines and blank lines skipped); a bad line is an error
/// naming its number.
pub fn read_paraphrases(path: &Path) -> Result<Vec<Paraphrase>, EvalError> {
    let io = |source| EvalError::Io {
        path: path.to_path_buf(),
        source,
    };
    let len = std::fs::metadata(path).map_err(io)?.len();
    let bad = |line: usize, reason: String| EvalError::Line {
        path: PathBuf::from(path),
        line,
        reason,
    };
    if len > MAX_FILE_BYTES {
        return Err(bad(
            0,
            format!("{len} bytes; a paraphrase file is under 1 MB"),
        ));
    }
    let text = std::fs::read_to_string(path).map_err(io)?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let [category, split, expected, text] = cols.as_slice() else {
            return Err(bad(i + 1, format!("{} columns, not 4", cols.len())));
        };
        if !matches!(*split, "dev" | "held" | "unseen") {
            return Err(bad(
                i + 1,
                format!("split `{split}` is not dev, held or unseen"),
            ));
        }
        let Some(expected) = Ask::parse(expected) else {
            return Err(bad(i + 1, format!("`{expected}` is not a typed request")));
        };
        if text.trim().is_empty() {
            return Err(bad(i + 1, "no text".into()));
        }
        out.push(Paraphrase {
            category: category.to_string(),
            split: split.to_string(),
            expected,
            text: text.trim().to_string(),
        });
    }
    Ok(out)
}

/// Whether `got` is the typed request `expected` (see the module's doc).
pub fn right(expected: &Ask, got: &Ask) -> bool {
    match (expected, got) {
        (Ask::People(a), Ask::People(b)) => a == b,
        (Ask::Setting(a), Ask::Setting(b)) => a == b,
        _ if expected.kind() != got.kind() => false,
        _ => match (expected.target(), got.target()) {
            (Some(e), Some(g)) if !e.is_empty() => {
                e.words.iter().all(|w| g.words.contains(w)) && e.words.last() == g.words.last()
            }
            _ => true,
        },
    }
}

/// Right out of all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Parsed to the right typed request.
    pub right: usize,
    /// Requests.
    pub all: usize,
}

impl Tally {
    fn add(&mut self, ok: bool) {
        self.right += usize::from(ok);
        self.all += 1;
    }

    /// The share right, in percent (0 for none).
    pub fn percent(&self) -> f64 {
        if self.all == 0 {
            0.0
        } else {
            100.0 * self.right as f64 / self.all as f64
        }
    }
}

/// One request parsed wrongly.
#[derive(Clone, Debug, Serialize)]
pub struct Miss {
    /// `dev` or `held`.
    pub split: String,
    /// What was said.
    pub text: String,
    /// The expected typed request, written.
    pub expected: String,
    /// What it parsed to, written.
    pub got: String,
}

/// The yardstick's result.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Understanding {
    /// Every request.
    pub all: Tally,
    /// By split (`dev`, `held`).
    pub by_split: BTreeMap<String, Tally>,
    /// By category, then split.
    pub by_category: BTreeMap<String, BTreeMap<String, Tally>>,
    /// Expected kind → parsed kind → count.
    pub confusion: BTreeMap<String, BTreeMap<String, usize>>,
    /// The requests parsed wrongly, in file order.
    pub misses: Vec<Miss>,
}

/// Parses every request of `set` with `parse` and scores it.
pub fn score(set: &[Paraphrase], parse: impl Fn(&str) -> Ask) -> Understanding {
    let mut u = Understanding::default();
    for p in set {
        let got = parse(&p.text);
        let ok = right(&p.expected, &got);
        u.all.add(ok);
        u.by_split.entry(p.split.clone()).or_default().add(ok);
        u.by_category
            .entry(p.category.clone())
            .or_default()
            .entry(p.split.clone())
            .or_default()
            .add(ok);
        *u.confusion
            .entry(p.expected.kind().to_string())
            .or_default()
            .entry(got.kind().to_string())
            .or_default() += 1;
        if !ok {
            u.misses.push(Miss {
                split: p.split.clone(),
                text: p.text.clone(),
                expected: p.expected.to_string(),
                got: got.to_string(),
            });
        }
    }
    u
}

fn cell(t: Option<&Tally>) -> String {
    match t {
        Some(t) if t.all > 0 => format!("{}/{} ({:.0} %)", t.right, t.all, t.percent()),
        _ => "–".into(),
    }
}

/// The result as Markdown: totals by split, by category, and the confusion table of kinds
/// (rows: expected; columns: parsed).
pub fn markdown(u: &Understanding) -> String {
    let mut s = String::new();
    s.push_str("| requests | right |\n|---|---:|\n");
    s.push_str(&format!("| all | {} |\n", cell(Some(&u.all))));
    for (split, t) in &u.by_split {
        s.push_str(&format!("| {split} | {} |\n", cell(Some(t))));
    }
    let splits: Vec<&String> = u.by_split.keys().collect();
    s.push_str("\n| category |");
    for sp in &splits {
        s.push_str(&format!(" {sp} |"));
    }
    s.push_str("\n|---|");
    s.push_str(&"---:|".repeat(splits.len()));
    s.push('\n');
    for (c, by) in &u.by_category {
        s.push_str(&format!("| {c} |"));
        for sp in &splits {
            s.push_str(&format!(" {} |", cell(by.get(*sp))));
        }
        s.push('\n');
    }
    let mut cols: Vec<&String> = u.confusion.values().flat_map(|m| m.keys()).collect();
    cols.sort();
    cols.dedup();
    s.push_str("\nConfusion of kinds (rows: expected, columns: parsed):\n\n| expected |");
    for c in &cols {
        s.push_str(&format!(" {c} |"));
    }
    s.push_str("\n|---|");
    s.push_str(&"---:|".repeat(cols.len()));
    s.push('\n');
    for (e, row) in &u.confusion {
        s.push_str(&format!("| {e} |"));
        for c in &cols {
            match row.get(*c) {
                Some(n) => s.push_str(&format!(" {n} |")),
                None => s.push_str(" |"),
            }
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assistant::understand::{PeopleAsk, Target};

    fn ask(w: &str) -> Ask {
        Ask::parse(w).unwrap_or(Ask::Open)
    }

    #[test]
    fn a_parse_is_right_by_kind_predicate_and_target() {
        assert!(right(
            &ask("where_is bus stop"),
            &ask("where_is nearest bus stop")
        ));
        assert!(!right(&ask("where_is bus stop"), &ask("where_is bus")));
        assert!(!right(
            &ask("where_is bus stop"),
            &ask("where_is stop sign")
        ));
        assert!(!right(&ask("where_is cup"), &ask("object_query cup")));
        assert!(right(&ask("read_text"), &ask("read_text sign")));
        assert!(right(&ask("at_goal"), &ask("at_goal exit")));
        assert!(!right(&ask("people near"), &Ask::People(PeopleAsk::Any)));
        assert!(right(&ask("setting less"), &ask("setting less")));
        assert!(!right(&ask("setting less"), &ask("setting more")));
        assert!(!right(&ask("unsupported"), &Ask::Open));
        assert!(!right(&ask("goal exit"), &Ask::Goal(Target::none())));
    }

    #[test]
    fn scores_by_split_category_and_kind() {
        let set = vec![
            Paraphrase {
                category: "text".into(),
                split: "dev".into(),
                expected: ask("read_text sign"),
                text: "What does the sign say?".into(),
            },
            Paraphrase {
                category: "text".into(),
                split: "held".into(),
                expected: ask("read_text"),
                text: "What does it say?".into(),
            },
        ];
        let u = score(&set, |t| {
            if t.contains("sign") {
                ask("read_text sign")
            } else {
                Ask::Open
            }
        });
        assert_eq!(u.all, Tally { right: 1, all: 2 });
        assert_eq!(u.by_split["held"], Tally { right: 0, all: 1 });
        assert_eq!(u.confusion["read_text"]["open"], 1);
        assert_eq!(u.misses.len(), 1);
        assert!(markdown(&u).contains("| read_text | 1 |"));
    }

    #[test]
    fn bad_lines_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.tsv");
        std::fs::write(
            &p,
            "# c\ntext\tdev\tread_text\tRead it.\ntext\tdev\tdance\tDance.\n",
        )
        .unwrap();
        let e = read_paraphrases(&p).unwrap_err().to_string();
        assert!(e.contains(":3:") && e.contains("dance"), "{e}");
    }
}
