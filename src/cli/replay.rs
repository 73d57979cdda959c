//! `vista replay SESSION [--rate R | --asap] [--from S] [--to S] [--profile FILE]`: streams a
//! recorded session into the runtime exactly as it would have arrived live, and reports
//! per-stream delivery and pacing; with `--speak DIR`, the whole assistant on it. The
//! flags become a [`Pipeline`]; this file shows progress and prints its report.

use std::path::PathBuf;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use vista::pipeline::{Input, Pace, Pipeline, ReplayInput};
use vista::runtime::ProgressSnapshot;

/// Arguments of `vista replay`.
#[derive(Debug, clap::Args)]
pub struct ReplayArgs {
    /// A session folder (`recording.vrs`, optional `mps/`) or a bare `.vrs` file.
    pub session: PathBuf,
    /// Replay speed factor (1 = real time).
    #[arg(long, default_value_t = 1.0, conflicts_with = "asap")]
    pub rate: f64,
    /// As fast as possible and deterministic (virtual clock, lock-step consumers).
    #[arg(long)]
    pub asap: bool,
    /// Start this many seconds after the recording's first sample.
    #[arg(long, value_name = "SECONDS")]
    pub from: Option<f64>,
    /// Stop this many seconds after the recording's first sample.
    #[arg(long, value_name = "SECONDS")]
    pub to: Option<f64>,
    /// Replay the session this many extra times (soak tests).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub loops: u32,
    /// Leave out MPS-derived streams (eye gaze, hands, trajectory): what live input sees.
    #[arg(long)]
    pub recorded_only: bool,
    /// Plausibility window of capture times, seconds: a sample this far from its
    /// neighbours, or this far ahead of the session clock, is left out as a corrupt
    /// timestamp and counted (never the new "now").
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    pub max_clock_jump_s: f64,
    /// Write the report as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// Coalesce wake-ups: samples due within this many µs of the last wake-up are delivered
    /// together (never early). 0 = wake for every sample. Trades pacing accuracy for CPU.
    #[arg(long, default_value_t = 0, value_name = "US")]
    pub pacing_granularity_us: u32,
    /// Print a digest of the delivered sample sequence (identical for identical runs).
    #[arg(long)]
    pub digest: bool,
    /// No progress display.
    #[arg(long, short)]
    pub quiet: bool,
    /// A Rerun recording of the run.
    #[command(flatten)]
    pub view: super::rerun::RerunArgs,
    /// The assistant (`--speak DIR` and its options).
    #[command(flatten)]
    pub speak: super::speak::SpeakArgs,
}

/// Runs `vista replay`.
pub fn run(args: ReplayArgs) -> anyhow::Result<()> {
    let input = ReplayInput {
        session: args.session,
        pace: if args.asap {
            Pace::LockStep
        } else {
            Pace::RealTime { rate: args.rate }
        },
        from_s: args.from,
        to_s: args.to,
        extra_loops: args.loops,
        recorded_only: args.recorded_only,
        max_clock_jump_s: args.max_clock_jump_s,
        pacing_granularity_us: args.pacing_granularity_us,
        digest: args.digest,
    };
    let mut pipeline = Pipeline::new(Input::Replay(input))
        .handle_signals(true)
        .with_view(args.view.target());
    if let Some(options) = args.speak.options()? {
        pipeline = pipeline.with_assistant(options);
    }
    if let Some(path) = args.profile {
        pipeline = pipeline.with_profile_file(path);
    }
    run_pipeline(pipeline, args.quiet, args.asap)
}

/// Runs a replay `pipeline` with a progress display (unless `quiet`), prints its report,
/// and fails when the run stopped on an error.
pub fn run_pipeline(pipeline: Pipeline, quiet: bool, asap: bool) -> anyhow::Result<()> {
    let bar = (!quiet).then(|| progress_bar(asap));
    let pipeline = match bar.clone() {
        Some(bar) => pipeline.with_progress(Box::new(move |duration_s: f64| {
            bar.set_length((duration_s * 1000.0).max(1.0) as u64);
            progress_fn(bar, asap)
        })),
        None => pipeline,
    };
    let outcome = pipeline.run();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let outcome = outcome?;
    print!("{}", outcome.stream_table);
    if let Some(report) = &outcome.assistant_report {
        print!("{report}");
    }
    if outcome.stop_reason.is_error() {
        anyhow::bail!("replay stopped: {:?}", outcome.stop_reason);
    }
    Ok(())
}

/// The progress display (its length, in ms of device time, is set when the run knows it).
fn progress_bar(asap: bool) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(1), ProgressDrawTarget::stderr_with_hz(5));
    let style = if asap {
        ProgressStyle::with_template("{bar:40} {pos}/{len} ms device time {msg}")
    } else {
        ProgressStyle::with_template("{spinner} {elapsed} {msg}")
    };
    if let Ok(s) = style {
        bar.set_style(s);
    }
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// The runtime's progress callback, drawing on `bar`.
fn progress_fn(bar: ProgressBar, asap: bool) -> vista::runtime::ProgressFn {
    let mut last: Option<(f64, Vec<(vista::sample::StreamId, u64)>)> = None;
    Box::new(move |p: &ProgressSnapshot| {
        if let (Some(a), Some(b)) = (p.first_capture, p.capture) {
            bar.set_position((b.since(a) as f64 * 1e-6) as u64);
        }
        if asap {
            bar.set_message(format!("{} samples", p.delivered));
            return;
        }
        // Live per-stream rates over the last interval.
        let rates = match &last {
            Some((t0, counts)) if p.elapsed_s > *t0 => {
                let dt = p.elapsed_s - t0;
                p.per_stream
                    .iter()
                    .map(|(s, n)| {
                        let before = counts.iter().find(|(x, _)| x == s).map_or(0, |(_, c)| *c);
                        format!("{} {:.0}/s", s.name(), n.saturating_sub(before) as f64 / dt)
                    })
                    .collect::<Vec<_>>()
                    .join("  ")
            }
            _ => String::new(),
        };
        bar.set_message(rates);
        last = Some((p.elapsed_s, p.per_stream.clone()));
    })
}
