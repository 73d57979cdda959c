//! Judging items through any judge (the port [`Judge`]: a local GGUF model, or an
//! OpenAI-compatible endpoint): each item's prompt, its reply read as a verdict, a reply
//! that is not one (or a judge that fails) asked again a bounded number of times, then the
//! item marked unjudged and the run goes on. An unanswered request is scored 0 without
//! asking.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::frames::{JudgeFrame, SessionFrames};
use super::item::{items_from_run, JudgeItem};
use super::prompt::{user_message, InputData, SYSTEM};
use super::verdict::{parse_verdict, Score, Verdict};
use crate::eval::score_run::{score_run, ScoreOptions, ScoreRunError};
use crate::eval::HazardTolerances;

/// A judge: answers one prompt.
pub trait Judge {
    /// Its name in reports (the model or the endpoint).
    fn name(&self) -> String;
    /// True when it is shown the item's frames.
    fn sees_frames(&self) -> bool;
    /// The judge's reply to `system` and `user`, with the item's `frames` attached (empty for
    /// a judge that sees none).
    fn reply(&mut self, system: &str, user: &str, frames: &[JudgeFrame]) -> Result<String, String>;
}

/// One judged item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Judged {
    /// The item.
    pub item: JudgeItem,
    /// The verdict (`None`: unanswered, or unjudged).
    pub verdict: Option<Verdict>,
    /// Its score (`None`: unjudged).
    pub score: Option<Score>,
    /// Replies asked for.
    pub attempts: u32,
    /// Why the last attempt failed, when it did.
    pub error: Option<String>,
    /// The last reply, kept for audit.
    pub reply: Option<String>,
}

impl Judged {
    /// An item left unjudged without asking (its frames could not be shown, say).
    pub fn unjudged(item: &JudgeItem, error: String) -> Self {
        Self {
            item: item.clone(),
            verdict: None,
            score: None,
            attempts: 0,
            error: Some(error),
            reply: None,
        }
    }
}

/// The frames of each item, for a judge that sees them: the session of the item's run opened
/// once while its items come (items come run by run), its frames up to the item's request.
#[derive(Debug, Default)]
pub struct ItemFrames {
    current: Option<(String, Result<SessionFrames, String>)>,
}

impl ItemFrames {
    /// The frames of `item`, one of `runs`' items; why there are none.
    pub fn of(&mut self, runs: &[RunRef], item: &JudgeItem) -> Result<Vec<JudgeFrame>, String> {
        if self
            .current
            .as_ref()
            .is_none_or(|(run, _)| *run != item.run)
        {
            let opened = runs.iter().find(|r| r.name == item.run).map_or_else(
                || Err(format!("no session for run {}", item.run)),
                |r| SessionFrames::open(&r.session).map_err(|e| e.to_string()),
            );
            self.current = Some((item.run.clone(), opened));
        }
        match self.current.as_ref().map(|(_, f)| f) {
            Some(Ok(f)) => f.until(item.at_ns).map_err(|e| e.to_string()),
            Some(Err(e)) => Err(e.clone()),
            None => Err("no frames".into()),
        }
    }
}

/// Judges `item` of `runs` with `judge`, shown its frames when the judge sees frames (an
/// answered item whose frames cannot be shown is left unjudged, saying why).
pub fn judge_shown(
    judge: &mut dyn Judge,
    runs: &[RunRef],
    item: &JudgeItem,
    frames: &mut ItemFrames,
    retries: u32,
) -> Judged {
    if !judge.sees_frames() || item.prediction.trim().is_empty() {
        return judge_item(judge, item, &[], retries);
    }
    match frames.of(runs, item) {
        Ok(f) => judge_item(judge, item, &f, retries),
        Err(e) => Judged::unjudged(item, format!("frames: {e}")),
    }
}

