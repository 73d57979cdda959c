//! `vista judge (--suite DIR… | --session S OUT) [--model GGUF | --endpoint URL]
//! [--retries N] [--limit N] --out DIR`: every answer of the runs scored with the paper's
//! judge prompt and rubric by a local GGUF model (cargo feature `llm`) or by a model behind
//! an OpenAI-compatible endpoint (a `llama-server` or vLLM a user runs); writes
//! `judged.jsonl` (each item, its verdict, score and the judge's reply), `judge.json` and
//! `judge.md` (tables per response form and task category).

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Context};

use vista::judge::http::{HttpJudge, HttpJudgeConfig};
use vista::judge::judging::{items_of, judge_shown, ItemFrames, RunRef};
use vista::judge::table::markdown;
use vista::judge::{tables, Judge};
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
    /// GGUF model that judges here (default: the fetched SmolLM2; cargo feature `llm`).
    #[arg(long, conflicts_with = "endpoint")]
    pub model: Option<PathBuf>,
    /// Threads for the local model.
    #[arg(long, default_value_t = 2)]
    pub threads: u32,
    /// Judge through an OpenAI-compatible endpoint instead, e.g.
    /// `http://127.0.0.1:8080/v1` (llama.cpp's `llama-server`, vLLM).
    #[arg(long)]
    pub endpoint: Option<String>,
    /// The endpoint's model to ask for (default: the first it serves).
    #[arg(long, requires = "endpoint")]
    pub endpoint_model: Option<String>,
    /// The environment variable holding the endpoint's API key (sent as a bearer token).
    #[arg(long, requires = "endpoint")]
    pub api_key_env: Option<String>,
    /// Deadline of one request to the endpoint, seconds.
    #[arg(long, default_value_t = 120.0, requires = "endpoint")]
    pub timeout_s: f64,
    /// Show the endpoint's model each item's eight frames, as the paper's judge sees them
    /// (a vision-language model: the RGB camera's frames from the session's start to the
    /// request, sampled uniformly, upright, JPEG).
    #[arg(long, requires = "endpoint")]
    pub frames: bool,
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
    let mut judge = judge_of(&args)?;
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
    let mut frames = ItemFrames::default();
    for (k, item) in items.iter().enumerate() {
        let j = judge_shown(judge.as_mut(), &runs, item, &mut frames, args.retries);
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

/// The judge the arguments name: an endpoint, or a local model.
fn judge_of(args: &JudgeArgs) -> anyhow::Result<Box<dyn Judge>> {
    if let Some(endpoint) = &args.endpoint {
        if !(args.timeout_s.is_finite() && args.timeout_s > 0.0 && args.timeout_s <= 3600.0) {
            bail!("--timeout-s {}: give 0 to 3600 seconds", args.timeout_s);
        }
        let api_key = match &args.api_key_env {
            Some(var) => Some(std::env::var(var).with_context(|| {
                format!("--api-key-env {var}: the variable is not set (or not UTF-8)")
            })?),
            None => None,
        };
        let judge = HttpJudge::connect(HttpJudgeConfig {
            base_url: endpoint.clone(),
            model: args.endpoint_model.clone(),
            api_key,
            timeout: std::time::Duration::from_secs_f64(args.timeout_s),
            frames: args.frames,
        })?;
        return Ok(Box::new(judge));
    }
    local_judge(args)
}

#[cfg(feature = "llm")]
fn local_judge(args: &JudgeArgs) -> anyhow::Result<Box<dyn Judge>> {
    let model = match &args.model {
        Some(m) => m.clone(),
        None => vista::infer::llm::default_model_path(args.threads)?,
    };
    let judge = vista::judge::local::LocalJudge::load(&model, args.threads)
        .with_context(|| format!("loading the judge {}", model.display()))?;
    Ok(Box::new(judge))
}

#[cfg(not(feature = "llm"))]
fn local_judge(_args: &JudgeArgs) -> anyhow::Result<Box<dyn Judge>> {
    bail!("a local judge needs the cargo feature `llm`; give --endpoint URL to judge through a server")
}
