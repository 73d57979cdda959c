//! `vista profile SESSION [--rate R] [--out DIR]`: the whole assistant on a session in real
//! time (a `replay --speak` at rate R, 1 by default), then where every millisecond went:
//! per-stream pacing, per-stage latency, capture → decision → first audio per utterance,
//! hazard alert latency, and (with ground truth) the accuracy table. Writes the same files
//! as `replay --speak`. `--recorded-only` runs it in live mode (no MPS); the report says
//! which mode it ran (`run.json`).

use std::path::PathBuf;

use vista::pipeline::{Input, Pace, Pipeline, ReplayInput};

use super::speak::AssistantFlags;

/// Arguments of `vista profile`.
#[derive(Debug, clap::Args)]
pub struct ProfileArgs {
    /// A session folder (`recording.vrs`, optional `mps/`, `requests.jsonl`) or a `.vrs`.
    pub session: PathBuf,
    /// Replay speed factor (1 = real time).
    #[arg(long, default_value_t = 1.0)]
    pub rate: f64,
    /// Output folder.
    #[arg(long, value_name = "DIR", default_value = "out/profile")]
    pub out: PathBuf,
    /// Live mode: replay only what the glasses stream (no MPS trajectory, points, gaze or
    /// hands; the device pose is derived from the IMU), as a wearer has it.
    #[arg(long)]
    pub recorded_only: bool,
    /// No progress display.
    #[arg(long, short)]
    pub quiet: bool,
    /// A Rerun recording of the run.
    #[command(flatten)]
    pub view: super::rerun::RerunArgs,
    /// What the assistant sees with, how it answers and where it speaks.
    #[command(flatten)]
    pub assistant: AssistantFlags,
}

/// Runs `vista profile`.
pub fn run(args: ProfileArgs) -> anyhow::Result<()> {
    let input = ReplayInput {
        pace: Pace::RealTime { rate: args.rate },
        recorded_only: args.recorded_only,
        ..ReplayInput::new(args.session)
    };
    let pipeline = Pipeline::new(Input::Replay(input))
        .with_assistant(args.assistant.options(args.out)?)
        .with_view(args.view.target())
        .handle_signals(true);
    super::replay::run_pipeline(pipeline, args.quiet, false)
}