/// Judges one item, shown `frames` (its clip's, when the judge sees frames): at most
/// `1 + retries` replies.
pub fn judge_item(
    judge: &mut dyn Judge,
    item: &JudgeItem,
    frames: &[JudgeFrame],
    retries: u32,
) -> Judged {
    if item.prediction.trim().is_empty() {
        return Judged {
            item: item.clone(),
            verdict: None,
            score: Some(Score {
                points: 0.0,
                total: 0.0,
                capped: false,
            }),
            attempts: 0,
            error: None,
            reply: None,
        };
    }
    let data = InputData {
        task_type: &item.task_type,
        question: &item.question,
        references: &item.references,
        prediction: &item.prediction,
    };
    let user = user_message(item.form, &data, judge.sees_frames());
    let mut out = Judged {
        item: item.clone(),
        verdict: None,
        score: None,
        attempts: 0,
        error: None,
        reply: None,
    };
    while out.attempts <= retries {
        out.attempts += 1;
        match judge.reply(SYSTEM, &user, frames) {
            Ok(text) => {
                let parsed = parse_verdict(&text);
                out.reply = Some(text);
                match parsed {
                    Ok(v) => {
                        out.score = Some(v.score());
                        out.verdict = Some(v);
                        out.error = None;
                        return out;
                    }
                    Err(e) => out.error = Some(format!("malformed verdict: {e}")),
                }
            }
            Err(e) => out.error = Some(e),
        }
    }
    out
}

/// A run to judge.
#[derive(Clone, Debug, PartialEq)]
pub struct RunRef {
    /// Its name in the items (a suite cell, or the run folder's name).
    pub name: String,
    /// The session folder (its ground truth and requests).
    pub session: PathBuf,
    /// The run's output folder.
    pub out: PathBuf,
    /// The task categories of its scenario.
    pub categories: Vec<String>,
}

/// The items of `runs`, each run scored first (its answers are what the wearer heard).
pub fn items_of(runs: &[RunRef]) -> Result<Vec<JudgeItem>, ScoreRunError> {
    let mut items = Vec::new();
    for r in runs {
        let scored = score_run(&ScoreOptions {
            session: r.session.clone(),
            out: r.out.clone(),
            world_tolerance_m: HazardTolerances::default().world_m,
            latency: false,
            latency_run: false,
        })?;
        items.extend(items_from_run(&r.name, &scored, &r.categories));
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::prompt::Form;

    /// A scripted judge (the rubric's arithmetic and the retries are what is tested here;
    /// the real judges are tested in tests/judge.rs).
    struct Scripted(Vec<Result<String, String>>, u32);

    impl Judge for Scripted {
        fn name(&self) -> String {
            "scripted".into()
        }
        fn sees_frames(&self) -> bool {
            false
        }
        fn reply(&mut self, _: &str, user: &str, _: &[JudgeFrame]) -> Result<String, String> {
            assert!(user.contains("\"question\":\"Where is the door?\""));
            self.1 += 1;
            if self.0.is_empty() {
                Err("no more".into())
            } else {
                self.0.remove(0)
            }
        }
    }

    fn item(prediction: &str) -> JudgeItem {
        JudgeItem {
            run: "r".into(),
            index: 0,
            form: Form::Qa,
            task_type: "question_1".into(),
            question: "Where is the door?".into(),
            at_ns: 0,
            references: vec!["The door is at 1 o'clock.".into()],
            prediction: prediction.into(),
            categories: vec![],
        }
    }

    const GOOD: &str = r#"{"evidence_grounding":1.5,"answer_correctness":1.5,"task_completion":1,"accessible_communication":0.5,"meaningfully_correct":true,"critical_error":false,"gt_conflict":false,"evidence_limited":false,"visual_evidence":"door","rationale":"right"}"#;

    #[test]
    fn a_malformed_reply_is_asked_again_then_given_up() {
        let mut j = Scripted(vec![Ok("not json".into()), Ok(GOOD.into())], 0);
        let r = judge_item(&mut j, &item("At 1 o'clock."), &[], 2);
        assert_eq!(r.attempts, 2);
        assert_eq!(r.score.unwrap().total, 4.5);
        assert_eq!(r.error, None);
        let mut j = Scripted(
            vec![Ok("{}".into()), Err("timed out".into()), Ok("{".into())],
            0,
        );
        let r = judge_item(&mut j, &item("At 1 o'clock."), &[], 2);
        assert_eq!(r.attempts, 3);
        assert_eq!(r.score, None);
        assert!(r.error.unwrap().contains("malformed"));
        assert_eq!(j.1, 3, "bounded: 1 + 2 retries");
    }

    #[test]
    fn an_unanswered_request_scores_zero_unasked() {
        let mut j = Scripted(vec![], 0);
        let r = judge_item(&mut j, &item("  "), &[], 2);
        assert_eq!(r.score.unwrap().total, 0.0);
        assert_eq!(j.1, 0);
    }
}
