//! `vista answer --state STATE.json [--form F] "request" [--check TEXT]`: the assistant's view
//! of one environment state — the state as a language model sees it, the template answer,
//! and, with `--check`, the safety guard's verdict on a generated text, sentence by sentence.

use std::path::PathBuf;

use anyhow::bail;

use vista::assistant::explain::{explain, load_state};
use vista::assistant::{Form, Verdict};

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
    let state = load_state(&args.state)?;
    let e = explain(form, &args.request, &state, args.check.as_deref());
    println!("--- state as text\n{}", e.state_text);
    println!(
        "--- template answer{}\n{}",
        if e.answer.unanswerable {
            " (unanswerable)"
        } else {
            ""
        },
        e.answer.text()
    );
    if args.check.is_some() {
        println!("--- guard");
        for (s, verdict) in &e.verdicts {
            match verdict {
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
