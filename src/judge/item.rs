//! The items a judge scores: each request of a scored run, in the paper's shape — its
//! annotation type (`scene_description`, `question_<n>`, `goal_<n>`), the question, the
//! references and the prediction (the answer the wearer heard). A synthetic session has no
//! written reference answer; its reference is the facts a correct answer must hold, in one
//! sentence each. Pure.

use serde::{Deserialize, Serialize};

use super::prompt::Form;
use crate::eval::score_run::ScoredRun;

/// One item to judge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JudgeItem {
    /// The run it comes from (a suite cell, or the run folder's name).
    pub run: String,
    /// 0-based request index in the session.
    pub index: usize,
    /// Response form.
    pub form: Form,
    /// The paper's annotation type.
    pub task_type: String,
    /// What the wearer asked.
    pub question: String,
    /// When it was asked, device ns (the end of the clip a judge is shown).
    #[serde(default)]
    pub at_ns: i64,
    /// Reference answers (alternatives; one here).
    pub references: Vec<String>,
    /// The answer heard (empty: unanswered).
    pub prediction: String,
    /// The task categories of its scenario.
    pub categories: Vec<String>,
}

/// The facts as one reference answer: each a sentence, capitalised and full-stopped.
pub fn reference_from_facts(facts: &[String]) -> Option<String> {
    let sentences: Vec<String> = facts
        .iter()
        .map(|f| f.trim())
        .filter(|f| !f.is_empty())
        .map(|f| {
            let mut c = f.chars();
            let first: String = c
                .next()
                .map(|x| x.to_uppercase().collect())
                .unwrap_or_default();
            let rest = c.as_str();
            let end = if rest.ends_with(['.', '!', '?']) {
                ""
            } else {
                "."
            };
            format!("{first}{rest}{end}")
        })
        .collect();
    (!sentences.is_empty()).then(|| sentences.join(" "))
}

/// The items of one scored run (requests whose form is not one of the paper's are left
/// out).
pub fn items_from_run(run: &str, scored: &ScoredRun, categories: &[String]) -> Vec<JudgeItem> {
    let mut seen = std::collections::BTreeMap::<Form, usize>::new();
    let truth = &scored.inputs.truth.requests;
    scored
        .card
        .requests
        .iter()
        .filter_map(|r| {
            let line = scored.inputs.requests.get(r.index)?;
            let form = Form::from_request(&line.form)?;
            let n = seen.entry(form).or_insert(0);
            *n += 1;
            let facts = truth
                .get(r.index)
                .map(|t| t.facts.as_slice())
                .unwrap_or_default();
            Some(JudgeItem {
                run: run.to_string(),
                index: r.index,
                form,
                task_type: form.task_type(*n),
                question: r.text.clone(),
                at_ns: line.t_ns,
                references: reference_from_facts(facts).into_iter().collect(),
                prediction: if r.answered {
                    r.answer.clone()
                } else {
                    String::new()
                },
                categories: categories.to_vec(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_become_one_reference_of_sentences() {
        let facts = vec![
            "the sign says \"EXIT\"".to_string(),
            " ".to_string(),
            "the door is at 1 o'clock, about 6 m.".to_string(),
        ];
        assert_eq!(
            reference_from_facts(&facts).unwrap(),
            "The sign says \"EXIT\". The door is at 1 o'clock, about 6 m."
        );
        assert_eq!(reference_from_facts(&[]), None);
    }
}
