//! `vista score SESSION OUT [--json] [--latency] [--svg FILE] [--trace FILE] [--strict]`:
//! scores a run's `OUT/decisions.jsonl` and `OUT/transcript.jsonl` against the session's
//! ground truth (metrics defined in `vista::eval`), prints a table (or JSON), and optionally
//! the per-utterance latency, the SVG picture and a Chrome/Perfetto trace.

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;

use anyhow::{bail, Context};
use serde::Serialize;

use vista::eval::latency::{picture, run_latency, write_trace};
use vista::eval::{load, score, HazardTolerances, Scorecard, Targets};
use vista::profile::trace::TraceWriter;
use vista::report::plot::render_svg;
use vista::report::utterance::UtteranceReport;

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

#[derive(Serialize)]
struct Output<'a> {
    score: &'a Scorecard,
    #[serde(skip_serializing_if = "Option::is_none")]
    latency: Option<UtteranceReport>,
}

/// Runs `vista score`.
pub fn run(args: ScoreArgs) -> anyhow::Result<()> {
    if !(args.world_tolerance_m.is_finite() && args.world_tolerance_m >= 0.0) {
        bail!("--world-tolerance-m must be a non-negative number of metres");
    }
    let inputs = load(&args.session, &args.out).with_context(|| {
        format!(
            "scoring {} against {}",
            args.out.display(),
            args.session.display()
        )
    })?;
    let tol = HazardTolerances {
        world_m: args.world_tolerance_m,
        ..HazardTolerances::default()
    };
    let card = score(&inputs, &tol, &Targets::default());
    let need_latency = args.latency || args.svg.is_some() || args.trace.is_some();
    let run = need_latency.then(|| run_latency(&inputs, &card));
    let report = run
        .as_ref()
        .filter(|_| args.latency)
        .map(|r| r.latency.report());
    if args.json {
        let out = Output {
            score: &card,
            latency: report,
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print!("{}", card.to_table());
        if let Some(r) = &report {
            println!("\nper-utterance latency");
            print!("{}", r.to_table());
        }
    }
    if let (Some(path), Some(run)) = (&args.svg, &run) {
        let svg = render_svg(&picture(&inputs, &card, run));
        std::fs::write(path, svg).with_context(|| format!("writing {}", path.display()))?;
        log::info!("picture written to {}", path.display());
    }
    if let (Some(path), Some(run)) = (&args.trace, &run) {
        let file = File::create(path).with_context(|| format!("creating {}", path.display()))?;
        let mut w = TraceWriter::new(BufWriter::new(file))
            .with_context(|| format!("writing {}", path.display()))?;
        write_trace(&mut w, &inputs, &card, run);
        w.finish()
            .with_context(|| format!("writing {}", path.display()))?;
        log::info!("trace written to {}", path.display());
    }
    if args.strict && !card.pass {
        bail!("targets missed: {}", card.failures.join("; "));
    }
    Ok(())
}
