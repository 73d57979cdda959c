//! `vista judge (--suite DIR… | --session S OUT) [--model GGUF] [--retries N] [--limit N]
//! --out DIR`: every answer of the runs scored with the paper's judge prompt and rubric by
//! a local GGUF model (cargo feature `llm`); writes `judged.jsonl` (each item, its verdict,
//! score and the judge's reply), `judge.json` and `judge.md` (tables per response form and
//! task category).

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Context};

use vista::judge::judging::{items_of, RunRef};
use vista::judge::local::LocalJudge;
use vista::judge::table::markdown;
use vista::judge::{judge_item, tables, Judge};
use vista::suite::run::scored_cells;

/// Arguments of `vista judge`.
#[derive(Debug, clap::Args)]
pub struct JudgeArgs {
    /// `vista eval` output folders: every scored cell.
    #[arg(long, num_args = 1.., conflicts_with = "session")]
    pub suite: Vec<PathBuf>,
    /// A session folder, with the run's output folder as the argument.
    #[arg(long, requires = "run")]
    pub session: Option<PathBuf>,
    /// The run's output folder (with --session).
    pub run: Option<PathBuf>,
    /// GGUF model that judges (default: the fetched SmolLM2).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Threads for the model.
    #[arg(long, default_value_t = 2)]
    pub threads: u32,
    /// A reply that is not a verdict is asked again this many times.
    #[arg(long, default_value_t = 2)]
    pub retries: u32,
    /// Judge at most this many items.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Output folder.
    #[arg(long)]
    pub out: PathBuf,
}

/// Runs `vista judge`.
pub fn run(args: JudgeArgs) -> anyhow::Result<()> {
    let mut runs = Vec::new();
    for dir in &args.suite {
        for c in scored_cells(dir)? {
            runs.push(RunRef {
                name: c.name,
                session: c.session,
                out: c.out,
                categories: c.categories,
            });
        }
    }
    if let (Some(session), Some(run)) = (&args.session, &args.run) {
        runs.push(RunRef {
            name: run
                .file_name()
                .map_or("run".into(), |n| n.to_string_lossy().into_owned()),
            session: session.clone(),
            out: run.clone(),
            categories: Vec::new(),
        });
    }
    if runs.is_empty() {
        bail!("nothing to judge: give --suite DIR, or --session S and a run folder");
    }
    let mut items = items_of(&runs)?;
    if let Some(n) = args.limit {
        items.truncate(n);
    }
    let model = match &args.model {
        Some(m) => m.clone(),
        None => vista::infer::llm::default_model_path(args.threads)?,
    };
    let mut judge = LocalJudge::load(&model, args.threads)
        .with_context(|| format!("loading the judge {}", model.display()))?;
    std::fs::create_dir_all(&args.out).with_context(|| args.out.display().to_string())?;
    let lines_path = args.out.join("judged.jsonl");
    let mut lines =
        std::fs::File::create(&lines_path).with_context(|| lines_path.display().to_string())?;
    println!(
        "{} item(s) from {} run(s); judge {}",
        items.len(),
        runs.len(),
        judge.name()
    );
    let mut judged = Vec::with_capacity(items.len());
    for (k, item) in items.iter().enumerate() {
        let j = judge_item(&mut judge, item, args.retries);
        println!(
            "[{}/{}] {} #{} {}: {}",
            k + 1,
            items.len(),
            j.item.run,
            j.item.index,
            j.item.task_type,
            match (&j.score, &j.error) {
                (Some(s), _) =>
                    format!("{:.2}{}", s.total, if s.capped { " (capped)" } else { "" }),
                (None, Some(e)) => format!("unjudged after {} attempt(s): {e}", j.attempts),
                (None, None) => "unjudged".into(),
            }
        );
        writeln!(lines, "{}", serde_json::to_string(&j)?)
            .with_context(|| lines_path.display().to_string())?;
        judged.push(j);
    }
    let t = tables(&judged);
    let md = markdown(&t, &judge.name());
    std::fs::write(args.out.join("judge.md"), &md)?;
    std::fs::write(
        args.out.join("judge.json"),
        serde_json::to_string_pretty(&t)? + "\n",
    )?;
    print!("{md}");
    Ok(())
}
