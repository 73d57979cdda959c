//! Command-line front end: parses arguments and reports errors (with `anyhow` context naming
//! the file and position) for every `vista` subcommand.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod ask;
mod bench;
mod calib;
mod device_sim;
mod inspect;
mod live;
mod replay;
mod say;
mod stats;
mod synth;
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
    /// Print a device calibration, or project / unproject points with one of its cameras.
    Calib(calib::CalibArgs),
    /// Print what a recording or session folder holds: streams, rates, times, tags,
    /// calibration and MPS files.
    Inspect(inspect::InspectArgs),
    /// Stream a recorded session into the runtime as it would have arrived live, paced by
    /// its device timestamps (or as fast as possible with --asap), and report per stream.
    Replay(replay::ReplayArgs),
    /// Per-channel mean and standard deviation of the sensor window over a training split
    /// (the normalisation statistics of a model bundle).
    Stats(stats::StatsArgs),
    /// The model's view of one moment: every stream's 64-bin grid and the 8 frames' times.
    Window(window::WindowArgs),
    /// Write a synthetic session (recording, MPS, requests, ground truth) of a scripted
    /// wearer in a simple 3D world, or list the scenarios with --list.
    Synth(synth::SynthArgs),
    /// Speak a text with eSpeak NG, clause by clause, on the sound device or into a WAV file.
    Say(say::SayArgs),
    /// Run the runtime on live input from the glasses' bridge or `vista device-sim`.
    Live(live::LiveArgs),
    /// Play a recorded session into a socket with the live protocol and its real timing.
    DeviceSim(device_sim::DeviceSimArgs),
    /// Ask the language model a question; the answer streams to standard output.
    Ask(ask::AskArgs),
    /// Measure an engine's speed (`vista bench lm`).
    Bench(bench::BenchArgs),
}

/// Parses the command line, runs the subcommand, and maps errors to a non-zero exit.
pub fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let cli = Cli::parse();
    let result: anyhow::Result<()> = match cli.command {
        Command::Calib(args) => calib::run(args),
        Command::Inspect(args) => inspect::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Stats(args) => stats::run(args),
        Command::Window(args) => window::run(args),
        Command::Say(args) => say::run(args),
        Command::Live(args) => live::run(args),
        Command::DeviceSim(args) => device_sim::run(args),
        Command::Synth(args) => synth::run(args),
        Command::Ask(args) => ask::run(args),
        Command::Bench(args) => bench::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
