//! `vista eval SUITE --seeds N --jobs J [--shard I/N] --out DIR [--baseline FILE] [-- REPLAY…]`
//! and `vista eval --merge SHARD_DIR… --out DIR`: a suite of scenarios × seeds × modes,
//! written, replayed in lock step, scored and reported (`DIR/report.md`, `report.json`,
//! `report.svg`); resumable; fails on failed cells, on a stop, or on a regression against
//! the baseline.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::{bail, Context};

use vista::stop::{stop_on_interrupt, StopHandle};
use vista::suite::cell::{CellResult, Outcome};
use vista::suite::plan::{mode_name, parse_mode};
use vista::suite::render::{markdown, svg};
use vista::suite::run::{add_wall_time, load_results, read_json, wall_time, write_json, Layout};
use vista::suite::{
    merge, read_suite, regressions, run_suite, tally, Plan, Report, Shard, SuiteOptions,
};
use vista::synth::device::SynthDevice;

/// Arguments of `vista eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// A folder of scenario files, or a list (one entry a line: a scenario name or file,
    /// `NAME duration=S`, or `session FOLDER`).
    #[arg(required_unless_present = "merge")]
    pub suite: Option<PathBuf>,
    /// Seeds 0..N for every scenario.
    #[arg(long, default_value_t = 1, conflicts_with = "seed_list")]
    pub seeds: u64,
    /// These seeds instead (comma separated).
    #[arg(long, value_delimiter = ',')]
    pub seed_list: Vec<u64>,
    /// Modes, live first by default (comma separated: live, offline).
    #[arg(long, value_delimiter = ',', default_value = "live,offline")]
    pub modes: Vec<String>,
    /// The glasses the scenarios' sessions imitate (`vista synth --device`).
    #[arg(long, value_enum, default_value_t = SynthDevice::Gen1)]
    pub device: SynthDevice,
    /// Sessions run at once (default: half the cores, at least 1).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Run only shard I of N (1-based: a job array's task id).
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// The output folder (a second run into it goes on where the first stopped).
    #[arg(long)]
    pub out: PathBuf,
    /// Merge these shard folders into --out instead of running.
    #[arg(long, num_args = 1.., conflicts_with = "suite")]
    pub merge: Vec<PathBuf>,
    /// A report.json to compare with: a count that got worse fails the command.
    #[arg(long)]
    pub baseline: Option<PathBuf>,
    /// The longest one step (writing a session, or one replay) may run, s.
    #[arg(long, default_value_t = 3600)]
    pub step_limit_s: u64,
    /// Where scenario names are looked up.
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios"))]
    pub scenarios: PathBuf,
    /// Each run also as a Rerun recording, `OUT/runs/CELL/run.rrd` (a build with
    /// `--features rerun`).
    #[arg(long)]
    pub rerun: bool,
    /// Options for every `vista replay` (after `--`, e.g. `-- --no-lm`).
    #[arg(last = true)]
    pub replay: Vec<String>,
}

