//! Command-line front end: parses arguments and reports errors (with `anyhow` context naming
//! the file and position) for every `vista` subcommand.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod answer;
#[cfg(feature = "llm")]
mod ask;
#[cfg(feature = "llm")]
mod bench;
mod calib;
mod detect;
mod device_sim;
mod eval;
mod inspect;
mod judge;
mod listen;
mod live;
mod ocr;
mod profile;
mod replay;
mod rerun;
mod say;
mod score;
mod speak;
mod stats;
mod synth;
mod tts_worker;
mod understand;
mod window;

/// vista: a wearable assistant runtime for Project Aria glasses.
#[derive(Debug, Parser)]
#[command(name = "vista", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// The assistant's view of one environment state: the state as text, the template
    /// answer to a request, and the safety guard's verdict on a generated answer.
    Answer(answer::AnswerArgs),
    /// Print a device calibration, or project / unproject points with one of its cameras.
    Calib(calib::CalibArgs),
    /// Print what a recording or session folder holds: streams, rates, times, tags,
    /// calibration and MPS files.
    Inspect(inspect::InspectArgs),
    /// Stream a recorded session into the runtime as it would have arrived live, paced by
    /// its device timestamps (or as fast as possible with --asap), and report per stream.
    Replay(replay::ReplayArgs),
    /// The whole assistant on a session in real time, and where every millisecond goes
    /// (from capture on the glasses to the first audio sample).
    Profile(profile::ProfileArgs),
    /// Per-channel mean and standard deviation of the sensor window over a training split
    /// (the normalisation statistics of a model bundle).
    Stats(stats::StatsArgs),
    /// The model's view of one moment: every stream's 64-bin grid and the 8 frames' times.
    Window(window::WindowArgs),
    /// Write a synthetic session (recording, MPS, requests, ground truth) of a scripted
    /// wearer in a simple 3D world, or list the scenarios with --list.
    Synth(synth::SynthArgs),
    /// Read text in a JPEG image (PP-OCRv4), around a point or in the whole image.
    Ocr(ocr::OcrArgs),
    /// Find things (people, cars, chairs, cups: the 80 COCO classes) in JPEG or PNG images,
    /// or measure the detector on labelled photos.
    Detect(detect::DetectArgs),
    /// What vista hears in an audio file: the utterances, their words (Moonshine) and the
    /// request each parses to.
    Listen(listen::ListenArgs),
    /// The typed request a text parses to, or the paraphrase yardstick scored with --set.
    Understand(understand::UnderstandArgs),
    /// Speak a text with eSpeak NG, clause by clause, on the sound device or into a WAV file.
    Say(say::SayArgs),
    /// Run the runtime on live input from the glasses' bridge or `vista device-sim`.
    Live(live::LiveArgs),
    /// Play a recorded session into a socket with the live protocol and its real timing.
    DeviceSim(device_sim::DeviceSimArgs),
    /// Score a run's decisions and transcript against the session's ground truth.
    Score(score::ScoreArgs),
    /// Write, replay and score a suite of scenarios × seeds × modes (resumable, sharded,
    /// merged), with a report per scenario, task category and response form.
    Eval(eval::EvalArgs),
    /// Ask the language model a question; the answer streams to standard output
    /// (cargo feature `llm`).
    #[cfg(feature = "llm")]
    Ask(ask::AskArgs),
    /// Score every answer of runs with the paper's judge prompt and rubric (a local GGUF
    /// model, cargo feature `llm`, or an OpenAI-compatible endpoint).
    Judge(judge::JudgeArgs),
    /// Measure an engine's speed (`vista bench lm`; cargo feature `llm`).
    #[cfg(feature = "llm")]
    Bench(bench::BenchArgs),
    /// The speech worker vista runs itself as (eSpeak NG in its own process; requests on
    /// standard input, audio on standard output).
    #[command(hide = true)]
    TtsWorker,
}

/// Parses the command line, runs the subcommand, and maps errors to a non-zero exit.
pub fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let cli = Cli::parse();
    if !matches!(cli.command, Command::TtsWorker) {
        tts_worker::use_for_speech();
    }
    let result: anyhow::Result<()> = match cli.command {
        Command::Answer(args) => answer::run(args),
        Command::Calib(args) => calib::run(args),
        Command::Inspect(args) => inspect::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Profile(args) => profile::run(args),
        Command::Stats(args) => stats::run(args),
        Command::Window(args) => window::run(args),
        Command::Ocr(args) => ocr::run(args),
        Command::Detect(args) => detect::run(args),
        Command::Listen(args) => listen::run(args),
        Command::Understand(args) => understand::run(args),
        Command::Say(args) => say::run(args),
        Command::Live(args) => live::run(args),
        Command::DeviceSim(args) => device_sim::run(args),
        Command::Synth(args) => synth::run(args),
        Command::Score(args) => score::run(args),
        Command::Eval(args) => eval::run(args),
        #[cfg(feature = "llm")]
        Command::Ask(args) => ask::run(args),
        #[cfg(feature = "llm")]
        Command::Bench(args) => bench::run(args),
        Command::Judge(args) => judge::run(args),
        Command::TtsWorker => tts_worker::run(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;

    /// Every subcommand's flags are well formed: no two with one name (a clash passes the
    /// compiler and panics only when that subcommand is run), every default valid.
    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }
}
