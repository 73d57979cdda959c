//! `vista profile SESSION [--rate R] [--out DIR]`: the whole assistant on a session in real
//! time (a `replay --speak` at rate R, 1 by default), then where every millisecond went:
//! per-stream pacing, per-stage latency, capture → decision → first audio per utterance,
//! hazard alert latency, and (with ground truth) the accuracy table. Writes the same files
//! as `replay --speak`. `--recorded-only` runs it in live mode (no MPS); the report says
//! which mode it ran (`run.json`).

use std::path::PathBuf;

use super::replay::ReplayArgs;
use super::speak::SpeakArgs;

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
    /// Where speech plays (`wav`, `device`, `null`).
    #[arg(long, value_enum, default_value = "wav")]
    pub audio: vista::speech::sink::AudioChoice,
    /// Do not read text.
    #[arg(long)]
    pub no_ocr: bool,
    /// Do not compute stereo depth from the SLAM cameras (on by default).
    #[arg(long)]
    pub no_depth: bool,
    /// Stereo depth is on by default; `--depth` is still accepted (no effect).
    #[arg(long, hide = true, conflicts_with = "no_depth")]
    pub depth: bool,
    /// Do not look for vehicles moving in the SLAM cameras' images (on by default).
    #[arg(long)]
    pub no_movers: bool,
    /// The language model for scenes and open questions (GGUF path; default: SmolLM2 from
    /// the model cache when present).
    #[arg(long, value_name = "GGUF|default")]
    pub lm: Option<String>,
    /// Templates only, no language model.
    #[arg(long, conflicts_with = "lm")]
    pub no_lm: bool,
    /// A model bundle: its language model and, when it has one, its fusion network's
    /// sensor tokens in the prompts.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["lm", "no_lm"])]
    pub bundle: Option<String>,
    /// llama.cpp threads (default: from the cores and the load, per request).
    #[arg(long, value_name = "N")]
    pub lm_threads: Option<u32>,
    /// Scripted requests (default: the session's `requests.jsonl`).
    #[arg(long, value_name = "FILE")]
    pub requests: Option<PathBuf>,
    /// Live mode: replay only what the glasses stream (no MPS trajectory, points, gaze or
    /// hands; the device pose is derived from the IMU), as a wearer has it.
    #[arg(long)]
    pub recorded_only: bool,
    /// No progress display.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Runs `vista profile`.
pub fn run(args: ProfileArgs) -> anyhow::Result<()> {
    if !(args.rate.is_finite() && args.rate > 0.0) {
        anyhow::bail!("--rate must be a positive number (got {})", args.rate);
    }
    let replay = ReplayArgs {
        session: args.session,
        rate: args.rate,
        asap: false,
        from: None,
        to: None,
        loops: 0,
        recorded_only: args.recorded_only,
        max_clock_jump_s: 10.0,
        profile: None,
        pacing_granularity_us: 0,
        digest: false,
        quiet: args.quiet,
        speak: SpeakArgs {
            speak: Some(args.out),
            audio: args.audio,
            requests: args.requests,
            stdin_requests: false,
            requests_listen: None,
            scene_every: None,
            no_ocr: args.no_ocr,
            no_depth: args.no_depth,
            depth: args.depth,
            no_movers: args.no_movers,
            lm: args.lm,
            no_lm: args.no_lm,
            bundle: args.bundle,
            lm_threads: args.lm_threads,
        },
    };
    super::replay::run(replay)
}
