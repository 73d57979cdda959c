//! `vista score SESSION OUT [--json] [--latency] [--svg FILE] [--trace FILE] [--strict]`:
//! scores a run's `OUT/decisions.jsonl` and `OUT/transcript.jsonl` against the session's
//! ground truth (metrics defined in `vista::eval`), prints a table (or JSON), and optionally
//! the per-utterance latency, the SVG picture and a Chrome/Perfetto trace.

use std::path::PathBuf;

use anyhow::bail;

use vista::eval::score_run::{score_run, ScoreOptions};

/// Arguments of `vista score`.
#[derive(Debug, clap::Args)]
pub struct ScoreArgs {
    /// Session folder (`ground_truth.json`, `requests.jsonl`, `mps/`, `recording.vrs`).
    pub session: PathBuf,
    /// The run's output folder (`decisions.jsonl`, `transcript.jsonl`).
    pub out: PathBuf,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Also print (or, with --json, include) the per-utterance latency.
    #[arg(long)]
    pub latency: bool,
    /// Write the latency picture as SVG.
    #[arg(long)]
    pub svg: Option<PathBuf>,
    /// Write a Chrome/Perfetto trace of the utterances.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Exit with an error when a target is missed.
    #[arg(long)]
    pub strict: bool,
    /// World-position tolerance for matching an alert to a hazard, m.
    #[arg(long, default_value_t = 1.0)]
    pub world_tolerance_m: f64,
}

/// Runs `vista score`.
pub fn run(args: ScoreArgs) -> anyhow::Result<()> {
    let scored = score_run(&ScoreOptions {
        session: args.session,
        out: args.out,
        world_tolerance_m: args.world_tolerance_m,
        latency: args.latency,
        latency_run: args.svg.is_some() || args.trace.is_some(),
    })?;
    if args.json {
        println!("{}", scored.to_json()?);
    } else {
        print!("{}", scored.card.to_table());
        if let Some(r) = &scored.latency {
            println!("\nper-utterance latency");
            print!("{}", r.to_table());
        }
    }
    if let Some(path) = &args.svg {
        scored.write_svg(path)?;
    }
    if let Some(path) = &args.trace {
        scored.write_trace(path)?;
    }
    if args.strict && !scored.card.pass {
        bail!("targets missed: {}", scored.card.failures.join("; "));
    }
    Ok(())
}
