//! `vista live [--connect ADDR] [--profile FILE] [--stay] [--speak DIR …]`: runs the runtime
//! on live input from the glasses' bridge or `vista device-sim`, in `ClockMode::Live`, and
//! writes the same profile JSON as `vista replay` plus a `link` section (connections, drops,
//! bad frames and per-stream link latency from capture to arrival).
//!
//! With `--speak DIR` the whole assistant runs on the live stream, with every option and
//! output of `replay --speak`. The calibration comes from the device's hello, rescaled to
//! the image sizes seen in the first half second (read ahead, then delivered in order).
//! Device time maps to host time through the live clock-offset estimate (`LiveClock`), so
//! scripted requests (`t_ns` on the device clock) fall due when the stream reaches them and
//! `session_clock.json` uses the offset estimated at the end of the run. Live input has no
//! point map and no MPS-derived streams (pose, eye gaze, hands): `--map SESSION` supplies
//! that session's semi-dense map and merges its MPS streams in by capture time (evaluation,
//! or a place mapped before); `--truth SESSION` scores the run against that session's
//! ground truth (and takes its `requests.jsonl` unless `--requests` is given). Link drops
//! and reconnects do not stop the assistant; a goodbye ends the run with everything written.
//!
//! The flags become a [`Pipeline`]; this file prints its report.

use std::path::PathBuf;

use vista::pipeline::{Input, LiveInput, Pipeline};

use super::speak::SpeakArgs;

/// Arguments of `vista live`.
#[derive(Debug, clap::Args)]
pub struct LiveArgs {
    /// The device bridge or simulator, `host:port` or `unix:/path`.
    #[arg(long, default_value = "127.0.0.1:7878", value_name = "ADDR")]
    pub connect: String,
    /// Listen here and let the device connect (`vista device-sim --connect ADDR`) instead
    /// of connecting to it: a loopback `host:port` or `unix:/path`.
    #[arg(long, value_name = "ADDR", conflicts_with = "connect")]
    pub listen: Option<String>,
    /// Shared token, when the device requires one.
    #[arg(long, value_name = "TOKEN")]
    pub token: Option<String>,
    /// Write the report as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// After the device says goodbye, wait for the next connection instead of exiting.
    #[arg(long)]
    pub stay: bool,
    /// Plausibility window of the device clock, seconds: a capture time further than this
    /// from its arrival (or, in the runtime, ahead of the session clock) is left out as an
    /// outlier and counted; a run of them is a device-clock restart, which continues the
    /// session clock.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    pub max_clock_jump_s: f64,
    /// Seconds to keep trying to (re)connect before giving up.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    pub reconnect_s: f64,
    /// With `--speak`: the semi-dense map and MPS-derived streams (pose, eye gaze, hands)
    /// of this session folder, merged in by capture time (live input has none).
    #[arg(long, value_name = "SESSION")]
    pub map: Option<PathBuf>,
    /// With `--speak`: score the run against this session's ground truth (and take its
    /// `requests.jsonl` unless `--requests` is given).
    #[arg(long, value_name = "SESSION")]
    pub truth: Option<PathBuf>,
    /// A Rerun recording of the run.
    #[command(flatten)]
    pub view: super::rerun::RerunArgs,
    /// The assistant (`--speak DIR` and its options).
    #[command(flatten)]
    pub speak: SpeakArgs,
}

/// Runs `vista live`.
pub fn run(args: LiveArgs) -> anyhow::Result<()> {
    let input = LiveInput {
        address: args.listen.clone().unwrap_or(args.connect),
        listen: args.listen.is_some(),
        token: args.token,
        stay: args.stay,
        max_clock_jump_s: args.max_clock_jump_s,
        reconnect_s: args.reconnect_s,
        map: args.map,
        truth: args.truth,
    };
    let mut pipeline = Pipeline::new(Input::Live(input))
        .handle_signals(true)
        .with_view(args.view.target());
    if let Some(options) = args.speak.options()? {
        pipeline = pipeline.with_assistant(options);
    }
    if let Some(path) = args.profile {
        pipeline = pipeline.with_profile_file(path);
    }
    let outcome = pipeline.run()?;
    print!("{}", outcome.stream_table);
    if let Some(report) = &outcome.assistant_report {
        print!("{report}");
    }
    if outcome.stop_reason.is_error() {
        anyhow::bail!("live run stopped: {:?}", outcome.stop_reason);
    }
    Ok(())
}
