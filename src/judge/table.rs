//! Judged items added up in the shape of the paper's Tables 2–3 and 13: per response form,
//! per task category and overall, the mean score (0–5) and its four components, and the
//! flag rates (meaningfully correct, critical errors, below 2/5, conflicts with the
//! reference, evidence limited). An item the judge never answered validly is counted
//! apart and left out of the means; an unanswered request scores 0 in every component.
//! Pure.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::judging::Judged;

/// One row.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JudgeRow {
    /// Form, category, or `all`.
    pub name: String,
    /// Items.
    pub items: usize,
    /// Of them, scored (judged, or unanswered and scored 0).
    pub scored: usize,
    /// Left unjudged after the retries.
    pub unjudged: usize,
    /// Mean final score, 0–5.
    pub score: Option<f64>,
    /// Mean evidence grounding.
    pub evidence_grounding: Option<f64>,
    /// Mean answer correctness.
    pub answer_correctness: Option<f64>,
    /// Mean task completion.
    pub task_completion: Option<f64>,
    /// Mean accessible communication.
    pub accessible_communication: Option<f64>,
    /// Share meaningfully correct.
    pub meaningfully_correct: Option<f64>,
    /// Share with a critical error.
    pub critical_error: Option<f64>,
    /// Share scoring below 2/5.
    pub below_two: Option<f64>,
    /// Share conflicting with the reference.
    pub gt_conflict: Option<f64>,
    /// Share with an unverifiable claim.
    pub evidence_limited: Option<f64>,
}

#[derive(Default)]
struct Acc {
    items: usize,
    unjudged: usize,
    sums: [f64; 5],
    flags: [usize; 5],
    n: usize,
}

impl Acc {
    fn add(&mut self, j: &Judged) {
        self.items += 1;
        let Some(score) = j.score else {
            self.unjudged += 1;
            return;
        };
        self.n += 1;
        self.sums[0] += score.total;
        if let Some(v) = &j.verdict {
            self.sums[1] += v.evidence_grounding;
            self.sums[2] += v.answer_correctness;
            self.sums[3] += v.task_completion;
            self.sums[4] += v.accessible_communication;
            self.flags[0] += usize::from(v.meaningfully_correct);
            self.flags[1] += usize::from(v.critical_error);
            self.flags[3] += usize::from(v.gt_conflict);
            self.flags[4] += usize::from(v.evidence_limited);
        }
        self.flags[2] += usize::from(score.total < 2.0);
    }

    fn finish(self, name: &str) -> JudgeRow {
        let n = self.n as f64;
        let mean = |s: f64| (self.n > 0).then(|| s / n);
        let share = |k: usize| (self.n > 0).then(|| self.flags[k] as f64 / n);
        JudgeRow {
            name: name.to_string(),
            items: self.items,
            scored: self.n,
            unjudged: self.unjudged,
            score: mean(self.sums[0]),
            evidence_grounding: mean(self.sums[1]),
            answer_correctness: mean(self.sums[2]),
            task_completion: mean(self.sums[3]),
            accessible_communication: mean(self.sums[4]),
            meaningfully_correct: share(0),
            critical_error: share(1),
            below_two: share(2),
            gt_conflict: share(3),
            evidence_limited: share(4),
        }
    }
}

/// The tables of a judged run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JudgeTables {
    /// All items.
    pub all: JudgeRow,
    /// Per response form (scene, qa, guidance).
    pub forms: Vec<JudgeRow>,
    /// Per task category (an item counts for each category of its scenario).
    pub categories: Vec<JudgeRow>,
}

/// Adds up `judged`.
pub fn tables(judged: &[Judged]) -> JudgeTables {
    let mut all = Acc::default();
    let mut forms: BTreeMap<super::prompt::Form, Acc> = BTreeMap::new();
    let mut cats: BTreeMap<String, Acc> = BTreeMap::new();
    for j in judged {
        all.add(j);
        forms.entry(j.item.form).or_default().add(j);
        for c in &j.item.categories {
            cats.entry(c.clone()).or_default().add(j);
        }
    }
    JudgeTables {
        all: all.finish("all"),
        forms: forms.into_iter().map(|(f, a)| a.finish(f.name())).collect(),
        categories: cats.into_iter().map(|(c, a)| a.finish(&c)).collect(),
    }
}

fn num(v: Option<f64>) -> String {
    v.map_or("–".into(), |x| format!("{x:.2}"))
}

fn pct(v: Option<f64>) -> String {
    v.map_or("–".into(), |x| format!("{:.0} %", x * 100.0))
}

/// Markdown: one table by form and overall, one by category.
pub fn markdown(t: &JudgeTables, judge: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Judge: {judge}. Score 0–5; EG evidence grounding (0–1.75), AC answer correctness (0–1.75), TC task completion (0–1), ACom accessible communication (0–0.5); a critical error caps the score at 1.95.\n");
    let header = "| | items | scored | unjudged | score | EG | AC | TC | ACom | correct | critical | < 2/5 | conflict | unverifiable |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|";
    let row = |r: &JudgeRow| {
        format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.name,
            r.items,
            r.scored,
            r.unjudged,
            num(r.score),
            num(r.evidence_grounding),
            num(r.answer_correctness),
            num(r.task_completion),
            num(r.accessible_communication),
            pct(r.meaningfully_correct),
            pct(r.critical_error),
            pct(r.below_two),
            pct(r.gt_conflict),
            pct(r.evidence_limited),
        )
    };
    let _ = writeln!(s, "By response form:\n\n{header}");
    for r in &t.forms {
        let _ = writeln!(s, "{}", row(r));
    }
    let mut all = t.all.clone();
    all.name = "**all**".into();
    let _ = writeln!(s, "{}\n\nBy task category:\n\n{header}", row(&all));
    for r in &t.categories {
        let _ = writeln!(s, "{}", row(r));
    }
    s
}