/// Runs `vista eval`.
pub fn run(args: EvalArgs) -> anyhow::Result<()> {
    // As a user would type it: `vista`, not the binary's path.
    let command = std::iter::once("vista".to_string())
        .chain(std::env::args().skip(1))
        .collect::<Vec<_>>()
        .join(" ");
    let baseline: Option<Report> = match &args.baseline {
        Some(p) => Some(read_json(p)?),
        None => None,
    };
    let layout = Layout {
        out: args.out.clone(),
    };
    if !args.merge.is_empty() {
        let (plan, results) = merge(&args.out, &args.merge)?;
        println!(
            "merged {} shard folder(s): {} cells",
            args.merge.len(),
            results.len()
        );
        let report = tally(&plan, &results);
        return finish(report, &layout, baseline.as_ref(), &args, &command);
    }
    let Some(suite) = &args.suite else {
        bail!("name a suite (a folder of scenarios or a list)");
    };
    let mut modes = Vec::new();
    for m in &args.modes {
        let mode =
            parse_mode(m).with_context(|| format!("--modes: {m:?} is not live or offline"))?;
        if !modes.contains(&mode) {
            modes.push(mode);
        }
    }
    let seeds: Vec<u64> = if args.seed_list.is_empty() {
        if args.seeds == 0 || args.seeds > 1000 {
            bail!("--seeds must be within 1..=1000, got {}", args.seeds);
        }
        (0..args.seeds).collect()
    } else {
        args.seed_list.clone()
    };
    let plan = Plan {
        entries: read_suite(suite, &args.scenarios)?,
        seeds,
        modes,
        replay_args: args.replay.clone(),
        device: args.device,
    };
    let shard = match &args.shard {
        Some(s) => Shard::parse(s)?,
        None => Shard::ALL,
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs = args.jobs.unwrap_or((cores / 2).max(1));
    if jobs == 0 || jobs > 256 {
        bail!("--jobs must be within 1..=256, got {jobs}");
    }
    let vista = std::env::current_exe().context("finding the vista binary")?;
    let options = SuiteOptions {
        vista,
        out: args.out.clone(),
        plan: plan.clone(),
        shard,
        jobs,
        step_limit: Duration::from_secs(args.step_limit_s.max(1)),
        synth_threads: Some((cores / jobs).max(1)),
        rerun: args.rerun,
    };
    let total = shard.select(&plan.sessions()).len() * plan.modes.len();
    println!(
        "{}: {} entries × {} seed(s) × {} mode(s); shard {shard}: {total} cells, {jobs} at a time",
        suite.display(),
        plan.entries.len(),
        plan.seeds.len(),
        plan.modes.len()
    );
    let stop = StopHandle::new();
    stop_on_interrupt(&stop);
    let done = AtomicUsize::new(0);
    let on_cell = |r: &CellResult| {
        let k = done.fetch_add(1, Ordering::Relaxed) + 1;
        println!("[{k}] {}", describe(r));
    };
    let outcome = run_suite(&options, &stop, &on_cell)?;
    println!(
        "{} cells: {} finished before, {} scored now, {} failed, in {:.0} s",
        outcome.cells, outcome.finished_before, outcome.scored, outcome.failed, outcome.wall_s
    );
    add_wall_time(&layout, outcome.wall_s)?;
    let results = load_results(&layout, &plan);
    let report = tally(&plan, &results);
    if outcome.stopped {
        write_reports(&with_wall_time(report, &layout), &layout, &command)?;
        bail!(
            "stopped: {} of {} cells finished; run the same command again to go on",
            outcome.finished_before + outcome.scored,
            outcome.cells
        );
    }
    finish(report, &layout, baseline.as_ref(), &args, &command)
}

/// One line about a recorded cell.
fn describe(r: &CellResult) -> String {
    match &r.outcome {
        Outcome::Scored(s) => format!(
            "{}: hazards {}/{}, false alerts {}, facts {}/{}, replay {:.1} s",
            r.cell,
            s.hazards_caught,
            s.hazards_relevant,
            s.false_alerts,
            s.requests.iter().map(|q| q.facts_present).sum::<usize>(),
            s.requests.iter().map(|q| q.facts_required).sum::<usize>(),
            r.replay_wall_s.unwrap_or(0.0)
        ),
        Outcome::Failed { stage, error } => format!("{}: FAILED ({stage:?}): {error}", r.cell),
    }
}

/// `report` with the folder's wall time over every run into it.
fn with_wall_time(mut report: Report, layout: &Layout) -> Report {
    if let Some(w) = wall_time(layout) {
        report.cost.wall_s = Some(w.wall_s);
        report.cost.runs = w.runs;
    }
    report
}

fn write_reports(report: &Report, layout: &Layout, command: &str) -> anyhow::Result<()> {
    write_json(&layout.out.join("report.json"), report)?;
    let md = layout.out.join("report.md");
    std::fs::write(&md, markdown(report, command)).with_context(|| md.display().to_string())?;
    let plot = layout.out.join("report.svg");
    std::fs::write(&plot, svg(report)).with_context(|| plot.display().to_string())?;
    Ok(())
}

/// Compares with the baseline, writes the reports, prints the totals, and fails on failed
/// cells or regressions.
fn finish(
    mut report: Report,
    layout: &Layout,
    baseline: Option<&Report>,
    args: &EvalArgs,
    command: &str,
) -> anyhow::Result<()> {
    report = with_wall_time(report, layout);
    if let (Some(base), Some(path)) = (baseline, &args.baseline) {
        report.regressions = regressions(&report, base)
            .map_err(|why| anyhow::anyhow!("baseline {}: {why}", path.display()))?;
    }
    write_reports(&report, layout, command)?;
    for m in &report.modes {
        let t = &m.total;
        println!(
            "{:<8} hazards {}/{}, false alerts {}, wrong kind {}, unsafe {}, facts {}/{}, passed {}/{}",
            mode_name(m.mode),
            t.hazards_caught,
            t.hazards_relevant,
            t.false_alerts,
            t.wrong_kind_alerts,
            t.unsafe_speech,
            t.facts_present,
            t.facts_required,
            t.passed,
            t.requests
        );
    }
    println!("report: {}", layout.out.join("report.md").display());
    if !report.failed.is_empty() {
        bail!(
            "{} cell(s) failed: {}",
            report.failed.len(),
            report
                .failed
                .iter()
                .map(|f| f.cell.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if !report.regressions.is_empty() {
        bail!(
            "{} regression(s) against the baseline: {}",
            report.regressions.len(),
            report.regressions.join("; ")
        );
    }
    Ok(())
}
