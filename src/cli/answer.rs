//! `vista answer --state STATE.json [--form F] "request" [--check TEXT]`: the assistant's view
//! of one environment state — the state as a language model sees it, the template answer,
//! and, with `--check`, the safety guard's verdict on a generated text, sentence by sentence.

use std::path::PathBuf;

use anyhow::{bail, Context};

use vista::assistant::guard::claims::split_sentences;
use vista::assistant::intent::{classify, goal_target, resolve, Intent};
use vista::assistant::template::answer;
use vista::assistant::{render_state, Form, Guard, Verdict};
use vista::state::EnvironmentState;

/// Arguments of `vista answer`.
#[derive(Debug, clap::Args)]
pub struct AnswerArgs {
    /// What the user says.
    pub request: String,
    /// An `EnvironmentState` as JSON.
    #[arg(long)]
    pub state: PathBuf,
    /// Response form: scene, question, goal or ambient.
    #[arg(long, default_value = "question")]
    pub form: String,
    /// A generated answer to check with the safety guard.
    #[arg(long)]
    pub check: Option<String>,
}

/// Runs `vista answer`.
pub fn run(args: AnswerArgs) -> anyhow::Result<()> {
    let Some(form) = Form::parse(&args.form) else {
        bail!(
            "--form must be scene, question, goal or ambient, got {:?}",
            args.form
        );
    };
    let text = std::fs::read_to_string(&args.state)
        .with_context(|| format!("reading {}", args.state.display()))?;
    let state: EnvironmentState = serde_json::from_str(&text)
        .with_context(|| format!("{}: not an environment state", args.state.display()))?;
    println!("--- state as text\n{}", render_state(&state));
    let a = answer(form, &args.request, &state);
    println!(
        "--- template answer{}\n{}",
        if a.unanswerable {
            " (unanswerable)"
        } else {
            ""
        },
        a.text()
    );
    if let Some(check) = &args.check {
        let target = match form {
            Form::Goal => goal_target(&args.request, &state),
            Form::Question => match classify(&args.request) {
                Intent::WhereIs(w) => resolve(&w, &state),
                _ => None,
            },
            _ => None,
        };
        let guard = Guard::default();
        println!("--- guard");
        for s in split_sentences(check) {
            match guard.check_sentence(&s, &state, target) {
                Verdict::Pass => println!("pass     {s}"),
                Verdict::Block {
                    reason,
                    replacement,
                } => {
                    println!("BLOCKED  {s}\n         because {reason}");
                    match replacement {
                        Some(r) => println!("         said instead: {r}"),
                        None => println!("         removed"),
                    }
                }
            }
        }
    }
    Ok(())
}
